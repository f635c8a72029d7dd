import Foundation
import SwiftPJSUA
@testable import SwiftPJSUAKit

/// The real engine, with its call events held back until the test opens the gate, so that a
/// push can be made to arrive before the core sees the INVITE pjsua already received.
final class GatedEngine: CallEngine, @unchecked Sendable {
    // @unchecked Sendable: `held`, `isOpen`, `outlets` and `seen` are guarded by `lock`.
    private let lock = NSLock()
    private var held: [CallEngineEvent<PJSUA.Call>] = []
    private var isOpen = false
    private var outlets: [AsyncStream<CallEngineEvent<PJSUA.Call>>.Continuation] = []
    private var seen: [CallEngineEvent<PJSUA.Call>] = []
    let phone: PJSUACallEngine

    init(_ phone: PJSUA) {
        self.phone = PJSUACallEngine(phone)
    }

    /// Every event the engine produced so far, held or not.
    var events: [CallEngineEvent<PJSUA.Call>] { lock.withLock { seen } }

    /// Delivers the held events and everything after them.
    func open() {
        let (pending, targets) = lock.withLock {
            isOpen = true
            let pending = held
            held = []
            return (pending, outlets)
        }
        for event in pending {
            for target in targets { target.yield(event) }
        }
    }

    func callEvents() -> AsyncStream<CallEngineEvent<PJSUA.Call>> {
        let source = phone.callEvents()
        let (stream, continuation) = AsyncStream<CallEngineEvent<PJSUA.Call>>.makeStream()
        lock.withLock { outlets.append(continuation) }
        Task { [weak self] in
            for await event in source { self?.deliver(event, to: continuation) }
            continuation.finish()
        }
        return stream
    }

    private func deliver(_ event: CallEngineEvent<PJSUA.Call>, to continuation: AsyncStream<CallEngineEvent<PJSUA.Call>>.Continuation) {
        let passThrough = lock.withLock {
            seen.append(event)
            if !isOpen { held.append(event) }
            return isOpen
        }
        if passThrough { continuation.yield(event) }
    }

    func placeCall(to destination: String, video: Bool) async throws -> PJSUA.Call { try await phone.placeCall(to: destination, video: video) }
    func ringCall(_ call: PJSUA.Call) async throws { try await phone.ringCall(call) }
    func answerCall(_ call: PJSUA.Call, video: Bool) async throws { try await phone.answerCall(call, video: video) }
    func setCallVideo(_ call: PJSUA.Call, enabled: Bool) async throws { try await phone.setCallVideo(call, enabled: enabled) }
    func hangUpCall(_ call: PJSUA.Call) async throws { try await phone.hangUpCall(call) }
    func rejectCall(_ call: PJSUA.Call, code: PJSUA.SIPResponseCode) async throws { try await phone.rejectCall(call, code: code) }
    func setCallHeld(_ call: PJSUA.Call, held: Bool) async throws { try await phone.setCallHeld(call, held: held) }
    func setCallMuted(_ call: PJSUA.Call, muted: Bool) async throws { try await phone.setCallMuted(call, muted: muted) }
    func sendDigits(_ digits: String, on call: PJSUA.Call) async throws { try await phone.sendDigits(digits, on: call) }
    func mergeCalls(_ calls: [PJSUA.Call]) async throws { try await phone.mergeCalls(calls) }
    func splitCall(_ call: PJSUA.Call) async throws { try await phone.splitCall(call) }
    func enableAudioDevice() async throws { try await phone.enableAudioDevice() }
    func disableAudioDevice() async { await phone.disableAudioDevice() }
    func recoverNetwork(for account: PJSUA.Account) async throws { try await phone.recoverNetwork(for: account) }
    func handleNetworkChange() async throws { try await phone.handleNetworkChange() }
}
