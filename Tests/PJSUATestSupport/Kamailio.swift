import Foundation

/// kamailio as a registrar and proxy with digest auth (Tests/Peers/kamailio/registrar.cfg),
/// started for one test or benchmark on a port of a ``PortBlock`` it holds (kamailio cannot
/// listen on port 0 and say which port it got). Users: alice / alice-secret, bob / bob-secret.
public final class Kamailio: @unchecked Sendable {
    // @unchecked Sendable: immutable after init; ChildProcess is Sendable.
    public let port: Int
    /// "udp" or "tcp".
    public let transport: String
    /// The address it listens on.
    public let host: String
    public let peer: ChildProcess
    /// The ports it was given, reserved for as long as it or its child (or a restart) lives.
    private let block: PortBlock
    private let runtimeDirectory: String

    /// Starts kamailio on `host` (loopback by default; an address of a test's own network
    /// namespace) over `transport` ("udp" or "tcp"), and waits until it listens. `restarting`, a
    /// stopped one, is a registrar restart: the same port (and its block, held all along).
    /// `defines` are the config's `#!ifdef` switches (`-A`), e.g. `REFUSE_REGISTER` (503 to
    /// every REGISTER).
    public init(host: String = "127.0.0.1", restarting stopped: Kamailio? = nil, transport: String = "udp",
                defines: [String] = []) async throws {
        block = try stopped?.block ?? PortBlock()
        self.port = stopped?.port ?? block[0]
        self.transport = transport
        self.host = host
        tlsPort = nil
        runtimeDirectory = NSTemporaryDirectory() + "swift-pjsua-kamailio-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: runtimeDirectory, withIntermediateDirectories: true)
        peer = try ChildProcess("kamailio", ["-f", peersDirectory + "/kamailio/registrar.cfg", "-l", "\(transport):\(host):\(self.port)",
                                            "-DD", "-E", "-Y", runtimeDirectory, "-m", "64", "-M", "8"] + defines.flatMap { ["-A", $0] },
                               name: "kamailio", holding: block)
        try await peer.waitForOutput("\(transport): \(host) [\(host)]:\(self.port)")
        // The listening banner comes before the workers are up: give them a moment to bind.
        try await Task.sleep(for: .milliseconds(300))
    }

    /// The TLS port, when started with ``init(tls:)``.
    public let tlsPort: Int?

    /// Starts kamailio with Tests/Peers/kamailio/tls.cfg: the same registrar, also on a TLS port,
    /// presenting `certificate` (for example one of ``TestCertificates``).
    public init(tls certificate: TestCertificates.Pair, caFile: String) async throws {
        block = try PortBlock()
        port = block[0]
        transport = "udp"
        host = "127.0.0.1"
        let tlsPort = block[1]
        self.tlsPort = tlsPort
        runtimeDirectory = NSTemporaryDirectory() + "swift-pjsua-kamailio-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: runtimeDirectory, withIntermediateDirectories: true)
        peer = try ChildProcess("kamailio", ["-f", peersDirectory + "/kamailio/tls.cfg", "-l", "udp:127.0.0.1:\(port)",
                                            "-l", "tls:127.0.0.1:\(tlsPort)",
                                            "-A", "TLS_CERTIFICATE=\"\(certificate.certificate)\"",
                                            "-A", "TLS_PRIVATE_KEY=\"\(certificate.key)\"", "-A", "TLS_CA_LIST=\"\(caFile)\"",
                                            "-DD", "-E", "-Y", runtimeDirectory, "-m", "64", "-M", "8"],
                               name: "kamailio-tls", holding: block)
        try await peer.waitForOutput("tls: 127.0.0.1 [127.0.0.1]:\(tlsPort)")
        try await Task.sleep(for: .milliseconds(500))
    }

    /// Starts kamailio with Tests/Peers/kamailio/presence.cfg on a loopback UDP port: a
    /// registrar without authentication, a proxy, and a presence server (PUBLISH, SUBSCRIBE to
    /// `presence`, and `dialog` state of the calls it proxies). Its database is a copy of
    /// Debian's db_text tables (from the kamailio package) in its runtime directory.
    public init(presenceServer: Void) async throws {
        block = try PortBlock()
        port = block[0]
        transport = "udp"
        host = "127.0.0.1"
        tlsPort = nil
        runtimeDirectory = NSTemporaryDirectory() + "swift-pjsua-kamailio-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: runtimeDirectory, withIntermediateDirectories: true)
        let tables = "/usr/share/kamailio/dbtext/kamailio"
        guard FileManager.default.fileExists(atPath: tables + "/presentity") else {
            throw ChildProcessError("\(tables) has no presence tables: install kamailio (scripts/install-peers.sh)")
        }
        try FileManager.default.copyItem(atPath: tables, toPath: runtimeDirectory + "/db")
        peer = try ChildProcess("kamailio", ["-f", peersDirectory + "/kamailio/presence.cfg", "-l", "udp:127.0.0.1:\(port)",
                                            "-A", "DBURL=\"text://\(runtimeDirectory)/db\"", "-A", "SELF=\"sip:127.0.0.1:\(port)\"",
                                            "-DD", "-E", "-Y", runtimeDirectory, "-m", "64", "-M", "8"],
                               name: "kamailio-presence", holding: block)
        try await peer.waitForOutput("udp: 127.0.0.1 [127.0.0.1]:\(port)")
        try await Task.sleep(for: .milliseconds(300))
    }

    /// The registrar's TLS URI, `sip:127.0.0.1:<tls port>;transport=tls` (nil without TLS).
    public var tlsURI: String? { tlsPort.map { "sip:127.0.0.1:\($0);transport=tls" } }

    /// The registrar URI, `sip:<host>:<port>` (with `;transport=tcp` over TCP).
    public var uri: String { transport == "udp" ? "sip:\(host):\(port)" : "sip:\(host):\(port);transport=\(transport)" }

    /// Stops kamailio and removes its runtime directory.
    public func stop() {
        peer.stop()
        try? FileManager.default.removeItem(atPath: runtimeDirectory)
    }

    /// Stops kamailio and returns once it has exited (its ports are free again).
    public func stopAndWait() async {
        await peer.stopAndWait()
        try? FileManager.default.removeItem(atPath: runtimeDirectory)
    }

    deinit { stop() }
}
