import Foundation
import PJSUATestSupport
import SwiftPJSUA

/// CPU used by a started engine with one account registered (with kamailio) doing nothing.
enum IdleBenchmark {
    static func run(seconds: Int) async throws {
        let kamailio = try await Kamailio()
        defer { kamailio.stop() }

        let phone = PJSUA()
        let events = phone.events
        // No sound device open (the default, and an iOS app's state between calls): with the
        // null device the bridge's 20 ms clock would tick all the time.
        try await phone.start(.init(port: 0, bindAddress: "127.0.0.1"))
        let account = try await phone.addAccount(id: "sip:alice@127.0.0.1", registrar: PJSUA.SIPURI(kamailio.uri),
                                                 username: "alice", password: "alice-secret")
        var registered = false
        for await event in events {
            if case let .registration(a, state) = event, a == account {
                registered = state.isRegistered
                break
            }
        }
        guard registered else {
            await phone.shutdown()
            throw BenchError("the account did not register")
        }
        try await Task.sleep(for: .milliseconds(500))  // let the registration settle
        let before = processCPUMilliseconds()
        try await Task.sleep(for: .seconds(seconds))
        let used = processCPUMilliseconds() - before
        await phone.shutdown()
        progress("idle engine with one registered account: \(used) ms CPU over \(seconds) s")
        report(["cpu_ms": used, "seconds": seconds])
    }
}
