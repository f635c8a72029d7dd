import Foundation
import SwiftPJSUA

/// `softphone register`: registers an account, stays registered N seconds, unregisters.
enum RegisterCommand {
    static let usage = """
    usage: softphone register --account <sip-uri> --registrar <sip-uri> --username U --password-env VAR
                              [--listen <udp|tcp|tls>:<host>:<port>] [--seconds N] [--timeout N] [--json]
                              [--stun HOST[:PORT],...] [--mwi] [--presence STATUS[:NOTE] [--publish]]
      Registers, stays registered N seconds (default 0), then unregisters. --mwi subscribes to the
      account's voicemail summary (RFC 3842) and prints its counts (messageWaiting lines), unsolicited
      ones too. Exits 0 when registered,
      1 when the registrar refused (with its status) or did not answer within --timeout (default
      30 s), 2 on bad input, 130/143 on SIGINT/SIGTERM (unregistering first). A sips: registrar (or
      one with ;transport=tls) is reached over TLS. Without --listen: a free port of loopback when the
      registrar is on this host, of every interface otherwise.
    \(PresenceOptions.usage)
    \(SecurityOptions.usage)
    """

    static let spec = OptionSpec(
        valued: Set(["listen", "seconds", "timeout"]).union(AccountOptions.valued).union(NATOptions.valued).union(SecurityOptions.valued)
            .union(PresenceOptions.valued),
        flags: Set(["json", "mwi"]).union(AccountOptions.flags).union(NATOptions.flags).union(PresenceOptions.flags))

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let output = Output(json: arguments.has("json"))
        let listen = try ListenAddress(arguments, reaching: [arguments.string("registrar")])
        let seconds = try arguments.seconds("seconds", in: 0...86_400, default: 0) ?? 0
        let timeout = try arguments.seconds("timeout", in: 1...3600, default: 30) ?? 30
        let options = try AccountOptions(arguments, required: true)
        guard let configuration = options.configuration else { throw UsageError("--account is required") }
        let security = try SecurityOptions(arguments, listen: listen)
        let presence = try PresenceOptions(arguments)
        var engine = listen.configuration(audio: .none)
        engine.nat = try NATOptions(arguments).nat
        security.apply(to: &engine)
        security.printWarnings()

        let signals = Signals.shared
        return try await withPhone(engine, output: output) { phone, _, watcher in
            let account = try await phone.addAccount(configuration)
            if let failure = await watcher.registrationFailure(of: account, within: timeout, signals: signals, output: output) {
                return failure
            }
            if arguments.has("mwi") { try await phone.setMessageWaitingIndication(enabled: true, for: account) }
            try await presence.apply(to: phone, account: account)
            if seconds > 0 {
                _ = await watcher.first(within: seconds, signals: signals) { _ -> Void? in nil }
            }
            // A signal ends the stay early; unregistering still happens (a second signal skips it).
            let code = signals.pending != nil ? signals.interrupted(output) : 0
            try? await phone.setRegistration(account, enabled: false)
            _ = await watcher.first(within: 5) { event -> Void? in
                if case let .registration(a, state) = event, a == account, state.isUnregistration { return () }
                return nil
            }
            return code
        }
    }
}
