import Foundation

/// coturn as a STUN and TURN server with long-term credentials (user `alice`, password
/// `turn-secret`, realm `swift-pjsua.test`), started for one test on `host` at a port of a
/// ``PortBlock`` it holds (coturn cannot report a port 0 it bound; its alternative port for RFC
/// 5780, the next one, is in the block too). It relays to loopback peers
/// (`--allow-loopback-peers`: test use only) from ports 50000-50999, which it binds itself (a
/// taken one is skipped), like the engines' media.
public final class Coturn: @unchecked Sendable {
    // @unchecked Sendable: immutable after init; ChildProcess is Sendable.
    public let host: String
    public let port: Int
    public let peer: ChildProcess
    public static let username = "alice"
    public static let password = "turn-secret"
    private let runtimeDirectory: String

    /// Starts turnserver and waits until it serves.
    public init(host: String = "127.0.0.1") async throws {
        self.host = host
        let block = try PortBlock()
        port = block[0]
        runtimeDirectory = NSTemporaryDirectory() + "swift-pjsua-coturn-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: runtimeDirectory, withIntermediateDirectories: true)
        peer = try ChildProcess("turnserver", [
            "-n", "--listening-ip=\(host)", "--listening-port=\(port)", "--relay-ip=\(host)",
            "--min-port=50000", "--max-port=50999", "--lt-cred-mech", "--user=\(Self.username):\(Self.password)",
            "--realm=swift-pjsua.test", "--allow-loopback-peers", "--no-tls", "--no-dtls", "--no-cli",
            "--log-file=stdout", "--fingerprint", "--pidfile=\(runtimeDirectory)/turnserver.pid",
            "--userdb=\(runtimeDirectory)/turndb", "--verbose",
        ], name: "coturn", holding: block)
        try await peer.waitUntilStarted(printing: "Total General servers")
        // The banner comes before the listeners are bound: give them a moment.
        try await Task.sleep(for: .milliseconds(500))
    }

    /// `host:port`, as STUN and TURN server settings take it.
    public var address: String { "\(host):\(port)" }

    /// Stops coturn and removes its files.
    public func stop() {
        peer.stop()
        try? FileManager.default.removeItem(atPath: runtimeDirectory)
    }

    deinit { stop() }
}
