import Foundation
import PJSUATestSupport

/// CPU of one video call: a fixed peer (`softphone call --video`) calls the server under test, the
/// Swift engine (`softphone answer --video`) or the pjsua app (`--video`), both with the same video
/// settings; the sides interleave (A, B, A, B, ...) and the medians are compared.
///
/// - Same media on both servers: VP8 only (the peer offers nothing else), the codec's encoding
///   size, frame rate and bitrate set to the same values (softphone's `--video-size/--video-fps/
///   --video-kbps`; the pjsua app's console `vid codec size/fps/bw`, both `pjsua_vid_codec_set_param`),
///   pjmedia's colour-bar generator as the capture device, the SDL renderer (`SDL_VIDEODRIVER=dummy`)
///   for the peer's video, PCMU audio on an 8 kHz bridge (no resampling: the audio share is small)
///   linked to the null sound device, one SIP worker.
/// - CPU: the server's utime + stime from /proc over a window that starts `warmup` seconds after the
///   call is up (keyframes, encoder start), per second of call: milliseconds of CPU per call-second
///   (so 100 ms is a tenth of a core).
/// - A stalled call must not look cheap: the run counts only if the peer decoded the server's
///   pictures and the server received the peer's packets at a rate near the configured frame rate,
///   both measured over the same window.
enum VideoBenchmark {
    struct Options {
        var seconds = 10
        var warmup = 3
        var repetitions = 3
        var width = 640
        var height = 480
        var frameRate = 15
        var kilobits = 512
    }

    struct Sample {
        var cpuMillisecondsPerSecond = Double.nan
        /// Pictures the peer decoded from the server, per second of the window.
        var peerDecodedFps = Double.nan
        /// Video RTP packets the server received from the peer, and sent, per second of the window.
        var serverReceivedPacketsPerSecond = Double.nan
        var serverSentPacketsPerSecond = Double.nan
        var peerSentPacketsPerSecond = Double.nan
        var loadAverage = Double.nan
        var complete = false
    }

    /// The fields of the last `stats` record of a softphone `--json` log.
    struct VideoCounters {
        var framesReceived = 0
        var packetsReceived = 0
        var packetsSent = 0
    }

    static func run(_ options: Options) async throws {
        var fields: [String: Any] = ["seconds": options.seconds, "warmup": options.warmup, "repeat": options.repetitions,
                                     "size": "\(options.width)x\(options.height)", "fps": options.frameRate,
                                     "kbps": options.kilobits, "codec": "VP8", "pinned": CPUPinning.enabled]
        var samples: [LoadBenchmark.Side: [Sample]] = [:]
        for repetition in 1...options.repetitions {
            for side in LoadBenchmark.Side.allCases {
                let sample = try await measure(side, options)
                samples[side, default: []].append(sample)
                progress("video \(side.rawValue) run \(repetition)/\(options.repetitions): "
                         + "\(format(sample.cpuMillisecondsPerSecond, 1)) ms CPU per call-second; peer decoded "
                         + "\(format(sample.peerDecodedFps, 1)) fps from the server, server received "
                         + "\(format(sample.serverReceivedPacketsPerSecond, 1)) video packets/s (peer sent "
                         + "\(format(sample.peerSentPacketsPerSecond, 1))), sent \(format(sample.serverSentPacketsPerSecond, 1)); "
                         + "load average \(format(sample.loadAverage, 2))\(sample.complete ? "" : "  INCOMPLETE (video stalled)")")
            }
        }
        var medians: [LoadBenchmark.Side: Double] = [:]
        var allComplete = true
        for side in LoadBenchmark.Side.allCases {
            let runs = samples[side] ?? []
            let key = side.rawValue
            medians[side] = LoadBenchmark.median(runs.map(\.cpuMillisecondsPerSecond))
            allComplete = allComplete && runs.allSatisfy(\.complete)
            fields["\(key)_cpu_ms_per_call_s"] = medians[side]
            fields["\(key)_cpu_ms_per_call_s_runs"] = LoadBenchmark.jsonNumbers(runs.map(\.cpuMillisecondsPerSecond))
            fields["\(key)_peer_decoded_fps"] = LoadBenchmark.median(runs.map(\.peerDecodedFps))
            fields["\(key)_received_packets_per_s"] = LoadBenchmark.median(runs.map(\.serverReceivedPacketsPerSecond))
            fields["\(key)_sent_packets_per_s"] = LoadBenchmark.median(runs.map(\.serverSentPacketsPerSecond))
            fields["\(key)_load_average_runs"] = LoadBenchmark.jsonNumbers(runs.map(\.loadAverage))
        }
        let ratio = (medians[.swift] ?? .nan) / (medians[.pjsua] ?? .nan)
        fields["cpu_ratio"] = ratio
        fields["complete"] = allComplete
        progress("video \(options.width)x\(options.height) VP8 \(options.frameRate) fps \(options.kilobits) kbit/s (median of "
                 + "\(options.repetitions)): swift \(format(medians[.swift] ?? .nan, 1)) ms/call-s, pjsua app "
                 + "\(format(medians[.pjsua] ?? .nan, 1)) ms/call-s, ratio \(format(ratio, 3))")
        report(fields)
        if !allComplete {
            FileHandle.standardError.write(Data("pjsua-bench: some video runs stalled; their figures are not comparable\n".utf8))
            exit(1)
        }
    }

