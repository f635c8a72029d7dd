import Foundation
import PJSUATestSupport
import SwiftPJSUA
import Testing

/// KL-4 (scripts/pjproject-patches/fix-tcp-oversized-message.sh): a SIP message larger than
/// PJSIP's PJSIP_MAX_PKT_LEN receive buffer on a TCP connection, written by a raw socket so that
/// the bytes after the buffer's end are exactly what the test puts there. PJSIP 2.17 discarded
/// the first buffer-full and read the rest of the body as the start of the next message.
@Suite("Oversized messages on a TCP connection (KL-4)", .serialized)
struct OversizedTCPMessageTests {
    /// A request hidden in an oversized body, placed where PJSIP 2.17 started reading again after
    /// discarding the first buffer-full, was answered as if the peer had sent it (through a proxy:
    /// a request the proxy never saw). Now the oversized OPTIONS is answered 513, the body is
    /// skipped whole, and the next request on the connection is answered.
    @Test func aRequestHiddenInAnOversizedBodyIsNotServedAndTheOversizedOneIsAnswered513() async throws {
        let limit = PJSUA.buildLimits.maxPacketLength
        try await withEngine(.init(port: 0, transport: .tcp, bindAddress: "127.0.0.1", audioDevice: .null)) { _, transport, _ in
            let peer = try RawTCPPeer(port: transport.port)
            defer { peer.close() }
            try peer.send(options(callID: "first", port: transport.port, local: peer.localPort))
            #expect(try await peer.responses(count: 1).map(\.code) == [200])

            let hidden = options(callID: "hidden", port: transport.port, local: peer.localPort)
            // The oversized OPTIONS's body: padding up to the buffer's end, then the hidden
            // request, then 1000 bytes more. Content-Length has six digits whatever it says.
            func head(_ bodyLength: Int) -> String {
                options(callID: "oversized", port: transport.port, local: peer.localPort)
                    .replacingOccurrences(of: "Content-Length: 0\r\n",
                                          with: "Content-Type: text/plain\r\nContent-Length: \(String(format: "%06d", bodyLength))\r\n")
            }
            let before = limit - head(0).utf8.count
            let bodyLength = before + hidden.utf8.count + 1000
            let oversized = head(bodyLength) + String(repeating: "x", count: before) + hidden + String(repeating: "y", count: 1000)
            #expect(oversized.utf8.count - head(bodyLength).utf8.count == bodyLength)
            #expect(oversized.utf8.dropFirst(limit).starts(with: "OPTIONS sip:".utf8))
            try peer.send(oversized)
            try peer.send(options(callID: "next", port: transport.port, local: peer.localPort))
            let answers = try await peer.responses(count: 2)
            #expect(answers.map(\.code) == [513, 200], "\(answers)")
            #expect(answers.map(\.callID) == ["oversized", "next"], "\(answers)")
            // Nothing more: in particular no answer to the hidden request.
            let late = try await peer.responses(count: 1, within: .milliseconds(500))
            #expect(late.isEmpty, "\(late)")
        }
    }

    /// Headers longer than the buffer leave no Content-Length to skip by: the connection is shut
    /// down (PJSIP 2.17 kept it and read the rest of the headers as a new message), and a new
    /// connection is served.
    @Test func headersLongerThanTheBufferCloseTheConnectionAndANewOneIsServed() async throws {
        let limit = PJSUA.buildLimits.maxPacketLength
        try await withEngine(.init(port: 0, transport: .tcp, bindAddress: "127.0.0.1", audioDevice: .null)) { _, transport, _ in
            let peer = try RawTCPPeer(port: transport.port)
            defer { peer.close() }
            try peer.send(options(callID: "first", port: transport.port, local: peer.localPort))
            #expect(try await peer.responses(count: 1).map(\.code) == [200])
            let long = options(callID: "long", port: transport.port, local: peer.localPort)
                .replacingOccurrences(of: "Max-Forwards: 70\r\n",
                                      with: "Max-Forwards: 70\r\nX-Padding: \(String(repeating: "p", count: limit + 2000))\r\n")
            try peer.send(long)
            #expect(try await peer.waitForClose(within: .seconds(5)), "the connection stayed open")

            let second = try RawTCPPeer(port: transport.port)
            defer { second.close() }
            try second.send(options(callID: "again", port: transport.port, local: second.localPort))
            #expect(try await second.responses(count: 1).map(\.code) == [200])
        }
    }
}

private func options(callID: String, port: Int, local: Int) -> String {
    "OPTIONS sip:probe@127.0.0.1:\(port) SIP/2.0\r\n"
        + "Via: SIP/2.0/TCP 127.0.0.1:\(local);branch=z9hG4bK-\(callID)\r\n"
        + "From: <sip:peer@127.0.0.1>;tag=\(callID)\r\n"
        + "To: <sip:probe@127.0.0.1:\(port)>\r\n"
        + "Call-ID: \(callID)\r\n"
        + "CSeq: 1 OPTIONS\r\n"
        + "Max-Forwards: 70\r\n"
        + "Content-Length: 0\r\n\r\n"
}
