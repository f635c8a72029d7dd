import Foundation
import SwiftPJSUA

/// `softphone watch URI...`: subscribes to the presence (or, with --blf, the line state) of each
/// URI and prints every change until stopped.
enum WatchCommand {
    static let usage = """
    usage: softphone watch <sip-uri>... [--blf] [--seconds N] [--listen <udp|tcp|tls>:<host>:<port>]
                           [--account <sip-uri> --registrar <sip-uri> --username U --password-env VAR]
                           [--timeout N] [--json]
      Subscribes to the presence (RFC 3856) of each URI, or with --blf to its dialog state (RFC 4235,
      a busy-lamp field), and prints each change: presence (open/closed, activity, note), lineState
      (idle, early, confirmed, terminated, with the other party), and the subscriptions' own states
      (a refusal or a drop, and when it is tried again). With --account the subscriptions go through
      the account (its registrar is usually the presence server). Runs N seconds (default: until
      SIGINT/SIGTERM; SIGTERM then exits 0). Exits 1 when registering failed, 2 on bad input.
    \(SecurityOptions.tlsUsage)
    """

    static let spec = OptionSpec(
        valued: Set(["listen", "seconds", "timeout"]).union(AccountOptions.valued).union(SecurityOptions.tlsValued),
        flags: Set(["json", "blf"]).union(AccountOptions.flags), positionals: 1...PJSUA.buildLimits.maxBuddies,
        positionalNames: ["<sip-uri> (whom to watch)"])

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let output = Output(json: arguments.has("json"))
        let targets = arguments.positionals
        let listen = try ListenAddress(arguments, reaching: targets + [arguments.string("registrar")])
        let seconds = try arguments.seconds("seconds", in: 1...86_400)
        let timeout = try arguments.seconds("timeout", in: 1...3600, default: 30) ?? 30
        let account = try AccountOptions(arguments, required: false)
        let security = try SecurityOptions(arguments, listen: listen)
        var configuration = listen.configuration(audio: .none)
        security.apply(to: &configuration)
        security.printWarnings()
        let watching: PJSUA.Buddy.Watch = arguments.has("blf") ? .lineState : .presence

        let signals = Signals.shared
        return try await withPhone(configuration, output: output) { phone, _, watcher in
            let (from, failure) = try await account.add(to: phone, watcher: watcher, timeout: timeout, signals: signals, output: output)
            if let failure { return failure }
            for target in targets {
                do {
                    let buddy = try await phone.addBuddy(try PJSUA.SIPURI(target), account: from, watching: watching)
                    output.emit("watching", ["buddy": buddy.description, "uri": target, "package": watching == .presence ? "presence" : "dialog"],
                                human: "watching \(target) (\(watching == .presence ? "presence" : "line state"))")
                } catch let error as PJSUAError {
                    throw UsageError("cannot watch \(target): \(error.message)")
                }
            }
            _ = await watcher.first(within: seconds ?? 86_400 * 365, signals: signals) { _ -> Void? in nil }
            return signals.pending.map { Signals.isStopRequest($0) ? 0 : signals.interrupted(output) } ?? 0
        }
    }
}
