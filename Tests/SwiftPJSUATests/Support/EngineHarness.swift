import Foundation
import SwiftPJSUA
import PJSUATestSupport
import Synchronization
import Testing

/// Runs `body` with a started engine (null audio device, loopback, a free UDP port by default)
/// and an event log subscribed before anything happens on it; always shuts the engine down.
func withEngine<T>(
    _ configuration: PJSUA.Configuration = .init(port: 0, transport: .udp, bindAddress: "127.0.0.1", audioDevice: .null),
    file: String = #fileID, function: String = #function,
    _ body: (PJSUA, PJSUA.Transport, EventLog) async throws -> T
) async throws -> T {
    try await withStartedEngine(configuration, file: file, function: function) { phone, transport in
        try await body(phone, transport, EventLog(phone.events))
    }
}

struct TimedOut: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out waiting for \(what)" }
}

/// Collects every event of one subscription, so tests can wait for the ones they care about
/// without racing the engine.
final class EventLog: Sendable {
    private struct State {
        var events: [PJSUA.Event] = []
        var finished = false
    }

    private let state = Mutex(State())

    init(_ sequence: PJSUA.Events) {
        Task { [weak self] in
            for await event in sequence {
                self?.append(event)
            }
            self?.finish()
        }
    }

    private func append(_ event: PJSUA.Event) {
        state.withLock { $0.events.append(event) }
    }

    private func finish() {
        state.withLock { $0.finished = true }
    }

    var all: [PJSUA.Event] { state.withLock { $0.events } }

    var isFinished: Bool { state.withLock { $0.finished } }

    /// Waits until `match` returns a value for some event seen so far (in order), or times out.
    func first<T>(_ what: String, timeout: Duration = .seconds(10), _ match: (PJSUA.Event) -> T?) async throws -> T {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            for event in all {
                if let value = match(event) { return value }
            }
            if ContinuousClock.now >= deadline { throw TimedOut(what: what) }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Waits for `call` to reach `state`; returns the event's SIP Call-ID and last status.
    @discardableResult
    func state(_ call: PJSUA.Call, _ state: PJSUA.CallState, timeout: Duration = .seconds(10)) async throws -> (sipCallID: String, status: PJSUA.SIPStatus) {
        try await first("\(call) \(state)", timeout: timeout) { event in
            if case let .callState(c, s, id, status) = event, c == call, s == state { return (id, status) }
            return nil
        }
    }

    /// Waits for the next incoming call.
    func incomingCall(timeout: Duration = .seconds(10)) async throws -> (call: PJSUA.Call, sipCallID: String, from: String) {
        try await first("an incoming call", timeout: timeout) { event in
            if case let .incomingCall(_, call, id, from, _) = event { return (call, id, from) }
            return nil
        }
    }

    /// Waits for the first registration outcome of `account` that satisfies `condition`.
    @discardableResult
    func registration(_ account: PJSUA.Account, _ what: String, timeout: Duration = .seconds(10),
                      where condition: (PJSUA.RegistrationState) -> Bool = { _ in true }) async throws -> PJSUA.RegistrationState {
        try await first(what, timeout: timeout) { event in
            if case let .registration(a, state) = event, a == account, condition(state) { return state }
            return nil
        }
    }

    /// The registration outcomes of `account` seen so far, in order.
    func registrations(of account: PJSUA.Account) -> [PJSUA.RegistrationState] {
        all.compactMap { event in
            if case let .registration(a, state) = event, a == account { return state }
            return nil
        }
    }

    /// Waits for a call's audio to become active.
    func mediaActive(_ call: PJSUA.Call, timeout: Duration = .seconds(10)) async throws {
        try await first("\(call) media active", timeout: timeout) { event in
            if case let .callMedia(c, .active, _) = event, c == call { return () }
            return nil
        }
    }

    /// The states `call` went through, in order.
    func states(of call: PJSUA.Call) -> [PJSUA.CallState] {
        all.compactMap { event in
            if case let .callState(c, s, _, _) = event, c == call { return s }
            return nil
        }
    }
}
