import Foundation
import SwiftPJSUA
import SwiftPJSUAStreams

/// `softphone answer`: a user agent that answers calls until SIGINT/SIGTERM (or --exit-after).
enum AnswerCommand {
    static let usage = """
    usage: softphone answer [--listen <udp|tcp|tls>:<host>:<port>] [--auto-answer CODE] [--answer-after MS] [--max-cps R]
                            [--max-calls N] [--exit-after N] [--hangup-after SECONDS] [--play FILE.wav] [--record-dir DIR]
                            [--codecs opus,PCMU] [--stats-interval S] [--detect-inband] [--echo MS]
                            [--clock-rate HZ] [--resampler fast|medium|high] [--no-device-link] [--opus-rate HZ] [--jitter-buffer-max MS] [--rtp-ports FROM[-TO]]
                            [--account <sip-uri> --registrar <sip-uri> --username U --password-env VAR] [--json | --quiet]
                            [--stun HOST[:PORT],...] [--ice] [--turn HOST[:PORT] --turn-user U --turn-password-env VAR]
                            [--header 'Name: value']... [--accept-transfer | --refuse-transfer] [--accept-notify PACKAGE,...]
                            [--presence online|busy|away|offline[:NOTE] [--publish]]
                            [--stream ws[s]://HOST:PORT/PATH [--stream-header 'Name: value']... [--stream-param k=v]...
                             [--stream-timeout S] [--stream-on-close hangup|keep] [--stream-protocol twilio|openai-realtime [--stream-token-env VAR]]
                             [--stream-ca-file CA.pem] [--stream-tls-verify on|off] [--stream-caller-audio passthrough|bridge]
                             [--stream-agent-audio arrival|bridge]]
                            [--video [--video-codecs VP8,H264] [--video-device N|colorbar] [--video-size WxH] [--video-fps N] [--video-kbps N]]
      Answers every incoming call with CODE (default 200; 180/183 only ring, 4xx-6xx reject), optionally
      after MS milliseconds; plays FILE into (one looping player shared by all calls, as the pjsua app's
      --auto-play) and records each call into DIR; hangs up after SECONDS;
      holds at most --max-calls calls at once (as the pjsua app's flag: more are refused with 503 and
      Retry-After); exits after --exit-after calls have ended (status 0), on SIGTERM after hanging up its calls and
      shutting down (status 0: a service manager's stop, as systemd and Kubernetes send it), or on SIGINT (Ctrl-C,
      likewise cleanly, status 130); a second signal during that shutdown exits at once (143 or 130). Prints a "listening" line first;
      --quiet prints nothing else (for load tests); --media-thread gives RTP its own worker thread;
      --max-cps refuses new calls beyond R per second with 503 and Retry-After (admission control).
      SIGUSR1 means the network changed: listeners reopen, accounts re-register, calls re-INVITE.
      Without --answer-after or --header the engine answers inside its callback (no round trip per call).
      --header (repeatable) adds a header to every answer. Instant messages received are printed.
      A REFER on an answered call is accepted (the new call is handled like an answered one) unless
      --refuse-transfer answers it with 603 Decline.
      --accept-notify message-summary,check-sync answers NOTIFYs of those event packages that arrive
      outside any subscription (voicemail, a PBX's re-sync) with 200 and prints them; others get 489.
      Received DTMF prints as a dtmf line (digit, method, duration); --codecs and --stats-interval
      as for `softphone call`. --echo MS sends each caller's audio back to them MS milliseconds
      later (0...10000; an echo bot, built on the frames API). --clock-rate and --resampler as for
      `softphone call` (--clock-rate 8000: no resampling of PCMU/PCMA calls, for servers and bots).
      --no-device-link leaves calls unconnected to the sound device's bridge slot: the bridge then
      decodes a caller's audio only for what listens to it (--record-dir, --echo, --detect-inband),
      not into a device this agent never opens (a bot: --clock-rate 8000 --no-device-link).
      --opus-rate HZ runs Opus at HZ inside (8000...48000; default: the bridge's rate, where an
      Opus call is not resampled; 48000 is pjmedia's own, resampled to a 16 kHz bridge).
      --jitter-buffer-max MS (40...5000) bounds each call's receive jitter buffer: after a network
      hiccup the audio (and an echo bot's reply) is at most about that late (e.g. 100 for a bot on
      a LAN); audio arriving later is dropped.
      --rtp-ports FROM[-TO]: media binds only within FROM-TO (two ports per stream), from FROM
      upwards and wrapping back to FROM: the range to open in a firewall. With FROM alone (default
      4000) the range runs to 65535 and starts at a random port in it, so agents on one host
      rarely meet; agents given ranges of their own never do.
    \(PresenceOptions.usage)
    \(StreamOptions.usage)
    \(VideoCLIOptions.usage)
    \(SecurityOptions.usage)
    """

