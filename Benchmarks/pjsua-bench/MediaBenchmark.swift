import Foundation
import PJSUATestSupport
import SwiftPJSUA

/// Media CPU and memory at scale: N concurrent calls from sipp, with RTP both ways, against
/// `softphone answer --play tone.wav` (the Swift engine) and the pjsua app
/// (`--play-file --auto-play`) at the same media settings, interleaved per configuration.
///
/// - The server plays an 8 kHz WAV into every call; sipp (`-rtp_echo`) sends every packet back,
///   so the server encodes and decodes each frame, whatever the codec.
/// - CPU: the server's CPU seconds over a window in which all N calls are up, divided by
///   N x the window: milliseconds of CPU per call-second (the idle engine's share included).
/// - Memory: VmHWM after N concurrent calls minus VmHWM after 2, divided by N - 2 (the first
///   calls' one-time costs, e.g. the player and codec factories, are in the baseline), and the
///   same from VmRSS sampled while the calls are up.
enum MediaBenchmark {
    enum Codec: String {
        case pcmu, opus

        /// sipp `-key` values for the offer (`uac-media-echo.xml`).
        var sippKeys: [String] {
            switch self {
            case .pcmu: ["-key", "payload", "0", "-key", "rtpmap", "PCMU/8000"]
            case .opus: ["-key", "payload", "96", "-key", "rtpmap", "opus/48000/2"]
            }
        }
    }

    /// One media configuration, as the same flags for both servers; `pjsua` nil measures the
    /// Swift side alone.
    struct Setting {
        var name: String
        var codec: Codec
        var softphone: [String]
        var pjsua: [String]?

        var sides: [LoadBenchmark.Side] { pjsua == nil ? [.swift] : LoadBenchmark.Side.allCases }
    }

    /// The pjsua app under `--auto-play` links each call to the player only, never to the (null)
    /// sound device: `--no-device-link` is the same wiring for softphone, so every compared row
    /// has it. One more row shows what softphone's default wiring (calls linked to slot 0 both
    /// ways, as a phone needs) costs on top: measured 1.4-1.7x at 16 kHz fast and for Opus.
    static let settings: [Setting] = [
        Setting(name: "pcmu_16k_high", codec: .pcmu, softphone: ["--no-device-link"], pjsua: []),
        Setting(name: "pcmu_16k_fast", codec: .pcmu, softphone: ["--no-device-link", "--resampler", "fast"], pjsua: ["--quality=2"]),
        Setting(name: "pcmu_16k_fast_device_linked", codec: .pcmu, softphone: ["--resampler", "fast"], pjsua: nil),
        // A bot's configuration (MediaSettings.bot).
        Setting(name: "pcmu_8k", codec: .pcmu, softphone: ["--no-device-link", "--clock-rate", "8000"], pjsua: ["--clock-rate=8000"]),
        // Opus at pjmedia's 48 kHz inside, as the pjsua app runs it (softphone's default is the
        // bridge's rate).
        Setting(name: "opus_16k_high", codec: .opus, softphone: ["--no-device-link", "--opus-rate", "48000"], pjsua: []),
        Setting(name: "opus_16k_fast", codec: .opus, softphone: ["--no-device-link", "--resampler", "fast", "--opus-rate", "48000"],
                pjsua: ["--quality=2"]),
        // Opus at the bridge's rate (softphone's default): no resampling (the pjsua app has no flag for it).
        Setting(name: "opus_16k_opus16k", codec: .opus, softphone: ["--no-device-link"], pjsua: nil),
    ]

    struct Options {
        var calls = 100
        /// Opus costs far more per call: fewer calls keep one core from saturating.
        var opusCalls = 10
        var seconds = 8
        var repetitions = 1
    }

    struct Sample {
        var cpuMillisecondsPerCallSecond = Double.nan
        var kilobytesPerCallPeak = Double.nan
        var kilobytesPerCallResident = Double.nan
        var peakKilobytes = 0
        var complete = false
    }

    static var scenarioPath: String {
        // Benchmarks/pjsua-bench/MediaBenchmark.swift -> the repository root.
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Tests/Peers/sipp/uac-media-echo.xml").path
    }

