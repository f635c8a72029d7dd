import Foundation
import PJSUATestSupport
@testable import SwiftPJSUA
@testable import SwiftPJSUAStreams
import Testing

/// The agent's audio sent into the call as it arrives (``PJSUA/MediaStream/Options/sendsAgentAudioOnArrival``):
/// what a raw caller receives, packet by packet, with the option on and off.
@Suite("Media streams: the agent's audio sent into the call as it arrives", .serialized)
struct MediaStreamPacingTests {
    /// A PCMU call from a raw caller; the app plays 300 ms of 400 Hz into the call while the
    /// agent is silent, then the agent sends 1 s of 1000 Hz paced at real time and 600 ms of
    /// 600 Hz at once (a burst), each followed by a mark. Either way the caller gets one stream
    /// (one SSRC, consecutive sequence numbers, timestamps one frame apart) at one packet per
    /// 20 ms of wall time, the burst included; every frame of the agent's audio exactly once,
    /// the burst in consecutive packets; the app's tone mixed in; the marks at 1000 and 1600 ms.
    /// On, most paced frames go out on arrival and the burst at the ticks; off, none is counted.
    @Test(arguments: [true, false])
    func theCallerGetsOnePacketPer20MillisecondsWithEveryFrameOnceAndOtherAudioMixedIn(onArrival: Bool) async throws {
        let script = #"[{"sleep":0.6},{"tone":{"hz":1000,"ms":1000,"chunkMs":20,"paced":true}},{"mark":"paced"},{"sleep":0.3},"#
            + #"{"tone":{"hz":600,"ms":600,"chunkMs":20}},{"mark":"burst"},{"sleep":2}]"#
        let agent = try await StreamAgent(name: "stream-agent-pacing-\(onArrival)", script: script)
        defer { agent.stop() }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try WAVFile.tone(frequency: 400, duration: .milliseconds(300), sampleRate: 8000).write(to: directory + "/other.wav")
        try await withStreamingEngine { phone, transport, log in
            let raw = try await rawCall(to: phone, transport: transport, log: log, payloadType: 0)
            let stream = try await phone.stream(raw.call, to: agent.url(), options: .init(sendsAgentAudioOnArrival: onArrival))
            let events = StreamEvents(stream)
            #expect(stream.statistics.sendsAgentAudioOnArrival == onArrival)
            _ = try await phone.play(directory + "/other.wav", into: raw.call)

            // The rate is counted on the kernel's arrival stamps, from the last packet of the
            // first read (what queued before it, while the stream connected, is not timed) to the
            // last packet: when the test's task got to read them does not count.
            var packets: [[UInt8]] = []
            var arrivals: [Double] = []
            var firstTimed: Int?
            let deadline = ContinuousClock.now.advanced(by: .seconds(15))
            var burstPlayedAt: ContinuousClock.Instant?
            while ContinuousClock.now < deadline {
                while let datagram = raw.rtp.receiveStampedBytesNow() {
                    packets.append(datagram.bytes)
                    arrivals.append(datagram.arrival)
                }
                if firstTimed == nil, !packets.isEmpty { firstTimed = packets.count - 1 }
                if burstPlayedAt == nil, stream.statistics.playedMilliseconds >= 1600 { burstPlayedAt = .now }
                if let burstPlayedAt, ContinuousClock.now - burstPlayedAt > .milliseconds(300) { break }
                try await Task.sleep(for: .milliseconds(5))
            }
            let statistics = stream.statistics
            let marks = events.all.compactMap { event -> (String, Int)? in
                if case let .markPlayed(report) = event { return (report.name, report.playedMilliseconds) }
                return nil
            }
            try await phone.hangUp(raw.call)
            _ = try await events.ending()

            #expect(marks.map(\.0) == ["paced", "burst"] && marks.map(\.1) == [1000, 1600], "\(marks)")
            if onArrival {
                #expect(statistics.sendsAgentAudioOnArrival && statistics.framesSentOnArrival >= 25 && statistics.framesHeldBack >= 25,
                        "most paced frames on arrival, the burst at the ticks: \(statistics)")
            } else {
                #expect(!statistics.sendsAgentAudioOnArrival && statistics.framesSentOnArrival == 0 && statistics.framesHeldBack == 0,
                        "\(statistics)")
            }
            let rtp = packets.compactMap(RTPHeader.init)
            #expect(rtp.count == packets.count && rtp.count > 100, "\(packets.count) packets")
            #expect(Set(rtp.map(\.ssrc)).count == 1 && rtp.allSatisfy { $0.payloadType == 0 && $0.payload.count == 160 })
            #expect(zip(rtp, rtp.dropFirst()).allSatisfy { $1.sequence == $0.sequence &+ 1 && $1.timestamp == $0.timestamp &+ 160 },
                    "consecutive sequence numbers, timestamps 160 apart")
            // One packet per 20 ms of wall time: the burst did not go out faster. (The bridge's
            // clock catches up after a stall of its thread with packets back to back; over the
            // whole span the count and the time still agree.)
            let start = firstTimed ?? 0
            let wall = (arrivals.last ?? 0) - (arrivals.isEmpty ? 0 : arrivals[start])
            let counted = packets.count - 1 - start
            #expect(wall > 2 && abs(Double(counted) - wall / 0.020) <= 6, "\(counted) packets in \(wall) s")

            // Sent as they arrive, the agent's frames are the packets' frames. Through the bridge
            // they are resampled to its clock rate and back, which shifts them by a few samples:
            // the first and last frame of a tone, and of each part an underrun split it into
            // (the agent's arrivals drifting across the bridge's tick), are part silence.
            let edge = onArrival ? 0 : 1
            let tones = rtp.map { toneOf(mulawSamples(Data($0.payload).base64EncodedString())) }
            let paced = tones.filter { $0 == 1000 }.count, burst = tones.filter { $0 == 600 }.count
            let splits = onArrival ? 0 : 2 * statistics.underruns
            #expect((50 - edge - splits...50).contains(paced), "the paced second, every frame once: \(paced), \(statistics)")
            #expect((30 - edge...30).contains(burst), "the burst, every frame once: \(burst)")
            if let start = tones.firstIndex(of: 600) {
                #expect(tones[start..<min(tones.count, start + 30 - edge)].allSatisfy { $0 == 600 }, "the burst in consecutive packets")
            }
            #expect(tones.filter { $0 == 400 }.count >= 12, "the app's tone mixed in: \(tones.filter { $0 == 400 }.count) frames")
        }
    }

    /// G.729's frames are the agent's too (8 kHz, 20 ms a packet): its call is paced, and the
    /// caller gets one stream of 20-byte packets at one per 20 ms, timestamps 160 apart, a burst
    /// included. G.722 (16 kHz) is not: the bridge plays the agent's audio, as before.
    @Test(arguments: [(18, true), (9, false)])
    func anotherCodecIsPacedWhenItsFramesAreTheAgentsAndPlayedByTheBridgeOtherwise(payloadType: Int, paced: Bool) async throws {
        let script = #"[{"sleep":0.3},{"tone":{"hz":1000,"ms":600,"chunkMs":20}},{"mark":"burst"},{"sleep":2}]"#
        let agent = try await StreamAgent(name: "stream-agent-pacing-codec-\(payloadType)", script: script)
        defer { agent.stop() }
        try await withStreamingEngine { phone, transport, log in
            let raw = try await rawCall(to: phone, transport: transport, log: log, payloadType: payloadType)
            let stream = try await phone.stream(raw.call, to: agent.url())
            let events = StreamEvents(stream)
            #expect(stream.statistics.sendsAgentAudioOnArrival == paced, "\(stream.statistics)")
            var packets: [[UInt8]] = []
            _ = try await events.first("mark burst") { event -> Bool? in
                while let datagram = raw.rtp.receiveBytesNow() { packets.append(datagram) }
                if case let .markPlayed(report) = event, report.name == "burst" { return true }
                return nil
            }
            try await Task.sleep(for: .milliseconds(100))
            while let datagram = raw.rtp.receiveBytesNow() { packets.append(datagram) }
            let statistics = stream.statistics
            try await phone.hangUp(raw.call)
            _ = try await events.ending()

            let rtp = packets.compactMap(RTPHeader.init)
            #expect(rtp.count > 20 && Set(rtp.map(\.ssrc)).count == 1 && rtp.allSatisfy { $0.payloadType == payloadType })
            #expect(zip(rtp, rtp.dropFirst()).allSatisfy { $1.sequence == $0.sequence &+ 1 }, "consecutive sequence numbers")
            if paced {
                #expect(rtp.allSatisfy { $0.payload.count == 20 } && zip(rtp, rtp.dropFirst()).allSatisfy { $1.timestamp == $0.timestamp &+ 160 },
                        "20 ms of G.729 a packet, timestamps 160 apart")
                #expect(statistics.framesSentOnArrival >= 1 && statistics.framesHeldBack >= 25, "the burst drained at the pace: \(statistics)")
            } else {
                #expect(statistics.framesSentOnArrival == 0 && statistics.framesHeldBack == 0, "\(statistics)")
            }
            #expect(statistics.playedMilliseconds == 600, "\(statistics)")
        }
    }
}

