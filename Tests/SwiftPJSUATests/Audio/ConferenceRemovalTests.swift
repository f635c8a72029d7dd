import PJSUATestSupport
import Testing

/// KL-48 (pjproject #5057): the bridge removes a port whose add is still queued at once, on the
/// caller's thread, with its mutex released. A call's media update that stops a stream within one
/// tick of starting it takes that path on the SIP worker while the executor may be connecting the
/// same port: the connect was accepted, the clock thread ran it on the dying slot, and the next
/// tick dereferenced the freed slot (seen once in make test's ASan pass: the worker failed a
/// conference assertion while the clock thread took a SIGSEGV). Our build refuses a connect or a
/// remove of a port in that window (scripts/install-pjproject.sh).
@Suite("Removing a port the bridge has not added yet", .serialized)
struct ConferenceRemovalTests {
    /// The race's window, made deterministic: a C program linked against the installed PJSIP
    /// (Tests/Peers/probes/conf_remove_window.c) connects to and removes the port from inside the
    /// removal, and ticks the bridge as its clock thread would. Unpatched, it dies of SIGSEGV.
    @Test func aConnectOrRemoveInsideTheSynchronousRemovalIsRefusedAndTheBridgeKeepsTicking() async throws {
        let (status, output) = try await PJSIPProbe.run("conf_remove_window")
        #expect(status == 0, "exit \(status): \(output)")
        #expect(output.contains("connect 70004 remove 70004 listeners 0 ticks 3"), "\(output)")
    }
}
