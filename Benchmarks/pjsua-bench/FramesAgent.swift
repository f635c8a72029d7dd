import Foundation
import SwiftPJSUA
import SwiftPJSUAStreams
import Synchronization

/// The server side of `pjsua-bench frames`, run as a child process
/// (`pjsua-bench frames-agent --mode echo|play|stream --port P --calls N --clock-rate HZ [--resampler Q] [--frame-rate HZ] [--jb-max MS]
/// [--wav FILE] [--agent-url URL [--trim] [--playback-ms MS]]`):
/// answers every call and, once its audio is up, either echoes it through Swift with the public
/// frames API (`receiveAudio` + `AudioFrameWriter`, each frame written back as it arrives),
/// streams it to a WebSocket agent that echoes it (`--agent-url`, a media stream), or
/// plays a WAV file into it (pjsua's file player: no Swift in the media path). Prints
/// `listening`, then, when N calls have ended, one `click` line per click onset it echoed (times
/// and the onset frame's sign changes per 20 ms, which tell the callers' two click pitches apart) and a
/// `delivery` line (bridge tick -> Swift consumer latency percentiles), then `agent done`.
///
/// When the bridge handed a frame over is not something the engine reports: the agent reckons it
/// from its own clock reads and the bridge's clock. The bridge hands a call's frames over one a
/// tick, so frame n (its stream position) goes a frame duration after frame n - 1; the call's
/// frame that reached Swift soonest after its tick fixes where the ticks fall (its delivery
/// counts as 0), and every other frame's delivery is how much later than that it came. Delivery is
/// therefore what the consumer adds beyond its best case (scheduling, queueing, the bridge's clock
/// thread running late), not the few microseconds of the best case itself; a click's hand-over
/// time is off by no more than that best case.
enum FramesAgent {
    enum Mode: String { case echo, play, stream }

    /// What the echo tasks record; shared by every call's task.
    final class Recorder: Sendable {
        /// A click's onset frame: where it is in its call's stream (ns), when Swift had it and
        /// when the echo was written (CLOCK_MONOTONIC ns).
        struct Click { var sipCallID: String; var stream: Int64; var received: Int64; var written: Int64; var crossings: Int }
        /// A frame as it reached Swift: where it is in its call's stream, when Swift had it (ns).
        struct Arrival { var stream: Int64; var received: Int64 }
        struct Log {
            var arrivals: [String: [Arrival]] = [:]
            var clicks: [Click] = []
            var framesEchoed = 0
        }

        let log = Mutex(Log())
        /// The media streams (mode stream), for their counters at the end.
        let streams = Mutex<[PJSUA.MediaStream]>([])
    }

    /// A frame this loud (RMS, of full scale) after a quieter one is a click's onset.
    static let clickLevel = 0.15

