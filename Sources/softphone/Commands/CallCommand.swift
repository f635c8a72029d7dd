import Foundation
import SwiftPJSUA

/// `softphone call <sip-uri>`: places one call, optionally plays, records and sends DTMF.
enum CallCommand {
    static let usage = """
    usage: softphone call <sip-uri> [--listen <udp|tcp>:<host>:<port>]
                          [--account <sip-uri> --registrar <sip-uri> --username U --password-env VAR]
                          [--play FILE.wav] [--record FILE.wav] [--dtmf DIGITS] [--dtmf-method rfc4733|info|inband]
                          [--codecs opus,PCMU] [--stats-interval S] [--detect-inband] [--redirect follow|report] [--seconds N] [--timeout N] [--json]
      Calls <sip-uri>, stays connected N seconds (default 5), then hangs up. Exits 0 when the call
      connected, 1 when it failed (with the SIP reason), 2 on bad input, 130/143 on SIGINT/SIGTERM
      (hanging up first). --codecs offers only those codecs, in that order; --stats-interval prints
      the call's quality (RTP, loss, jitter, RTT, MOS) every S seconds; --redirect report ends a
      redirected call instead of following the 3xx.
    """

    static let spec = OptionSpec(
        valued: Set(["listen", "play", "record", "dtmf", "seconds", "timeout"]).union(AccountOptions.valued).union(MediaOptions.valued),
        flags: Set(["json"]).union(AccountOptions.flags).union(MediaOptions.flags), positionals: 1...1)

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
        let media = try MediaOptions(arguments)
        var configuration = listen.configuration()
        media.apply(to: &configuration)

        let signals = Signals.shared
        return try await withPhone(configuration, output: output) { phone, _, watcher in
            try await media.apply(to: phone)
            var from: PJSUA.Account?
            if let configuration = account.configuration {
                let added = try await phone.addAccount(configuration)
                from = added
                if configuration.registrar != nil {
                    let registration = await watcher.first(within: timeout, signals: signals) { event -> PJSUA.RegistrationState? in
                        if case let .registration(a, state) = event, a == added { return state }
                        return nil
                    }
                    guard let registration else {
                        if signals.pending != nil { return signals.interrupted(output) }
                        return fail(output, "registration failed: no answer from the registrar within \(Int(timeout)) s")
                    }
                    guard registration.isRegistered else {
                        return fail(output, "registration failed: \(registration.status)")
                    }
                }
            }
            let call = try await phone.makeCall(to: destination, from: from)
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
            if play != nil || record != nil || dtmf != nil {
                _ = await watcher.first(within: 5) { event -> Void? in
                    if case let .callMedia(c, .active, _) = event, c == call { return () }
                    return nil
                }
                if let play { _ = try await phone.play(play, into: call, loop: true) }
                if let record { recorder = try await phone.record(call, to: record) }
                if let dtmf { try await phone.sendDTMF(dtmf, on: call, method: media.dtmfMethod) }
            }
            let ended = await watcher.state(of: call, in: [.disconnected], within: seconds, signals: signals)
            if ended == nil {
                if let quality = try? await phone.quality(of: call) { output.emit(quality: quality, of: call) }
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
