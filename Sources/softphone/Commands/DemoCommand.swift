import Foundation
@_spi(Locking) import SwiftPJSUA

/// `softphone demo`: a real SIP call over loopback, no server needed. This process calls a second
/// `softphone answer` process it starts and stops; the caller plays a 1 kHz tone, the callee
/// records it, and the recording is checked for the tone.
enum DemoCommand {
    static let usage = """
    usage: softphone demo [--seconds N] [--json]
      Starts `softphone answer` as a second process, calls it over loopback UDP, plays a 1 kHz tone
      for N seconds (default 3) and checks that the far end recorded it. Prints call states, the
      codec, RTP statistics and the verdict. Exits 0 only if the call connected and the tone arrived.
    \(VideoDemo.usage)
    """

    static let spec = OptionSpec(valued: Set(["seconds"]).union(VideoDemo.valued), flags: ["json", "video"])
    static let toneFrequency = 1000.0

    static func run(_ arguments: Arguments) async throws -> Int32 {
        if arguments.has("video") { return try await VideoDemo.run(arguments) }
        try VideoDemo.refuseVideoOptions(arguments)
        let output = Output(json: arguments.has("json"))
        let seconds = try arguments.seconds("seconds", in: 1...600, default: 3) ?? 3
        let directory = NSTemporaryDirectory() + "softphone-demo-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let tone = directory + "/tone.wav"
        try WAVFile.tone(frequency: toneFrequency, duration: .seconds(2)).write(to: tone)

        output.emit("demo", ["step": "start-callee"], human: "demo: starting the callee (softphone answer) as a second process")
        let callee = try Callee(arguments: ["answer", "--listen", "udp:127.0.0.1:0", "--exit-after", "1",
                                            "--record-dir", directory, "--json"])
        defer { callee.stop() }
        guard let calleeURI = await callee.listeningURI(within: 60) else {
            output.emit("failed", ["reason": "the callee did not start"], human: "demo: the callee did not start:\n\(callee.transcript)")
            return 1
        }
        output.emit("demo", ["step": "call", "callee": calleeURI], human: "demo: calling \(calleeURI)")

        let connected = try await withPhone(ListenAddress.loopback.configuration(), output: output) { phone, _, watcher in
            let call = try await phone.makeCall(to: PJSUA.SIPURI(calleeURI.replacingOccurrences(of: "sip:", with: "sip:demo@")))
            guard let outcome = await watcher.state(of: call, in: [.confirmed, .disconnected], within: 15), outcome.state == .confirmed else {
                return Int32(1)
            }
            _ = await watcher.first(within: 5) { event -> Void? in
                if case let .callMedia(c, .active, _) = event, c == call { return () }
                return nil
            }
            _ = try await phone.play(tone, into: call, loop: true)
            output.emit("demo", ["step": "tone", "seconds": seconds, "frequency": toneFrequency],
                        human: "demo: playing a \(Int(toneFrequency)) Hz tone for \(seconds) s")
            try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
            if let quality = try? await phone.quality(of: call) { output.emit(quality: quality, of: call) }
            try await phone.hangUp(call)
            _ = await watcher.state(of: call, in: [.disconnected], within: 5)
            return Int32(0)
        }
        guard connected == 0 else {
            output.emit("failed", ["reason": "the call did not connect"], human: "demo: FAILED: the call did not connect")
            return 1
        }
        guard await callee.waitForExit(within: 10) else {
            output.emit("failed", ["reason": "the callee did not finish"], human: "demo: FAILED: the callee did not finish")
            return 1
        }
        let recordingPath = directory + "/call-1.wav"
        guard let recording = try? WAVFile(contentsOf: recordingPath) else {
            output.emit("failed", ["reason": "no recording at the far end"], human: "demo: FAILED: the callee recorded nothing")
            return 1
        }
        // Judge the steady part: skip the first half second (jitter buffer fill).
        let steady = WAVFile(sampleRate: recording.sampleRate, samples: Array(recording.samples.dropFirst(recording.sampleRate / 2)))
        let frequency = steady.dominantFrequency()
        let level = steady.rmsLevel
        let detected = abs(frequency - toneFrequency) <= 20 && level > 0.05
        let decibels = level > 0 ? 20 * log10(level) : -120
        let recordedSeconds = Double(recording.samples.count) / Double(max(recording.sampleRate, 1))
        output.emit("tone", ["detected": detected, "frequency": frequency, "levelDBFS": (decibels * 10).rounded() / 10,
                             "recordedSeconds": (recordedSeconds * 10).rounded() / 10],
                    human: String(format: "demo: far end recorded %.1f s; dominant %.0f Hz at %.1f dBFS: tone %@",
                                  recordedSeconds, frequency, decibels, detected ? "DETECTED" : "NOT detected"))
        return detected ? 0 : 1
    }
}

/// The second process of the demo: `softphone answer`, whose JSON lines we read.
final class Callee: @unchecked Sendable {
    // @unchecked Sendable: `process` and `pipe` are set once in init.
    private let process = Process()
    private let pipe = Pipe()
    /// What the callee printed so far, and whether its output closed.
    private let output = LockedValueBox((buffer: "", closed: false))

    /// Starts `softphone` with `arguments`; `environment` adds to (or overrides) ours.
    init(arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = URL(fileURLWithPath: Bundle.main.executablePath ?? CommandLine.arguments[0])
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let handle = pipe.fileHandleForReading
        Thread.detachNewThread { [self] in
            while true {
                let data = handle.availableData
                output.withLockedValue { output in
                    if data.isEmpty { output.closed = true } else { output.buffer += String(decoding: data, as: UTF8.self) }
                }
                if data.isEmpty { break }
            }
        }
    }

    var transcript: String { output.withLockedValue { $0.buffer } }
    private var isClosed: Bool { output.withLockedValue { $0.closed } }

    /// The SIP URI from the callee's "listening" line.
    func listeningURI(within seconds: Double) async -> String? {
        let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int(seconds * 1000)))
        while ContinuousClock.now < deadline && !isClosed {
            for line in transcript.split(separator: "\n") {
                guard let data = line.data(using: .utf8),
                      let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                      object["event"] as? String == "listening", let uri = object["uri"] as? String else { continue }
                return uri
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    /// Waits for the callee to exit on its own (its output closes).
    func waitForExit(within seconds: Double) async -> Bool {
        let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int(seconds * 1000)))
        while ContinuousClock.now < deadline {
            if isClosed && !process.isRunning { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    func stop() {
        if process.isRunning { process.terminate() }
    }
}
