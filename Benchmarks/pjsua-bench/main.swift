import CPJSUABaseline
import Dispatch
import Foundation
@_spi(Benchmarks) import SwiftPJSUA

/// pjsua-bench: speed and memory of the Swift engine against baselines measured in the same run.
/// Each subcommand prints human-readable lines and, last, one JSON object.
let usage = """
usage: pjsua-bench <hop|events|setup|screen|lifecycle|load|media|idle|soak|frames|stream|video|check> [options]
  hop    [--iterations N]          awaited engine round trip vs a plain-thread actor, default actor, DispatchQueue
  events [--iterations N]          callback -> for-await consumer latency, 1 and 4 subscribers
  setup  [--calls N]               self-call cycles, Swift engine vs the same loop in C
  screen [--rounds N] [--repeat N] the input screen's cost per message against PJSIP's parse of it:
                                   13 ordinary messages (a call with SRTP and ICE, a registration,
                                   presence, a MESSAGE), each parsed and screened N times (default
                                   20000), the median of --repeat passes (default 3)
  lifecycle [--cycles N]           engine start and shutdown times, one engine reused and a new one each time
  load   [--rate R] [--seconds T] [--hold-ms H] [--repeat N]
         [--find-max [--ramp-from R] [--step-seconds T]] [--overload [--overload-seconds T] [--no-rate-limit]] [--pin] [--clock-rate HZ]
                                   sipp UAC against softphone answer and the pjsua app:
                                   server CPU of N interleaved runs per side (default 3), median
                                   and ratio; --find-max: highest zero-failure rate of 50 ms calls
                                   (1.5x ramp, then bisection); --overload (implies --find-max):
                                   goodput at 2x and 4x the larger maximum, the Swift side with
                                   admission control (--max-cps its maximum) if softphone has it;
                                   --pin: the server on CPU 0, sipp on CPU 1 (taskset);
                                   --clock-rate: both servers' audio bridge rate (8000: no resampling)
  media  [--calls N] [--opus-calls N] [--seconds T] [--repeat N] [--pin]
                                   N concurrent calls from sipp (RTP echoed back) against softphone
                                   answer --play and the pjsua app --auto-play at the same media
                                   settings (16 kHz high/fast, 8 kHz; PCMU, and Opus with fewer
                                   calls), interleaved: ms CPU per call-second and kB of memory
                                   per concurrent call (VmHWM growth from 2 calls to N)
  idle   [--seconds N]             CPU of a started engine with one registered account
  soak   [--calls N]               RSS and file descriptors before/after N self-calls
  frames [--calls N] [--seconds T] [--clock-rate HZ] [--resampler fast|medium|high] [--frame-rate HZ]
         [--hiccup-ms MS] [--jb-max MS] [--repeat N] [--pin]
                                   N concurrent PCMU calls (default 50) echoed through Swift (frames
                                   API) vs the same calls played a WAV (C only): server CPU per
                                   call-second of interleaved runs and the ratio, calls kept up,
                                   frame delivery p50/p99, added latency RTP in -> frame out and
                                   frame in -> RTP out (measured with clicks on one monotonic clock);
                                   the bridge at 8 kHz by default (MediaSettings.telephony, a bot's
                                   setting), frames at the bridge's rate unless --frame-rate;
                                   --hiccup-ms: every 5 s the callers hold MS of audio back, then
                                   send it at once; --jb-max: the server's jitter-buffer bound
  stream [--calls N] [--seconds T] [--repeat N] [--pin] [--stream-only | --no-wav] [--agent c|python] [--trim] [--playback-ms MS] [--compare-bridge]
                                   frames' N PCMU echo calls three ways, interleaved: through Swift
                                   frames, a WAV player (C only), and a media stream to a WebSocket
                                   agent that echoes, on the callers' CPU (c: stream-echo-agent, built
                                   beside pjsua-bench with --product stream-echo-agent; python:
                                   Tests/Peers/stream_agent.py --bench, which falls behind at ~120
                                   streams): server CPU per call-second and the ratios
                                   stream/frames and stream/c, calls kept up, and the latency RTP
                                   in -> WebSocket out and WebSocket in -> RTP out (clicks, one clock);
                                   --stream-only: the stream side alone, --no-wav: frames and stream
                                   (the WAV side stops at PJSUA_MAX_PLAYERS calls, 64 here);
                                   --trim: the stream's trimsStandingQueue; --playback-ms: its queue
                                   (default 40, as the echo writer's); --compare-bridge: one more
                                   side, stream-bridge, the stream through the bridge's ticks both
                                   ways (passesCallerAudioThrough and sendsAgentAudioOnArrival
                                   off). 2026-12-02, shared machine,
                                   --no-wav (load 2.4-7): 20 calls 3.1-4.3 ms per call-second,
                                   stream/frames 1.22-1.64 (8 runs; 1.95-3.14 before the C media
                                   reader), out p50 20 ms, p99 22-24 ms unstalled, 39-65 stalled;
                                   50 calls 1.69; 200 calls 1.51, all up, the server at 49.5 % of
                                   a core, in/out p50 23/20 ms
  video  [--seconds T] [--warmup T] [--repeat N] [--pin] [--width W --height H] [--fps N] [--kbps N]
                                   one VP8 video call (default 640x480, 15 fps, 512 kbit/s, colour bars)
                                   from a softphone peer to softphone answer --video and to the pjsua
                                   app --video at the same settings, interleaved: server CPU per
                                   call-second, median and ratio; a run counts only if video flowed
                                   both ways at half the frame rate or more
  check  [--only NAME,...]          make bench-check: the cheap same-run ratios at small sizes (setup,
                                   hop, screen, load at 8 kHz, frames, stream), each against a threshold well above
                                   its noise; PASS/FAIL per ratio, exit 1 if any failed
"""

