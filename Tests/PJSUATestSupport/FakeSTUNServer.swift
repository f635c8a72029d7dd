import Foundation
import Synchronization

/// A STUN server of the test's own on 127.0.0.1 that answers Binding requests only, telling
/// everyone that their public address is `publicHost` (with the port the request came from).
///
/// pjsua asks it twice when it creates its SIP UDP transport: pjnath's STUN socket first checks
/// that the server answers (RFC 5389, with the magic cookie: answered at once); then pjlib-util's
/// simple client asks, from the SIP socket itself, for that socket's public address (RFC 3489, no
/// cookie). Those "classic" requests are answered `classicAnswerDelay` later, after
/// `onClassicRequest` has run with the port they came from: what a forger racing the real server
/// gets to do.
public final class FakeSTUNServer: Sendable {
    private let socket: DatagramSocket
    private let publicHost: String
    private let classicAnswerDelay: Duration
    private let onClassicRequest: @Sendable (_ port: Int) -> Void
    private let classicAttributes: (@Sendable (_ port: Int) -> [UInt8])?
    private let classicRequestCount = Mutex(0)
    private let loop = DatagramServingLoop()

    /// The RFC 5389 magic cookie, the first word of a transaction ID that has it.
    public static let magicCookie: [UInt8] = [0x21, 0x12, 0xA4, 0x42]

    /// The server's address, as `PJSUA.NATTraversal.stunServers` takes it.
    public var address: String { "\(socket.host):\(socket.port)" }

    /// How many classic (RFC 3489) Binding requests came so far.
    public var classicRequests: Int { classicRequestCount.withLock { $0 } }

    /// `classicAttributes`, when given, makes the attributes of every classic answer (for the
    /// port the request came from) in place of a MAPPED-ADDRESS of `publicHost`: a server that
    /// answers what it likes.
    public init(publicHost: String, classicAnswerDelay: Duration = .milliseconds(200),
                onClassicRequest: @escaping @Sendable (_ port: Int) -> Void = { _ in },
                classicAttributes: (@Sendable (_ port: Int) -> [UInt8])? = nil) throws {
        socket = try DatagramSocket()
        self.publicHost = publicHost
        self.classicAnswerDelay = classicAnswerDelay
        self.classicAttributes = classicAttributes
        self.onClassicRequest = onClassicRequest
        loop.start(socket, for: self) { server, datagram in server.handle(datagram) }
    }

    deinit { stop() }

    /// Stops answering.
    public func stop() {
        loop.stop()
    }

    /// Answers a Binding request with the magic cookie at once; holds a classic one's answer
    /// back for `classicAnswerDelay`, after `onClassicRequest`.
    private func handle(_ request: DatagramSocket.Datagram) -> DatagramServingLoop.Held? {
        guard request.bytes.count >= 20, request.bytes[0] == 0x00, request.bytes[1] == 0x01 else { return nil }
        let transaction = Array(request.bytes[4..<20])
        let mapped = { Self.bindingResponse(transaction: transaction, mappedHost: self.publicHost, mappedPort: request.port) }
        if Array(transaction.prefix(4)) == Self.magicCookie {
            socket.send(mapped(), to: request.host, port: request.port)
            return nil
        }
        classicRequestCount.withLock { $0 += 1 }
        let answer = classicAttributes.map { Self.bindingResponse(transaction: transaction, attributes: $0(request.port)) } ?? mapped()
        onClassicRequest(request.port)
        return .init(bytes: answer, port: request.port, after: classicAnswerDelay)
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
        return bindingResponse(transaction: transaction, attributes: attributes)
    }

    /// A Binding success response for the 16-byte `transaction` carrying `attributes` as given.
    public static func bindingResponse(transaction: [UInt8], attributes: [UInt8]) -> [UInt8] {
        let length = [UInt8(attributes.count >> 8 & 0xFF), UInt8(attributes.count & 0xFF)]
        return [0x01, 0x01] + length + transaction + attributes
    }
}
