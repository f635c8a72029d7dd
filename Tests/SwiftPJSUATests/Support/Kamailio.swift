import Foundation
import PJSUATestSupport

/// kamailio as a registrar and proxy with digest auth (Tests/Peers/kamailio/registrar.cfg),
/// started on a free loopback port for one test.
final class Kamailio: @unchecked Sendable {
    // @unchecked Sendable: immutable after init; PeerProcess is Sendable.
    let port: Int
    let peer: PeerProcess
    private let runtimeDirectory: String

    init() async throws {
        port = freePort()
        runtimeDirectory = NSTemporaryDirectory() + "swift-pjsua-kamailio-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: runtimeDirectory, withIntermediateDirectories: true)
        peer = try PeerProcess("kamailio", ["-f", peersDirectory + "/kamailio/registrar.cfg", "-l", "udp:127.0.0.1:\(port)",
                                            "-DD", "-E", "-Y", runtimeDirectory, "-m", "64", "-M", "8"],
                               name: "kamailio")
        try await peer.waitForOutput("udp: 127.0.0.1 [127.0.0.1]:\(port)")
        // The listening banner comes before the workers are up: give them a moment to bind.
        try await Task.sleep(for: .milliseconds(300))
    }

    /// The registrar URI, `sip:127.0.0.1:<port>`.
    var uri: String { "sip:127.0.0.1:\(port)" }

    func stop() {
        peer.stop()
        try? FileManager.default.removeItem(atPath: runtimeDirectory)
    }

    deinit { stop() }
}