    static func run(_ arguments: [String]) async throws {
        func value(_ name: String) -> String? {
            arguments.firstIndex(of: "--\(name)").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
        }
        guard let mode = value("mode").flatMap(Mode.init(rawValue:)), let port = value("port").flatMap(Int.init),
              let calls = value("calls").flatMap(Int.init), let clockRate = value("clock-rate").flatMap(Int.init) else {
            throw BenchError("frames-agent needs --mode echo|play --port P --calls N --clock-rate HZ")
        }
        let wav = value("wav")
        if mode == .play && wav == nil { throw BenchError("frames-agent --mode play needs --wav FILE") }
        let agentURL = value("agent-url")
        let trims = arguments.contains("--trim")
        let passesThrough = !arguments.contains("--bridge-clock")
        let playbackMilliseconds = value("playback-ms").flatMap(Int.init) ?? 40
        if mode == .stream && agentURL == nil { throw BenchError("frames-agent --mode stream needs --agent-url ws://...") }
        // Frames at the bridge's own rate by default (where the API has it): the bridge then
        // resamples nothing for the frame ports, so the Swift side costs what Swift costs.
        let frameRate = value("frame-rate").flatMap(Int.init) ?? clockRate
        let format = PJSUA.AudioFormat(sampleRate: PJSUA.AudioFormat.SampleRate(rawValue: frameRate) ?? .hz16000)

        let phone = PJSUA()
        var configuration = PJSUA.Configuration(port: port, bindAddress: "127.0.0.1", maxCalls: min(PJSUA.maxCallsLimit, calls + 8),
                                                audioDevice: .null, rtpPort: 20000 + 2 * Int.random(in: 0..<5000), autoAnswerCode: 200)
        configuration.media.clockRate = clockRate
        configuration.media.jitterBufferMax = value("jb-max").flatMap(Int.init).map { .milliseconds($0) }
        configuration.media.resamplerQuality = value("resampler").flatMap(PJSUA.ResamplerQuality.init(rawValue:)) ?? .high
        // The tap and the pace only where calls are streamed: the echo and the player, which the
        // stream is compared with, run as an app that does not stream.
        configuration.enablesMediaStreams = mode == .stream
        let events = phone.events
        _ = try await phone.start(configuration)
        try await phone.useCodecs(["PCMU"])
        print("listening \(port)")
        fflush(nil)

        let recorder = Recorder()
        var callIDs: [PJSUA.Call: String] = [:]
        var started: Set<PJSUA.Call> = []
        var ended = 0
        loop: for await event in events {
            switch event {
            case let .incomingCall(_, call, sipCallID, _, _):
                callIDs[call] = sipCallID
            case let .callMedia(call, .active, _):
                guard started.insert(call).inserted else { break }
                switch mode {
                case .echo:
                    try await startEcho(phone, call, sipCallID: callIDs[call] ?? "?", format: format, recorder: recorder)
                case .play:
                    _ = try await phone.play(wav ?? "", into: call, loop: true)
                case .stream:
                    // The WebSocket agent echoes each media message back (Tests/Peers/stream_agent.py --bench).
                    // Its playback queue holds two frames (--playback-ms), as the echo writer's does: an
                    // echo that arrives in a burst (the agent stalled) must not stay queued for the rest
                    // of the call. A real agent sending speech faster than real time needs the default
                    // (60 s); --trim (Options.trimsStandingQueue) is what takes a stall's standing queue
                    // back then: an echo arrives at the real-time rate, the case it is for.
                    // Connected concurrently: a handshake must not hold up the next call's events.
                    Task {
                        do {
                            let options = PJSUA.MediaStream.Options(playbackCapacity: .milliseconds(playbackMilliseconds),
                                                                    trimsStandingQueue: trims, passesCallerAudioThrough: passesThrough,
                                                                    sendsAgentAudioOnArrival: passesThrough,
                                                                    whenAgentLeaves: .keepCall)
                            let stream = try await phone.stream(call, to: agentURL ?? "", options: options)
                            recorder.streams.withLock { $0.append(stream) }
                        } catch {
                            print("stream failed \(call): \(error)")
                        }
                    }
                }
            case .callState(_, .disconnected, _, _):
                ended += 1
                if ended >= calls { break loop }
            default:
                break
            }
        }
        let log = recorder.log.withLock { $0 }
        // Where each call's ticks fall: its fastest frame's arrival, less that frame's place in
        // the stream, is tick 0's hand-over (see the type's comment).
        let tickZero = log.arrivals.compactMapValues { arrivals in arrivals.map { $0.received - $0.stream }.min() }
        let deliveryMicroseconds = log.arrivals.flatMap { sipCallID, arrivals in
            arrivals.map { Double($0.received - $0.stream - (tickZero[sipCallID] ?? 0)) / 1000 }
        }
        for click in log.clicks {
            let bridge = click.stream + (tickZero[click.sipCallID] ?? 0)
            print("click \(click.sipCallID) \(bridge) \(click.received) \(click.written) \(click.crossings)")
        }
        // The streams' counters, summed: what the engine sent, dropped and played.
        let counters = recorder.streams.withLock { $0.map(\.statistics) }
        if !counters.isEmpty {
            func sum(_ field: KeyPath<PJSUA.MediaStream.Statistics, Int>) -> Int { counters.map { $0[keyPath: field] }.reduce(0, +) }
            print("streams \(counters.count) media sent \(sum(\.mediaMessagesSent)), received \(sum(\.messagesReceived)), "
                  + "dropped to the agent \(sum(\.messagesDropped)), played \(sum(\.playedMilliseconds)) ms, "
                  + "dropped from the agent \(sum(\.droppedMilliseconds)) ms, trimmed \(sum(\.trimmedMilliseconds)) ms, underruns \(sum(\.underruns)), "
                  + "agent frames sent on arrival \(sum(\.framesSentOnArrival)), held back \(sum(\.framesHeldBack))")
        }
        let delivery = Percentiles(deliveryMicroseconds)
        print("delivery \(deliveryMicroseconds.count) \(delivery.p50) \(delivery.p99) \(delivery.sorted.last ?? .nan)")
        print("agent done")
        fflush(nil)
        await phone.shutdown()
    }

    /// Echoes `call` frame by frame: each frame received is written back at once. The writer is
    /// attached first, so no frame arrives before audio can go out. Its queue holds two frames
    /// and drops the oldest: reader and writer tick together, so whatever a consumer that stalled
    /// writes in a burst stays queued for the rest of the call; two frames bound that (one frame
    /// is the bridge's minimum).
    static func startEcho(_ phone: PJSUA, _ call: PJSUA.Call, sipCallID: String, format: PJSUA.AudioFormat, recorder: Recorder) async throws {
        let writer = try await phone.sendAudio(to: call, format: format, capacity: .milliseconds(2 * format.frameDuration.rawValue),
                                               whenFull: .dropOldest)
        let frames = try await phone.receiveAudio(from: call, format: format)
        let rate = Int64(format.sampleRate.rawValue)
        Task {
            var wasLoud = false
            for await frame in frames {
                let received = Int64(nanoseconds())
                guard (try? await writer.write(frame)) != nil else { break }
                let written = Int64(nanoseconds())
                let stream = Int64(frame.timestamp) * 1_000_000_000 / rate
                let loud = frame.rmsLevel > clickLevel
                let onset = loud && !wasLoud
                wasLoud = loud
                recorder.log.withLock { log in
                    log.framesEchoed += 1
                    log.arrivals[sipCallID, default: []].append(.init(stream: stream, received: received))
                    if onset {
                        // Sign changes per 20 ms of the click (1 kHz: about 40, 2 kHz: about 80).
                        let crossings = zip(frame.samples, frame.samples.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count
                            * 20 / format.frameDuration.rawValue
                        log.clicks.append(.init(sipCallID: sipCallID, stream: stream, received: received, written: written,
                                                crossings: crossings))
                    }
                }
            }
        }
    }
}
