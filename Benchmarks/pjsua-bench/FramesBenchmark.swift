import Foundation
import PJSUATestSupport
@_spi(Benchmarks) import SwiftPJSUA

/// `pjsua-bench frames`: the voice-agent frame path, measured against the C-only media path in
/// the same run.
///
/// - Server (a `frames-agent` child, on CPU 0 with `--pin`): side "swift" echoes every call's
///   audio through Swift with the frames API; side "c" plays a WAV file into every call with
///   pjsua's player. Both answer the same N PCMU calls, which carry RTP both ways for T seconds.
/// - Callers (this process, on CPU 1 with `--pin`): ``FrameCallers``, N calls from plain
///   sockets, a tone with a click every second per call (1 and 2 kHz in turn).
/// - CPU: the server's CPU seconds over the media phase, per call-second, median of the
///   interleaved runs (swift, c, swift, c, ...) and the ratio; the server's share of one core.
/// - Latency, all CLOCK_MONOTONIC (one clock for both processes): frame delivery (the bridge's tick
///   -> the Swift consumer has the frame, above the call's fastest frame: the agent reckons the
///   ticks from its own clock reads, see ``FramesAgent``), RTP in -> frame out (a click's
///   packet sent -> its frame in Swift), frame in -> RTP out (the echo written -> its packet
///   back at the caller), and the round trip.
enum FramesBenchmark {
    enum Side: String, CaseIterable {
        case swift, c
        /// A media stream (`PJSUA.stream`) to a WebSocket agent that echoes (`pjsua-bench stream`).
        case stream
        /// The same with both ways through the bridge's ticks: the caller's audio from its frames
        /// rather than passed through, the agent's played at its ticks rather than sent as it
        /// arrives (`Options.passesCallerAudioThrough` and `sendsAgentAudioOnArrival` off;
        /// `pjsua-bench stream --compare-bridge`).
        case streamBridged = "stream-bridge"

        /// Whether the side streams to a WebSocket agent.
        var streams: Bool { self == .stream || self == .streamBridged }
        /// The prefix of its JSON fields.
        var key: String { rawValue.replacingOccurrences(of: "-", with: "_") }
    }

    struct Options {
        var calls = 50
        var seconds = 10
        var clockRate = 8000
        var resampler = PJSUA.ResamplerQuality.high
        /// The frames' sample rate; nil: the bridge's (no resampling for the frame ports).
        var frameRate: Int?
        /// A network hiccup every 5 s: this much of every call's audio held back, then sent at once.
        var hiccupMilliseconds = 0
        /// The receive jitter buffer's bound (`MediaSettings.jitterBufferMax`, in milliseconds).
        var jitterBufferMaxMilliseconds: Int?
        var repetitions = 3
        /// The sides measured: swift and c (`frames`), plus stream (`stream`).
        var sides: [Side] = [.swift, .c]
        /// The stream side's echo agent.
        var streamAgent = StreamAgentKind.c
        /// The stream side's ``PJSUA/MediaStream/Options/trimsStandingQueue``.
        var trimsStandingQueue = false
        /// The stream side's ``PJSUA/MediaStream/Options/playbackCapacity``, in milliseconds.
        var playbackMilliseconds = 40
    }

    /// The WebSocket agent the stream side streams to; both echo every `media` message and print
    /// the same `click` lines.
    enum StreamAgentKind: String {
        /// `stream-echo-agent` (Benchmarks/StreamEchoAgent): C, one thread on epoll.
        case c
        /// Tests/Peers/stream_agent.py --bench: Python `websockets`, decoding every payload; it
        /// falls behind at about 120 streams on the callers' CPU, and its bursts add latency.
        case python

        /// The program and its arguments, the C agent found beside this executable.
        func command() throws -> (String, [String]) {
            switch self {
            case .python:
                return (StreamAgent.python, ["-u", "-W", "ignore", peersDirectory + "/stream_agent.py", "--bench"])
            case .c:
                let path = URL(fileURLWithPath: FramesBenchmark.ownPath).deletingLastPathComponent().appendingPathComponent("stream-echo-agent").path
                guard FileManager.default.isExecutableFile(atPath: path) else {
                    throw BenchError("no \(path): build it (swift build -c release --product stream-echo-agent), or use --agent python")
                }
                return (path, [])
            }
        }
    }