    static func run(_ options: Options) async throws {
        guard FileManager.default.fileExists(atPath: scenarioPath) else { throw BenchError("missing sipp scenario \(scenarioPath)") }
        let work = NSTemporaryDirectory() + "pjsua-bench-media-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let tone = work + "/tone.wav"
        try WAVFile.tone(frequency: 600, duration: .seconds(10), sampleRate: 8000).write(to: tone)

        var fields: [String: Any] = ["calls": options.calls, "opus_calls": options.opusCalls, "seconds": options.seconds,
                                     "repeat": options.repetitions, "pinned": CPUPinning.enabled]
        var allComplete = true
        for setting in settings {
            let calls = setting.codec == .opus ? options.opusCalls : options.calls
            var samples: [LoadBenchmark.Side: [Sample]] = [:]
            for repetition in 1...options.repetitions {
                for side in setting.sides {
                    let sample = try await measure(side, setting, calls: calls, seconds: options.seconds, tone: tone)
                    samples[side, default: []].append(sample)
                    if !sample.complete { allComplete = false }
                    progress("media \(setting.name) \(side.rawValue) run \(repetition)/\(options.repetitions), \(calls) calls: "
                             + "\(format(sample.cpuMillisecondsPerCallSecond, digits: 2)) ms CPU per call-second, "
                             + "\(format(sample.kilobytesPerCallPeak)) kB per call (VmHWM), \(format(sample.kilobytesPerCallResident)) kB (VmRSS), "
                             + "peak \(sample.peakKilobytes / 1024) MB\(sample.complete ? "" : "  INCOMPLETE (sipp failed calls)")")
                }
            }
            var line: [String] = []
            for side in setting.sides {
                let runs = samples[side] ?? []
                let key = "\(setting.name)_\(side.rawValue)"
                let cpu = LoadBenchmark.median(runs.map(\.cpuMillisecondsPerCallSecond))
                let peak = LoadBenchmark.median(runs.map(\.kilobytesPerCallPeak))
                let resident = LoadBenchmark.median(runs.map(\.kilobytesPerCallResident))
                fields["\(key)_cpu_ms_per_call_s"] = cpu
                fields["\(key)_kb_per_call"] = peak
                fields["\(key)_rss_kb_per_call"] = resident
                fields["\(key)_calls"] = calls
                line.append("\(side.rawValue) \(format(cpu, digits: 2)) ms/call-s, \(format(peak)) kB/call")
            }
            progress("media \(setting.name) (median of \(options.repetitions)): " + line.joined(separator: "; "))
        }
        fields["complete"] = allComplete
        report(fields)
        if !allComplete {
            FileHandle.standardError.write(Data("pjsua-bench: some media runs failed calls; their figures are not comparable\n".utf8))
            exit(1)
        }
    }

    /// One fresh server: 2 calls (the memory baseline), then `calls` calls held together.
    static func measure(_ side: LoadBenchmark.Side, _ setting: Setting, calls: Int, seconds: Int, tone: String) async throws -> Sample {
        // A port of a block held for the measurement (the server cannot report a port it picked).
        let block = try PortBlock()
        defer { withExtendedLifetime(block) {} }
        let port = block[0]
        let server = try await startServer(side, setting, port: port, calls: calls, tone: tone)
        defer { server.stop() }
        var sample = Sample()

        let baselineOK = try await runSipp(setting, port: port, calls: 2, rate: 2, holdMilliseconds: 2500) {}
        try await Task.sleep(for: .milliseconds(300))
        guard let baseline = memory(of: server.pid) else { throw BenchError("\(side.rawValue) server exited:\n\(server.output.suffix(2000))") }

        // All calls arrive within `ramp` seconds and stay up for `seconds` more.
        let rate = max(5, min(25, calls / 4))
        let ramp = Double(calls) / Double(rate) + 1.5
        let hold = Int((ramp + Double(seconds) + 1) * 1000)
        var cpu = Double.nan
        var resident = 0
        let mainOK = try await runSipp(setting, port: port, calls: calls, rate: rate, holdMilliseconds: hold) {
            try await Task.sleep(for: .milliseconds(Int(ramp * 1000)))
            guard let start = processCPUSeconds(pid: server.pid) else { return }
            let begin = ContinuousClock.now
            try await Task.sleep(for: .milliseconds(seconds * 500))
            resident = memory(of: server.pid)?.resident ?? 0
            try await Task.sleep(for: .milliseconds(seconds * 500))
            guard let end = processCPUSeconds(pid: server.pid) else { return }
            let elapsed = ContinuousClock.now - begin
            let window = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            cpu = (end - start) * 1000 / (Double(calls) * window)
        }
        guard let peak = memory(of: server.pid) else { throw BenchError("\(side.rawValue) server exited:\n\(server.output.suffix(2000))") }
        let added = Double(calls - 2)
        sample.cpuMillisecondsPerCallSecond = cpu
        sample.kilobytesPerCallPeak = Double(peak.peak - baseline.peak) / added
        sample.kilobytesPerCallResident = resident > 0 ? Double(resident - baseline.resident) / added : .nan
        sample.peakKilobytes = peak.peak
        sample.complete = baselineOK && mainOK
        return sample
    }

