import Foundation

/// A STUN server of the test's own on 127.0.0.1 that answers Binding requests only, telling
/// everyone that their public address is `publicHost` (with the port the request came from).
///
/// pjsua asks it twice when it creates its SIP UDP transport: pjnath's STUN socket first checks
/// that the server answers (RFC 5389, with the magic cookie: answered at once); then pjlib-util's
/// simple client asks, from the SIP socket itself, for that socket's public address (RFC 3489, no
/// cookie). Those "classic" requests are answered `classicAnswerDelay` later, after
/// `onClassicRequest` has run with the port they came from: what a forger racing the real server
/// gets to do.
public final class FakeSTUNServer: @unchecked Sendable {
    // @unchecked Sendable: `classicRequests` and `task` are guarded by `lock`; the rest is
    // immutable.
    private let socket: DatagramSocket
    private let publicHost: String
    private let classicAnswerDelay: Duration
    private let onClassicRequest: @Sendable (_ port: Int) -> Void
    private let lock = NSLock()
    private var classicRequestCount = 0
    private var task: Task<Void, Never>?

    /// The RFC 5389 magic cookie, the first word of a transaction ID that has it.
    public static let magicCookie: [UInt8] = [0x21, 0x12, 0xA4, 0x42]

    /// The server's address, as `PJSUA.NATTraversal.stunServers` takes it.
    public var address: String { "\(socket.host):\(socket.port)" }

    /// How many classic (RFC 3489) Binding requests came so far.
    public var classicRequests: Int {
        lock.lock()
        defer { lock.unlock() }
        return classicRequestCount
    }

    public init(publicHost: String, classicAnswerDelay: Duration = .milliseconds(200),
                onClassicRequest: @escaping @Sendable (_ port: Int) -> Void = { _ in }) throws {
        socket = try DatagramSocket()
        self.publicHost = publicHost
        self.classicAnswerDelay = classicAnswerDelay
        self.onClassicRequest = onClassicRequest
        // The loop holds the server only while it handles what came: deinit can run, and stops it.
        let serving = Task.detached { [weak self] in
            var pending: [Pending] = []
            while !Task.isCancelled, let server = self {
                server.answer(&pending)
                try? await Task.sleep(for: .milliseconds(2))
            }
        }
        lock.lock()
        task = serving
        lock.unlock()
    }

    deinit { stop() }

    /// Stops answering.
    public func stop() {
        lock.lock()
        let serving = task
        task = nil
        lock.unlock()
        serving?.cancel()
    }

    private typealias Pending = (due: ContinuousClock.Instant, bytes: [UInt8], port: Int)

    /// Answers what came, and sends the held answers that are due.
    private func answer(_ pending: inout [Pending]) {
        while let request = socket.receiveNow() {
            guard request.bytes.count >= 20, request.bytes[0] == 0x00, request.bytes[1] == 0x01 else { continue }
            let transaction = Array(request.bytes[4..<20])
            let answer = Self.bindingResponse(transaction: transaction, mappedHost: publicHost, mappedPort: request.port)
            if Array(transaction.prefix(4)) == Self.magicCookie {
                socket.send(answer, to: request.host, port: request.port)
            } else {
                lock.lock()
                classicRequestCount += 1
                lock.unlock()
                onClassicRequest(request.port)
                pending.append((ContinuousClock.now.advanced(by: classicAnswerDelay), answer, request.port))
            }
        }
        let now = ContinuousClock.now
        for answer in pending where answer.due <= now { socket.send(answer.bytes, port: answer.port) }
        pending.removeAll { $0.due <= now }
    }

    /// A Binding success response for the 16-byte `transaction` (its first word the magic cookie,
    /// or not: RFC 3489), with MAPPED-ADDRESS and, under the cookie, XOR-MAPPED-ADDRESS.
    public static func bindingResponse(transaction: [UInt8], mappedHost: String, mappedPort: Int) -> [UInt8] {
        let address = mappedHost.split(separator: ".").compactMap { UInt8($0) }
        let port = [UInt8(mappedPort >> 8 & 0xFF), UInt8(mappedPort & 0xFF)]
        var attributes: [UInt8] = [0x00, 0x01, 0x00, 0x08, 0x00, 0x01] + port + address
        if Array(transaction.prefix(4)) == magicCookie {
            let xorPort = zip(port, magicCookie).map { $0 ^ $1 }
            let xorAddress = zip(address, magicCookie).map { $0 ^ $1 }
            attributes += [0x00, 0x20, 0x00, 0x08, 0x00, 0x01] + xorPort + xorAddress
        }
        let length = [UInt8(attributes.count >> 8), UInt8(attributes.count & 0xFF)]
        return [0x01, 0x01] + length + transaction + attributes
    }
}
