import Foundation
import SwiftPJSUA
@testable import SwiftPJSUAKit
import Synchronization

/// A call handle of the fake engine.
struct FakeCall: Hashable, Sendable, CustomStringConvertible {
    let id: Int
    var description: String { "#\(id)" }
}

/// An engine that records what the core asks of it and emits the events a test scripts.
final class FakeEngine: CallEngine {
    private struct State {
        var continuations: [AsyncStream<CallEngineEvent<FakeCall>>.Continuation] = []
        var operations: [String] = []
        var nextCall = 1000
        var failing: Set<String> = []
        var sessionActive = false
        var violations: [String] = []
        var subscriptions = 0
        var deviceOpen = false
        var heldCalls: Set<FakeCall> = []
        var mutedCalls: Set<FakeCall> = []
        var networkGate: Gate?
        var audioGate: Gate?
        var audioCloseGate: Gate?
    }

    private let state = Mutex(State())

    /// Every operation, in order, e.g. `answer #3`, `answer #3 video`, `reject #3 603`,
    /// `video #3 on`, `enableAudio`.
    var log: [String] { state.withLock { $0.operations } }
    /// Audio device openings that happened while the simulated audio session was inactive.
    var audioViolations: [String] { state.withLock { $0.violations } }

    /// Makes the named operation (`place`, `answer`, `hangup`, `reject`, `ring`, `enableAudio`,
    /// `recover`, `hold`, `mute`, `dtmf`, `video`) throw.
    func fail(_ operation: String) { _ = state.withLock { $0.failing.insert(operation) } }

    /// Simulates the platform's audio session state, to catch early device openings.
    func setSessionActive(_ active: Bool) { state.withLock { $0.sessionActive = active } }

    /// How many times the core subscribed to the events.
    var subscriptionCount: Int { state.withLock { $0.subscriptions } }

    /// Whether the audio device is open (last enableAudio not followed by disableAudio).
    var isDeviceOpen: Bool { state.withLock { $0.deviceOpen } }

    /// Whether audio flows on `call`: the device is open and the call is neither held nor muted.
    func audioFlows(on call: FakeCall) -> Bool {
        state.withLock { $0.deviceOpen && !$0.heldCalls.contains(call) && !$0.mutedCalls.contains(call) }
    }

    func isHeld(_ call: FakeCall) -> Bool { state.withLock { $0.heldCalls.contains(call) } }
    func isMuted(_ call: FakeCall) -> Bool { state.withLock { $0.mutedCalls.contains(call) } }

    /// Ends every current subscription, like PJSUA's shutdown; later subscriptions get the events
    /// emitted afterwards (the next run's).
    func finishEvents() {
        let finished = state.withLock { state in
            let all = state.continuations
            state.continuations = []
            state.deviceOpen = false
            return all
        }
        for continuation in finished { continuation.finish() }
    }

    func emit(_ event: CallEngineEvent<FakeCall>) {
        for continuation in state.withLock({ $0.continuations }) { continuation.yield(event) }
    }

    func count(_ prefix: String) -> Int { log.filter { $0.hasPrefix(prefix) }.count }

    private func record(_ operation: String, _ name: String) throws {
        let shouldFail = state.withLock { state in
            state.operations.append(operation)
            return state.failing.contains(name)
        }
        if shouldFail { throw FakeFailure(operation: operation) }
    }

    func callEvents() -> AsyncStream<CallEngineEvent<FakeCall>> {
        let (stream, continuation) = AsyncStream<CallEngineEvent<FakeCall>>.makeStream()
        state.withLock { state in
            state.subscriptions += 1
            state.continuations.append(continuation)
        }
        return stream
    }

    func makeCall(to destination: PJSUA.SIPURI, video: Bool) async throws -> FakeCall {
        try record("place \(destination)\(video ? " video" : "")", "place")
        let call = state.withLock { state in
            state.nextCall += 1
            return FakeCall(id: state.nextCall)
        }
        // Like PJSUA: the CALLING event is published before makeCall returns.
        emit(.callState(call: call, state: .calling, sipCallID: "out-\(call.id)", lastStatus: PJSUA.SIPStatus(code: 0, reason: "")))
        return call
    }

    func ring(_ call: FakeCall) async throws { try record("ring \(call)", "ring") }
    func answer(_ call: FakeCall, video: Bool) async throws { try record("answer \(call)\(video ? " video" : "")", "answer") }
    func setVideo(_ call: FakeCall, to enabled: Bool) async throws { try record("video \(call) \(enabled ? "on" : "off")", "video") }
    func hangUp(_ call: FakeCall) async throws { try record("hangup \(call)", "hangup") }
    func reject(_ call: FakeCall, code: PJSUA.SIPResponseCode) async throws { try record("reject \(call) \(code)", "reject") }
    func setHeld(_ call: FakeCall, to held: Bool) async throws {
        try record("hold \(call) \(held)", "hold")
        state.withLock { state in
            if held { state.heldCalls.insert(call) } else { state.heldCalls.remove(call) }
        }
    }

    func setMuted(_ call: FakeCall, to muted: Bool) async throws {
        try record("mute \(call) \(muted)", "mute")
        state.withLock { state in
            if muted { state.mutedCalls.insert(call) } else { state.mutedCalls.remove(call) }
        }
    }
    func sendDTMF(_ digits: String, on call: FakeCall) async throws { try record("dtmf \(call) \(digits)", "dtmf") }
    func conference(_ calls: [FakeCall]) async throws {
        try record("merge \(calls.map(\.description).joined(separator: " "))", "merge")
        state.withLock { $0.heldCalls.subtract(calls) }
    }
    func split(_ call: FakeCall) async throws { try record("split \(call)", "split") }

    func activateAudioDevice() async throws {
        state.withLock { state in
            if !state.sessionActive { state.violations.append("enableAudio while the session is inactive") }
        }
        try record("enableAudio", "enableAudio")
        let gate = state.withLock { $0.audioGate }
        if let gate { await gate.wait() }
        state.withLock { $0.deviceOpen = true }
    }

    /// Holds every ``activateAudioDevice()`` until the gate opens: the device is still opening.
    func holdAudioActivation(at gate: Gate) { state.withLock { $0.audioGate = gate } }

    func deactivateAudioDevice() async {
        try? record("disableAudio", "")
        let gate = state.withLock { $0.audioCloseGate }
        if let gate { await gate.wait() }
        state.withLock { $0.deviceOpen = false }
    }

    /// Holds every ``deactivateAudioDevice()`` until the gate opens: the device is still closing.
    func holdAudioDeactivation(at gate: Gate) { state.withLock { $0.audioCloseGate = gate } }

    func reRegister(_ account: String) async throws { try record("recover \(account)", "recover") }

    func handleIPChange() async throws {
        try record("networkChange", "networkChange")
        let gate = state.withLock { $0.networkGate }
        if let gate { await gate.wait() }
    }

    /// Holds every ``handleIPChange()`` until the gate opens (to catch overlapping ones).
    func holdNetworkChanges(at gate: Gate) { state.withLock { $0.networkGate = gate } }
}

/// A one-shot gate: `wait()` returns once `open()` has been called.
actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func open() {
        isOpen = true
        waiters.forEach { $0.resume() }
        waiters = []
    }
}

struct FakeFailure: Error, Equatable, CustomStringConvertible {
    let operation: String
    var description: String { "fake failure of \(operation)" }
}