    static let spec = OptionSpec(
        valued: Set(["listen", "auto-answer", "answer-after", "max-calls", "exit-after", "hangup-after", "play", "record-dir", "max-cps", "echo", "accept-notify"])
            .union(AccountOptions.valued).union(NATOptions.valued).union(SecurityOptions.valued)
            .union(MediaOptions.valued.subtracting(["dtmf-method", "redirect"])).union(VideoCLIOptions.valued).union(PresenceOptions.valued)
            .union(StreamOptions.valued),
        flags: Set(["json", "quiet", "media-thread"]).union(AccountOptions.flags).union(NATOptions.flags).union(TransferOptions.flags)
            .union(MediaOptions.flags).union(VideoCLIOptions.flags).union(PresenceOptions.flags),
        repeatable: Set(["header"]).union(StreamOptions.repeatable))

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let output = Output(json: arguments.has("json"))
        let quiet = arguments.has("quiet")
        let stream = try StreamOptions(arguments)
        if quiet && arguments.has("json") { throw UsageError("--quiet and --json exclude each other") }
        let listen = try arguments.string("listen").map { value throws(UsageError) in try ListenAddress(parsing: value) } ?? .loopback
        let code = PJSUA.SIPResponseCode(rawValue: try arguments.integer("auto-answer", in: 100...699, default: 200) ?? 200)
        let delay = try arguments.integer("answer-after", in: 0...3_600_000, default: 0) ?? 0
        let maxCalls = try arguments.integer("max-calls", in: 1...PJSUA.maxCallsLimit)
        let exitAfter = try arguments.integer("exit-after", in: 1...1_000_000_000)
        let maxCPS = try arguments.integer("max-cps", in: 1...100_000)
        let hangupAfter = try arguments.seconds("hangup-after", in: 0...86_400)
        let play = arguments.string("play")
        let echo = try arguments.integer("echo", in: 0...10_000)
        if let play { _ = try WAVFile(contentsOf: play) }
        let recordDirectory = arguments.string("record-dir")
        if let recordDirectory {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: recordDirectory, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw UsageError("--record-dir \(recordDirectory) is not a directory")
            }
        }
        let account = try AccountOptions(arguments, required: false)
        let transferOptions = try TransferOptions(arguments)
        let nat = try NATOptions(arguments)
        let headers = try arguments.strings("header").map(PJSUA.SIPHeader.init(parsing:))
        let security = try SecurityOptions(arguments, listen: listen)
        if listen.transport == .tls && security.tls.certificateFile == nil {
            throw UsageError("answer --listen tls:... needs --cert and --key (a TLS server presents a certificate)")
        }
        let media = try MediaOptions(arguments)
        let videoOptions = try VideoCLIOptions(arguments)
        let presence = try PresenceOptions(arguments)
        let acceptedNotify = Set(arguments.string("accept-notify").map { $0.split(separator: ",").map(String.init) } ?? [])

        let signals = Signals.shared
        let phone = PJSUA()
        var configuration = listen.configuration()
        configuration.nat = nat.nat
        security.apply(to: &configuration)
        security.printWarnings()
        configuration.dedicatedMediaThread = arguments.has("media-thread")
        configuration.transferPolicy = transferOptions.policy
        if let maxCalls { configuration.maxCalls = maxCalls }
        if let maxCPS { configuration.admission.maxNewCallsPerSecond = Double(maxCPS) }
        media.apply(to: &configuration)
        configuration.unsolicitedNotifyEvents = acceptedNotify
        configuration.enablesMediaStreams = stream != nil
        // Answering at once needs no decision from Swift: the engine answers in its callback
        // (for the codes it takes there; others go through the agent).
        // (The engine's own answer is audio-only: --video answers through the agent.)
        let engineAnswers = delay == 0 && headers.isEmpty && !videoOptions.enabled && PJSUA.Configuration.canAutoAnswer(with: code)
        if engineAnswers { configuration.autoAnswerCode = code }
        // A quiet agent that answers in the engine and has nothing else to do per call needs no
        // events at all (a load test's server): no subscription, no task wake-up per event.
        let needsEvents = !quiet || !engineAnswers || exitAfter != nil || hangupAfter != nil || play != nil || recordDirectory != nil || echo != nil
            || stream != nil
        let events = needsEvents ? phone.events : nil
        let transport = try await phone.start(configuration)
        // Whatever fails from here on, the engine shuts down before the process exits: exit()
        // with pjsua's threads still running races the libraries' destructors.
        do {
            let networkChanges = NetworkChangeSignal.install(for: phone, output: output)
            defer { networkChanges.cancel() }
            try await media.apply(to: phone)
            let video = try await videoOptions.apply(to: phone, output: output)
            output.emit("listening", ["uri": transport.uri().description, "transport": transport.kind.rawValue, "host": transport.host, "port": transport.port],
                        human: "listening on \(transport.uri())")
            var added: PJSUA.Account?
            if let configuration = account.configuration {
                added = try await phone.addAccount(configuration)
            }
            try await presence.apply(to: phone, account: added)
            // One player for every call: one file reader and resampler however many calls there are.
            let player: PJSUA.Player? = if let play { try await phone.makePlayer(play, loop: true) } else { nil }
            let agent = Agent(phone: phone, output: output, quiet: quiet, code: engineAnswers ? nil : code, delay: delay, exitAfter: exitAfter,
                              hangupAfter: hangupAfter, player: player, recordDirectory: recordDirectory, headers: headers, echo: echo,
                              video: video, stream: stream)
            let loop = Task { if let events { await agent.run(events) } }
            // Whichever comes first ends the agent: enough calls handled, or a signal.
            Task {
                let number = await signals.wait()
                output.emit("signal", ["signal": Int(number)], human: "signal \(number): shutting down")
                await agent.finish()
            }
            await agent.waitUntilDone()
            if let player { try? await phone.stop(player) }
            await phone.shutdown()
            await loop.value
            output.emit("done", ["calls": await agent.completed], human: "done: \(await agent.completed) call(s)")
            // SIGTERM is how a service manager stops an agent: done cleanly, that is a success.
            return signals.pending.map { Signals.isStopRequest($0) ? 0 : Signals.exitStatus(for: $0) } ?? 0
        } catch {
            await phone.shutdown()
            throw error
        }
    }
}

