import Foundation
import SwiftPJSUA
@testable import SwiftPJSUAKit
import Synchronization

/// The real engine, with its call events held back until the test opens the gate, so that a
/// push can be made to arrive before the core sees the INVITE pjsua already received.
final class GatedEngine: CallEngine {
    private struct State {
        var held: [CallEngineEvent<PJSUA.Call>] = []
        var isOpen = false
        var outlets: [AsyncStream<CallEngineEvent<PJSUA.Call>>.Continuation] = []
        var seen: [CallEngineEvent<PJSUA.Call>] = []
    }

    private let state = Mutex(State())
    let phone: PJSUACallEngine

    init(_ phone: PJSUA) {
        self.phone = PJSUACallEngine(phone)
    }

    /// Every event the engine produced so far, held or not.
    var events: [CallEngineEvent<PJSUA.Call>] { state.withLock { $0.seen } }

    /// Delivers the held events and everything after them.
    func open() {
        let (pending, targets) = state.withLock { state in
            state.isOpen = true
            let pending = state.held
            state.held = []
            return (pending, state.outlets)
        }
        for event in pending {
            for target in targets { target.yield(event) }
        }
    }

    func callEvents() -> AsyncStream<CallEngineEvent<PJSUA.Call>> {
        let source = phone.callEvents()
        let (stream, continuation) = AsyncStream<CallEngineEvent<PJSUA.Call>>.makeStream()
        state.withLock { $0.outlets.append(continuation) }
        Task { [weak self] in
            for await event in source { self?.deliver(event, to: continuation) }
            continuation.finish()
        }
        return stream
    }

    private func deliver(_ event: CallEngineEvent<PJSUA.Call>, to continuation: AsyncStream<CallEngineEvent<PJSUA.Call>>.Continuation) {
        let passThrough = state.withLock { state in
            state.seen.append(event)
            if !state.isOpen { state.held.append(event) }
            return state.isOpen
        }
        if passThrough { continuation.yield(event) }
    }

    func makeCall(to destination: PJSUA.SIPURI, video: Bool) async throws -> PJSUA.Call { try await phone.makeCall(to: destination, video: video) }
    func ring(_ call: PJSUA.Call) async throws { try await phone.ring(call) }
    func answer(_ call: PJSUA.Call, video: Bool) async throws { try await phone.answer(call, video: video) }
    func setVideo(_ call: PJSUA.Call, to enabled: Bool) async throws { try await phone.setVideo(call, to: enabled) }
    func hangUp(_ call: PJSUA.Call) async throws { try await phone.hangUp(call) }
    func reject(_ call: PJSUA.Call, code: PJSUA.SIPResponseCode) async throws { try await phone.reject(call, code: code) }
    func setHeld(_ call: PJSUA.Call, to held: Bool) async throws { try await phone.setHeld(call, to: held) }
    func setMuted(_ call: PJSUA.Call, to muted: Bool) async throws { try await phone.setMuted(call, to: muted) }
    func sendDTMF(_ digits: String, on call: PJSUA.Call) async throws { try await phone.sendDTMF(digits, on: call) }
    func conference(_ calls: [PJSUA.Call]) async throws { try await phone.conference(calls) }
    func split(_ call: PJSUA.Call) async throws { try await phone.split(call) }
    func activateAudioDevice() async throws { try await phone.activateAudioDevice() }
    func deactivateAudioDevice() async { await phone.deactivateAudioDevice() }
    func reRegister(_ account: PJSUA.Account) async throws { try await phone.reRegister(account) }
    func handleIPChange() async throws { try await phone.handleIPChange() }
}
