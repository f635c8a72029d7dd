import Foundation
import PJSUATestSupport

/// The server of `pjsua-bench video`: `softphone answer --video` or the pjsua app with video, both
/// set to the same VP8 size, frame rate and bitrate, and both able to report their video packet
/// counters (softphone's JSON `stats` lines; the pjsua app's `dq` call dump, asked on its console).
final class VideoServer {
    let side: LoadBenchmark.Side
    let process: ChildProcess
    /// The pjsua app's console: the write end of the FIFO its stdin reads (nil for softphone).
    private let console: Int32?
    private let fifo: String?

    var pid: Int32 { process.pid }
    var output: String { String(process.output.suffix(3000)) }

    init(_ side: LoadBenchmark.Side, port: Int, _ options: VideoBenchmark.Options) async throws {
        self.side = side
        switch side {
        case .swift:
            console = nil
            fifo = nil
            // --media-thread: RTP on its own worker, as the pjsua app has by default.
            let arguments = ["answer", "--listen", "udp:127.0.0.1:\(port)", "--auto-answer", "200", "--json", "--stats-interval", "1",
                             "--codecs", "PCMU", "--clock-rate", "8000", "--media-thread"] + VideoBenchmark.videoArguments(options)
            let (executable, pinned) = try CPUPinning.command(LoadBenchmark.softphonePath, arguments, cpu: CPUPinning.serverCPU)
            process = try ChildProcess(executable, pinned, name: "softphone-video-server")
            try await process.waitForOutput("\"listening\"", timeout: .seconds(20))
        case .pjsua:
            // The legacy console reads stdin line by line: a FIFO we hold open read-write (so
            // neither open blocks) carries the commands; `exec` keeps the pid the app's.
            let path = NSTemporaryDirectory() + "pjsua-bench-video-\(UUID().uuidString.prefix(8)).fifo"
            guard mkfifo(path, 0o600) == 0 else { throw BenchError("cannot create \(path): errno \(errno)") }
            fifo = path
            let descriptor = open(path, O_RDWR)
            guard descriptor >= 0 else { throw BenchError("cannot open \(path): errno \(errno)") }
            console = descriptor
            let arguments = ["--null-audio", "--video", "--auto-answer=200", "--local-port=\(port)", "--bound-addr=127.0.0.1",
                             "--ip-addr=127.0.0.1", "--no-tcp", "--max-calls=4", "--thread-cnt=1", "--log-level=3",
                             "--clock-rate=8000", "--no-vad"]
            var command = [try ChildProcess.locate("stdbuf"), "-oL", try ChildProcess.locate("pjsua")] + arguments
            if CPUPinning.enabled { command = ["taskset", "-c", "\(CPUPinning.serverCPU)"] + command }
            // Stdout line-buffered (stdbuf) so the console's answers reach the log as written.
            let shell = "exec " + command.map(Self.quoted).joined(separator: " ") + " < " + Self.quoted(path)
            process = try ChildProcess("/bin/sh", ["-c", shell], name: "pjsua-app-video-server", environment: ["SDL_VIDEODRIVER": "dummy"])
            try await configureApp(options)
        }
    }

    /// Sets the pjsua app's devices (the colour bars, the SDL renderer) and VP8's encoding, and
    /// waits until its codec list shows the settings.
    private func configureApp(_ options: VideoBenchmark.Options) async throws {
        send("vid dev list")
        let deadline = ContinuousClock.now.advanced(by: .seconds(20))
        var devices: (capture: Int, render: Int)?
        while devices == nil, ContinuousClock.now < deadline, process.isRunning {
            try await Task.sleep(for: .milliseconds(200))
            devices = Self.deviceIDs(in: process.output)
        }
        guard let devices else { throw BenchError("the pjsua app listed no colour-bar and SDL devices:\n\(output)") }
        send("vid acc cap \(devices.capture)")
        send("vid acc rend \(devices.render)")
        send("vid codec prio H264 0")
        send("vid codec size VP8 \(options.width) \(options.height)")
        send("vid codec fps VP8 \(options.frameRate) 1")
        send("vid codec bw VP8 \(options.kilobits) \(options.kilobits)")
        send("vid codec list")
        // "VP8/102       128   15.00   512/ 512  640x480"
        let expected = String(format: "%.2f", Double(options.frameRate)) + String(format: "%6d/%4d", options.kilobits, options.kilobits)
            + "  \(options.width)x\(options.height)"
        while ContinuousClock.now < deadline, process.isRunning {
            if process.output.split(separator: "\n").contains(where: { $0.contains("VP8/") && $0.contains(expected) }) { return }
            try await Task.sleep(for: .milliseconds(200))
        }
        throw BenchError("the pjsua app did not take the VP8 settings (\(expected)):\n\(output)")
    }

    /// The ids of the colour-bar generator and the SDL renderer in a `vid dev list` answer
    /// ("  1 Colorbar generator [Colorbar][Capture] ").
    static func deviceIDs(in log: String) -> (capture: Int, render: Int)? {
        var capture: Int?
        var render: Int?
        for line in log.split(separator: "\n") where !line.contains("(default") {
            let words = line.split(separator: " ", omittingEmptySubsequences: true)
            guard let index = words.firstIndex(where: { Int($0) != nil }), let id = Int(words[index]), id >= 0 else { continue }
            let rest = words[(index + 1)...].joined(separator: " ")
            if rest.hasPrefix("Colorbar generator [") { capture = id }
            if rest.hasPrefix("SDL renderer [") { render = id }
        }
        guard let capture, let render else { return nil }
        return (capture, render)
    }

    /// The server's video counters now: its last JSON stats line (softphone prints one a second),
    /// or the video section of a fresh `dq` dump (the pjsua app).
    func counters() async throws -> VideoBenchmark.VideoCounters? {
        guard side == .pjsua else { return VideoBenchmark.lastCounters(in: process.output) }
        let before = process.output.count
        send("dq")
        let deadline = ContinuousClock.now.advanced(by: .seconds(5))
        while ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            let fresh = String(process.output.dropFirst(before))
            if let counters = Self.dumpCounters(fresh) { return counters }
        }
        return nil
    }

    /// Video RX and TX packet totals from pjsua's call dump ("#1 video VP8, ...", then
    /// "RX pt=..." and "TX pt=..." each followed by "total 123pkt ...").
    static func dumpCounters(_ dump: String) -> VideoBenchmark.VideoCounters? {
        guard let section = dump.range(of: " video VP8") else { return nil }
        let lines = dump[section.upperBound...].split(separator: "\n")
        func total(after marker: String) -> Int? {
            guard let index = lines.firstIndex(where: { $0.contains(marker) }), index + 1 < lines.count else { return nil }
            let words = lines[index + 1].split(separator: " ", omittingEmptySubsequences: true)
            guard words.first == "total", words.count > 1, words[1].hasSuffix("pkt") else { return nil }
            return Int(words[1].dropLast(3))
        }
        guard let received = total(after: "RX pt="), let sent = total(after: "TX pt=") else { return nil }
        return VideoBenchmark.VideoCounters(framesReceived: 0, packetsReceived: received, packetsSent: sent)
    }

    private func send(_ line: String) {
        guard let console else { return }
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(console, $0.baseAddress, $0.count) }
    }

    func stop() {
        send("q")
        process.stop()
        if let console { close(console) }
        if let fifo { unlink(fifo) }
    }

    static func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
}