    struct Outcome {
        var cpuSeconds = Double.nan
        var mediaSeconds = Double.nan
        var rssKilobytes = -1
        var contextSwitches = 0
        var callsUp = 0
        var deliveryP50 = Double.nan
        var deliveryP99 = Double.nan
        var deliveryCount = 0
        /// Milliseconds per click: caller sent -> Swift has the frame.
        var inbound: [Double] = []
        /// Caller sent -> the bridge handed the frame to the port (jitter buffer + bridge tick).
        var inboundToBridge: [Double] = []
        /// Swift wrote the echo -> the caller has the packet.
        var outbound: [Double] = []
        var roundTrip: [Double] = []
        var clicksSent = 0
        /// The longest silence between two RTP packets of one call at the callers (ms).
        var longestGap = Double.nan
        /// The fewest packets one call got back, of those sent.
        var fewestPackets = 0
        /// The machine's 1-minute load average when the run started (other work skews CPU figures).
        var loadAverage = Double.nan

        /// Server CPU milliseconds per call-second.
        func cpuPerCallSecond(calls: Int) -> Double { cpuSeconds * 1000 / (Double(calls) * mediaSeconds) }
        func switchesPerCallSecond(calls: Int) -> Double { Double(contextSwitches) / (Double(calls) * mediaSeconds) }
    }

    static var ownPath: String { Bundle.main.executablePath ?? CommandLine.arguments[0] }

    static func run(_ options: Options) async throws {
        report(try await figures(options))
    }

    /// Runs both sides, interleaved, prints the figures and returns them (`cpu_ratio` is the
    /// median CPU per call-second, Swift over C).
    static func figures(_ options: Options) async throws -> [String: Any] {
        guard PJSUA.MediaSettings.clockRates.contains(options.clockRate) else {
            throw BenchError("--clock-rate must be 8000, 16000, 32000 or 48000, not \(options.clockRate)")
        }
        if let frameRate = options.frameRate, PJSUA.AudioFormat.SampleRate(rawValue: frameRate) == nil {
            throw BenchError("--frame-rate must be 8000, 16000, 24000 or 48000, not \(frameRate)")
        }
        if CPUPinning.enabled {
            // This process (the callers) on the load generator's CPU, every thread of it.
            let taskset = try ChildProcess("taskset", ["-a", "-p", "-c", "\(CPUPinning.loadGeneratorCPU)", "\(getpid())"], name: "taskset")
            _ = try await taskset.waitForExit(timeout: .seconds(10))
        }
        let work = NSTemporaryDirectory() + "pjsua-bench-frames-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        // The C side's audio: a tone at the bridge's rate (the player resamples nothing), as loud
        // as the callers' tone so both sides send alike.
        let wav = work + "/tone.wav"
        try WAVFile.tone(frequency: 400, duration: .seconds(2), sampleRate: options.clockRate, amplitude: 1000.0 / 32767).write(to: wav)

        progress("frames: \(options.calls) PCMU calls x \(options.seconds) s per run, bridge at \(options.clockRate) Hz (resampler \(options.resampler.rawValue)), "
                 + "frames at \(options.frameRate ?? options.clockRate) Hz, "
                 + (options.hiccupMilliseconds > 0 ? "a \(options.hiccupMilliseconds) ms hiccup every 5 s, " : "")
                 + (options.jitterBufferMaxMilliseconds.map { "jitter buffer at most \($0) ms, " } ?? "")
                 + "\(options.repetitions) interleaved runs per side\(CPUPinning.enabled ? ", server on CPU 0, callers on CPU 1" : "")"
                 + (options.sides.contains(.stream) ? ", stream agent: \(options.streamAgent.rawValue)" : ""))
        var outcomes: [Side: [Outcome]] = [:]
        for repetition in 1...options.repetitions {
            for side in options.sides {
                let outcome = try await measure(side, options, wav: wav)
                outcomes[side, default: []].append(outcome)
                var line = "frames \(side.rawValue) run \(repetition)/\(options.repetitions): \(outcome.callsUp)/\(options.calls) calls up, "
                    + "server CPU \(format(outcome.cpuSeconds, 3)) s over \(format(outcome.mediaSeconds, 1)) s = "
                    + "\(format(outcome.cpuPerCallSecond(calls: options.calls), 2)) ms per call-second "
                    + "(\(format(outcome.cpuSeconds / outcome.mediaSeconds * 100, 1)) % of a core), "
                    + "\(format(outcome.switchesPerCallSecond(calls: options.calls), 1)) context switches per call-second, RSS \(outcome.rssKilobytes / 1024) MB, "
                    + "RTP back: fewest \(outcome.fewestPackets)/\(options.seconds * 50) packets, longest gap \(format(outcome.longestGap, 0)) ms; "
                    + "load average \(format(outcome.loadAverage, 2))"
                if side != .c {
                    if side == .swift {
                        line += "; delivery p50/p99 \(format(outcome.deliveryP50, 0))/\(format(outcome.deliveryP99, 0)) us"
                    }
                    // Per run: the bridge's clock and the callers' are not in phase, so where a
                    // run's latency falls within a 20 ms tick differs from run to run.
                    line += "; in/out p50 \(format(Percentiles(outcome.inbound).p50, 1))/\(format(Percentiles(outcome.outbound).p50, 1)) ms, "
                        + "\(outcome.roundTrip.count) of \(outcome.clicksSent) clicks echoed"
                }
                progress(line)
            }
        }
        return summarize(outcomes, options)
    }

