import Foundation
import SwiftPJSUA
import PJSUATestSupport
import Testing

@Suite("Tones from pjmedia's tone generator", .serialized)
struct ToneTests {
    /// A DTMF feedback tone played into one leg of a self-call is recognised in-band on the other.
    @Test func aDTMFToneIntoACallIsHeardAsThoseDigits() async throws {
        try await withEngine(dtmfEngineConfiguration()) { phone, transport, log in
            let call = try await phone.makeCall(to: transport.uri(user: "tones"))
            let callee = try await log.incomingCall().call
            try await phone.answer(callee)
            try await log.mediaActive(call)
            try await log.mediaActive(callee)
            let tone = try await phone.playTone(.dtmf("159#"), on: call)
            let digits = try await log.digits(on: callee, count: 4)
            #expect(String(digits.map(\.digit)) == "159#")
            #expect(digits.allSatisfy { $0.method == .inband })
            #expect(try await phone.isPlaying(tone) == false)
            try await phone.stopTone(tone)
            try await phone.hangUp(call)
        }
    }

    @Test func ringbackIntoACallSoundsAt440And480Hz() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withEngine { phone, transport, log in
            let call = try await phone.makeCall(to: transport.uri(user: "ringback"))
            let callee = try await log.incomingCall().call
            try await phone.answer(callee)
            try await log.mediaActive(call)
            try await log.mediaActive(callee)
            let recorder = try await phone.record(callee, to: directory + "/heard.wav")
            let tone = try await phone.playTone(.ringback, on: call)
            try await Task.sleep(for: .milliseconds(1500))
            #expect(try await phone.isPlaying(tone))
            try await phone.stopTone(tone)
            try await phone.stop(recorder)
            // The local device (the null device here) takes a tone too, and stopping it twice is harmless.
            let local = try await phone.playTone(.busy)
            try await phone.stopTone(local)
            try await phone.stopTone(local)
            try await phone.hangUp(call)
        }
        let heard = try WAVFile(contentsOf: directory + "/heard.wav")
        let steady = WAVFile(sampleRate: heard.sampleRate, samples: Array(heard.samples.dropFirst(heard.sampleRate / 2)))
        #expect(steady.power(at: 440) > 10 * steady.power(at: 1000) && steady.power(at: 480) > 10 * steady.power(at: 1000),
                "440: \(steady.power(at: 440)), 480: \(steady.power(at: 480)), 1000: \(steady.power(at: 1000))")
    }

    @Test func badTonesAreRejected() async throws {
        try await withEngine { phone, _, _ in
            await #expect(throws: PJSUAError.self) { try await phone.playTone(.dtmf("12X")) }
            await #expect(throws: PJSUAError.self) { try await phone.playTone(.custom([], repeating: false)) }
            await #expect(throws: PJSUAError.self) {
                try await phone.playTone(.custom([PJSUA.ToneSegment(frequency1: 20_000, on: .milliseconds(100))], repeating: false))
            }
        }
    }
}