    static func startServer(_ side: LoadBenchmark.Side, _ setting: Setting, port: Int, calls: Int, tone: String) async throws -> ChildProcess {
        switch side {
        case .swift:
            let arguments = ["answer", "--listen", "udp:127.0.0.1:\(port)", "--auto-answer", "200", "--quiet", "--play", tone,
                             "--max-calls", "\(calls + 8)"] + setting.softphone
            let (executable, pinned) = try CPUPinning.command(LoadBenchmark.softphonePath, arguments, cpu: CPUPinning.serverCPU)
            let child = try ChildProcess(executable, pinned, name: "softphone")
            try await child.waitForOutput("listening")
            return child
        case .pjsua:
            let arguments = ["--null-audio", "--auto-answer=200", "--local-port=\(port)", "--bound-addr=127.0.0.1", "--no-tcp",
                             "--max-calls=\(calls + 8)", "--log-level=0", "--app-log-level=0", "--no-vad", "--thread-cnt=1",
                             "--play-file=\(tone)", "--auto-play",
                             // No console: with stdin closed the app would quit at once.
                             "--use-cli", "--no-cli-console", "--cli-telnet-port=0"] + (setting.pjsua ?? [])
            let (executable, pinned) = try CPUPinning.command("pjsua", arguments, cpu: CPUPinning.serverCPU)
            let child = try ChildProcess(executable, pinned, name: "pjsua-app")
            // The pjsua app has no "ready" line at log level 0: wait until its SIP port is bound
            // (a fixed pause was too short on a loaded machine: the first calls failed).
            let deadline = ContinuousClock.now.advanced(by: .seconds(15))
            while !udpPortIsBound(port), child.exited == nil, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
            }
            if child.exited != nil || !udpPortIsBound(port) { throw BenchError("the pjsua app did not start:\n\(child.output.suffix(2000))") }
            // Its media and the player are set up in the same start-up step, just after.
            try await Task.sleep(for: .milliseconds(300))
            return child
        }
    }

    /// Runs sipp to completion while `during` samples the server; returns whether every call succeeded.
    static func runSipp(_ setting: Setting, port: Int, calls: Int, rate: Int, holdMilliseconds: Int,
                        during: () async throws -> Void) async throws -> Bool {
        let budget = holdMilliseconds / 1000 + calls / rate + 30
        let sippPorts = try PortBlock()
        let arguments = ["-sf", scenarioPath] + setting.codec.sippKeys
            + ["-r", "\(rate)", "-m", "\(calls)", "-l", "\(calls)", "-d", "\(holdMilliseconds)",
               "-i", "127.0.0.1", "-p", "\(sippPorts[0])", "-mp", "\(sippPorts[4])", "-rtp_echo",
               "-nostdin", "-timeout", "\(budget)s", "-recv_timeout", "10000",
               "127.0.0.1:\(port)"]
        let (executable, pinned) = try CPUPinning.command("sipp", arguments, cpu: CPUPinning.loadGeneratorCPU)
        let sipp = try ChildProcess(executable, pinned, name: "sipp-media", holding: sippPorts)
        defer { sipp.stop() }
        try await during()
        let status = try await sipp.waitForExit(timeout: .seconds(budget + 30))
        if status != 0 {
            // The message table of sipp's last scenario screen says which step failed.
            let table = sipp.output.split(separator: "\n").filter { $0.contains("---->") || $0.contains("<----") || $0.contains("Pause") }
            progress("sipp exited with \(status) (\(calls) calls):\n" + table.suffix(8).joined(separator: "\n"))
        }
        return status == 0
    }

    /// Whether some process has a UDP socket bound to 127.0.0.1:`port` (from /proc/net/udp, where
    /// the local address reads `0100007F:PORT` in hex), without binding it ourselves.
    static func udpPortIsBound(_ port: Int) -> Bool {
        guard let table = readText("/proc/net/udp") else { return false }
        return table.contains(" 0100007F:" + String(format: "%04X", port) + " ")
    }

    /// VmRSS and VmHWM of a process in kB, from /proc/<pid>/status.
    static func memory(of pid: Int32) -> (resident: Int, peak: Int)? {
        guard let status = readText("/proc/\(pid)/status") else { return nil }
        var resident: Int?
        var peak: Int?
        for line in status.split(separator: "\n") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count >= 2 else { continue }
            if line.hasPrefix("VmRSS:") { resident = Int(parts[1]) }
            if line.hasPrefix("VmHWM:") { peak = Int(parts[1]) }
        }
        guard let resident, let peak else { return nil }
        return (resident, peak)
    }

    static func format(_ value: Double, digits: Int = 0) -> String { LoadBenchmark.format(value, digits: digits) }
}