/// The answering logic: reacts to each engine event.
actor Agent {
    let phone: PJSUA
    let output: Output
    let quiet: Bool
    /// The response the agent sends itself; nil when the engine answers in its callback.
    let code: PJSUA.SIPResponseCode?
    let delay: Int
    /// Ends the agent once this many calls have ended.
    let exitAfter: Int?
    let hangupAfter: Double?
    /// The shared player fed into every answered call.
    let player: PJSUA.Player?
    let recordDirectory: String?
    /// Extra headers on every answer.
    let headers: [PJSUA.SIPHeader]
    /// Echoes each call's audio back after this many milliseconds.
    let echo: Int?
    /// Answers with video (`--video`).
    let video: PJSUA.VideoOptions?
    /// Bridges every answered call to a WebSocket agent (`--stream`).
    let stream: StreamOptions?
    private var echoing: Set<PJSUA.Call> = []
    private var streamed: Set<PJSUA.Call> = []
    private(set) var completed = 0
    private var recorders: [PJSUA.Call: PJSUA.Recorder] = [:]
    private var ours: Set<PJSUA.Call> = []
    /// Calls of ours that another call took over (see `.transferCallPlaced`, `.callReplaced`).
    private var handedOver: Set<PJSUA.Call> = []
    private var doneWaiters: [CheckedContinuation<Void, Never>] = []
    private var recordingNumber = 0

    init(phone: PJSUA, output: Output, quiet: Bool, code: PJSUA.SIPResponseCode?, delay: Int, exitAfter: Int?, hangupAfter: Double?, player: PJSUA.Player?, recordDirectory: String?,
         headers: [PJSUA.SIPHeader] = [], echo: Int? = nil, video: PJSUA.VideoOptions? = nil, stream: StreamOptions? = nil) {
        self.phone = phone
        self.output = output
        self.quiet = quiet
        self.code = code
        self.delay = delay
        self.exitAfter = exitAfter
        self.hangupAfter = hangupAfter
        self.player = player
        self.recordDirectory = recordDirectory
        self.headers = headers
        self.echo = echo
        self.video = video
        self.stream = stream
    }

    private var done = false

    func run(_ events: PJSUA.Events) async {
        for await event in events {
            if !quiet { output.emit(event, of: phone) }
            await handle(event)
        }
        finish()
    }

    /// Returns once ``finish()`` has been called (enough calls, a signal, or the engine stopped).
    func waitUntilDone() async {
        if done { return }
        await withCheckedContinuation { doneWaiters.append($0) }
    }

    func finish() {
        done = true
        let waiters = doneWaiters
        doneWaiters = []
        waiters.forEach { $0.resume() }
    }

    private func handle(_ event: PJSUA.Event) async {
        switch event {
        case let .incomingCall(_, call, _, _, _):
            ours.insert(call)
            // Without `code` the engine has answered it already (Configuration.autoAnswerCode).
            guard let code else { break }
            if delay > 0 {
                try? await phone.answer(call, code: .ringing, headers: headers)
                Task {
                    try? await Task.sleep(for: .milliseconds(delay))
                    await self.respond(call, code: code)
                }
            } else {
                await respond(call, code: code)
            }
        case let .transferCallPlaced(call, newCall), let .callReplaced(call, newCall):
            // A call that takes over one of ours (a transfer we followed, or Replaces) is ours
            // too, and carries on the count of the call it took over.
            guard ours.contains(call) else { break }
            ours.insert(newCall)
            handedOver.insert(call)
        case let .callMedia(call, .active, _) where ours.contains(call):
            if let player { try? await phone.connect(player, to: call) }
            if let echo, echoing.insert(call).inserted { await startEcho(call, delay: echo) }
            // Connecting (a host lookup, TCP, TLS, the upgrade) can take up to the stream's
            // timeout: the other calls' events go on meanwhile.
            if let stream, streamed.insert(call).inserted {
                Task { [phone, output] in await stream.start(call, phone: phone, output: output) }
            }
            if let recordDirectory, recorders[call] == nil {
                recordingNumber += 1
                let path = "\(recordDirectory)/call-\(recordingNumber).wav"
                if let recorder = try? await phone.record(call, to: path) {
                    recorders[call] = recorder
                    output.emit("recording", ["call": call.description, "path": path], human: "\(call) recording to \(path)")
                }
            }
        case let .callState(call, .confirmed, _, _) where ours.contains(call):
            if let hangupAfter {
                Task {
                    try? await Task.sleep(for: .milliseconds(Int(hangupAfter * 1000)))
                    try? await self.phone.hangUp(call)
                }
            }
        case let .callState(call, .disconnected, _, _) where ours.contains(call):
            ours.remove(call)
            echoing.remove(call)
            streamed.remove(call)
            if let recorder = recorders.removeValue(forKey: call) { try? await phone.stop(recorder) }
            if handedOver.remove(call) != nil { break }
            completed += 1
            if let exitAfter, completed >= exitAfter { finish() }
        default:
            break
        }
    }

    /// Sends the call's audio back `delay` later than the bridge's minimum (one frame): the
    /// first frame received goes out behind `delay` of silence, every later one as it arrives.
    /// Reader and writer run on the same bridge clock, so the queue then stays at `delay`. When
    /// this task stalls (a busy machine), the frames received meanwhile arrive in a burst and
    /// would raise the queue, and the echo's delay, for the rest of the call: a frame that finds
    /// more than `delay` and one frame queued is dropped instead, so the echo is never more
    /// than one frame late. The writer is added before the reader, so no frame is received
    /// before audio can go out.
    private func startEcho(_ call: PJSUA.Call, delay: Int) async {
        let format = PJSUA.AudioFormat()
        do {
            let writer = try await phone.sendAudio(to: call, format: format, capacity: .milliseconds(delay + 200), whenFull: .dropOldest)
            let frames = try await phone.receiveAudio(from: call, format: format)
            output.emit("echo", ["call": call.description, "delayMilliseconds": delay], human: "\(call) echoing after \(delay) ms")
            Task {
                var primed = false
                for await frame in frames {
                    if !primed {
                        primed = true
                        for _ in 0..<(delay / format.frameDuration.rawValue) { try? await writer.write(.silence(format)) }
                    }
                    // `delay` plus the frame the bridge may not have taken yet this tick.
                    if writer.queuedDuration > .milliseconds(delay + format.frameDuration.rawValue) { continue }
                    guard (try? await writer.write(frame)) != nil else { break }
                }
            }
        } catch {
            output.emit("error", ["call": call.description, "message": "\(error)"], human: "\(call): \(error)")
        }
    }

    private func respond(_ call: PJSUA.Call, code: PJSUA.SIPResponseCode) async {
        do {
            if code.isError {
                try await phone.reject(call, code: code, headers: headers)
            } else if let video {
                try await phone.answer(call, code: code, headers: headers, video: video)
            } else {
                try await phone.answer(call, code: code, headers: headers)
            }
        } catch {
            output.emit("error", ["call": call.description, "message": "\(error)"], human: "\(call): \(error)")
        }
    }
}