    static func summarize(_ outcomes: [Side: [Outcome]], _ options: Options) -> [String: Any] {
        var fields: [String: Any] = ["calls": options.calls, "seconds": options.seconds, "clock_rate": options.clockRate,
                                     "resampler": options.resampler.rawValue, "frame_rate": options.frameRate ?? options.clockRate,
                                     "hiccup_ms": options.hiccupMilliseconds, "jb_max_ms": options.jitterBufferMaxMilliseconds ?? -1,
                                     "repeat": options.repetitions, "pinned": CPUPinning.enabled]
        if options.sides.contains(where: \.streams) { fields["stream_agent"] = options.streamAgent.rawValue }
        var medians: [Side: Double] = [:]
        for side in options.sides {
            let runs = outcomes[side] ?? []
            let perCallSecond = runs.map { $0.cpuPerCallSecond(calls: options.calls) }
            medians[side] = LoadBenchmark.median(perCallSecond)
            let key = side.key
            fields["\(key)_cpu_ms_per_call_s_runs"] = LoadBenchmark.jsonNumbers(perCallSecond)
            fields["\(key)_cpu_ms_per_call_s"] = medians[side]
            fields["\(key)_core_percent"] = LoadBenchmark.median(runs.map { $0.cpuSeconds / $0.mediaSeconds * 100 })
            fields["\(key)_calls_up_runs"] = runs.map(\.callsUp)
            fields["\(key)_rss_kb_runs"] = runs.map(\.rssKilobytes)
            fields["\(key)_context_switches_per_call_s"] = LoadBenchmark.median(runs.map { $0.switchesPerCallSecond(calls: options.calls) })
            fields["\(key)_longest_gap_ms_runs"] = LoadBenchmark.jsonNumbers(runs.map(\.longestGap))
            fields["\(key)_load_average_runs"] = LoadBenchmark.jsonNumbers(runs.map(\.loadAverage))
            progress("frames \(key): \(format(medians[side] ?? .nan, 2)) ms CPU per call-second (median of "
                     + perCallSecond.map { format($0, 2) }.joined(separator: ", ") + "), "
                     + "\(format(fields["\(key)_context_switches_per_call_s"] as? Double ?? .nan, 1)) context switches per call-second")
        }
        let ratio = (medians[.swift] ?? .nan) / (medians[.c] ?? .nan)
        fields["cpu_ratio"] = ratio
        if options.sides.contains(.c) {
            progress("frames cpu ratio swift/c = \(format(ratio, 2)) (target <= 1.5: \(ratio <= 1.5 ? "met" : "NOT met"))")
        }

        let swift = outcomes[.swift] ?? []
        let allUp = swift.allSatisfy { $0.callsUp == options.calls }
        let core = LoadBenchmark.median(swift.map { $0.cpuSeconds / $0.mediaSeconds * 100 })
        let oneCore = allUp && core < 100
        fields["swift_all_calls_up"] = allUp
        progress("frames concurrency: \(swift.map { "\($0.callsUp)" }.joined(separator: ", ")) of \(options.calls) echo calls up for "
                 + "\(options.seconds) s, the server at \(format(core, 1)) % of one core"
                 + (options.calls >= 50 ? " (target >= 50 on one core: \(oneCore ? "met" : "NOT met"))" : ""))

        fields["delivery_us_p50"] = LoadBenchmark.median(swift.map(\.deliveryP50))
        fields["delivery_us_p99"] = LoadBenchmark.median(swift.map(\.deliveryP99))
        fields["delivery_frames"] = swift.map(\.deliveryCount).reduce(0, +)
        progress("frames delivery (bridge tick -> Swift consumer, above each call's fastest frame): p50 \(format(fields["delivery_us_p50"] as? Double ?? .nan, 0)) us, "
                 + "p99 \(format(fields["delivery_us_p99"] as? Double ?? .nan, 0)) us (median of the runs' percentiles)")
        let series: [(String, String, [Double])] = [
            ("rtp_in_to_frame_out", "RTP in -> frame out", swift.flatMap(\.inbound)),
            ("rtp_in_to_bridge", "  of which RTP in -> bridge hands the frame over (jitter buffer + bridge tick)", swift.flatMap(\.inboundToBridge)),
            ("frame_in_to_rtp_out", "frame in -> RTP out", swift.flatMap(\.outbound)),
            ("round_trip", "round trip (caller -> echo -> caller)", swift.flatMap(\.roundTrip)),
        ]
        for (key, label, values) in series {
            let percentiles = Percentiles(values)
            fields["\(key)_ms_p50"] = percentiles.p50
            fields["\(key)_ms_p99"] = percentiles.p99
            fields["\(key)_samples"] = values.count
            progress("frames latency (measured, \(values.count) clicks): \(label): p50 \(format(percentiles.p50, 1)) ms, p99 \(format(percentiles.p99, 1)) ms")
        }
        let inP99 = Percentiles(swift.flatMap(\.inbound)).p99
        let outP99 = Percentiles(swift.flatMap(\.outbound)).p99
        progress("frames added latency target (< 40 ms each way at p99): \(inP99 < 40 && outP99 < 40 ? "met" : "NOT met")")
        for side in options.sides where side.streams { summarizeStream(side, outcomes, options, medians: medians, into: &fields) }
        return fields
    }

