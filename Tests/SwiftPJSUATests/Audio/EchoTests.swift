import Foundation
import PJSUATestSupport
@testable import SwiftPJSUA
import Testing

/// `softphone answer --echo MS`, the echo bot built on the frames API: our engine calls it,
/// plays a tone burst with the WAV player and records what comes back.
@Suite("softphone answer --echo", .serialized)
struct EchoTests {
    /// Where the tone burst starts in the recording of a call into `softphone answer --echo
    /// delay`, in milliseconds from the start of the recording, and the recording.
    private func echoOnset(delay: Int, burst: String) async throws -> (onset: Double, recording: WAVFile) {
        let directory = try temporaryDirectory()
        // Both ends' receive jitter buffers bounded to 40 ms (their adaptive prefetch stays within
        // 32 ms): unbounded, each call's buffers adapted on their own to a busy machine, and the
        // difference of two calls' onsets carried their difference (+40 and +60 ms seen in CI).
        var configuration = PJSUA.Configuration(port: 0, transport: .udp, bindAddress: "127.0.0.1", audioDevice: .null)
        configuration.media.jitterBufferMax = .milliseconds(40)
        return try await withEngine(configuration) { phone, _, log in
            let (child, call) = try await callAnsweringSoftphone(phone, log, ["--echo", "\(delay)", "--exit-after", "1",
                                                                              "--jitter-buffer-max", "40"],
                                                                 name: "softphone-echo-\(delay)")
            defer { child.stop() }
            try await child.waitForOutput("\"event\":\"echo\"")
            // The recorder and the player start on the same bridge tick, the same way in both
            // calls: the difference of the two onsets is the echo's own delay (measured: 68 ms
            // round trip with --echo 0, exactly 200 ms more with --echo 200). Started by two
            // awaits, the player began whenever the test's task next ran after the recorder: 420
            // ms later in one call of a loaded ASan pass (echo 200 measured as 620).
            let recorder = try await phone.startRecordingAndPlaying(burst, call: call, to: directory + "/echo.wav")
            try await Task.sleep(for: .milliseconds(2500))
            try await phone.stop(recorder)
            try await phone.hangUp(call)
            #expect(try await child.waitForExit() == 0, "\(child.output)")
            let recording = try WAVFile(contentsOf: directory + "/echo.wav")
            let threshold = Int16(0.1 * Double(Int16.max))
            guard let first = recording.samples.firstIndex(where: { abs(Int($0)) > Int(threshold) }) else {
                throw TimedOut(what: "the echoed tone (peak \(recording.samples.map { abs(Int($0)) }.max() ?? 0))")
            }
            return (Double(first) * 1000 / Double(recording.sampleRate), recording)
        }
    }

    @Test func theCallersToneComesBackAtItsFrequencyAndLevelDelayedByTheConfiguredDelay() async throws {
        let directory = try temporaryDirectory()
        let burst = directory + "/burst.wav"
        // 500 ms of silence, then 600 ms of 1 kHz at half scale.
        var wav = WAVFile(sampleRate: 16_000, samples: [Int16](repeating: 0, count: 8000))
        wav.samples += try WAVFile.tone(frequency: 1000, duration: .milliseconds(600), sampleRate: 16_000).samples
        try wav.write(to: burst)

        let direct = try await echoOnset(delay: 0, burst: burst)
        let delayed = try await echoOnset(delay: 200, burst: burst)
        let measured = delayed.onset - direct.onset
        // Within two frames (40 ms) plus the onset detector's resolution (under a millisecond):
        // the bot keeps its delay within one frame of its setting (it drops a frame that finds
        // more queued), and the two calls' bounded jitter buffers may differ by one more.
        #expect(abs(measured - 200) <= 41, "echo 0 came back at \(direct.onset) ms, echo 200 at \(delayed.onset) ms")

        let rate = Double(delayed.recording.sampleRate)
        let start = Int((delayed.onset + 100) * rate / 1000)
        let tone = WAVFile(sampleRate: delayed.recording.sampleRate, samples: Array(delayed.recording.samples[start..<(start + Int(rate * 0.4))]))
        #expect(abs(try tone.dominantFrequency(in: 300...3000, step: 5) - 1000) <= 10)
        // The tone went out at 0.35 RMS; two codec passes and the bridge keep most of it.
        #expect(tone.rmsLevel > 0.2 && tone.rmsLevel < 0.45, "level \(tone.rmsLevel)")
    }

    /// Examples/EchoBot: our engine calls it, plays a tone and records: it hears the greeting,
    /// then its own tone; after "42#" the bot hangs up and prints the digits.
    @Test func theEchoBotExampleGreetsEchoesCollectsDigitsAndHangsUpOnHash() async throws {
        let directory = try temporaryDirectory()
        try WAVFile.tone(frequency: 600, duration: .seconds(1)).write(to: directory + "/tone.wav")
        // stdbuf: the example prints with plain `print`, block-buffered into a log file. Port 0:
        // it binds one itself and prints it ("echo bot listening on sip:127.0.0.1:<port>").
        let bot = try ChildProcess("stdbuf", ["-oL", try softphone().replacingOccurrences(of: "/softphone", with: "/echo-bot"), "0"],
                                   name: "echo-bot")
        defer { bot.stop() }
        let listening = try await bot.waitForLine(startingWith: "echo bot listening on ")
        let port = try #require(listening.split(separator: ":").last.flatMap { Int($0) }, "\(bot.explain("printed no port"))")
        try await withEngine { phone, _, log in
            let call = try await phone.makeCall(to: PJSUA.SIPURI("sip:bot@127.0.0.1:\(port)"))
            try await log.mediaActive(call)
            let recorder = try await phone.record(call, to: directory + "/heard.wav")
            _ = try await phone.play(directory + "/tone.wav", into: call, loop: true)
            try await Task.sleep(for: .milliseconds(1500))
            try await phone.sendDTMF("42#", on: call)
            let ended = try await log.state(call, .disconnected)
            #expect(ended.status.code == 200, "the bot hung up (BYE), \(ended.status)")
            try await phone.stop(recorder)
        }
        try await bot.waitForOutput("keyed 42#", timeout: .seconds(5))
        let heard = try WAVFile(contentsOf: directory + "/heard.wav")
        #expect(heard.power(at: 440) > 10 * heard.power(at: 1000), "no greeting")
        #expect(heard.power(at: 600) > 10 * heard.power(at: 1000), "no echo")
    }

    @Test(arguments: ["-5", "ten", "10001"])
    func aBadEchoDelayIsOneLineAndExitStatus2(value: String) async throws {
        let result = try await runSoftphone(["answer", "--echo", value])
        #expect(result.status == 2)
        let lines = result.output.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("--echo"), "\(result.output)")
    }
}

extension PJSUA {
    /// Records `call` into `path` and plays `burst` into it from the same bridge tick: the player
    /// is opened unconnected (the bridge reads no frame from a port without listeners, so it stays
    /// at its start), then both connections are queued in one turn of the actor, microseconds
    /// apart, and the bridge applies its queue at the start of its next tick.
    fileprivate func startRecordingAndPlaying(_ burst: String, call: Call, to path: String) throws -> Recorder {
        let player = try makePlayer(burst, loop: false)
        let recorder = try record(call, to: path)
        try connect(player, to: call)
        return recorder
    }
}
