import Foundation
import Testing
@testable import SwiftPJSUAKit

@Suite("Orchestrator: the call UI's video flag follows the media")
struct MediaVideoTests {
    private let call = FakeCall(id: 1)
    private let uuid = CallIdentity.uuid(forSIPCallID: "c1")

    @Test func pushAndInviteOfferingVideoAreReportedAsAudioCalls() async {
        let h = await Harness()
        _ = await h.core.handleIncomingPush(VoIPPushPayload(sipCallID: "c1", hasVideo: true))
        await h.core.process(.incomingCall(call: call, sipCallID: "c1", from: "sip:a@example.com", offeredVideo: true))
        await h.core.process(.incomingCall(call: FakeCall(id: 2), sipCallID: "c2", from: "sip:b@example.com", offeredVideo: true))
        let reported = h.provider.reports.compactMap { if case let .newIncoming(_, update) = $0 { update } else { nil } }
        #expect(reported.count == 2)
        #expect(reported.allSatisfy { !$0.hasVideo })
        #expect(h.provider.updates.isEmpty)
        #expect(await h.core.call(uuid)?.update.hasVideo == false)
    }

    @Test func videoStartingAndStoppingIsReportedOnceEach() async {
        let h = await Harness()
        await h.invite(call, "c1")
        await h.core.process(.mediaChanged(call: call, hasVideo: false))
        #expect(h.provider.updates.isEmpty, "no change, no report")
        await h.core.process(.mediaChanged(call: call, hasVideo: true))
        await h.core.process(.mediaChanged(call: call, hasVideo: true))
        await h.core.process(.mediaChanged(call: call, hasVideo: false))
        #expect(h.provider.updates.map(\.0) == [uuid, uuid])
        #expect(h.provider.updates.map(\.1.hasVideo) == [true, false])
        #expect(h.provider.updates.first?.1.remoteHandle == "sip:alice@example.com", "the update keeps what the UI shows")
    }

    @Test func mediaEventOfAnOutgoingCallStillBeingPlacedIsAppliedOnceItsHandleIsKnown() async throws {
        let h = await Harness()
        // FakeEngine's next call is #1001; its media event arrives before makeCall returns.
        await h.core.process(.mediaChanged(call: FakeCall(id: 1001), hasVideo: true))
        let outgoing = UUID()
        try await h.core.startCall(uuid: outgoing, to: "sip:bob@example.com")
        #expect(h.provider.updates.map(\.0) == [outgoing])
        #expect(await h.core.call(outgoing)?.update.hasVideo == true)
    }

    @Test func mediaEventOfAnUnknownCallReportsNothing() async {
        let h = await Harness()
        await h.core.process(.mediaChanged(call: FakeCall(id: 9), hasVideo: true))
        #expect(h.provider.reports.isEmpty)
    }
}
