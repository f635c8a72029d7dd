import Foundation
import Synchronization

/// A nameserver of the test's own: UDP port 53 (where PJSIP's resolver asks: `--nameserver`
/// takes an address, no port) on a loopback address of its own in 127.0.53.0/24, answering A
/// queries from `records` after `answerDelay`, other types with no records, unknown names with
/// NXDOMAIN. Binding port 53 needs root, as the namespace tests do.
///
/// `onQuery` runs for each query before its answer is held back: a forger racing the real
/// nameserver sends there, knowing what the test lets it know (the ID, the port), from a socket
/// of its own or, spoofing the nameserver's address, through ``sendAsNameserver(_:toPort:)``.
public final class FakeDNSServer: Sendable {
    private let socket: DatagramSocket
    private let records: [String: String]
    private let answerDelay: Duration
    private let onQuery: @Sendable (FakeDNSServer, Query) -> Void
    private let seen = Mutex<[Query]>([])
    private let loop = DatagramServingLoop()

    /// One query as it arrived.
    public struct Query: Sendable, CustomStringConvertible {
        /// The transaction ID.
        public let id: UInt16
        /// The name asked about, in lower case, without the final dot.
        public let name: String
        /// The type asked for (1: A, 28: AAAA, 33: SRV).
        public let type: UInt16
        /// The port the resolver asked from.
        public let port: Int
        public var description: String { "\(name) type \(type) id \(id) from port \(port)" }
    }

    /// The address it listens on (port 53).
    public var host: String { socket.host }

    /// The queries seen so far, in order.
    public var queries: [Query] { seen.withLock { $0 } }

    public init(records: [String: String], answerDelay: Duration = .milliseconds(300),
                onQuery: @escaping @Sendable (FakeDNSServer, Query) -> Void = { _, _ in }) throws {
        var bound: DatagramSocket?
        for last in (1...250).shuffled() where bound == nil {
            bound = try? DatagramSocket(host: "127.0.53.\(last)", port: 53)
        }
        guard let bound else { throw ChildProcessError("no address of 127.0.53.0/24 has UDP port 53 free (or this is not root)") }
        socket = bound
        self.records = records
        self.answerDelay = answerDelay
        self.onQuery = onQuery
        loop.start(socket, for: self) { server, datagram in server.handle(datagram) }
    }

    deinit { stop() }

    /// Stops answering.
    public func stop() {
        loop.stop()
    }

    /// Sends `bytes` from the nameserver's own address and port (127.0.0.1:`port` is the
    /// resolver): what a forger who spoofs the nameserver's address sends.
    public func sendAsNameserver(_ bytes: [UInt8], toPort port: Int) {
        socket.send(bytes, port: port)
    }

    /// Records a query that came and holds its answer back for `answerDelay`.
    private func handle(_ datagram: DatagramSocket.Datagram) -> DatagramServingLoop.Held? {
        guard let query = Self.query(in: datagram.bytes, from: datagram.port) else { return nil }
        seen.withLock { $0.append(query) }
        onQuery(self, query)
        let address = query.type == 1 ? records[query.name] : nil
        let answer = Self.response(id: query.id, question: query.name, type: query.type, address: address,
                                   nameError: records[query.name] == nil)
        return .init(bytes: answer, port: datagram.port, after: answerDelay)
    }

    /// The query in `bytes`, nil if they hold none (a response, a name that does not parse).
    static func query(in bytes: [UInt8], from port: Int) -> Query? {
        guard bytes.count >= 17, bytes[2] & 0x80 == 0, bytes[4] == 0, bytes[5] >= 1 else { return nil }
        var labels: [String] = []
        var offset = 12
        while offset < bytes.count, bytes[offset] != 0 {
            let length = Int(bytes[offset])
            guard length < 64, offset + 1 + length < bytes.count else { return nil }
            labels.append(String(decoding: bytes[(offset + 1)...(offset + length)], as: UTF8.self).lowercased())
            offset += 1 + length
        }
        guard offset + 4 < bytes.count else { return nil }
        return Query(id: UInt16(bytes[0]) << 8 | UInt16(bytes[1]), name: labels.joined(separator: "."),
                     type: UInt16(bytes[offset + 1]) << 8 | UInt16(bytes[offset + 2]), port: port)
    }

    /// A response with transaction ID `id` to the question (`question`, `type`, class IN): one
    /// A record (TTL 60) for the question's name when `address` is given, NXDOMAIN when
    /// `nameError`, else no records.
    public static func response(id: UInt16, question: String, type: UInt16 = 1, address: String?, nameError: Bool = false) -> [UInt8] {
        var name: [UInt8] = []
        for label in question.split(separator: ".") {
            name.append(UInt8(label.utf8.count))
            name += Array(label.utf8)
        }
        name.append(0)
        let answers: UInt8 = address == nil ? 0 : 1
        // QR, RD, RA; rcode 3 (NXDOMAIN) or 0.
        var packet: [UInt8] = [UInt8(id >> 8), UInt8(id & 0xFF), 0x81, nameError && address == nil ? 0x83 : 0x80,
                               0, 1, 0, answers, 0, 0, 0, 0]
        packet += name + [UInt8(type >> 8), UInt8(type & 0xFF), 0, 1]
        if let address {
            // The question's name (a pointer to offset 12), A, IN, TTL 60, 4 bytes.
            packet += [0xC0, 0x0C, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4] + address.split(separator: ".").compactMap { UInt8($0) }
        }
        return packet
    }
}
