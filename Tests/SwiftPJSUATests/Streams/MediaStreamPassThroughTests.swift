import CPJSUAStreams
import CPJSUASupport
import Foundation
import PJSUATestSupport
@testable import SwiftPJSUA
@testable import SwiftPJSUAStreams
import Testing

/// The caller's RTP passed through to a media stream's agent (``PJSUA/MediaStream/Options/passesCallerAudioThrough``):
/// what goes out, byte for byte, for packets a test writes itself (lost, reordered, duplicated,
/// then none); the fallback to the bridge's frames; and SRTP, which the tap sits above.
@Suite("Media streams: the caller's RTP passed through to the agent", .serialized)
struct MediaStreamPassThroughTests {
    /// A raw caller (a UDP socket for SIP and one for RTP) offers one payload type; the engine
    /// answers and streams the call. The caller then sends 40 packets in one burst: seq 26 never
    /// sent (lost), 30 before 29 (reordered), 30 again (duplicated): 38 taken, 2 late. The agent
    /// must get exactly packets 1-25, 20 ms of silence, 27, 28, 20 ms of silence (29 came after
    /// 30), 30-40, then silence frames while nothing more comes. PCMU arrives byte for byte;
    /// PCMA converted to mu-law (compared as samples).
    @Test(arguments: [0, 8])
    func theCallersPacketsReachTheAgentInOrderWithLossConcealedLateOnesDroppedAndSilenceOnceTheyStop(payloadType: Int) async throws {
        let agent = try await StreamAgent(name: "stream-agent-pass-through-\(payloadType)")
        defer { agent.stop() }
        try await withStreamingEngine { phone, transport, log in
            let raw = try await rawCall(to: phone, transport: transport, log: log, payloadType: payloadType)
            let (call, engineRTPPort, rtp) = (raw.call, raw.engineRTPPort, raw.rtp)
            let stream = try await phone.stream(call, to: agent.url())
            let events = StreamEvents(stream)
            #expect(stream.statistics.passesCallerAudioThrough)

            let ssrc: UInt32 = 0x5157_4A53
            func payload(_ seq: Int) -> [UInt8] { (0..<160).map { UInt8(0x80 + (seq * 13 + $0) % 100) } }
            func packet(_ seq: Int) -> [UInt8] {
                rtpPacket(payloadType: payloadType, sequence: seq, timestamp: UInt32(1000 + (seq - 1) * 160), ssrc: ssrc, payload: payload(seq))
            }
            let order = Array(1...25) + [27, 28, 30, 29, 30] + Array(31...40)
            for seq in order { #expect(rtp.send(bytes: packet(seq), toPort: engineRTPPort)) }
            try await Task.sleep(for: .milliseconds(400))
            let statistics = stream.statistics
            try await phone.hangUp(call)
            _ = try await events.ending()
            try await agent.waitFor("\"event\": \"stop\"")  // every media message before it is recorded

            #expect(statistics.passedThroughPackets == 38, "\(statistics)")
            #expect(statistics.latePackets == 2, "\(statistics)")
            #expect(statistics.concealedMilliseconds == 40, "\(statistics)")
            let media = agent.received.map(\.message).filter { $0["event"] as? String == "media" }.compactMap { $0["media"] as? [String: Any] }
            let frames = media.compactMap { ($0["payload"] as? String).flatMap { Data(base64Encoded: $0) }.map { [UInt8]($0) } }
            #expect(frames.count == media.count && frames.allSatisfy { $0.count == 160 })
            let stamps = media.compactMap { ($0["timestamp"] as? String).flatMap { Int($0) } }
            #expect(zip(stamps, stamps.dropFirst()).allSatisfy { $1 - $0 == 20 }, "\(stamps.prefix(10))")
            let silence = [UInt8](repeating: 0xFF, count: 160)
            // Silence may lead (the stream goes on with silence until the first packet).
            let heard = Array(frames.drop { $0 == silence })
            let expected: [[UInt8]?] = (1...25).map { payload($0) } + [nil, payload(27), payload(28), nil]
                + (30...40).map { payload($0) }
            #expect(heard.count >= expected.count + 5, "\(heard.count) frames from the first packet on; the stream goes on with silence")
            for (index, frame) in expected.enumerated() where index < heard.count {
                guard let frame else {
                    #expect(heard[index] == silence, "frame \(index) should be concealment silence")
                    continue
                }
                if payloadType == 0 {
                    #expect(heard[index] == frame, "frame \(index) differs")
                } else {
                    let got = mulawSamples(Data(heard[index]).base64EncodedString())
                    let sent = frame.map(alawSample)
                    let close = zip(got, sent).allSatisfy { abs(Int($0) - Int($1)) <= max(16, abs(Int($1)) / 8) }
                    #expect(got.count == 160 && close, "frame \(index): \(got.prefix(4)) against \(sent.prefix(4))")
                }
            }
            #expect(heard.dropFirst(expected.count).allSatisfy { $0 == silence }, "after the last packet, only silence")
            // The close handshake. (Once "no close within 10 s, then 30 s": a child process a
            // concurrent test spawned held a copy of the connection; the client's sockets are
            // close-on-exec now.)
            try await agent.waitFor("\"closed\"")
        }
    }

    /// With pass-through off, or a codec other than PCMU and PCMA (G.722 here), the bridge's
    /// frames go out as before: the stream says so and media keeps flowing every 20 ms.
    @Test(arguments: [(0, false), (9, true)])
    func withPassThroughOffOrAnotherCodecTheBridgesFramesGoOut(payloadType: Int, passThroughAsked: Bool) async throws {
        let agent = try await StreamAgent(name: "stream-agent-bridge-frames-\(payloadType)")
        defer { agent.stop() }
        try await withStreamingEngine { phone, transport, log in
            let call = try await rawCall(to: phone, transport: transport, log: log, payloadType: payloadType).call
            let stream = try await phone.stream(call, to: agent.url(), options: .init(passesCallerAudioThrough: passThroughAsked))
            try await Task.sleep(for: .milliseconds(1000))
            let statistics = stream.statistics
            #expect(!statistics.passesCallerAudioThrough && statistics.passedThroughPackets == 0, "\(statistics)")
            #expect((40...60).contains(statistics.mediaMessagesSent), "\(statistics)")
            try await phone.hangUp(call)
        }
    }

    /// A re-INVITE that moves the call to G.722 puts the stream on the bridge's frames; one back
    /// to PCMU passes the caller's packets through again. Media flows all along.
    @Test func aReInviteToAnotherCodecSwitchesTheStreamToTheBridgeAndBack() async throws {
        let agent = try await StreamAgent(name: "stream-agent-pass-through-reinvite")
        defer { agent.stop() }
        try await withStreamingEngine { phone, transport, log in
            let raw = try await rawCall(to: phone, transport: transport, log: log, payloadType: 0)
            let stream = try await phone.stream(raw.call, to: agent.url())
            #expect(stream.statistics.passesCallerAudioThrough)
            for (step, (payloadType, passesThrough)) in [(9, false), (0, true)].enumerated() {
                var reinvite = raw.invite.inDialog("INVITE", cseq: raw.invite.cseq + 1 + step, toTag: raw.answer.toTag)
                reinvite.contentType = "application/sdp"
                reinvite.body = rawOffer(rtpPort: raw.rtp.port, payloadType: payloadType, version: 2 + step)
                let answer = try await raw.peer.exchange(reinvite, timeout: .seconds(10))
                #expect(answer?.statusCode == 200, "\(answer?.text ?? "no answer")")
                if let answer { raw.peer.send(reinvite.ack(for: answer)) }
                try await waitUntil("the stream \(passesThrough ? "passing through" : "on the bridge") after the re-INVITE to \(payloadType)") {
                    stream.statistics.passesCallerAudioThrough == passesThrough
                }
                let sent = stream.statistics.mediaMessagesSent
                try await waitUntil("media flowing") { stream.statistics.mediaMessagesSent >= sent + 10 }
            }
            try await phone.hangUp(raw.call)
        }
    }

    /// An SRTP call (SDES, mandatory) whose far end plays a tone: the tap sees the packets after
    /// SRTP decrypted them, so the agent hears the tone, passed through.
    @Test func anSRTPCallsDecryptedAudioIsPassedThrough() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try WAVFile.tone(frequency: 600, duration: .seconds(2), sampleRate: 8000).write(to: directory + "/tone.wav")
        let callee = try ChildProcess(try softphone(), ["answer", "--listen", "udp:127.0.0.1:0", "--srtp", "mandatory",
                                                       "--play", directory + "/tone.wav", "--exit-after", "1", "--json"],
                                      name: "softphone-srtp-pass-through")
        defer { callee.stop() }
        try await callee.waitUntilStarted(printing: "\"listening\"")
        let uri = try #require(jsonLines(callee.output).first { $0["event"] as? String == "listening" }?["uri"] as? String)
        let agent = try await StreamAgent(name: "stream-agent-srtp-pass-through")
        defer { agent.stop() }
        try await withStreamingEngine(srtpEngine(.mandatory)) { phone, _, log in
            try await phone.useCodecs(["PCMU"])
            let call = try await phone.makeCall(to: PJSUA.SIPURI(uri))
            try await log.mediaActive(call)
            #expect(try await phone.info(call).encryption.isEncrypted)
            let stream = try await phone.stream(call, to: agent.url())
            try await Task.sleep(for: .milliseconds(1500))
            let statistics = stream.statistics
            #expect(statistics.passesCallerAudioThrough && statistics.passedThroughPackets >= 40, "\(statistics)")
            try await phone.hangUp(call)
            try await log.state(call, .disconnected)
            try await agent.waitFor("\"event\": \"stop\"")  // every media message before it is recorded
            let media = agent.received.map(\.message).filter { $0["event"] as? String == "media" }.compactMap { $0["media"] as? [String: Any] }
            let samples = media.suffix(40).flatMap { mulawSamples($0["payload"] as? String ?? "") }
            let heard = WAVFile(sampleRate: 8000, samples: samples)
            #expect(abs(try heard.dominantFrequency(in: 200...3000, step: 5) - 600) <= 10 && heard.rmsLevel > 0.05,
                    "\(heard.rmsLevel)")
        }
    }
}

/// A-law (G.711) to a linear sample: the test's own reference for PCMA passed through.
private func alawSample(_ byte: UInt8) -> Int16 {
    let value = byte ^ 0x55
    let exponent = Int((value >> 4) & 0x07)
    let mantissa = Int(value & 0x0F)
    let magnitude = exponent == 0 ? (mantissa << 4) + 8 : ((mantissa << 4) + 0x108) << (exponent - 1)
    return Int16(value & 0x80 != 0 ? magnitude : -magnitude)
}