let command = CommandLine.arguments.dropFirst().first ?? ""
let arguments = Array(CommandLine.arguments.dropFirst(2))

func option(_ name: String, default value: Int) -> Int {
    guard let index = arguments.firstIndex(of: "--\(name)"), index + 1 < arguments.count else { return value }
    guard let number = Int(arguments[index + 1]), number > 0 else {
        FileHandle.standardError.write(Data("pjsua-bench: --\(name) must be a positive integer\n".utf8))
        exit(2)
    }
    return number
}

do {
    switch command {
    case "hop": try await HopBenchmark.run(iterations: option("iterations", default: 100_000))
    case "events": try await EventsBenchmark.run(iterations: option("iterations", default: 20_000))
    case "setup": try await SetupBenchmark.run(calls: option("calls", default: 200))
    case "screen": try await ScreenBenchmark.run(rounds: option("rounds", default: 20_000), repetitions: option("repeat", default: 3))
    case "lifecycle": try await LifecycleBenchmark.run(cycles: option("cycles", default: 50))
    case "load":
        let rate = option("rate", default: 20)
        try await LoadBenchmark.run(.init(rate: rate, seconds: option("seconds", default: 10),
                                          holdMilliseconds: option("hold-ms", default: 1000), repetitions: option("repeat", default: 3),
                                          findMax: arguments.contains("--find-max"), rampFrom: option("ramp-from", default: rate),
                                          stepSeconds: option("step-seconds", default: 5), overload: arguments.contains("--overload"),
                                          overloadSeconds: option("overload-seconds", default: 5),
                                          rateLimit: !arguments.contains("--no-rate-limit"),
                                          clockRate: arguments.contains("--clock-rate") ? option("clock-rate", default: 16000) : nil))
    case "media":
        try await MediaBenchmark.run(.init(calls: max(3, option("calls", default: 100)), opusCalls: max(3, option("opus-calls", default: 10)),
                                           seconds: option("seconds", default: 8), repetitions: option("repeat", default: 1)))
    case "idle": try await IdleBenchmark.run(seconds: option("seconds", default: 10))
    case "soak": try await SoakBenchmark.run(calls: option("calls", default: 1000))
    case "frames":
        let resampler = arguments.firstIndex(of: "--resampler").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
        guard let quality = PJSUA.ResamplerQuality(rawValue: resampler ?? "high") else {
            FileHandle.standardError.write(Data("pjsua-bench: --resampler must be fast, medium or high\n".utf8))
            exit(2)
        }
        try await FramesBenchmark.run(.init(calls: option("calls", default: 50), seconds: option("seconds", default: 10),
                                            clockRate: option("clock-rate", default: 8000), resampler: quality,
                                            frameRate: arguments.contains("--frame-rate") ? option("frame-rate", default: 16000) : nil,
                                            hiccupMilliseconds: arguments.contains("--hiccup-ms") ? option("hiccup-ms", default: 300) : 0,
                                            jitterBufferMaxMilliseconds: arguments.contains("--jb-max") ? option("jb-max", default: 500) : nil,
                                            repetitions: option("repeat", default: 3)))
    case "stream":
        let agentName = arguments.firstIndex(of: "--agent").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil } ?? "c"
        guard let agent = FramesBenchmark.StreamAgentKind(rawValue: agentName) else {
            throw BenchError("--agent must be c or python, not \(agentName)")
        }
        try await FramesBenchmark.run(.init(calls: option("calls", default: 50), seconds: option("seconds", default: 10),
                                            repetitions: option("repeat", default: 3),
                                            sides: (arguments.contains("--stream-only") ? [.stream]
                                                : arguments.contains("--no-wav") ? [.swift, .stream] : [.swift, .c, .stream])
                                                + (arguments.contains("--compare-bridge") ? [.streamBridged] : []),
                                            streamAgent: agent, trimsStandingQueue: arguments.contains("--trim"),
                                            playbackMilliseconds: option("playback-ms", default: 40)))
    case "video":
        try await VideoBenchmark.run(.init(seconds: option("seconds", default: 10), warmup: option("warmup", default: 3),
                                           repetitions: option("repeat", default: 3), width: option("width", default: 640),
                                           height: option("height", default: 480), frameRate: option("fps", default: 15),
                                           kilobits: option("kbps", default: 512)))
    case "check":
        let only = arguments.firstIndex(of: "--only").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
        try await CheckBenchmark.run(only: only.map { $0.split(separator: ",").map(String.init) })
    case "frames-agent": try await FramesAgent.run(arguments)  // the server child of `frames`
    case "--help", "-h", "help":
        print(usage)
    case "":
        FileHandle.standardError.write(Data("\(usage)\n".utf8))
        exit(2)
    default:
        FileHandle.standardError.write(Data("pjsua-bench: unknown benchmark '\(command)'\n\(usage)\n".utf8))
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("pjsua-bench: \(error)\n".utf8))
    exit(1)
}
