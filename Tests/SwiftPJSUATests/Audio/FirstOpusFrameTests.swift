import Foundation
import PJSUATestSupport
import SwiftPJSUA
import Testing

/// KL-51: pjmedia's Opus decoder holds a call's first packet back one frame and returns nothing
/// for it, and the stream used to count that frame as decoded audio. At the bridge's rate the
/// bridge reads a call straight into its shared buffer, so the call's listeners got whatever the
/// bridge had read just before: the audio the engine itself was playing into the call.
@Suite("The first frame of an Opus call is silence, not the bridge's last frame (KL-51)", .serialized)
struct FirstOpusFrameTests {
    /// A raw caller sends Opus silence once the engine plays a 700 Hz tone into the call and
    /// listens to it. What the engine hears from the caller must be silence from start to end:
    /// unpatched, one 20 ms frame of the engine's own tone came first.
    @Test func whatAnOpusCallerSendsIsHeardWithoutAFrameOfTheEnginesOwnAudio() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let tonePath = directory + "/tone.wav"
        try WAVFile.tone(frequency: 700, duration: .seconds(2)).write(to: tonePath)

        try await withEngine { phone, transport, log in
            // Made before the call, the player has a lower conference slot than the call's: the
            // bridge reads it into the shared buffer just before the call at every tick.
            let player = try await phone.makePlayer(tonePath, loop: true)
            let raw = try await rawCall(to: phone, transport: transport, log: log, payloadType: 96)
            let codec = try await phone.quality(of: raw.call).codec
            #expect(codec == "opus/16000", "the premise: Opus at the bridge's rate, read without resampling")
            try await phone.connect(player, to: raw.call)
            let frames = try await phone.receiveAudio(from: raw.call, format: .init(sampleRate: .hz16000), bufferingNewest: 500)
            // The bridge now reads the call (nothing received yet: silence) after the player.
            try await Task.sleep(for: .milliseconds(200))

            // 50 packets of 20 ms, one every 20 ms: a CELT frame that decodes to silence. The
            // reader keeps what the bridge hands it meanwhile (up to 500 frames).
            let ssrc: UInt32 = 0x4F50_5553
            let start = ContinuousClock.now
            for index in 0..<50 {
                let packet = rtpPacket(payloadType: 96, sequence: 100 + index, timestamp: UInt32(48_000 + index * 960), ssrc: ssrc,
                                       marker: index == 0, payload: [0xF8, 0xFF, 0xFE])
                #expect(raw.rtp.send(bytes: packet, toPort: raw.engineRTPPort))
                try await Task.sleep(until: start.advanced(by: .milliseconds(20 * (index + 1))), clock: .continuous)
            }
            // What was kept, then 300 ms more (the jitter buffer's last packets, and silence).
            let sent = ContinuousClock.now
            var heard: [PJSUA.AudioFrame] = []
            for await frame in frames {
                heard.append(frame)
                if ContinuousClock.now - sent >= .milliseconds(300) { break }
            }
            await phone.stopReceiving(frames)
            let quality = try await phone.quality(of: raw.call)
            try await phone.hangUp(raw.call)
            try await log.state(raw.call, .disconnected)
            try await phone.stop(player)

            #expect(quality.received.packets >= 45, "the caller's packets were received and decoded: \(quality)")
            #expect(heard.count >= 50, "\(heard.count) frames heard")
            let loud = heard.indices.filter { heard[$0].rmsLevel > 0.01 }
            let what = loud.first.map { index -> String in
                let frequency = (try? WAVFile(sampleRate: 16_000, samples: heard[index].samples).dominantFrequency(in: 300...1500, step: 5)) ?? 0
                return "frame \(index) at level \(heard[index].rmsLevel), \(Int(frequency)) Hz"
            } ?? ""
            #expect(loud.isEmpty, "the caller sent only silence, yet \(loud.count) frame(s) carried audio: \(what)")
        }
    }
}
