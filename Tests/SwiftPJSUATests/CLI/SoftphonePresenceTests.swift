import Foundation
import PJSUATestSupport
import SwiftPJSUA
import Testing

/// `softphone watch` and `softphone register --mwi` against real peers.
@Suite("softphone watch and register --mwi", .serialized)
struct SoftphonePresenceTests {
    @Test func watchPrintsThePjsuaAppOpenAsJSONAndExitsZeroOnSIGTERM() async throws {
        let app = try await PjsuaApp(name: "pjsua-watched")
        defer { app.stop() }
        try await app.waitForLog("STARTING --> RUNNING", timeout: .seconds(15))
        let watch = try ChildProcess(try softphone(), ["watch", app.uri(), "--listen", "udp:127.0.0.1:0", "--json"], name: "softphone-watch")
        // Its start is bounded as every peer's is (a loaded run's first seconds kept one silent for
        // 24 s, and a wait for "open" that included its start failed); the SUBSCRIBE is out when it
        // prints "watching", and the presentity's answer and NOTIFY then take a loopback turn.
        try await watch.waitUntilStarted(printing: "\"event\":\"watching\"")
        try await watch.waitForOutput("\"basic\":\"open\"", timeout: .seconds(10))
        watch.signal(SIGTERM)
        #expect(try await watch.waitForExit(timeout: .seconds(10)) == 0, "\(watch.output)")
        let lines = jsonLines(watch.output)
        #expect(lines.contains { $0["event"] as? String == "watching" && $0["package"] as? String == "presence" })
        #expect(lines.contains { $0["event"] as? String == "subscription" && $0["state"] as? String == "active" }, "\(watch.output)")
    }

    @Test(arguments: [
        (["watch"], "watch"),
        (["watch", "not-a-uri", "--seconds", "1"], "not-a-uri"),
        (["register", "--account", "sip:a@127.0.0.1", "--registrar", "sip:127.0.0.1", "--presence", "sleepy"], "--presence"),
        (["answer", "--presence", "busy", "--publish"], "--publish"),
    ])
    func badPresenceArgumentsAreUsageErrors(_ arguments: [String], _ mention: String) async throws {
        let result = try await runSoftphone(arguments, timeout: .seconds(20))
        #expect(result.status == 2, "\(arguments): \(result.output)")
        #expect(result.output.contains(mention), "\(arguments): \(result.output)")
    }

    @Test func registerWithMWIPrintsTheVoicemailCounts() async throws {
        let server = try await sipp(["-sf", scenario("uas-mwi.xml"), "-m", "2"], name: "sipp-mwi-cli", lifetime: sippLifetimeForAChildClient)
        defer { server.stop() }
        let port = server.sippPort
        let result = try await runSoftphone(["register", "--account", "sip:alice@127.0.0.1:\(port)", "--registrar", "sip:127.0.0.1:\(port)",
                                             "--listen", "udp:127.0.0.1:0", "--mwi", "--seconds", "1", "--json"])
        let summaries = jsonLines(result.output).filter { $0["event"] as? String == "messageWaiting" }
        #expect(summaries.contains { $0["solicited"] as? Bool == true && $0["new"] as? Int == 2 && $0["old"] as? Int == 8 }, "\(result.output)")
        #expect(summaries.contains { $0["solicited"] as? Bool == false && $0["new"] as? Int == 3 }, "\(result.output)")
    }
}
