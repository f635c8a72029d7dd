import Foundation
import SwiftPJSUA
import PJSUATestSupport
import Testing

/// KL-42: a packet sent by one thread as another closes its socket. Closing sets the socket's
/// ioqueue key to NULL, and PJSIP's senders (the SIP and media UDP transports, STUN and TURN) read
/// that key without the closer's lock; the one that loses the race hands `pj_ioqueue_sendto` the
/// NULL key, whose argument assert aborted the whole process (seen once, in make test's ASan pass
/// under load). Our build fails such a send with `PJ_ECANCELLED`, as PJSIP already fails a send on
/// a key that is closing (scripts/install-pjproject.sh).
@Suite("A send on a socket another thread closed", .serialized)
struct ClosedSocketSendTests {
    /// The race's outcome, made deterministic: a C program linked against the installed PJSIP
    /// (Tests/Peers/probes/closed_socket_send.c) sends with the key a losing sender reads.
    @Test func aSendOnAClosedSocketsKeyFailsWithoutAbortingTheProcess() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("swift-pjsua-probe-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let probe = directory.appendingPathComponent("closed_socket_send").path
        // pkg-config follows PKG_CONFIG_PATH, so the iOS-profile run builds it against that PJSIP.
        let build = """
            cc -w "\(peersDirectory)/probes/closed_socket_send.c" -o "\(probe)" \
              $(pkg-config --cflags --libs swift-pjsua-pjproject) \
              -Wl,-rpath,"$(pkg-config --variable=libdir swift-pjsua-pjproject)"
            """
        let compiler = try ChildProcess("/bin/sh", ["-c", build], name: "probe-build")
        #expect(try await compiler.waitForExit(timeout: .seconds(60)) == 0, "\(compiler.output)")
        let run = try ChildProcess(probe, [], name: "probe")
        let status = try await run.waitForExit(timeout: .seconds(10))
        #expect(status == 0, "exit \(status): \(run.output)")
        #expect(run.output.contains("sendto 70014 send 70014"), "\(run.output)")
    }
}
