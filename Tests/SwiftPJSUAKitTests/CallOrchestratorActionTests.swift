import Foundation
import SwiftPJSUA
import Testing
@testable import SwiftPJSUAKit

@Suite("Orchestrator: provider actions")
struct CallOrchestratorActionTests {
    private let call = FakeCall(id: 1)
    private let uuid = CallIdentity.uuid(forSIPCallID: "c1")

    @Test func answerTappedBeforeTheInviteIsCarriedOutWhenItArrives() async throws {
        let h = await Harness()
        _ = await h.push("c1")
        let answer = Task { try await h.core.answerCall(uuid: uuid) }
        await eventually("the answer is queued") { await h.core.pendingActionCount(for: uuid) == 1 }
        #expect(h.engine.log.isEmpty)
        await h.invite(call, "c1")
        try await answer.value
        #expect(h.engine.log == ["answer #1"])
        #expect(h.audio.configurations == 1)
    }

    @Test func endTappedBeforeTheInviteDeclinesItWhenItArrives() async throws {
        let h = await Harness()
        _ = await h.push("c1")
        let end = Task { try await h.core.endCall(uuid: uuid) }
        await eventually("the end is queued") { await h.core.pendingActionCount(for: uuid) == 1 }
        await h.invite(call, "c1")
        try await end.value
        await h.state(call, .disconnected, "c1", 603)
        #expect(h.engine.log == ["reject #1 603"])
        #expect(h.provider.endings.isEmpty, "a call the user ended is not reported back as ended")
        #expect(await h.core.endedCall(uuid) != nil)
    }

    @Test func queuedAnswerFailsCleanlyOnTimeoutAndTheCallIsEnded() async {
        let h = await Harness(pendingActionTimeout: .milliseconds(50))
        _ = await h.push("c1")
        await #expect(throws: CallOrchestratorError.timedOut(uuid)) { try await h.core.answerCall(uuid: uuid) }
        #expect(h.provider.endings.map(\.1) == [.failed])
        #expect(await h.core.liveCalls.isEmpty)
        await h.invite(call, "c1")
        #expect(h.engine.log == ["reject #1 603"], "the late INVITE is declined, not answered")
    }

    @Test func queuedAnswerFailsWhenTheInviteTimeoutEndsTheCall() async {
        let h = await Harness(inviteTimeout: .milliseconds(50))
        _ = await h.push("c1")
        await #expect(throws: CallOrchestratorError.timedOut(uuid)) { try await h.core.answerCall(uuid: uuid) }
    }

    @Test func queuedAnswerFailsWhenACancellingPushEndsTheCall() async {
        let h = await Harness()
        _ = await h.push("c1")
        let answer = Task { try await h.core.answerCall(uuid: uuid) }
        await eventually("the answer is queued") { await h.core.pendingActionCount(for: uuid) == 1 }
        _ = await h.push("c1", cancelled: true)
        await #expect(throws: CallOrchestratorError.callEnded(uuid)) { try await answer.value }
    }

    /// CallKit's handle is a String; one that is not a SIP URI fails as the engine's
    /// invalidURI before anything is recorded, configured or sent.
    @Test func startingACallToSomethingThatIsNotASIPURIFailsBeforeAnythingHappens() async {
        let h = await Harness()
        let outgoing = UUID()
        do {
            try await h.core.startCall(uuid: outgoing, to: "sip:bob@example.com\r\nX-Evil: 1")
            Issue.record("started a call to an injected URI")
        } catch {
            guard case let .engine(engineError) = error else { Issue.record("\(error)"); return }
            #expect((engineError as? PJSUAError)?.code == .invalidURI)
        }
        #expect(h.engine.log.isEmpty)
        #expect(h.audio.configurations == 0)
        #expect(await h.core.liveCalls.isEmpty)
        try? await h.core.startCall(uuid: outgoing, to: "sip:bob@example.com")
        #expect(h.engine.log.first?.hasPrefix("place sip:bob@example.com") == true, "the UUID was not kept: \(h.engine.log)")
    }

    @Test func answeringAnUnknownCallFails() async {
        let h = await Harness()
        await #expect(throws: CallOrchestratorError.unknownCall(uuid)) { try await h.core.answerCall(uuid: uuid) }
    }

    @Test func engineRefusingTheAnswerFailsTheAction() async {
        let h = await Harness()
        h.engine.fail("answer")
        await h.invite(call, "c1")
        await #expect(throws: CallOrchestratorError.self) { try await h.core.answerCall(uuid: uuid) }
    }

    @Test func audioSessionFailureFailsTheAnswerBeforeTheEngineIsTouched() async {
        let h = await Harness()
        h.audio.fail()
        await h.invite(call, "c1")
        await #expect(throws: CallOrchestratorError.self) { try await h.core.answerCall(uuid: uuid) }
        #expect(h.engine.log == ["ring #1"])
    }

    @Test func endingAnEstablishedCallHangsUpAndIsNotReportedBack() async throws {
        let h = await Harness()
        await h.invite(call, "c1")
        try await h.core.answerCall(uuid: uuid)
        await h.state(call, .confirmed, "c1", 200)
        try await h.core.endCall(uuid: uuid)
        await h.state(call, .disconnected, "c1", 200)
        #expect(h.engine.log == ["ring #1", "answer #1", "hangup #1"])
        #expect(h.provider.endings.isEmpty)
        try await h.core.endCall(uuid: uuid)
    }

