import Foundation
import Testing
@testable import SwiftPJSUAKit

@Suite("Orchestrator: incoming calls in every arrival order")
struct CallOrchestratorIncomingTests {
    private let call = FakeCall(id: 1)

    @Test func pushThenInviteReportsOnceAndRingsTheInvite() async {
        let h = await Harness()
        let outcome = await h.push("c1")
        await h.invite(call, "c1")
        let uuid = CallIdentity.uuid(forSIPCallID: "c1")
        #expect(outcome == .reportedNewCall(uuid))
        #expect(h.provider.newIncomingUUIDs == [uuid])
        #expect(h.engine.log == ["ring #1"])
        #expect(await h.core.call(uuid)?.handle == call)
    }

    @Test func theEngineHandleOfAPushedCallIsKnownOnlyOnceItsInviteArrived() async {
        let h = await Harness()
        let other = FakeCall(id: 2)
        await h.invite(other, "c2")
        _ = await h.push("c1")
        let uuid = CallIdentity.uuid(forSIPCallID: "c1")
        #expect(await h.core.handle(for: uuid) == nil, "no engine call before the INVITE, whatever other calls have")
        await h.invite(call, "c1")
        #expect(await h.core.handle(for: uuid) == call)
        #expect(await h.core.handle(for: CallIdentity.uuid(forSIPCallID: "c2")) == other)
        await h.state(call, .disconnected, "c1", 487)
        #expect(await h.core.handle(for: uuid) == nil, "an ended call has no handle")
        #expect(await h.core.handle(for: UUID()) == nil)
    }

    @Test func inviteThenPushReportsOnceAndAcknowledgesThePush() async {
        let h = await Harness()
        await h.invite(call, "c1")
        let outcome = await h.push("c1", uuid: UUID())
        let uuid = CallIdentity.uuid(forSIPCallID: "c1")
        #expect(outcome == .repeatedCall(uuid))
        // The push is posted under a fresh placeholder UUID, ended at once; the call is untouched.
        let posted = h.provider.newIncomingUUIDs
        #expect(posted.count == 2)
        #expect(posted.first == uuid)
        #expect(posted.last != uuid)
        #expect(h.provider.refusedCount == 0)
        #expect(h.provider.reports.last.map { $0 == .ended(posted[1], .failed) } == true)
        #expect(await h.core.liveCalls.count == 1)
        #expect(await h.core.call(uuid) != nil)
    }

