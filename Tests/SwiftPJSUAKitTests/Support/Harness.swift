import Foundation
import SwiftPJSUA
import Testing
@testable import SwiftPJSUAKit

typealias TestOrchestrator = CallOrchestrator<FakeEngine, FakeProvider, FakeAudioSession>

/// An orchestrator wired to fakes, with its event pump started.
struct Harness {
    let engine = FakeEngine()
    let provider = FakeProvider()
    let audio = FakeAudioSession()
    let core: TestOrchestrator

    init(inviteTimeout: Duration = .seconds(30), pendingActionTimeout: Duration = .seconds(30),
         wakeAccount: String? = nil, supportsVideo: Bool = false, answersWithVideo: Bool = true) async {
        core = TestOrchestrator(engine: engine, provider: provider, audioSession: audio,
                                configuration: .init(inviteTimeout: inviteTimeout, pendingActionTimeout: pendingActionTimeout,
                                                     wakeAccount: wakeAccount, supportsVideo: supportsVideo,
                                                     answersWithVideo: answersWithVideo))
        await core.start()
    }

    /// Delivers an INVITE through the core directly (deterministic: returns once handled).
    func invite(_ call: FakeCall, _ sipCallID: String, from: String = "sip:alice@example.com", video: Bool = false) async {
        await core.process(.incomingCall(call: call, sipCallID: sipCallID, from: from, offeredVideo: video))
    }

    func state(_ call: FakeCall, _ state: CallPhase, _ sipCallID: String, _ code: Int = 0) async {
        await core.process(.callState(call: call, state: state, sipCallID: sipCallID, lastStatus: PJSUA.SIPStatus(code: .init(rawValue: code), reason: "")))
    }

    func push(_ sipCallID: String, uuid: UUID? = nil, cancelled: Bool = false, video: Bool = false) async -> PushOutcome {
        await core.handleIncomingPush(VoIPPushPayload(sipCallID: sipCallID, uuid: uuid, caller: "sip:alice@example.com",
                                                      hasVideo: video, isCancelled: cancelled))
    }
}

/// Waits until `condition` holds, polling; records an issue and returns false on timeout.
@discardableResult
func eventually(_ what: String, timeout: Duration = .seconds(20), _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now.advanced(by: timeout)
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    Issue.record("timed out waiting until \(what)")
    return false
}