    @Test func outgoingCallReportsConnectingThenConnectedOnce() async throws {
        let h = await Harness()
        let out = UUID()
        try await h.core.startCall(uuid: out, to: "sip:bob@example.com")
        let handle = FakeCall(id: 1001)
        await h.state(handle, .early, "out-1001", 180)
        await h.state(handle, .confirmed, "out-1001", 200)
        await h.state(handle, .confirmed, "out-1001", 200)
        #expect(h.provider.reports == [.startedConnecting(out), .connected(out)])
        #expect(await h.core.call(out)?.sipCallID == "out-1001")
        await h.state(handle, .disconnected, "out-1001", 200)
        #expect(h.provider.reports.last == .ended(out, .remoteEnded))
    }

    @Test func outgoingCallRejectedBusyIsReportedUnanswered() async throws {
        let h = await Harness()
        let out = UUID()
        try await h.core.startCall(uuid: out, to: "sip:bob@example.com")
        await h.state(FakeCall(id: 1001), .disconnected, "out-1001", 486)
        #expect(h.provider.endings.first?.1 == .unanswered)
    }

    @Test func eventsOfAnOutgoingCallArrivingBeforeMakeCallReturnsAreReplayed() async throws {
        let h = await Harness()
        let out = UUID()
        // The next handle the fake engine gives out; its failure arrives before startCall attaches it.
        await h.state(FakeCall(id: 1001), .disconnected, "out-1001", 503)
        try await h.core.startCall(uuid: out, to: "sip:bob@example.com")
        #expect(h.provider.reports == [.startedConnecting(out), .ended(out, .failed)])
        #expect(await h.core.liveCalls.isEmpty)
    }

    @Test func engineRefusingTheOutgoingCallFailsTheStartActionAndFreesTheUUID() async {
        let h = await Harness()
        h.engine.fail("place")
        let out = UUID()
        await #expect(throws: CallOrchestratorError.self) { try await h.core.startCall(uuid: out, to: "sip:bob@example.com") }
        #expect(await h.core.liveCalls.isEmpty)
        #expect(h.provider.reports.isEmpty)
    }

    @Test func startingACallWithAUUIDInUseFails() async throws {
        let h = await Harness()
        let out = UUID()
        try await h.core.startCall(uuid: out, to: "sip:bob@example.com")
        await #expect(throws: CallOrchestratorError.duplicateCall(out)) { try await h.core.startCall(uuid: out, to: "sip:bob@example.com") }
    }

    @Test func holdMuteAndDTMFAreRoutedToTheCallsEngineHandle() async throws {
        let h = await Harness()
        await h.invite(call, "c1")
        try await h.core.setHeld(uuid: uuid, held: true)
        try await h.core.setMuted(uuid: uuid, muted: true)
        try await h.core.playDTMF(uuid: uuid, digits: "12#")
        #expect(h.engine.log == ["ring #1", "hold #1 true", "mute #1 true", "dtmf #1 12#"])
        h.engine.fail("hold")
        await #expect(throws: CallOrchestratorError.self) { try await h.core.setHeld(uuid: uuid, held: false) }
    }

    @Test func groupAndUngroupAreRoutedToTheEnginesConference() async throws {
        let h = await Harness()
        await h.invite(FakeCall(id: 1), "c1")
        await h.invite(FakeCall(id: 2), "c2")
        let first = CallIdentity.uuid(forSIPCallID: "c1")
        let second = CallIdentity.uuid(forSIPCallID: "c2")
        try await h.core.setHeld(uuid: first, held: true)
        try await h.core.setGroup(uuid: second, with: first)
        try await h.core.setGroup(uuid: second, with: nil)
        #expect(Array(h.engine.log.suffix(3)) == ["hold #1 true", "merge #2 #1", "split #2"])
        // Merging with a call the core does not know is refused before the engine is asked.
        let stranger = UUID()
        await #expect(throws: CallOrchestratorError.unknownCall(stranger)) { try await h.core.setGroup(uuid: first, with: stranger) }
        #expect(h.engine.count("merge") == 1)
        h.engine.fail("merge")
        await #expect(throws: CallOrchestratorError.self) { try await h.core.setGroup(uuid: first, with: second) }
    }

    @Test func holdBeforeTheInviteFailsAsNotReady() async {
        let h = await Harness()
        _ = await h.push("c1")
        await #expect(throws: CallOrchestratorError.callNotReady(uuid)) { try await h.core.setHeld(uuid: uuid, held: true) }
    }

    @Test func stopFailsWaitingActions() async {
        let h = await Harness()
        _ = await h.push("c1")
        let answer = Task { try await h.core.answerCall(uuid: uuid) }
        await eventually("the answer is queued") { await h.core.pendingActionCount(for: uuid) == 1 }
        await h.core.stop()
        await #expect(throws: CallOrchestratorError.callEnded(uuid)) { try await answer.value }
    }
}

@Suite("Orchestrator: provider reset")
struct ProviderResetTests {
    @Test func resetHangsUpEveryCallFailsWaitingActionsAndClosesTheDevice() async {
        let h = await Harness()
        await h.invite(FakeCall(id: 1), "c1")
        _ = await h.push("c2")
        let waiting = CallIdentity.uuid(forSIPCallID: "c2")
        let answer = Task { try await h.core.answerCall(uuid: waiting) }
        await eventually("the answer is queued") { await h.core.pendingActionCount(for: waiting) == 1 }
        await h.core.providerDidReset()
        await #expect(throws: CallOrchestratorError.callEnded(waiting)) { try await answer.value }
        #expect(await h.core.liveCalls.isEmpty)
        #expect(h.engine.log.contains("hangup #1"))
        #expect(h.engine.log.last == "disableAudio")
        #expect(h.provider.endings.isEmpty)
    }
}
