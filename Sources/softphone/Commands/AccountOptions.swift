import Foundation
@_spi(Locking) import SwiftPJSUA

/// `--account <sip-uri> --registrar <sip-uri> --username U --password-env VAR` (or
/// `--password-stdin`): passwords never come from argv. `--ip-change-calls keep|hangup`: what a
/// network change (SIGUSR1) does with the account's calls.
struct AccountOptions {
    static let valued: Set<String> = ["account", "registrar", "username", "password-env", "ip-change-calls"]
    static let flags: Set<String> = ["password-stdin"]

    var configuration: PJSUA.Account.Configuration?

    init(_ arguments: Arguments, required: Bool) throws(UsageError) {
        guard let id = arguments.string("account") else {
            if required { throw UsageError("--account is required") }
            for name in ["registrar", "username", "password-env", "ip-change-calls"] where arguments.string(name) != nil {
                throw UsageError("--\(name) needs --account")
            }
            return
        }
        var password: String?
        if let variable = arguments.string("password-env") {
            guard let value = ProcessInfo.processInfo.environment[variable] else {
                throw UsageError("environment variable \(variable) (from --password-env) is not set")
            }
            password = value
        } else if arguments.has("password-stdin") {
            guard let line = readLine(strippingNewline: true) else { throw UsageError("no password on standard input") }
            password = line
        }
        let username = arguments.string("username")
        if password != nil && username == nil { throw UsageError("a password needs --username") }
        if username != nil && password == nil { throw UsageError("--username needs a password (--password-env or --password-stdin)") }
        if required && arguments.string("registrar") == nil { throw UsageError("--registrar is required") }
        var ipChangeCalls = PJSUA.IPChangeCallPolicy.keep
        switch arguments.string("ip-change-calls") {
        case nil, "keep": break
        case "hangup": ipChangeCalls = .hangUp
        case let other?: throw UsageError("--ip-change-calls must be keep or hangup, got '\(other)'")
        }
        let registrar = try arguments.string("registrar").map { text throws(UsageError) in try Arguments.sipURI(text, for: "--registrar") }
        configuration = PJSUA.Account.Configuration(id: try Arguments.sipURI(id, for: "--account"), registrar: registrar,
                                                    username: username, password: password, ipChangeCalls: ipChangeCalls)
    }
}

extension AccountOptions {
    /// Adds the account given on the command line, if any, and waits for its registration when
    /// it has a registrar. Returns the account, or the command's exit status when registering failed.
    func add(to phone: PJSUA, watcher: Watcher, timeout: Double, signals: Signals, output: Output)
        async throws -> (account: PJSUA.Account?, failure: Int32?) {
        guard let configuration else { return (nil, nil) }
        let account = try await phone.addAccount(configuration)
        guard configuration.registrar != nil else { return (account, nil) }
        return (account, await watcher.registrationFailure(of: account, within: timeout, signals: signals, output: output))
    }
}

/// Collects a command's events so it can wait for the ones it needs, and prints each one.
final class Watcher: Sendable {
    /// The events seen so far, and whether the engine's events ended.
    private let state = LockedValueBox<(events: [PJSUA.Event], finished: Bool)>(([], false))

    init(_ phone: PJSUA, output: Output) {
        let sequence = phone.events
        Task { [weak self, weak phone] in
            for await event in sequence {
                output.emit(event, of: phone)
                self?.append(event)
            }
            self?.finish()
        }
    }

    private func append(_ event: PJSUA.Event) { state.withLockedValue { $0.events.append(event) } }
    private func finish() { state.withLockedValue { $0.finished = true } }

    var all: [PJSUA.Event] { state.withLockedValue { $0.events } }

    /// Waits until `match` gives a value for an event seen so far, or `seconds` pass (nil).
    func first<T>(within seconds: Double, signals: Signals? = nil, _ match: (PJSUA.Event) -> T?) async -> T? {
        let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int(seconds * 1000)))
        while ContinuousClock.now < deadline {
            for event in all {
                if let value = match(event) { return value }
            }
            if signals?.pending != nil { return nil }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    /// Waits for `account`'s first registration outcome: nil once it is registered, otherwise the
    /// command's exit status, after printing why (no answer, the registrar's status, a signal).
    func registrationFailure(of account: PJSUA.Account, within timeout: Double, signals: Signals, output: Output) async -> Int32? {
        let state = await first(within: timeout, signals: signals) { event -> PJSUA.RegistrationState? in
            if case let .registration(a, state) = event, a == account { return state }
            return nil
        }
        guard let state else {
            if signals.pending != nil { return signals.interrupted(output) }
            return CallCommand.fail(output, "registration failed: no answer from the registrar within \(Int(timeout)) s")
        }
        return state.isRegistered ? nil : CallCommand.fail(output, "registration failed: \(state.certificateError?.message ?? state.status.description)")
    }

    /// The last state event of `call`, if it reached one of `states` within `seconds`.
    func state(of call: PJSUA.Call, in states: Set<PJSUA.CallState>, within seconds: Double, signals: Signals? = nil)
        async -> (state: PJSUA.CallState, status: PJSUA.SIPStatus)? {
        await first(within: seconds, signals: signals) { event in
            if case let .callState(c, state, _, status) = event, c == call, states.contains(state) { return (state, status) }
            return nil
        }
    }
}
