import Foundation
import PJSUATestSupport
import SwiftPJSUA
import Testing

/// `softphone call` to a TLS destination opens its own client TLS transport: no `--listen` to
/// invent. The callee is `softphone answer --listen tls:...` presenting the test CA's server
/// certificate.
@Suite("softphone call over TLS without --listen")
struct SoftphoneClientTLSTests {
    /// A TLS callee and its port; `pair` is the certificate it presents.
    func tlsCallee(_ pair: TestCertificates.Pair, exitAfter: Int = 1) async throws -> (process: ChildProcess, port: Int) {
        try await answeringSoftphone(["--cert", pair.certificate, "--key", pair.key, "--exit-after", "\(exitAfter)"],
                                     transport: "tls", name: "softphone-tls-callee")
    }

    /// A `sips:` URI and a `sip:` URI with `;transport=tls` both reach the TLS callee, verified
    /// against `--ca-file`, over a TLS connection the caller opened.
    @Test(arguments: ["sips:bob@127.0.0.1:PORT", "sip:bob@127.0.0.1:PORT;transport=tls"])
    func aTLSDestinationConnectsWithoutListen(destination: String) async throws {
        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        let certificates = try await TestCertificates.make()
        let callee = try await tlsCallee(certificates.server)
        defer { callee.process.stop() }
        let uri = destination.replacingOccurrences(of: "PORT", with: "\(callee.port)")
        let caller = try await runSoftphone(["call", uri, "--ca-file", certificates.caFile, "--seconds", "0.3", "--timeout", "10", "--json"])
        #expect(caller.status == 0, "\(caller.output)\ncallee:\n\(callee.process.output)")
        let lines = jsonLines(caller.output)
        #expect(lines.contains { $0["event"] as? String == "callState" && $0["state"] as? String == "CONFIRMED" }, "\(caller.output)")
        let tls = lines.first { $0["event"] as? String == "tls" && $0["remote"] as? String == "127.0.0.1:\(callee.port)" }
        #expect(tls?["connected"] as? Bool == true && tls?["problems"] as? String == "none", "\(caller.output)")
        #expect(try await callee.process.waitForExit(timeout: .seconds(10)) == 0, "\(callee.process.output)")
    }

    /// A callee whose certificate comes from another authority than `--ca-file` is refused: the
    /// call fails (1) with one line naming the typed reason, and never reaches the callee.
    @Test func aCalleeFromAnotherCAIsRefusedWithOneTypedLine() async throws {
        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        let certificates = try await TestCertificates.make()
        let otherAuthority = try await TestCertificates.make()
        let callee = try await tlsCallee(otherAuthority.server)
        defer { callee.process.stop() }
        let caller = try await runSoftphone(["call", "sips:bob@127.0.0.1:\(callee.port)", "--ca-file", certificates.caFile,
                                             "--seconds", "0.3", "--timeout", "10"])
        #expect(caller.status == 1, "\(caller.output)")
        let errors = caller.output.split(separator: "\n").filter { $0.hasPrefix("softphone: ") }
        #expect(errors == ["softphone: call failed: TLS certificate of 127.0.0.1:\(callee.port) refused: untrusted"], "\(caller.output)")
        #expect(!callee.process.output.contains("incomingCall"), "\(callee.process.output)")
    }

    /// `message` to a `sips:` URI takes the same path: delivered over verified TLS, no `--listen`.
    @Test func aMessageToASipsURIIsDeliveredWithoutListen() async throws {
        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        let certificates = try await TestCertificates.make()
        let callee = try await tlsCallee(certificates.server)
        defer { callee.process.stop() }
        let sent = try await runSoftphone(["message", "sips:bob@127.0.0.1:\(callee.port)", "over TLS", "--ca-file", certificates.caFile,
                                           "--timeout", "10"])
        #expect(sent.status == 0, "\(sent.output)")
        #expect(sent.output.contains("message delivered: 200"), "\(sent.output)")
        try await callee.process.waitForOutput("\"body\":\"over TLS\"")
    }

    /// `--listen` still decides when given: a TLS destination with a UDP listener is refused
    /// before any engine starts (no TLS transport would reach it).
    @Test func aTLSDestinationWithANonTLSListenerIsAUsageError() async throws {
        let result = try await runSoftphone(["call", "sips:bob@127.0.0.1:5061", "--listen", "udp:127.0.0.1:0"])
        #expect(result.status == 2, "\(result.output)")
        #expect(result.output.split(separator: "\n").count == 1, "\(result.output)")
        #expect(result.output.contains("sips:bob@127.0.0.1:5061 needs TLS"), "\(result.output)")
    }

    /// `register` with a `sips:` registrar opens the client TLS transport too, and registers
    /// with kamailio over verified TLS.
    @Test func registerWithASipsRegistrarConnectsWithoutListen() async throws {
        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        let certificates = try await TestCertificates.make()
        let kamailio = try await Kamailio(tls: certificates.server, caFile: certificates.caFile)
        defer { kamailio.stop() }
        let tlsPort = try #require(kamailio.tlsPort)
        let result = try await runSoftphone(["register", "--account", "sip:alice@127.0.0.1", "--registrar", "sips:127.0.0.1:\(tlsPort)",
                                             "--username", "alice", "--password-env", "ALICE", "--ca-file", certificates.caFile,
                                             "--timeout", "10", "--json"], environment: ["ALICE": "alice-secret"])
        #expect(result.status == 0, "\(result.output)")
        #expect(jsonLines(result.output).contains { $0["event"] as? String == "registration" && $0["registered"] as? Bool == true },
                "\(result.output)")
    }
}
