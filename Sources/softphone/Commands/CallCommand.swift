import Foundation
import SwiftPJSUA
import SwiftPJSUAStreams

/// `softphone call <sip-uri>`: places one call, optionally plays, records and sends DTMF.
enum CallCommand {
    static let usage = """
    usage: softphone call <sip-uri> [--listen <udp|tcp|tls>:<host>:<port>]
                          [--account <sip-uri> --registrar <sip-uri> --username U --password-env VAR]
                          [--play FILE.wav] [--record FILE.wav] [--dtmf DIGITS] [--dtmf-method rfc4733|info|inband]
                          [--codecs opus,PCMU] [--stats-interval S] [--detect-inband] [--redirect follow|report] [--seconds N] [--timeout N] [--json]
                          [--clock-rate HZ] [--resampler fast|medium|high] [--no-device-link] [--opus-rate HZ] [--jitter-buffer-max MS] [--rtp-ports FROM[-TO]]
                          [--stun HOST[:PORT],...] [--ice] [--turn HOST[:PORT] --turn-user U --turn-password-env VAR]
                          [--header 'Name: value']... [--transfer-to <sip-uri> [--transfer-after S]]
                          [--accept-transfer | --refuse-transfer] [--stream ws[s]://HOST:PORT/PATH [stream options as for answer]] [--video [--video-codecs VP8,H264] [--video-device N|colorbar] [--video-size WxH] [--video-fps N] [--video-kbps N]]
      Calls <sip-uri>, stays connected N seconds (default 5), then hangs up. Exits 0 when the call
      connected, 1 when it failed (with the SIP reason), 2 on bad input, 130 on SIGINT and 143 on
      SIGTERM (hanging up first). SIGTERM is 143, not 0, even for a connected call: the call did not
      run its course (--seconds, --transfer-to), so a script must not read it as done, and it is
      neither a SIP failure (1); a service that runs calls can count 143 as a stop (systemd:
      SuccessExitStatus=143). Without --listen, the call goes out on a free port of loopback when
      <sip-uri> (and --registrar) are on this host, of every interface otherwise. A sips: <sip-uri>
      (or one with ;transport=tls) is called over TLS: without --listen, a TLS transport on a free
      port (with --ca-file, --cert, --key, --tls-verify) places it. --codecs offers only those codecs, in that order; --stats-interval prints
      the call's quality (RTP, loss, jitter, RTT, MOS) every S seconds; --redirect report ends a
      redirected call instead of following the 3xx. --header (repeatable) adds a header to the INVITE. A call to a UDP port
      where nothing listens fails only after --timeout: PJSIP does not see ICMP port-unreachable
      on Linux (docs/KNOWN-LIMITS.md).
      --transfer-to: S seconds (default 1) after the call connected, transfers it (REFER) and exits 0
      when the transfer succeeded (the call is then hung up), 1 when it failed. When the far end
      transfers us instead, the new call is followed (--refuse-transfer answers REFER with 603).
      --clock-rate (8000, 16000, 32000, 48000; default 16000) and --resampler (default high) set the
      audio bridge: 8000 resamples no PCMU/PCMA call, the cheapest setting for servers and bots.
      --no-device-link: the call is not connected to the sound device's bridge slot, --opus-rate HZ
      sets Opus's internal sample rate, --jitter-buffer-max MS bounds the receive jitter buffer
      and --rtp-ports FROM[-TO] sets where media binds (all as for answer).
    \(VideoCLIOptions.usage)
    \(SecurityOptions.usage)
    """

    static let spec = OptionSpec(
        valued: Set(["listen", "play", "record", "dtmf", "seconds", "timeout", "transfer-to", "transfer-after"])
            .union(AccountOptions.valued).union(NATOptions.valued).union(SecurityOptions.valued).union(MediaOptions.valued)
            .union(VideoCLIOptions.valued).union(StreamOptions.valued),
        flags: Set(["json"]).union(AccountOptions.flags).union(NATOptions.flags).union(TransferOptions.flags).union(MediaOptions.flags)
            .union(VideoCLIOptions.flags),
        positionals: 1...1,
        positionalNames: ["<sip-uri> (the destination to call, e.g. sip:bob@127.0.0.1:5060)"],
        repeatable: Set(["header"]).union(StreamOptions.repeatable))

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let output = Output(json: arguments.has("json"))
        let destination = arguments.positionals[0]
        let listen = try ListenAddress(arguments, reaching: [destination, arguments.string("registrar")])
        let destinationURI = try Arguments.sipURI(destination, for: "destination URI")
        let seconds = try arguments.seconds("seconds", in: 0...86_400, default: 5) ?? 5
        let timeout = try arguments.seconds("timeout", in: 1...3600, default: 30) ?? 30
        let play = arguments.string("play")
        if let play { _ = try WAVFile(contentsOf: play) }
        let record = arguments.string("record")
        let dtmf = arguments.string("dtmf")
        let stream = try StreamOptions(arguments)
        let account = try AccountOptions(arguments, required: false)
        let transferOptions = try TransferOptions(arguments)
        let transferTarget = try arguments.string("transfer-to").map { text throws(UsageError) in
            try Arguments.sipURI(text, for: "--transfer-to (the transfer target)")
        }
        let transferAfter = try arguments.seconds("transfer-after", in: 0...86_400, default: 1) ?? 1
        if transferTarget == nil && arguments.string("transfer-after") != nil { throw UsageError("--transfer-after needs --transfer-to") }
        let media = try MediaOptions(arguments)
        let videoOptions = try VideoCLIOptions(arguments)
        var configuration = listen.configuration()
        media.apply(to: &configuration)
        configuration.nat = try NATOptions(arguments).nat
        configuration.transferPolicy = transferOptions.policy
        let security = try SecurityOptions(arguments, listen: listen)
        security.apply(to: &configuration)
        configuration.enablesMediaStreams = stream != nil
        security.printWarnings()
        let headers = try arguments.strings("header").map(PJSUA.SIPHeader.init(parsing:))