    /// One fresh server and one call from a fresh peer.
    static func measure(_ side: LoadBenchmark.Side, _ options: Options) async throws -> Sample {
        // A port of a block held for the measurement (the server cannot report a port it picked).
        let block = try PortBlock()
        defer { withExtendedLifetime(block) {} }
        let port = block[0]
        let server = try await VideoServer(side, port: port, options)
        defer { server.stop() }
        let hold = options.warmup + options.seconds + 3
        let peerArguments = ["call", "sip:bench@127.0.0.1:\(port)", "--json", "--stats-interval", "1", "--seconds", "\(hold)",
                             "--codecs", "PCMU", "--clock-rate", "8000"] + videoArguments(options)
        let (executable, pinned) = try CPUPinning.command(LoadBenchmark.softphonePath, peerArguments, cpu: CPUPinning.loadGeneratorCPU)
        let peer = try ChildProcess(executable, pinned, name: "softphone-video-peer")
        defer { peer.stop() }
        try await peer.waitForOutput("\"CONFIRMED\"", timeout: .seconds(20))
        try await Task.sleep(for: .seconds(options.warmup))

        var sample = Sample()
        sample.loadAverage = loadAverage()
        // The pjsua app's counters come from a console dump: asked before the CPU window opens
        // and after it closes, so its cost is outside the window.
        let serverStart = try await server.counters()
        let peerStart = lastCounters(in: peer.output)
        guard let startCPU = processCPUSeconds(pid: server.pid) else { throw BenchError("\(side.rawValue) server exited:\n\(server.output)") }
        let begin = ContinuousClock.now
        try await Task.sleep(for: .seconds(options.seconds))
        guard let endCPU = processCPUSeconds(pid: server.pid) else { throw BenchError("\(side.rawValue) server exited:\n\(server.output)") }
        let elapsed = ContinuousClock.now - begin
        let peerEnd = lastCounters(in: peer.output)
        let serverEnd = try await server.counters()
        let window = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18

        sample.cpuMillisecondsPerSecond = (endCPU - startCPU) * 1000 / window
        if let peerStart, let peerEnd {
            sample.peerDecodedFps = Double(peerEnd.framesReceived - peerStart.framesReceived) / window
            sample.peerSentPacketsPerSecond = Double(peerEnd.packetsSent - peerStart.packetsSent) / window
        }
        if let serverStart, let serverEnd {
            sample.serverReceivedPacketsPerSecond = Double(serverEnd.packetsReceived - serverStart.packetsReceived) / window
            sample.serverSentPacketsPerSecond = Double(serverEnd.packetsSent - serverStart.packetsSent) / window
        }
        // Both ways at least half the configured frame rate (a picture is one packet or more).
        let floor = Double(options.frameRate) / 2
        sample.complete = sample.peerDecodedFps >= floor && sample.serverReceivedPacketsPerSecond >= floor
            && sample.serverSentPacketsPerSecond >= floor
        return sample
    }

    /// The video flags of softphone, peer and Swift server alike.
    static func videoArguments(_ options: Options) -> [String] {
        ["--video", "--video-codecs", "VP8", "--video-device", "colorbar", "--video-size", "\(options.width)x\(options.height)",
         "--video-fps", "\(options.frameRate)", "--video-kbps", "\(options.kilobits)"]
    }

    /// The video counters of the last `stats` record in a softphone `--json` log.
    static func lastCounters(in log: String) -> VideoCounters? {
        for line in log.split(separator: "\n").reversed() where line.contains("\"event\":\"stats\"") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let frames = object["videoFramesReceived"] as? Int, let received = object["videoPacketsReceived"] as? Int,
                  let sent = object["videoPacketsSent"] as? Int else { continue }
            return VideoCounters(framesReceived: frames, packetsReceived: received, packetsSent: sent)
        }
        return nil
    }

    static func format(_ value: Double, _ digits: Int) -> String { LoadBenchmark.format(value, digits: digits) }
}
