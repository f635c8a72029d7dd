import Foundation
import Synchronization
import Testing
@testable import SwiftPJSUAKit

/// iOS terminates an app whose VoIP push ends without a new incoming call posted to CallKit; a
/// report CallKit refuses does not count. These tests hold the core to "every push ends in a
/// posted report" with a provider that refuses, like CallKit, any UUID it has already seen.
@Suite("Orchestrator: every VoIP push ends in a posted call")
struct PushContractTests {
    private let call = FakeCall(id: 1)
    private let uuid = CallIdentity.uuid(forSIPCallID: "c1")

    /// The number of pushes handled must never exceed the calls the provider accepted.
    private func expectEveryPushPosted(_ h: Harness, pushes: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(h.provider.newIncomingUUIDs.count >= pushes, "\(h.provider.reports)", sourceLocation: sourceLocation)
    }

    @Test func latePushForAnEndedCallIsPostedUnderAFreshUUIDAndEndedAtOnce() async {
        let h = await Harness()
        _ = await h.push("c1")
        await h.invite(call, "c1")
        try? await h.core.answerCall(uuid: uuid)
        await h.state(call, .confirmed, "c1", 200)
        await h.state(call, .disconnected, "c1", 200)
        let outcome = await h.push("c1")
        #expect(outcome == .reportedAndEnded(uuid, .remoteEnded))
        #expect(h.provider.refusedCount == 0, "the ended call's UUID is never reported again")
        expectEveryPushPosted(h, pushes: 2)
        let placeholder = h.provider.newIncomingUUIDs[1]
        #expect(placeholder != uuid)
        #expect(h.provider.reports.last == .ended(placeholder, .failed))
    }

    @Test func latePushAfterTheUserDeclinedIsPostedAndItsUUIDNotReused() async throws {
        let h = await Harness()
        await h.invite(call, "c1")
        try await h.core.endCall(uuid: uuid)
        await h.state(call, .disconnected, "c1", 603)
        _ = await h.push("c1", uuid: uuid)
        #expect(h.provider.refusedCount == 0)
        expectEveryPushPosted(h, pushes: 1)
        #expect(Set(h.provider.newIncomingUUIDs).count == h.provider.newIncomingUUIDs.count)
    }

    @Test func pushAfterItsInviteIsPostedAsAPlaceholder() async {
        let h = await Harness()
        await h.invite(call, "c1")
        #expect(await h.push("c1") == .repeatedCall(uuid))
        #expect(h.provider.refusedCount == 0)
        expectEveryPushPosted(h, pushes: 1)
        #expect(h.provider.newIncomingUUIDs.count == 2)
        #expect(h.provider.endings.map(\.0) == [h.provider.newIncomingUUIDs[1]])
    }

    @Test func cancellingPushForAKnownCallEndsItAndIsPostedAsAPlaceholder() async {
        let h = await Harness()
        _ = await h.push("c1")
        #expect(await h.push("c1", cancelled: true) == .reportedAndEnded(uuid, .unanswered))
        #expect(h.provider.refusedCount == 0)
        expectEveryPushPosted(h, pushes: 2)
        #expect(h.provider.endings.first.map { $0 == (uuid, .unanswered) } == true)
    }

    @Test func repeatedCancellingPushesAreEachPosted() async {
        let h = await Harness()
        for _ in 0..<3 { _ = await h.push("c9", cancelled: true) }
        #expect(h.provider.refusedCount == 0)
        expectEveryPushPosted(h, pushes: 3)
        #expect(h.provider.newIncomingUUIDs.first == CallIdentity.uuid(forSIPCallID: "c9"))
        #expect(h.provider.endings.count == 3, "each posted call is ended")
    }

    @Test func refusedReportOfAnUnknownCancelledCallIsRetriedUnderAFreshUUID() async {
        let h = await Harness()
        let cancelled = CallIdentity.uuid(forSIPCallID: "c9")
        h.provider.refuse(cancelled)
        #expect(await h.push("c9", cancelled: true) == .reportedAndEnded(cancelled, .unanswered))
        #expect(h.provider.reports.first == .refused(cancelled))
        let posted = h.provider.newIncomingUUIDs
        #expect(posted.count == 1)
        #expect(posted.first != cancelled)
        #expect(h.provider.endings.map(\.0) == posted)
    }

    @Test func newCallRefusedForItsUUIDIsDeclinedAndThePushPostedUnderAFreshUUID() async {
        let h = await Harness()
        h.provider.refuse(uuid)
        #expect(await h.push("c1") == .refusedBySystem(uuid))
        expectEveryPushPosted(h, pushes: 1)
        #expect(h.provider.newIncomingUUIDs.first != uuid)
        #expect(h.provider.endings.map(\.0) == h.provider.newIncomingUUIDs)
        await h.invite(call, "c1")
        #expect(h.engine.log == ["reject #1 603"])
    }

    @Test func doNotDisturbRefusingEverythingIsTriedTwiceThenGivenUp() async {
        let h = await Harness()
        h.provider.refuseNewCalls()
        #expect(await h.push("c1") == .refusedBySystem(uuid))
        #expect(h.provider.refusedCount == 2, "the call, then one placeholder")
        _ = await h.core.handleIncomingPush(.failure(.malformedJSON))
        #expect(h.provider.refusedCount == 4)
        #expect(h.provider.endings.isEmpty, "nothing was posted, so nothing is ended")
    }

    @Test func completionRunsAfterThePushIsPostedEvenWhenNobodyKeepsTheCore() async {
        let provider = FakeProvider()
        let completed = Completion()
        do {
            let core = TestOrchestrator(engine: FakeEngine(), provider: provider, audioSession: FakeAudioSession())
            core.handleIncomingPush(.success(VoIPPushPayload(sipCallID: "c1")), completion: { completed.mark(posted: provider.newIncomingUUIDs.count) })
        }
        await eventually("PushKit's completion is called") { completed.postedWhenCalled != nil }
        #expect(completed.postedWhenCalled == 1, "the completion runs after the report, not before")
    }
}

/// Records when a completion ran and how many calls were posted by then.
private final class Completion: Sendable {
    private let posted = Mutex<Int?>(nil)

    var postedWhenCalled: Int? { posted.withLock { $0 } }
    func mark(posted count: Int) { posted.withLock { $0 = count } }
}
