import Foundation
import SwiftPJSUA

/// `softphone call <sip-uri>`: places one call, optionally plays, records and sends DTMF.
enum CallCommand {
    static let usage = """
    usage: softphone call <sip-uri> [--listen <udp|tcp|tls>:<host>:<port>]
                          [--account <sip-uri> --registrar <sip-uri> --username U --password-env VAR]
                          [--play FILE.wav] [--record FILE.wav] [--dtmf DIGITS] [--seconds N] [--timeout N] [--json]
                          [--stun HOST[:PORT],...] [--ice] [--turn HOST[:PORT] --turn-user U --turn-password-env VAR]
                          [--header 'Name: value']...
      Calls <sip-uri>, stays connected N seconds (default 5), then hangs up. Exits 0 when the call
      connected, 1 when it failed (with the SIP reason), 2 on bad input, 130/143 on SIGINT/SIGTERM
      (hanging up first). --header (repeatable) adds a header to the INVITE. A call to a UDP port
      where nothing listens fails only after --timeout: PJSIP does not see ICMP port-unreachable
      on Linux (docs/KNOWN-LIMITS.md).
    \(SecurityOptions.usage)
    """

    static let spec = OptionSpec(
        valued: Set(["listen", "play", "record", "dtmf", "seconds", "timeout"]).union(AccountOptions.valued).union(NATOptions.valued)
            .union(SecurityOptions.valued),
        flags: Set(["json"]).union(AccountOptions.flags).union(NATOptions.flags), positionals: 1...1,
        positionalNames: ["<sip-uri> (the destination to call, e.g. sip:bob@127.0.0.1:5060)"], repeatable: ["header"])

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let output = Output(json: arguments.has("json"))
        let destination = arguments.positionals[0]
        let listen = try arguments.string("listen").map { value throws(UsageError) in try ListenAddress(parsing: value) } ?? .loopback
        let seconds = try arguments.seconds("seconds", in: 0...86_400, default: 5) ?? 5
        let timeout = try arguments.seconds("timeout", in: 1...3600, default: 30) ?? 30
        let play = arguments.string("play")
        if let play { _ = try WAVFile(contentsOf: play) }
        let record = arguments.string("record")
        let dtmf = arguments.string("dtmf")
        let account = try AccountOptions(arguments, required: false)
        let security = try SecurityOptions(arguments, listen: listen)
        var configuration = listen.configuration()
        configuration.nat = try NATOptions(arguments).nat
        security.apply(to: &configuration)
        security.printWarnings()
        let headers = try arguments.strings("header").map(PJSUA.SIPHeader.init(parsing:))

        let signals = Signals.shared
        return try await withPhone(configuration, output: output) { phone, _, watcher in
            let (from, failure) = try await account.add(to: phone, watcher: watcher, timeout: timeout, signals: signals, output: output)
            if let failure { return failure }
            let call = try await phone.makeCall(to: destination, from: from, headers: headers)
            guard let outcome = await watcher.state(of: call, in: [.confirmed, .disconnected], within: timeout, signals: signals) else {
                if signals.pending != nil {
                    // The engine's shutdown cancels the unanswered call.
                    return signals.interrupted(output)
                }
                return fail(output, "call not answered within \(Int(timeout)) s")
            }
            guard outcome.state == .confirmed else {
                return fail(output, "call failed: \(outcome.status)")
            }
            var recorder: PJSUA.Recorder?
            if configuration.nat.ice != nil {
                _ = await watcher.first(within: 5) { event -> Void? in
                    if case let .callMedia(c, .active, _) = event, c == call { return () }
                    return nil
                }
                if let path = try? await phone.mediaPath(call) { output.emit(path: path, of: call) }
            }
            if play != nil || record != nil || dtmf != nil {
                _ = await watcher.first(within: 5) { event -> Void? in
                    if case let .callMedia(c, .active, _) = event, c == call { return () }
                    return nil
                }
                if let play { _ = try await phone.play(play, into: call, loop: true) }
                if let record { recorder = try await phone.record(call, to: record) }
                if let dtmf { try await phone.sendDTMF(dtmf, on: call) }
            }
            let ended = await watcher.state(of: call, in: [.disconnected], within: seconds, signals: signals)
            if ended == nil {
                if let statistics = try? await phone.mediaStatistics(call) { output.emit(statistics: statistics, of: call) }
                if let recorder { try? await phone.stop(recorder) }
                try? await phone.hangup(call)
                _ = await watcher.state(of: call, in: [.disconnected], within: 5)
            } else if let recorder {
                try? await phone.stop(recorder)
            }
            return signals.pending != nil ? signals.interrupted(output) : 0
        }
    }

    static func fail(_ output: Output, _ reason: String) -> Int32 {
        output.emit("failed", ["reason": reason], human: "softphone: \(reason)")
        return 1
    }
}