    @Test func inviteArrivingThroughTheEngineStreamIsReported() async {
        let h = await Harness()
        h.engine.emit(.incomingCall(call: call, sipCallID: "c1", from: "sip:alice@example.com", offeredVideo: true))
        await eventually("the INVITE is reported") { h.provider.newIncomingUUIDs.count == 1 }
        // Offered video does not make a video call: the engine answers audio-only.
        #expect(h.provider.reports.first == .newIncoming(CallIdentity.uuid(forSIPCallID: "c1"),
                                                         CallUpdate(remoteHandle: "sip:alice@example.com", hasVideo: false)))
    }

    @Test func duplicatePushesPostAPlaceholderEachAndLeaveTheCallAlone() async {
        let h = await Harness()
        let uuid = CallIdentity.uuid(forSIPCallID: "c1")
        _ = await h.push("c1")
        #expect(await h.push("c1") == .repeatedCall(uuid))
        #expect(await h.push("c1") == .repeatedCall(uuid))
        let posted = h.provider.newIncomingUUIDs
        #expect(posted.count == 3, "every push ends in a posted call")
        #expect(Set(posted).count == 3)
        #expect(h.provider.refusedCount == 0)
        #expect(Set(h.provider.endings.map(\.0)) == Set(posted.dropFirst()), "each placeholder is ended, the call is not")
        #expect(await h.core.call(uuid) != nil)
    }

    @Test func inviteRetransmissionIsIgnored() async {
        let h = await Harness()
        await h.invite(call, "c1")
        await h.invite(call, "c1")
        #expect(h.provider.newIncomingUUIDs.count == 1)
        #expect(h.engine.log == ["ring #1"])
    }

    @Test func secondEngineCallWithTheSameCallIDIsRejectedAsLoop() async {
        let h = await Harness()
        await h.invite(call, "c1")
        await h.invite(FakeCall(id: 2), "c1")
        #expect(h.provider.newIncomingUUIDs.count == 1)
        #expect(h.engine.log == ["ring #1", "reject #2 482"])
    }

    @Test func pushForACallTheCallerAlreadyCancelledIsReportedAndEndedAtOnce() async {
        let h = await Harness()
        await h.invite(call, "c1")
        await h.state(call, .disconnected, "c1", 487)
        let outcome = await h.push("c1")
        let uuid = CallIdentity.uuid(forSIPCallID: "c1")
        #expect(outcome == .reportedAndEnded(uuid, .unanswered))
        // The late push is posted under a fresh UUID (the provider would refuse the ended call's
        // UUID, and a refused report leaves the push unreported), then ended at once.
        let posted = h.provider.newIncomingUUIDs
        #expect(posted.count == 2)
        #expect(posted.first == uuid)
        #expect(posted.last != uuid)
        #expect(h.provider.refusedCount == 0)
        #expect(h.provider.reports.suffix(2) == [
            .newIncoming(posted[1], CallUpdate(remoteHandle: "sip:alice@example.com")), .ended(posted[1], .failed),
        ])
    }

    @Test func cancellingPushBeforeTheInviteEndsTheCallAndTheLateInviteIsDeclined() async {
        let h = await Harness()
        _ = await h.push("c1")
        let outcome = await h.push("c1", cancelled: true)
        await h.invite(call, "c1")
        let uuid = CallIdentity.uuid(forSIPCallID: "c1")
        #expect(outcome == .reportedAndEnded(uuid, .unanswered))
        #expect(h.provider.endings.first.map { $0 == (uuid, .unanswered) } == true, "the pushed call ends as missed")
        // The cancelling push itself is posted under a placeholder, ended at once.
        #expect(h.provider.newIncomingUUIDs.count == 2)
        #expect(h.provider.refusedCount == 0)
        #expect(h.provider.endings.count == 2)
        #expect(h.engine.log == ["reject #1 603"])
    }

    @Test func cancellingPushForAnUnknownCallIsStillReported() async {
        let h = await Harness()
        let outcome = await h.push("c9", cancelled: true)
        let uuid = CallIdentity.uuid(forSIPCallID: "c9")
        #expect(outcome == .reportedAndEnded(uuid, .unanswered))
        #expect(h.provider.newIncomingUUIDs == [uuid])
        #expect(h.provider.endings.map(\.0) == [uuid])
    }

    @Test func pushWhoseInviteNeverComesEndsAsFailedAfterTheTimeout() async {
        let h = await Harness(inviteTimeout: .milliseconds(50))
        _ = await h.push("c1")
        let uuid = CallIdentity.uuid(forSIPCallID: "c1")
        await eventually("the call is ended") { h.provider.endings.count == 1 }
        #expect(h.provider.endings.first?.0 == uuid)
        #expect(h.provider.endings.first?.1 == .failed)
        #expect(await h.core.liveCalls.isEmpty)
    }

    @Test func inviteBeforeTheTimeoutCancelsTheTimer() async throws {
        let h = await Harness(inviteTimeout: .milliseconds(50))
        _ = await h.push("c1")
        await h.invite(call, "c1")
        try await Task.sleep(for: .milliseconds(150))
        #expect(h.provider.endings.isEmpty)
        #expect(await h.core.liveCalls.count == 1)
    }

    @Test func unreadablePushIsReportedAndEndedAsFailed() async {
        let h = await Harness()
        let outcome = await h.core.handleIncomingPush(.failure(.missingField("call-id")))
        guard case let .invalidPayload(uuid, error) = outcome else {
            Issue.record("outcome \(outcome)")
            return
        }
        #expect(error == .missingField("call-id"))
        #expect(h.provider.reports == [.newIncoming(uuid, CallUpdate()), .ended(uuid, .failed)])
    }

    @Test func callRefusedByTheSystemIsDeclinedBusy() async {
        let h = await Harness()
        h.provider.refuseNewCalls()
        await h.invite(call, "c1")
        #expect(h.engine.log == ["reject #1 486"])
        #expect(await h.core.liveCalls.isEmpty)
    }

    @Test func pushedCallRefusedByTheSystemHasItsInviteDeclined() async {
        let h = await Harness()
        h.provider.refuseNewCalls()
        let outcome = await h.push("c1")
        await h.invite(call, "c1")
        #expect(outcome == .refusedBySystem(CallIdentity.uuid(forSIPCallID: "c1")))
        #expect(h.engine.log == ["reject #1 603"])
    }

    @Test func remoteHangupOfAnAnsweredCallIsReportedAsRemoteEnded() async throws {
        let h = await Harness()
        await h.invite(call, "c1")
        let uuid = CallIdentity.uuid(forSIPCallID: "c1")
        try await h.core.answerCall(uuid: uuid)
        await h.state(call, .confirmed, "c1", 200)
        await h.state(call, .disconnected, "c1", 200)
        #expect(h.provider.endings.map(\.1) == [.remoteEnded])
        #expect(h.engine.log == ["ring #1", "answer #1"])
    }

    @Test func callerGivingUpIsReportedAsUnanswered() async {
        let h = await Harness()
        await h.invite(call, "c1")
        await h.state(call, .disconnected, "c1", 487)
        #expect(h.provider.endings.map(\.1) == [.unanswered])
    }

    @Test func networkIsRecoveredOnANewPushWhenAnAccountIsConfigured() async {
        let h = await Harness(wakeAccount: "alice")
        _ = await h.push("c1")
        _ = await h.push("c1")
        #expect(h.engine.log == ["recover alice"])
        let quiet = await Harness()
        _ = await quiet.push("c2")
        #expect(quiet.engine.log.isEmpty)
    }

    @Test func wakeAccountSetAfterLaunchIsRecoveredOnTheNextPush() async {
        let h = await Harness()
        _ = await h.push("c1")
        await h.core.setWakeAccount("alice")
        _ = await h.push("c2")
        await h.core.setWakeAccount(nil)
        _ = await h.push("c3")
        #expect(h.engine.log == ["recover alice"])
    }
}
