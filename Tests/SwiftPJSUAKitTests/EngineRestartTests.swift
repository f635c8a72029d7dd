import Foundation
import Testing
@testable import SwiftPJSUAKit

@Suite("Orchestrator: the engine shutting down and starting again")
struct EngineRestartTests {
    @Test func callsOfTheNextRunAreReportedAfterTheEventSequenceEnds() async {
        let h = await Harness()
        #expect(h.engine.subscriptionCount == 1)
        h.engine.finishEvents()
        await eventually("the core subscribed again") { h.engine.subscriptionCount == 2 }
        h.engine.emit(.incomingCall(call: FakeCall(id: 0), sipCallID: "next-run", from: "sip:bob@example.com", offeredVideo: false))
        await eventually("the next run's INVITE is reported") { h.provider.newIncomingUUIDs.count == 1 }
        #expect(h.provider.newIncomingUUIDs == [CallIdentity.uuid(forSIPCallID: "next-run")])
    }

    @Test func callsOfTheEndedRunAreReportedEndedAndTheirActionsFailed() async throws {
        let h = await Harness()
        let incoming = FakeCall(id: 1)
        let incomingUUID = CallIdentity.uuid(forSIPCallID: "c1")
        await h.invite(incoming, "c1")
        try await h.core.answerCall(uuid: incomingUUID)
        await h.state(incoming, .confirmed, "c1", 200)
        let outgoingUUID = UUID()
        try await h.core.startCall(uuid: outgoingUUID, to: "sip:bob@example.com")
        let declined = CallIdentity.uuid(forSIPCallID: "c2")
        await h.invite(FakeCall(id: 2), "c2")
        try await h.core.endCall(uuid: declined)  // the user declined; its DISCONNECTED never comes

        h.engine.finishEvents()
        await eventually("the ghost calls are gone") { await h.core.liveCalls.isEmpty }
        let endings = Dictionary(h.provider.endings, uniquingKeysWith: { first, _ in first })
        #expect(endings[incomingUUID] == .failed)
        #expect(endings[outgoingUUID] == .failed)
        #expect(endings[declined] == nil, "a call the user ended is not reported back")
        #expect(h.provider.endings.count == 2)
        #expect(await h.core.endedCall(incomingUUID)?.reason == .failed)
    }

    @Test func pushedCallWaitingForItsInviteSurvivesTheRestartAndTheNextRunCarriesItOut() async throws {
        let h = await Harness()
        // A call of the old run whose handle the next run reuses.
        let old = FakeCall(id: 1)
        await h.invite(old, "old")
        _ = await h.push("c1")
        let uuid = CallIdentity.uuid(forSIPCallID: "c1")
        let answer = Task { try await h.core.answerCall(uuid: uuid) }
        await eventually("the answer is queued") { await h.core.pendingActionCount(for: uuid) == 1 }

        h.engine.finishEvents()
        await eventually("the core subscribed again") { h.engine.subscriptionCount == 2 }
        await eventually("the old run's call is ended") { await h.core.call(CallIdentity.uuid(forSIPCallID: "old")) == nil }
        #expect(await h.core.call(uuid) != nil)
        #expect(await h.core.pendingActionCount(for: uuid) == 1)

        h.engine.emit(.incomingCall(call: FakeCall(id: 1), sipCallID: "c1", from: "sip:alice@example.com", offeredVideo: false))
        try await answer.value
        #expect(h.engine.log.last == "answer #1")
        #expect(await h.core.call(uuid)?.handle == FakeCall(id: 1))
    }

    @Test func eventsBufferedForAnUnknownHandleDoNotLeakIntoTheNextRun() async throws {
        let h = await Harness()
        // An event for a handle the core never learnt (an outgoing call still being placed).
        await h.state(FakeCall(id: 7), .disconnected, "stale", 500)
        h.engine.finishEvents()
        await eventually("the core subscribed again") { h.engine.subscriptionCount == 2 }
        try await Task.sleep(for: .milliseconds(50))
        // The next run reuses handle 7 for a new call: the old run's DISCONNECTED must not end it.
        await h.invite(FakeCall(id: 7), "new")
        #expect(await h.core.call(CallIdentity.uuid(forSIPCallID: "new")) != nil)
        #expect(h.provider.endings.isEmpty)
    }

    @Test func stoppedCoreDoesNotSubscribeAgain() async throws {
        let h = await Harness()
        await h.core.stop()
        h.engine.finishEvents()
        try await Task.sleep(for: .milliseconds(100))
        #expect(h.engine.subscriptionCount == 1)
    }
}
