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
        let (status, output) = try await PJSIPProbe.run("closed_socket_send")
        #expect(status == 0, "exit \(status): \(output)")
        #expect(output.contains("sendto 70014 send 70014"), "\(output)")
    }
}
