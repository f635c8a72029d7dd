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
            let peer = try TCPPeer(port: transport.port)
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
            let peer = try TCPPeer(port: transport.port)
            defer { peer.close() }
            try peer.send(options(callID: "first", port: transport.port, local: peer.localPort))
            #expect(try await peer.responses(count: 1).map(\.code) == [200])
            let long = options(callID: "long", port: transport.port, local: peer.localPort)
                .replacingOccurrences(of: "Max-Forwards: 70\r\n",
                                      with: "Max-Forwards: 70\r\nX-Padding: \(String(repeating: "p", count: limit + 2000))\r\n")
            try peer.send(long)
            #expect(try await peer.waitForClose(within: .seconds(5)), "the connection stayed open")

            let second = try TCPPeer(port: transport.port)
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

/// A blocking-free TCP client of the engine's SIP port: sends whole strings, collects responses.
private final class TCPPeer {
    struct Response: CustomStringConvertible {
        var code: Int
        var callID: String
        var description: String { "\(code) (\(callID))" }
    }

    private let fd: Int32
    private var received = ""
    private var consumed = 0
    let localPort: Int

    init(port: Int) throws {
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketFD >= 0 else { throw ChildProcessError("socket: errno \(errno)") }
        guard withLoopbackAddress(port: port, { Glibc.connect(socketFD, $0, $1) }) == 0 else {
            let error = errno
            Glibc.close(socketFD)
            throw ChildProcessError("connect: errno \(error)")
        }
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socketFD, $0, &length) }
        }
        fd = socketFD
        localPort = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() { Glibc.close(fd) }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw ChildProcessError("send: errno \(errno)") }
            offset += sent
        }
    }

    /// Reads what has arrived; false once the engine closed the connection.
    private func drain() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if count > 0 { received += String(decoding: buffer.prefix(count), as: UTF8.self); continue }
            return !(count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK))
        }
    }

    /// The responses not yet returned, once `count` of them arrived or `within` passed.
    func responses(count: Int, within: Duration = .seconds(5)) async throws -> [Response] {
        let deadline = ContinuousClock.now + within
        var found: [Response] = []
        while true {
            let open = drain()
            found = parse()
            if found.count >= count || !open || ContinuousClock.now >= deadline { break }
            try await Task.sleep(for: .milliseconds(5))
        }
        let taken = Array(found.prefix(count))
        consumed += taken.count
        return taken
    }

    func waitForClose(within: Duration) async throws -> Bool {
        let deadline = ContinuousClock.now + within
        while ContinuousClock.now < deadline {
            if !drain() { return true }
            try await Task.sleep(for: .milliseconds(5))
        }
        return false
    }

    /// Every response in the stream after those already returned: status lines and their Call-IDs.
    private func parse() -> [Response] {
        let parts = received.components(separatedBy: "SIP/2.0 ").dropFirst()
        let all = parts.compactMap { part -> Response? in
            guard let code = Int(part.prefix(3)) else { return nil }
            let callID = part.components(separatedBy: "\r\n")
                .first { $0.lowercased().hasPrefix("call-id:") }
                .map { String($0.dropFirst(8)).trimmingCharacters(in: .whitespaces) } ?? ""
            return Response(code: code, callID: callID)
        }
        return Array(all.dropFirst(consumed))
    }
}
