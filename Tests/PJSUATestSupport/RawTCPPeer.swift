import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP client of a SIP listener on loopback, written byte by byte: sends whole strings (several
/// messages in one write, a message cut anywhere), collects the responses it reads back. For the
/// framing a stream transport does (the bytes after a message's end are what the test puts there).
/// Not Sendable: one task drives it.
public final class RawTCPPeer {
    /// A response read back: its status code, its Call-ID, and the whole message as received.
    public struct Response: CustomStringConvertible, Sendable {
        public var code: Int
        public var callID: String
        public var text: String
        public var description: String { "\(code) (\(callID))" }
        /// The first header named `name` (case-insensitive), its value trimmed.
        public func header(_ name: String) -> String? {
            let prefix = name.lowercased() + ":"
            return text.components(separatedBy: "\r\n").first { $0.lowercased().hasPrefix(prefix) }
                .map { String($0.dropFirst(prefix.count)).trimmingCharacters(in: .whitespaces) }
        }
    }

    private let fd: Int32
    private var received = ""
    private var consumed = 0
    /// The client's own port (for a Via).
    public let localPort: Int

    /// Connects to `port` on 127.0.0.1.
    public init(port: Int) throws {
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

    public func close() { Glibc.close(fd) }

    /// Writes all of `text`.
    public func send(_ text: String) throws {
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
    public func responses(count: Int, within: Duration = .seconds(5)) async throws -> [Response] {
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

    /// Whether the listener closed the connection within `within`.
    public func waitForClose(within: Duration) async throws -> Bool {
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
            return Response(code: code, callID: callID, text: "SIP/2.0 " + part)
        }
        return Array(all.dropFirst(consumed))
    }
}
