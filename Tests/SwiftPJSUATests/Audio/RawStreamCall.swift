import Foundation
import PJSUATestSupport
@testable import SwiftPJSUA
import Testing

/// A call from a raw SIP peer offering only `payloadType` (0 PCMU, 8 PCMA, 9 G.722, 18 G.729, 96 Opus), answered by
/// the engine: the call, the engine's RTP port (from its answer) and the caller's RTP socket.
struct RawCall {
    let call: PJSUA.Call
    /// The engine's RTP port, from its answer.
    let engineRTPPort: Int
    /// The caller's RTP socket.
    let rtp: LoopbackSocket
    let peer: RawSIPPeer
    let invite: RawSIPRequest
    let answer: RawSIPMessage
}

/// An SDP offer of one payload type (0 PCMU, 8 PCMA, 9 G.722, 18 G.729, 96 Opus) at `rtpPort`, session
/// version `version`. Opus without parameters: the engine runs it at the rate it offers itself.
func rawOffer(rtpPort: Int, payloadType: Int, version: Int = 1) -> String {
    let names = [0: "PCMU/8000", 8: "PCMA/8000", 9: "G722/8000", 18: "G729/8000", 96: "opus/48000/2"]
    return "v=0\r\no=raw 1 \(version) IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\n"
        + "m=audio \(rtpPort) RTP/AVP \(payloadType)\r\na=rtpmap:\(payloadType) \(names[payloadType] ?? "")\r\n"
}

/// An RTP packet (RFC 3550, version 2, no CSRC or extension) as a raw caller sends it.
func rtpPacket(payloadType: Int, sequence: Int, timestamp: UInt32, ssrc: UInt32, marker: Bool = false,
               payload: [UInt8]) -> [UInt8] {
    let bigEndian = { (value: UInt32) in [24, 16, 8, 0].map { UInt8((value >> UInt32($0)) & 0xFF) } }
    return [0x80, UInt8(payloadType | (marker ? 0x80 : 0)), UInt8((sequence >> 8) & 0xFF), UInt8(sequence & 0xFF)]
        + bigEndian(timestamp) + bigEndian(ssrc) + payload
}

func rawCall(to phone: PJSUA, transport: PJSUA.Transport, log: EventLog, payloadType: Int) async throws -> RawCall {
    let rtp = try LoopbackSocket(udp: true)
    let peer = try RawSIPPeer(target: transport.port)
    var invite = RawSIPRequest(peer: peer, method: "INVITE")
    invite.contentType = "application/sdp"
    invite.body = rawOffer(rtpPort: rtp.port, payloadType: payloadType)
    async let answered = peer.exchange(invite, timeout: .seconds(10))
    let call = try await log.first("the raw caller's INVITE") { event -> PJSUA.Call? in
        if case let .incomingCall(_, call, _, _, _) = event { return call }
        return nil
    }
    try await phone.answer(call)
    let answer = try #require(try await answered, "no answer to the raw INVITE")
    #expect(answer.statusCode == 200, "\(answer.text)")
    peer.send(invite.ack(for: answer))
    try await log.mediaActive(call)
    let line = try #require(answer.text.components(separatedBy: "\r\n").first { $0.hasPrefix("m=audio ") }, "\(answer.text)")
    let port = try #require(Int(line.split(separator: " ")[1]), "\(line)")
    return RawCall(call: call, engineRTPPort: port, rtp: rtp, peer: peer, invite: invite, answer: answer)
}