    /// The media stream's figures: its CPU against the frames path and the C path, and its
    /// latency each way (the agent's receive and send times on the callers' clock).
    static func summarizeStream(_ side: Side, _ outcomes: [Side: [Outcome]], _ options: Options, medians: [Side: Double],
                                into fields: inout [String: Any]) {
        let stream = outcomes[side] ?? []
        let name = side.rawValue
        let key = side.key
        let overFrames = (medians[side] ?? .nan) / (medians[.swift] ?? .nan)
        let overC = (medians[side] ?? .nan) / (medians[.c] ?? .nan)
        fields["\(key)_over_frames_cpu_ratio"] = overFrames
        fields["\(key)_over_c_cpu_ratio"] = overC
        progress("\(name) cpu ratio \(name)/frames = \(format(overFrames, 2)) (target <= 1.5: \(overFrames <= 1.5 ? "met" : "NOT met")), "
                 + "\(name)/c = \(format(overC, 2))")
        fields["\(key)_all_calls_up"] = !stream.isEmpty && stream.allSatisfy { $0.callsUp == options.calls }
        let core = LoadBenchmark.median(stream.map { $0.cpuSeconds / $0.mediaSeconds * 100 })
        progress("\(name) concurrency: \(stream.map { "\($0.callsUp)" }.joined(separator: ", ")) of \(options.calls) streamed calls up for "
                 + "\(options.seconds) s, the server at \(format(core, 1)) % of one core")
        let series: [(String, String, [Double])] = [
            ("rtp_in_to_ws_out", "RTP in -> WebSocket out (agent has the media message)", stream.flatMap(\.inbound)),
            ("ws_in_to_rtp_out", "WebSocket in -> RTP out (agent sent -> caller has the packet)", stream.flatMap(\.outbound)),
            ("round_trip", "round trip (caller -> agent echo -> caller)", stream.flatMap(\.roundTrip)),
        ]
        for (series, label, values) in series {
            let percentiles = Percentiles(values)
            fields["\(key)_\(series)_ms_p50"] = percentiles.p50
            fields["\(key)_\(series)_ms_p99"] = percentiles.p99
            fields["\(key)_\(series)_samples"] = values.count
            progress("\(name) latency (measured, \(values.count) clicks): \(label): p50 \(format(percentiles.p50, 1)) ms, p99 \(format(percentiles.p99, 1)) ms")
        }
        // Issue 20's target: at most 20 ms added each way at p99 on loopback. (Its notes had
        // restated it as one ptime plus 5 ms while both ways waited for the bridge's tick; with
        // the caller's audio passed through and the agent's sent as it arrives, neither waits.)
        let inP99 = Percentiles(stream.flatMap(\.inbound)).p99
        let outP99 = Percentiles(stream.flatMap(\.outbound)).p99
        progress("\(name) added latency target (<= 20 ms each way at p99): \(inP99 <= 20 && outP99 <= 20 ? "met" : "NOT met")")
    }

