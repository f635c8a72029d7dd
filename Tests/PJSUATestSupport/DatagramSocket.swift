import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A UDP socket on a loopback address (any of 127.0.0.0/8) that knows who sent what it reads and
/// can send to any loopback address: the fake servers of the security tests (a nameserver, a STUN
/// server) answer whoever asked, and their forgers send from addresses of their own.
///
/// Never blocks: reads poll and return at once.
public final class DatagramSocket: @unchecked Sendable {
    // @unchecked Sendable: the descriptor is immutable; a datagram socket's sends and receives
    // are each one system call, safe from any thread.
    private let descriptor: Int32
    /// The address it is bound to.
    public let host: String
    /// The port it is bound to (the kernel's pick when 0 was asked for).
    public let port: Int

    /// One datagram and where it came from.
    public struct Datagram: Sendable {
        public let bytes: [UInt8]
        public let host: String
        public let port: Int
    }

    /// A socket bound to `host`:`port` (0: a free port); throws if it cannot be bound.
    public init(host: String = "127.0.0.1", port: Int = 0) throws {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw ChildProcessError("cannot open a UDP socket: errno \(errno)") }
        var address = Self.address(host, port)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else {
            let error = errno
            close(fd)
            throw ChildProcessError("cannot bind UDP \(host):\(port): errno \(error)")
        }
        descriptor = fd
        self.host = host
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }

    /// The next datagram waiting to be read, nil if none is.
    public func receiveNow() -> Datagram? {
        var buffer = [UInt8](repeating: 0, count: 65536)
        var from = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let count = withUnsafeMutablePointer(to: &from) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT), $0, &length) }
        }
        guard count >= 0 else { return nil }
        return Datagram(bytes: Array(buffer.prefix(count)), host: String(cString: inet_ntoa(from.sin_addr)),
                        port: Int(UInt16(bigEndian: from.sin_port)))
    }

    /// The next datagram that arrives within `timeout`, nil if none did.
    public func receive(timeout: Duration) async -> Datagram? {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            if let datagram = receiveNow() { return datagram }
            guard ContinuousClock.now < deadline else { return nil }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Sends `bytes` as one datagram to `host`:`port`; returns whether it went out whole.
    @discardableResult
    public func send(_ bytes: [UInt8], to host: String = "127.0.0.1", port: Int) -> Bool {
        var address = Self.address(host, port)
        let sent = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(descriptor, bytes, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        return sent == bytes.count
    }

    private static func address(_ host: String, _ port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr(host)
        address.sin_port = UInt16(port).bigEndian
        return address
    }
}
