import Foundation
import SwiftPJSUA
import Testing

@Suite("Audio really flows through a call")
struct AudioFlowTests {
    /// One leg plays a 1 kHz tone into the call, the other records; the recording must carry it.
    @Test(arguments: ["PCMU", "opus"])
    func aToneLeavesOneLegAndArrivesAtTheOther(codec: String) async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let tonePath = directory + "/tone.wav"
        let recordingPath = directory + "/recording.wav"
        try WAVFile.tone(frequency: 1000, duration: .seconds(5)).write(to: tonePath)

        try await withEngine { phone, transport, log in
            try await phone.useCodecs([codec])
            let caller = try await phone.makeCall(to: transport.uri(user: "tone"))
            let callee = try await log.incomingCall().call
            try await phone.answer(callee)
            try await log.mediaActive(caller)
            try await log.mediaActive(callee)
            let statistics = try await phone.quality(of: caller)
            #expect(statistics.codec.lowercased().hasPrefix(codec.lowercased()))

            let recorder = try await phone.record(callee, to: recordingPath)
            _ = try await phone.play(tonePath, into: caller)
            try await Task.sleep(for: .milliseconds(1500))
            try await phone.stop(recorder)
            try await phone.hangUp(caller)
        }
        let recording = try WAVFile(contentsOf: recordingPath)
        #expect(recording.duration > .seconds(1))
        // Skip the start (jitter buffer fill, player start) and judge the steady part.
        let steady = WAVFile(sampleRate: recording.sampleRate, samples: Array(recording.samples.dropFirst(recording.sampleRate / 2)))
        let frequency = steady.dominantFrequency()
        #expect(abs(frequency - 1000) <= 20, "dominant frequency \(frequency) Hz")
        #expect(steady.rmsLevel > 0.1, "level \(steady.rmsLevel)")
    }

    @Test func silenceIsRecordedWhenNothingPlays() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let recordingPath = directory + "/silence.wav"
        try await withEngine { phone, transport, log in
            let caller = try await phone.makeCall(to: transport.uri(user: "quiet"))
            let callee = try await log.incomingCall().call
            try await phone.answer(callee)
            try await log.mediaActive(callee)
            let recorder = try await phone.record(callee, to: recordingPath)
            try await Task.sleep(for: .milliseconds(700))
            try await phone.stop(recorder)
            try await phone.hangUp(caller)
        }
        let recording = try WAVFile(contentsOf: recordingPath)
        #expect(recording.duration > .milliseconds(300))
        #expect(recording.rmsLevel < 0.01)
    }

    @Test func wavFilesRoundTripAndToneAnalysisFindsTheFrequency() throws {
        let tone = try WAVFile.tone(frequency: 440, duration: .milliseconds(500), sampleRate: 8000, amplitude: 0.25)
        let parsed = try WAVFile(data: tone.data)
        #expect(parsed == tone)
        #expect(abs(parsed.dominantFrequency() - 440) <= 10)
        #expect(abs(parsed.rmsLevel - 0.25 / 2.0.squareRoot()) < 0.01)
        #expect(throws: PJSUAError.self) { try WAVFile(data: Data("not a wav".utf8)) }
        #expect(throws: PJSUAError.self) { try WAVFile(contentsOf: "/nonexistent/file.wav") }
    }
}

func temporaryDirectory() throws -> String {
    let path = NSTemporaryDirectory() + "swift-pjsua-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}
