import Foundation
import SwiftPJSUA
import PJSUATestSupport
import Testing

@Suite("Call quality: RTP, RTCP, MOS, the stats event", .serialized)
struct QualityTests {
    @Test func aFiveSecondCallReportsPacketsNoLossARoundTripAndAGoodMOS() async throws {
        try await withEngine { phone, _, log in
            let (call, callee) = try await callAnsweringSoftphone(phone, log, name: "quality")
            try await phone.setStatisticsInterval(.milliseconds(500))
            // pjmedia sends RTCP every 5 s (PJMEDIA_RTCP_INTERVAL, randomised): wait for the round trip.
            var quality = try await phone.quality(of: call)
            let deadline = ContinuousClock.now.advanced(by: .seconds(12))
            while ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(250))
                quality = try await phone.quality(of: call)
                if quality.roundTripTime != nil && ContinuousClock.now > deadline.advanced(by: .seconds(-7)) { break }
            }
            try await phone.hangUp(call)
            try await log.state(call, .disconnected)
            #expect(quality.sent.packets > 200 && quality.received.packets > 200, "\(quality)")
            #expect(quality.sent.bytes > 0 && quality.received.bytes > 0)
            #expect(quality.sent.packetsLost == 0 && quality.received.packetsLost == 0, "\(quality)")
            let rtt = try #require(quality.roundTripTime, "no RTCP round trip in \(quality)")
            #expect(rtt < .milliseconds(50))
            #expect(quality.received.meanJitter != nil)
            #expect((4.0...4.5).contains(quality.mos), "\(quality.mos)")
            #expect((80...100).contains(quality.rFactor))
            let stats = log.all.compactMap { event -> PJSUA.CallQuality? in
                if case let .stats(c, q) = event, c == call { return q }
                return nil
            }
            #expect(stats.count >= 4, "\(stats.count) stats events")
            #expect(stats.map(\.sent.packets) == stats.map(\.sent.packets).sorted(), "packets only grow")
            #expect(try await callee.waitForExit(timeout: .seconds(10)) == 0)
        }
    }

    /// KL-50: Opus's RTP timestamps step at 48 kHz whatever rate the codec runs at, and the
    /// call's RTCP session read them at the codec's rate: on loopback an Opus call at 16 kHz
    /// reported 40 ms of jitter (100 ms at 8 kHz, 20 ms at 24 kHz), where PCMU reported 0.3 ms.
    /// Two seconds of packets: RFC 3550's estimator moves 1/16 of the way per packet, so such an
    /// error shows at over 90 % within 40 packets, and the mean over the call far above 5 ms.
    @Test(arguments: [JitterCall(codec: "PCMU", opusSampleRate: nil)]
        + PJSUA.MediaSettings.opusSampleRates.map { JitterCall(codec: "opus", opusSampleRate: $0) })
    func aCallOnLoopbackReportsUnderFiveMillisecondsOfJitter(_ call: JitterCall) async throws {
        var configuration = PJSUA.Configuration(port: 0, transport: .udp, bindAddress: "127.0.0.1", audioDevice: .null)
        configuration.media.opusSampleRate = call.opusSampleRate
        try await withEngine(configuration) { phone, _, log in
            try await phone.useCodecs([call.codec])
            let extra = ["--codecs", call.codec, "--exit-after", "1"] + (call.opusSampleRate.map { ["--opus-rate", "\($0)"] } ?? [])
            let (child, handle) = try await callAnsweringSoftphone(phone, log, extra, name: "jitter-\(call)")
            defer { child.stop() }
            try await Task.sleep(for: .seconds(2))
            let quality = try await phone.quality(of: handle)
            try await phone.hangUp(handle)
            try await log.state(handle, .disconnected)
            #expect(quality.codec == call.expectedCodec, "the premise: \(quality.codec)")
            #expect(quality.received.packets >= 80, "\(quality)")
            let jitter = try #require(quality.received.meanJitter, "no jitter computed: \(quality)")
            #expect(jitter < .milliseconds(5), "\(call) on loopback: mean jitter \(jitter), \(quality)")
            #expect(try await child.waitForExit(timeout: .seconds(10)) == 0, "\(child.output)")
        }
    }

    /// A raw caller sends PCMU at 20 ms a packet with three sequence numbers missing, then stops:
    /// the engine's jitter buffer counts their 60 ms as lost and, once it ran dry, an empty read
    /// per tick of the bridge (one per 20 ms) for as long as nothing comes.
    @Test func theJitterBufferCountsLostAudioAndTheTicksItRanDry() async throws {
        try await withEngine { phone, transport, log in
            let raw = try await rawCall(to: phone, transport: transport, log: log, payloadType: 0)
            func packet(_ seq: Int) -> [UInt8] {
                rtpPacket(payloadType: 0, sequence: seq, timestamp: UInt32(8000 + seq * 160), ssrc: 0x5157_4A54,
                          payload: [UInt8](repeating: 0xFF, count: 160))
            }
            let before = try #require(try await phone.quality(of: raw.call).jitterBuffer)
            // Paced, but 23 sent with 19: it is waiting when 20 is due, so 20-22 are known lost
            // (paced, a missing packet's turn finds the buffer empty: an empty frame instead).
            let clock = ContinuousClock(), start = clock.now
            for seq in 1...60 where !(20...23).contains(seq) {
                try await clock.sleep(until: start.advanced(by: .milliseconds(20 * seq)))
                for seq in seq == 19 ? [19, 23] : [seq] { #expect(raw.rtp.send(bytes: packet(seq), toPort: raw.engineRTPPort)) }
            }
            try await Task.sleep(for: .milliseconds(300))  // the buffer plays out what it held
            let t0 = clock.now
            let flowed = try #require(try await phone.quality(of: raw.call).jitterBuffer)
            let t1 = clock.now
            try await Task.sleep(for: .milliseconds(600))
            let t2 = clock.now
            let dry = try #require(try await phone.quality(of: raw.call).jitterBuffer)
            let t3 = clock.now
            try await phone.hangUp(raw.call)
            #expect(flowed.lost - before.lost == .milliseconds(60), "\(before) -> \(flowed)")
            #expect(flowed.averageDelay != nil && flowed.maxDelay != nil, "\(flowed)")
            // An empty frame per bridge tick between the two readings: at most the ticks of the
            // span around them, and at least half of those between them (a stalled clock
            // thread catches up later; this counts ticks, not the clock's punctuality).
            let ticks = { (span: Duration) in Int(span / .milliseconds(20)) }
            let empty = dry.emptyReads - flowed.emptyReads
            #expect(empty <= ticks(t3 - t0) + 1 && empty >= ticks(t2 - t1) / 2, "\(empty) in \(t2 - t1)...\(t3 - t0): \(flowed) -> \(dry)")
            #expect(dry.buffered == .zero && dry.discarded == .zero, "\(dry)")
        }
    }

    @Test func statsStopWhenSwitchedOffAndBadIntervalsAreRejected() async throws {
        var configuration = PJSUA.Configuration(port: 0, transport: .udp, bindAddress: "127.0.0.1", audioDevice: .null)
        configuration.statisticsInterval = .milliseconds(200)
        try await withEngine(configuration) { phone, transport, log in
            let call = try await phone.makeCall(to: transport.uri(user: "self"))
            try await phone.answer(try await log.incomingCall().call)
            try await log.mediaActive(call)
            try await Task.sleep(for: .milliseconds(700))
            try await phone.setStatisticsInterval(nil)
            let counted = log.all.filter { if case .stats = $0 { true } else { false } }.count
            #expect(counted >= 2)
            try await Task.sleep(for: .milliseconds(600))
            #expect(log.all.filter { if case .stats = $0 { true } else { false } }.count == counted)
            await #expect(throws: PJSUAError.self) { try await phone.setStatisticsInterval(.milliseconds(10)) }
            try await phone.hangUp(call)
            try await log.state(call, .disconnected)
            await #expect(throws: PJSUAError.self) { try await phone.quality(of: call) }
        }
        var bad = configuration
        bad.statisticsInterval = .seconds(7200)
        await #expect(throws: PJSUAError.self) { try await PJSUA().start(bad) }
    }

    /// G.107 figures: R = 93.2 with no impairment (MOS 4.41); 5 % random loss on G.711 with
    /// concealment (Bpl 25.1) gives Ie,eff = 95 * 5 / 30.1 = 15.8, R = 77.4, MOS 3.92; a 400 ms
    /// one-way delay costs 0.024 * 400 + 0.11 * 222.7 = 34.1.
    @Test func theEModelMatchesG107Figures() {
        let clean = PJSUA.CallQuality.rFactor(oneWayDelay: .zero, lossPercent: 0, codec: "PCMU/8000")
        #expect(abs(clean - 93.2) < 0.01)
        #expect(abs(PJSUA.CallQuality.mos(rFactor: clean) - 4.41) < 0.01)
        let lossy = PJSUA.CallQuality.rFactor(oneWayDelay: .zero, lossPercent: 5, codec: "PCMU/8000")
        #expect(abs(lossy - 77.42) < 0.05)
        #expect(abs(PJSUA.CallQuality.mos(rFactor: lossy) - 3.92) < 0.01)
        let late = PJSUA.CallQuality.rFactor(oneWayDelay: .milliseconds(400), lossPercent: 0, codec: "PCMU/8000")
        #expect(abs(late - (93.2 - 34.1)) < 0.05)
        #expect(PJSUA.CallQuality.rFactor(oneWayDelay: .zero, lossPercent: 0, codec: "G729/8000") < clean)
        #expect(PJSUA.CallQuality.mos(rFactor: 0) == 1)
    }
}

/// A codec, and Opus's internal rate (both ends), for the jitter test.
struct JitterCall: Sendable, CustomStringConvertible {
    let codec: String
    let opusSampleRate: Int?
    var description: String { opusSampleRate.map { "\(codec)-\($0)" } ?? codec }
    /// The codec the call's statistics name: Opus by the rate it runs at inside.
    var expectedCodec: String { opusSampleRate.map { "\(codec)/\($0)" } ?? "\(codec)/8000" }
}
