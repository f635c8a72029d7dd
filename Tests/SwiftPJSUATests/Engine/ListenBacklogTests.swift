import Foundation
import PJSUATestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// PJSIP's SIP/TCP and SIP/TLS listeners take the backlog of our config_site.h
/// (`PJSIP_TCP_TRANSPORT_BACKLOG`, and `PJ_SOMAXCONN`, which pj_ssl_sock listens with; pjproject's
/// default for both is 5).
/// With 5, a burst of connections overflows the kernel's accept queue: the excess SYNs (or the
/// handshakes' last ACKs) are dropped and wait for the client's retransmission, 0.2-1 s each.
@Suite("The SIP/TCP and SIP/TLS listeners take a burst of connections", .serialized)
struct ListenBacklogTests {
    @Test func fiftyConnectionsOpenedAtOnceAreAllAnsweredWithoutARetransmission() async throws {
        let (child, port) = try await answeringSoftphone(transport: "tcp", name: "softphone-tcp-burst")
        defer { child.stop() }
        let burst = try await TCPBurst(connections: 50, port: port) { index, localPort in
            var options = RawSIPRequest(method: "OPTIONS", target: port, token: "burst\(index)")
            options.transport = "TCP"
            return options.text(via: localPort)
        }
        let answered = burst.replies.filter { $0?.hasPrefix("SIP/2.0 200") == true }.count
        #expect(answered == 50, "answered \(answered) of 50 within \(TCPBurst.bound)")
        // On loopback a segment is retransmitted only when the listener's queue dropped it.
        #expect(burst.retransmissions == 0, "\(burst.retransmissions) retransmitted segments; slowest answer \(burst.slowest)")
        #expect(child.isRunning, "\(child.output.suffix(2000))")
    }

    @Test func fiftyConnectionsOpenedAtOnceToTheTLSListenerAreAcceptedWithoutARetransmission() async throws {
        let certificates = try await TestCertificates.make()
        let (child, port) = try await answeringSoftphone(["--cert", certificates.server.certificate, "--key", certificates.server.key],
                                                         transport: "tls", name: "softphone-tls-burst")
        defer { child.stop() }
        // Bytes that are not a TLS handshake: the listener accepts each connection, reads them and
        // closes it. Only the kernel's accept queue decides whether they wait for a retransmission.
        let burst = try await TCPBurst(connections: 50, port: port) { _, _ in "not a TLS ClientHello\r\n\r\n" }
        #expect(burst.retransmissions == 0, "\(burst.retransmissions) retransmitted segments")
        #expect(child.isRunning, "\(child.output.suffix(2000))")
    }
}

/// `connections` TCP connections to 127.0.0.1:`port` opened at once (non-blocking connects in one
/// loop), each sending the text `request` makes for it, and the first bytes answered on each.
struct TCPBurst {
    /// What the test claims is that no segment waits for a retransmission (the kernel's accept
    /// queue took the whole burst); how fast the listener answers depends on the machine's load
    /// (at load 18, with the ASan pass beside it, a softphone answered none of 50 within 5 s).
    static let bound = Duration.seconds(20)
    /// What came back on each connection (nil: nothing within ``bound``).
    var replies: [String?]
    /// Segments the kernel retransmitted on all connections (TCP_INFO `tcpi_total_retrans`).
    var retransmissions: Int
    /// The longest wait from connect to a reply.
    var slowest: Duration

    init(connections: Int, port: Int, request: (Int, Int) -> String) async throws {
        let start = ContinuousClock.now
        var sockets: [Int32] = []
        defer { sockets.forEach { close($0) } }
        for _ in 0..<connections {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard fd >= 0 else { throw ChildProcessError("socket: errno \(errno)") }
            sockets.append(fd)
            let rc = withLoopbackAddress(port: port) { Glibc.connect(fd, $0, $1) }
            guard rc == 0 || errno == EINPROGRESS else { throw ChildProcessError("connect: errno \(errno)") }
        }
        var sent = [Bool](repeating: false, count: connections)
        var received = [String](repeating: "", count: connections)
        var done = [Duration?](repeating: nil, count: connections)
        while done.contains(where: { $0 == nil }), ContinuousClock.now - start < Self.bound {
            var entries = sockets.enumerated().map { index, fd in
                pollfd(fd: fd, events: Int16(sent[index] ? POLLIN : POLLOUT), revents: 0)
            }
            _ = poll(&entries, nfds_t(entries.count), 0)
            for (index, entry) in entries.enumerated() where done[index] == nil && entry.revents != 0 {
                let fd = sockets[index]
                if !sent[index] {
                    var error: Int32 = 0
                    var length = socklen_t(MemoryLayout<Int32>.size)
                    getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
                    guard error == 0 else { throw ChildProcessError("connection \(index) failed: errno \(error)") }
                    let bytes = Array(request(index, localPort(of: fd)).utf8)
                    guard send(fd, bytes, bytes.count, 0) == bytes.count else { throw ChildProcessError("send: errno \(errno)") }
                    sent[index] = true
                } else {
                    var buffer = [UInt8](repeating: 0, count: 8192)
                    let count = recv(fd, &buffer, buffer.count, 0)
                    if count > 0 { received[index] += String(decoding: buffer.prefix(count), as: UTF8.self) }
                    let failed = count < 0 && errno != EAGAIN && errno != EWOULDBLOCK
                    if received[index].contains("\r\n\r\n") || count == 0 || failed { done[index] = ContinuousClock.now - start }
                }
            }
            try await Task.sleep(for: .milliseconds(2))
        }
        replies = received.enumerated().map { done[$0.offset] == nil ? nil : $0.element }
        slowest = done.compactMap { $0 }.max() ?? .zero
        retransmissions = sockets.reduce(0) { total, fd in
            var info = tcp_info()
            var length = socklen_t(MemoryLayout<tcp_info>.size)
            return total + (getsockopt(fd, Int32(IPPROTO_TCP), TCP_INFO, &info, &length) == 0 ? Int(info.tcpi_total_retrans) : 0)
        }
    }
}

/// The local port a socket is bound to.
private func localPort(of fd: Int32) -> Int {
    var address = sockaddr_in()
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}