    /// One fresh server and one set of calls against it.
    static func measure(_ side: Side, _ options: Options, wav: String) async throws -> Outcome {
        // A port of a block held for the measurement (the server cannot report a port it picked).
        let block = try PortBlock()
        defer { withExtendedLifetime(block) {} }
        let port = block[0]
        var arguments = ["frames-agent", "--mode", side == .swift ? "echo" : side == .c ? "play" : "stream", "--port", "\(port)", "--calls", "\(options.calls)",
                         "--clock-rate", "\(options.clockRate)", "--resampler", options.resampler.rawValue]
        if side == .c { arguments += ["--wav", wav] }
        if let frameRate = options.frameRate { arguments += ["--frame-rate", "\(frameRate)"] }
        if let bound = options.jitterBufferMaxMilliseconds { arguments += ["--jb-max", "\(bound)"] }
        var streamAgent: ChildProcess?
        defer { streamAgent?.stop() }
        if side.streams {
            // The WebSocket agent on the callers' CPU: what the server spends is the engine's.
            let (program, programArguments) = try options.streamAgent.command()
            let (agentExecutable, agentArguments) = try CPUPinning.command(program, programArguments, cpu: CPUPinning.loadGeneratorCPU)
            let child = try ChildProcess(agentExecutable, agentArguments, name: "stream-agent")
            streamAgent = child
            try await child.waitForOutput("LISTENING ")
            let agentPort = child.output.split(separator: "\n").first { $0.hasPrefix("LISTENING ") }.flatMap { Int($0.dropFirst(10)) } ?? 0
            arguments += ["--agent-url", "ws://127.0.0.1:\(agentPort)/bench"]
            arguments += ["--playback-ms", "\(options.playbackMilliseconds)"]
            if options.trimsStandingQueue { arguments.append("--trim") }
            if side == .streamBridged { arguments.append("--bridge-clock") }
        }
        let (executable, pinned) = try CPUPinning.command(ownPath, arguments, cpu: CPUPinning.serverCPU)
        let agent = try ChildProcess(executable, pinned, name: "frames-agent")
        defer { agent.stop() }
        try await agent.waitForOutput("listening")
        let load = loadAverage()
        let callers = try FrameCallers(count: options.calls, targetPort: port)
        let result = try await onThread { try callers.run(seconds: options.seconds, serverPID: agent.pid, hiccupMilliseconds: options.hiccupMilliseconds) }
        try await agent.waitForOutput("agent done", timeout: .seconds(20))

        var outcome = Outcome(cpuSeconds: result.serverCPUSeconds, mediaSeconds: result.mediaSeconds, rssKilobytes: result.serverRSSKilobytes,
                              contextSwitches: result.serverContextSwitches)
        outcome.loadAverage = load
        let expectedPackets = Double(options.seconds * 50)
        outcome.longestGap = Double(result.calls.map(\.longestGap).max() ?? 0) / 1e6
        outcome.fewestPackets = result.calls.map(\.packetsReceived).min() ?? 0
        outcome.callsUp = result.calls.filter {
            $0.confirmed && !$0.hungUpByServer && Double($0.packetsReceived) >= 0.9 * expectedPackets && $0.longestGap < 500_000_000
        }.count
        let lines = agent.output.split(separator: "\n")
        if let counters = lines.last(where: { $0.hasPrefix("streams ") }) { progress("frames stream run: \(counters)") }
        if let delivery = lines.last(where: { $0.hasPrefix("delivery ") })?.split(separator: " "), delivery.count >= 4 {
            outcome.deliveryCount = Int(delivery[1]) ?? 0
            outcome.deliveryP50 = Double(delivery[2]) ?? .nan
            outcome.deliveryP99 = Double(delivery[3]) ?? .nan
        }
        guard side != .c else { return outcome }
        // The agent's click onsets by call, in order (the WebSocket agent's, for a stream).
        var agentClicks: [String: [(bridge: UInt64, received: UInt64, written: UInt64, high: Bool)]] = [:]
        let clickLines = side.streams ? (streamAgent?.output ?? "").split(separator: "\n") : lines
        for line in clickLines where line.hasPrefix("click ") {
            let fields = line.split(separator: " ")
            guard fields.count == 6, let bridge = UInt64(fields[2]), let received = UInt64(fields[3]), let written = UInt64(fields[4]),
                  let crossings = Int(fields[5]) else { continue }
            agentClicks[String(fields[1]), default: []].append((bridge, received, written, crossings > 60))
        }
        // Clicks are a second apart per call and alternate in pitch: a match of the same pitch
        // within a second is that click's.
        let window: UInt64 = 1_000_000_000
        for call in result.calls {
            let seen = agentClicks[call.callID] ?? []
            outcome.clicksSent += call.clicksSent.count
            for (sent, high) in call.clicksSent {
                guard let inServer = seen.first(where: { $0.high == high && $0.received > sent && $0.received - sent < window }) else { continue }
                outcome.inbound.append(Double(inServer.received - sent) / 1e6)
                if inServer.bridge > sent { outcome.inboundToBridge.append(Double(inServer.bridge - sent) / 1e6) }
                guard let back = call.clicksBack.first(where: { $0.high == high && $0.time > inServer.written && $0.time - sent < window })
                else { continue }
                outcome.outbound.append(Double(back.time - inServer.written) / 1e6)
                outcome.roundTrip.append(Double(back.time - sent) / 1e6)
            }
        }
        return outcome
    }

    /// Runs blocking work on a thread of its own (the callers' sockets block and pace themselves).
    static func onThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }

    static func format(_ value: Double, _ digits: Int) -> String { LoadBenchmark.format(value, digits: digits) }
}

/// Resident set size of another process in kB, from /proc/<pid>/status; -1 if unreadable.
func residentKilobytes(pid: Int32) -> Int {
    guard let status = readText("/proc/\(pid)/status") else { return -1 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }
    return -1
}