/// The fields of an RTP packet (RFC 3550) the pacing test reads; nil for anything shorter than a
/// header or not version 2.
private struct RTPHeader {
    let payloadType: Int
    let sequence: UInt16
    let timestamp: UInt32
    let ssrc: UInt32
    let payload: [UInt8]

    init?(_ bytes: [UInt8]) {
        guard bytes.count >= 12, bytes[0] >> 6 == 2 else { return nil }
        let headerLength = 12 + 4 * Int(bytes[0] & 0x0F)
        guard bytes.count >= headerLength else { return nil }
        func word(_ at: Int) -> UInt32 { bytes[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) } }
        payloadType = Int(bytes[1] & 0x7F)
        sequence = UInt16(bytes[2]) << 8 | UInt16(bytes[3])
        timestamp = word(4)
        ssrc = word(8)
        payload = Array(bytes[headerLength...])
    }
}

/// Which of 400, 600 and 1000 Hz a 20 ms frame is (its power at that frequency over half its
/// energy above 0.8); 0 for silence or anything else.
private func toneOf(_ samples: [Int16]) -> Int {
    let energy = samples.reduce(0.0) { $0 + Double($1) * Double($1) }
    guard samples.count == 160, energy / 160 > 100 * 100 else { return 0 }
    for frequency in [400, 600, 1000] {
        var (re, im) = (0.0, 0.0)
        for (n, sample) in samples.enumerated() {
            let phase = 2 * Double.pi * Double(frequency) * Double(n) / 8000
            re += Double(sample) * cos(phase)
            im -= Double(sample) * sin(phase)
        }
        if (re * re + im * im) / (Double(samples.count) / 2) / energy > 0.8 { return frequency }
    }
    return 0
}