        let signals = Signals.shared
        return try await withPhone(configuration, output: output) { phone, _, watcher in
            try await media.apply(to: phone)
            let video = try await videoOptions.apply(to: phone, output: output)
            let (from, failure) = try await account.add(to: phone, watcher: watcher, timeout: timeout, signals: signals, output: output)
            if let failure { return failure }
            let call = if let video {
                try await phone.makeCall(to: destinationURI, from: from, headers: headers, video: video)
            } else {
                try await phone.makeCall(to: destinationURI, from: from, headers: headers)
            }
            guard let outcome = await watcher.state(of: call, in: [.confirmed, .disconnected], within: timeout, signals: signals) else {
                if signals.pending != nil {
                    // The engine's shutdown cancels the unanswered call.
                    return signals.interrupted(output)
                }
                return fail(output, "call not answered within \(Int(timeout)) s")
            }
            guard outcome.state == .confirmed else {
                return fail(output, "call failed: \(outcome.status.certificateError?.message ?? outcome.status.description)")
            }
            var recorder: PJSUA.Recorder?
            if configuration.nat.ice != nil {
                _ = await watcher.first(within: 5) { event -> Void? in
                    if case let .callMedia(c, .active, _) = event, c == call { return () }
                    return nil
                }
                if let path = try? await phone.mediaPath(call) { output.emit(path: path, of: call) }
            }
            if play != nil || record != nil || dtmf != nil || stream != nil {
                _ = await watcher.first(within: 5) { event -> Void? in
                    if case let .callMedia(c, .active, _) = event, c == call { return () }
                    return nil
                }
                if let play { _ = try await phone.play(play, into: call, loop: true) }
                if let record { recorder = try await phone.record(call, to: record) }
                if let dtmf { try await phone.sendDTMF(dtmf, on: call, method: media.dtmfMethod) }
                if let stream { await stream.start(call, phone: phone, output: output) }
            }
            if let transferTarget {
                return try await transfer(call, to: transferTarget, after: transferAfter, phone: phone, watcher: watcher,
                                          output: output, timeout: timeout, recorder: recorder)
            }
            // A transfer by the far end (an accepted REFER) hands the session over to the new call.
            var current = call
            let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int(seconds * 1000)))
            var ended = await watcher.state(of: current, in: [.disconnected], within: seconds, signals: signals)
            while ended != nil, let next = watcher.transferredCall(from: current) {
                if let stopping = recorder { try? await phone.stop(stopping) }
                recorder = nil
                current = next
                let remaining = (deadline - ContinuousClock.now).components
                let left = max(0, Double(remaining.seconds) + Double(remaining.attoseconds) / 1e18)
                ended = await watcher.state(of: current, in: [.disconnected], within: left, signals: signals)
            }
            if ended == nil {
                if let quality = try? await phone.quality(of: current) { output.emit(quality: quality, of: current) }
                if let recorder { try? await phone.stop(recorder) }
                try? await phone.hangUp(current)
                _ = await watcher.state(of: current, in: [.disconnected], within: 5)
            } else if let recorder {
                try? await phone.stop(recorder)
            }
            return signals.pending != nil ? signals.interrupted(output) : 0
        }
    }

    /// `--transfer-to`: waits, transfers the call (REFER) and waits for the outcome.
    static func transfer(_ call: PJSUA.Call, to target: PJSUA.SIPURI, after delay: Double, phone: PJSUA, watcher: Watcher,
                         output: Output, timeout: Double, recorder: PJSUA.Recorder?) async throws -> Int32 {
        let signals = Signals.shared
        if await watcher.state(of: call, in: [.disconnected], within: delay, signals: signals) != nil {
            if let recorder { try? await phone.stop(recorder) }
            return fail(output, "call ended before the transfer")
        }
        if signals.pending != nil { return signals.interrupted(output) }
        try await phone.transfer(call, to: target)
        let outcome = await watcher.transferOutcome(of: call, within: timeout, signals: signals)
        if let recorder { try? await phone.stop(recorder) }
        if signals.pending != nil { return signals.interrupted(output) }
        guard let outcome, outcome.code.isSuccess else {
            try? await phone.hangUp(call)
            _ = await watcher.state(of: call, in: [.disconnected], within: 5)
            return fail(output, outcome.map { "transfer failed: \($0)" } ?? "transfer not completed within \(Int(timeout)) s")
        }
        // The engine hangs up a call whose transfer succeeded.
        _ = await watcher.state(of: call, in: [.disconnected], within: 5)
        return 0
    }

    static func fail(_ output: Output, _ reason: String) -> Int32 {
        output.emit("failed", ["reason": reason], human: "softphone: \(reason)")
        return 1
    }
}
