import Foundation
import SwiftPJSUA
import PJSUATestSupport
import Testing

/// `seconds` of a 1 kHz tone as raw G.711 mu-law at 8 kHz: what sipp's `rtp_stream` sends as
/// payload type 0.
func muLawTone(seconds: Double, frequency: Double = 1000) -> Data {
    func encode(_ value: Int) -> UInt8 {
        let sign: Int = value < 0 ? 0x80 : 0
        var magnitude = min(abs(value), 32635) + 0x84
        var exponent = 7
        var mask = 0x4000
        while exponent > 0 && magnitude & mask == 0 {
            exponent -= 1
            mask >>= 1
        }
        magnitude = (magnitude >> (exponent + 3)) & 0x0F
        return UInt8(truncatingIfNeeded: ~(sign | (exponent << 4) | magnitude))
    }
    let count = Int(seconds * 8000)
    return Data((0..<count).map { n in encode(Int(12000 * sin(2 * Double.pi * frequency * Double(n) / 8000))) })
}

@Suite("Early media (183 with SDP)")
struct EarlyMediaTests {
    @Test func audioOfA183ArrivesBeforeTheCallIsAnswered() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try muLawTone(seconds: 2).write(to: URL(fileURLWithPath: directory + "/tone.ulaw"))
        let template = try #require(readText(scenario("uas-183-early-media.xml")))
        try template.replacingOccurrences(of: "TONE_FILE", with: directory + "/tone.ulaw")
            .write(toFile: directory + "/scenario.xml", atomically: true, encoding: .utf8)

        try await withEngine { phone, _, log in
            let peer = try await sipp(["-sf", directory + "/scenario.xml"], name: "sipp-183")
            let call = try await phone.makeCall(to: PJSUA.SIPURI("sip:ringback@127.0.0.1:\(peer.sippPort)"))
            try await log.state(call, .early)
            try await log.mediaActive(call)
            let recorder = try await phone.record(call, to: directory + "/early.wav")
            try await Task.sleep(for: .milliseconds(1500))
            let early = try await phone.quality(of: call)
            let state = try await phone.info(call).state
            try await phone.stop(recorder)
            #expect(state == .early, "the 200 came before the early media was measured")
            #expect(early.received.packets > 25, "\(early)")
            #expect(early.codec.hasPrefix("PCMU"))
            try await log.state(call, .confirmed)
            try await phone.hangUp(call)
            try await log.state(call, .disconnected)
            #expect(try await peer.waitForExit() == 0, "\(peer.output.suffix(2000))")
        }
        let heard = try WAVFile(contentsOf: directory + "/early.wav")
        let steady = WAVFile(sampleRate: heard.sampleRate, samples: Array(heard.samples.dropFirst(heard.sampleRate / 4)))
        #expect(abs(steady.dominantFrequency() - 1000) <= 20, "heard \(steady.dominantFrequency()) Hz at \(steady.rmsLevel)")
    }

    /// Our own early media: answering with 183 sends audio (a ringback tone here) before the 200.
    @Test func answeringWith183SendsEarlyMediaToTheCaller() async throws {
        try await withEngine { phone, transport, log in
            let call = try await phone.makeCall(to: transport.uri(user: "early"))
            let callee = try await log.incomingCall().call
            try await phone.answer(callee, code: 183)
            try await log.state(call, .early)
            try await log.mediaActive(call)
            try await log.mediaActive(callee)
            let tone = try await phone.playTone(.ringback, on: callee)
            try await Task.sleep(for: .milliseconds(600))
            let early = try await phone.quality(of: call)
            #expect(try await phone.info(call).state == .early)
            #expect(early.received.packets > 10, "\(early)")
            try await phone.stopTone(tone)
            try await phone.answer(callee)
            try await log.state(call, .confirmed)
            try await phone.hangUp(call)
            try await log.state(call, .disconnected)
        }
    }
}
