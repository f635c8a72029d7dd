import Foundation
import PJSUATestSupport
@_spi(MediaHooks) @testable import SwiftPJSUA
import Testing

/// An engine configuration with a TLS transport on a free loopback port, trusting `caFile`.
func tlsEngine(caFile: String?, verifyServer: Bool = true, logHandler: PJSUA.LogHandler? = nil) -> PJSUA.Configuration {
    var configuration = PJSUA.Configuration(port: 0, transport: .tls, bindAddress: "127.0.0.1", audioDevice: .null,
                                            tls: PJSUA.TLSConfiguration(caFile: caFile, verifyServer: verifyServer))
    if let logHandler {
        configuration.logLevel = .verbose
        configuration.logSIPMessages = true
        configuration.logHandler = logHandler
    }
    return configuration
}

extension EventLog {
    /// Waits for the first TLS connection event (with `remote`, `host:port`, when given).
    func tlsConnection(to remote: String? = nil, timeout: Duration = .seconds(10)) async throws -> PJSUA.TLSConnection {
        try await first("a TLS connection event", timeout: timeout) { event in
            if case let .tlsConnection(connection) = event, remote == nil || connection.remote == remote { return connection }
            return nil
        }
    }
}

/// The certificates kamailio presents in the refusal tests, and the error each must produce.
enum RefusedCertificate: String, CaseIterable, Sendable {
    case selfSigned, wrongName, expired

    func pair(_ certificates: TestCertificates) -> TestCertificates.Pair {
        switch self {
        case .selfSigned: certificates.selfSigned
        case .wrongName: certificates.wrongName
        case .expired: certificates.expired
        }
    }

    var expected: PJSUAError.Code {
        switch self {
        case .selfSigned: .certificateUntrusted
        case .wrongName: .certificateNameMismatch
        case .expired: .certificateExpired
        }
    }

    var problem: PJSUA.CertificateProblems {
        switch self {
        case .selfSigned: .untrusted
        case .wrongName: .nameMismatch
        case .expired: .validityPeriod
        }
    }
}

@Suite("TLS against kamailio and a second engine, with a CA made at run time")
struct TLSTests {
    /// alice registers with kamailio over TLS (`sips:` registrar) and calls bob through it; bob
    /// is a softphone registered over TLS too, and kamailio reaches him over TLS at his
    /// listener. Both verify kamailio's certificate against the test CA, by chain and by name
    /// (subjectAltName IP 127.0.0.1).
    @Test func registerAndCallThroughKamailioOverVerifiedTLS() async throws {
        let certificates = try await TestCertificates.make()
        let kamailio = try await Kamailio(tls: certificates.server, caFile: certificates.caFile)
        defer { kamailio.stop() }
        let tlsPort = try #require(kamailio.tlsPort)
        try await withEngine(tlsEngine(caFile: certificates.caFile)) { phone, transport, log in
            #expect(transport.kind == .tls)
            #expect(transport.uri().description.hasPrefix("sips:127.0.0.1:"))
            let bob = try ChildProcess(try softphone(), [
                "answer", "--listen", "tls:127.0.0.1:0", "--ca-file", certificates.caFile,
                "--cert", certificates.server.certificate, "--key", certificates.server.key, "--exit-after", "1", "--json",
                "--account", "sips:bob@127.0.0.1", "--registrar", "sips:127.0.0.1:\(tlsPort)", "--username", "bob",
                "--password-env", "BOB_PASSWORD",
            ], name: "softphone-bob", environment: ["BOB_PASSWORD": "bob-secret"])
            try await bob.waitForOutput("\"registered\":true")

            // `sips:` end to end: bob's account is `sips:`, so kamailio hands him a `sips:`
            // request, which needs alice's Contact to be `sips:` too (RFC 5630).
            let alice = try await phone.addAccount(id: "sips:alice@127.0.0.1", registrar: PJSUA.SIPURI("sips:127.0.0.1:\(tlsPort)"),
                                                   username: "alice", password: "alice-secret")
            let registered = try await log.registration(alice, "alice registered over TLS")
            #expect(registered.isRegistered, "\(registered)")
            #expect(registered.certificateError == nil)
            let connection = try await log.tlsConnection(to: "127.0.0.1:\(tlsPort)")
            #expect(connection.isConnected && connection.isOutgoing)
            #expect(connection.problems.isEmpty)
            #expect(connection.peerCommonName == "server")
            #expect(connection.error == nil)
            #expect(connection.remote == "127.0.0.1:\(tlsPort)")

            let call = try await phone.makeCall(to: PJSUA.SIPURI("sips:bob@127.0.0.1:\(tlsPort)"), from: alice)
            let ended = try await log.first("\(call) confirmed or ended") { event -> PJSUA.SIPStatus? in
                if case let .callState(c, state, _, status) = event, c == call, state == .confirmed || state == .disconnected { return status }
                return nil
            }
            #expect(ended.code == 200, "\(ended)\n\(bob.output)")
            try await log.state(call, .confirmed)
            try await phone.hangUp(call)
            try await log.state(call, .disconnected)
            #expect(try await bob.waitForExit(timeout: .seconds(10)) == 0, "\(bob.output)")
        }
    }

    /// A self-signed, a wrongly named and an expired server certificate are each refused, and
    /// the registration and a call both carry the matching typed error.
    @Test(arguments: RefusedCertificate.allCases)
    func aBadServerCertificateIsRefusedWithItsReason(_ bad: RefusedCertificate) async throws {
        let certificates = try await TestCertificates.make()
        let kamailio = try await Kamailio(tls: bad.pair(certificates), caFile: certificates.caFile)
        defer { kamailio.stop() }
        let tlsPort = try #require(kamailio.tlsPort)
        try await withEngine(tlsEngine(caFile: certificates.caFile)) { phone, _, log in
            let alice = try await phone.addAccount(id: "sip:alice@127.0.0.1", registrar: PJSUA.SIPURI("sips:127.0.0.1:\(tlsPort)"),
                                                   username: "alice", password: "alice-secret")
            let state = try await log.registration(alice, "refused registration")
            #expect(!state.isRegistered)
            #expect(state.status.code == 503, "\(state)")
            #expect(state.certificateError?.code == bad.expected, "\(String(describing: state.certificateError))")
            let connection = try await log.tlsConnection(to: "127.0.0.1:\(tlsPort)")
            #expect(!connection.isConnected)
            #expect(connection.problems.contains(bad.problem), "\(connection)")
            #expect(connection.error?.code == bad.expected, "\(connection)")
            #expect(connection.error?.status == PJSUAError.certificateVerificationStatus)

            let call = try await phone.makeCall(to: PJSUA.SIPURI("sips:bob@127.0.0.1:\(tlsPort)"), from: alice)
            let ended = try await log.state(call, .disconnected)
            #expect(ended.status.code == 503, "\(ended.status)")
            #expect(ended.status.certificateError?.code == bad.expected, "\(ended.status)")
        }
    }

    /// With verification off, the self-signed server is accepted; the event still says what
    /// verification would have refused.
    @Test func verificationOffAcceptsASelfSignedServerButReportsIt() async throws {
        let certificates = try await TestCertificates.make()
        let kamailio = try await Kamailio(tls: certificates.selfSigned, caFile: certificates.caFile)
        defer { kamailio.stop() }
        let tlsPort = try #require(kamailio.tlsPort)
        try await withEngine(tlsEngine(caFile: certificates.caFile, verifyServer: false)) { phone, _, log in
            let alice = try await phone.addAccount(id: "sip:alice@127.0.0.1", registrar: PJSUA.SIPURI("sips:127.0.0.1:\(tlsPort)"),
                                                   username: "alice", password: "alice-secret")
            let state = try await log.registration(alice, "registration")
            #expect(state.isRegistered, "\(state)")
            let connection = try await log.tlsConnection(to: "127.0.0.1:\(tlsPort)")
            #expect(connection.isConnected)
            #expect(connection.problems.contains(.untrusted), "\(connection)")
            #expect(connection.error == nil)
        }
    }

    /// Engine to engine: the second engine is `softphone answer --listen tls:...` with the test
    /// CA's server certificate and an encrypted key (its password from the environment); this
    /// engine calls it at its `sips:` URI and verifies it.
    @Test func engineToEngineCallOverTLSWithAnEncryptedServerKey() async throws {
        let certificates = try await TestCertificates.make()
        let pair = certificates.encryptedKey
        let bob = try ChildProcess(try softphone(), [
            "answer", "--listen", "tls:127.0.0.1:0", "--cert", pair.certificate, "--key", pair.key,
            "--key-password-env", "KEY_PASSWORD", "--exit-after", "1", "--json",
        ], name: "softphone-tls-bob", environment: ["KEY_PASSWORD": certificates.keyPassword])
        defer { bob.stop() }
        try await bob.waitUntilStarted(printing: "\"listening\"")
        let listening = try #require(jsonLines(bob.output).first { $0["event"] as? String == "listening" })
        let uri = try #require(listening["uri"] as? String)
        #expect(uri.hasPrefix("sips:127.0.0.1:"), "\(uri)")
        try await withEngine(tlsEngine(caFile: certificates.caFile)) { phone, _, log in
            let call = try await phone.makeCall(to: PJSUA.SIPURI(uri.replacingOccurrences(of: "sips:", with: "sips:bob@")))
            try await log.state(call, .confirmed)
            let port = try #require(listening["port"] as? Int)
            let connection = try await log.tlsConnection(to: "127.0.0.1:\(port)")
            #expect(connection.isConnected && connection.problems.isEmpty, "\(connection)")
            // One connection, to the callee: the local account opens none to its own listener.
            let connections = log.all.compactMap { event -> PJSUA.TLSConnection? in
                if case let .tlsConnection(connection) = event { return connection }
                return nil
            }
            #expect(connections == [connection], "\(connections)")
            try await phone.hangUp(call)
            try await log.state(call, .disconnected)
        }
        #expect(try await bob.waitForExit(timeout: .seconds(10)) == 0, "\(bob.output)")
        #expect(!bob.output.contains(certificates.keyPassword))
    }

    /// The CLI names a refused certificate in one line and exits 1; `--tls-verify off` says
    /// loudly what it turns off.
    @Test func theCLINamesARefusedCertificateAndWarnsWhenVerificationIsOff() async throws {
        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        let certificates = try await TestCertificates.make()
        let kamailio = try await Kamailio(tls: certificates.selfSigned, caFile: certificates.caFile)
        defer { kamailio.stop() }
        let tlsPort = try #require(kamailio.tlsPort)
        let common = ["register", "--listen", "tls:127.0.0.1:0", "--account", "sip:alice@127.0.0.1",
                      "--registrar", "sips:127.0.0.1:\(tlsPort)", "--username", "alice", "--password-env", "ALICE", "--timeout", "10"]
        let refused = try await runSoftphone(common + ["--ca-file", certificates.caFile], environment: ["ALICE": "alice-secret"])
        #expect(refused.status == 1, "\(refused.output)")
        #expect(refused.output.contains("softphone: registration failed: TLS certificate of 127.0.0.1:\(tlsPort) refused: untrusted"),
                "\(refused.output)")
        let unverified = try await runSoftphone(common + ["--tls-verify", "off"], environment: ["ALICE": "alice-secret"])
        #expect(unverified.status == 0, "\(unverified.output)")
        #expect(unverified.output.contains("softphone: warning: --tls-verify off"), "\(unverified.output)")
        for output in [refused.output, unverified.output] { #expect(!output.contains("alice-secret")) }
        let misuse = try await runSoftphone(["register", "--listen", "udp:127.0.0.1:0", "--ca-file", certificates.caFile,
                                             "--account", "sip:a@127.0.0.1", "--registrar", "sip:127.0.0.1"])
        #expect(misuse.status == 2, "\(misuse.output)")
        let serverWithoutCertificate = try await runSoftphone(["answer", "--listen", "tls:127.0.0.1:0"])
        #expect(serverWithoutCertificate.status == 2, "\(serverWithoutCertificate.output)")
        #expect(serverWithoutCertificate.output.contains("needs --cert and --key"), "\(serverWithoutCertificate.output)")
    }

    /// Missing files and half a key pair are refused before PJSIP sees them.
    @Test func badTLSFilesAreTypedErrors() async throws {
        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        let phone = PJSUA()
        var configuration = tlsEngine(caFile: "/nonexistent/ca.pem")
        do {
            try await phone.start(configuration)
            Issue.record("a missing CA file was accepted")
        } catch { #expect(PJSUAError.Code.file ~= error, "\(error)") }
        configuration.tls = PJSUA.TLSConfiguration(certificateFile: "/etc/hostname")
        do {
            try await phone.start(configuration)
            Issue.record("a certificate without its key was accepted")
        } catch { #expect(PJSUAError.Code.invalidArgument ~= error, "\(error)") }
        #expect(await !phone.isRunning)
    }

    /// Our TLS listener with client verification: a softphone presenting a certificate from the
    /// test CA gets through; one presenting a self-signed certificate is refused, and the
    /// refusal arrives as an incoming TLS connection event naming the reason.
    @Test func clientVerificationAcceptsTheCAsCertificateAndRefusesASelfSignedOne() async throws {
        let certificates = try await TestCertificates.make()
        var configuration = tlsEngine(caFile: certificates.caFile)
        configuration.tls.certificateFile = certificates.server.certificate
        configuration.tls.privateKeyFile = certificates.server.key
        configuration.tls.verifyClient = true
        try await withEngine(configuration) { phone, transport, log in
            let answering = Task {
                for await event in phone.events {
                    if case let .incomingCall(_, call, _, _, _) = event { try? await phone.answer(call) }
                }
            }
            defer { answering.cancel() }
            func call(presenting pair: TestCertificates.Pair) async throws -> (status: Int32, output: String) {
                try await runSoftphone(["call", transport.uri(user: "mtls").description, "--listen", "tls:127.0.0.1:0", "--ca-file", certificates.caFile,
                                        "--cert", pair.certificate, "--key", pair.key, "--seconds", "0.3", "--timeout", "10"])
            }
            let trusted = try await call(presenting: certificates.server)
            #expect(trusted.status == 0, "\(trusted.output)")
            let accepted = try await log.first("an accepted client") { event -> PJSUA.TLSConnection? in
                if case let .tlsConnection(connection) = event, !connection.isOutgoing, connection.isConnected { return connection }
                return nil
            }
            #expect(accepted.problems.isEmpty && accepted.peerCommonName == "server", "\(accepted)")

            let untrusted = try await call(presenting: certificates.selfSigned)
            #expect(untrusted.status == 1, "\(untrusted.output)")
            let refused = try await log.first("a refused client") { event -> PJSUA.TLSConnection? in
                if case let .tlsConnection(connection) = event, !connection.isOutgoing, !connection.problems.isEmpty { return connection }
                return nil
            }
            #expect(refused.error?.code == .certificateUntrusted, "\(refused)")
            #expect(!refused.isConnected)
        }
    }

    /// A TLS transport added beside the UDP one follows the same configuration: with the CA it
    /// registers with kamailio over TLS; without it the same server is refused as untrusted.
    @Test(arguments: [true, false])
    func anAddedTLSTransportFollowsTheConfiguration(trustingTheCA: Bool) async throws {
        let certificates = try await TestCertificates.make()
        let kamailio = try await Kamailio(tls: certificates.server, caFile: certificates.caFile)
        defer { kamailio.stop() }
        let tlsPort = try #require(kamailio.tlsPort)
        let configuration = PJSUA.Configuration(port: 0, transport: .udp, bindAddress: "127.0.0.1", audioDevice: .null,
                                                tls: PJSUA.TLSConfiguration(caFile: trustingTheCA ? certificates.caFile : nil))
        try await withEngine(configuration) { phone, _, log in
            let added = try await phone.addTransport(.tls, bindAddress: "127.0.0.1")
            #expect(added.kind == .tls && added.port > 0)
            let alice = try await phone.addAccount(id: "sips:alice@127.0.0.1", registrar: PJSUA.SIPURI("sips:127.0.0.1:\(tlsPort)"),
                                                   username: "alice", password: "alice-secret")
            let state = try await log.registration(alice, "registration over the added TLS transport")
            if trustingTheCA {
                #expect(state.isRegistered, "\(state)")
            } else {
                #expect(!state.isRegistered)
                #expect(state.certificateError?.code == .certificateUntrusted, "\(state)")
            }
        }
    }

    /// pjlib's verification flags keep their C values, and several problems name the most
    /// fundamental one.
    @Test func certificateProblemsMatchPJLibsFlagsAndNameTheMostFundamentalReason() {
        #expect(PJSUA.CertificateProblems.untrusted.rawValue == 1 << 1)
        #expect(PJSUA.CertificateProblems.validityPeriod.rawValue == 1 << 2)
        #expect(PJSUA.CertificateProblems.nameMismatch.rawValue == 1 << 30)
        #expect(PJSUA.CertificateProblems.unknown.rawValue == 1 << 31)
        let both: PJSUA.CertificateProblems = [.untrusted, .nameMismatch]
        #expect(both.description == "untrusted, name mismatch")
        #expect(PJSUA.CertificateProblems(rawValue: 0).description == "none")
        let cases: [(PJSUA.CertificateProblems, PJSUAError.Code)] = [
            ([.untrusted, .nameMismatch, .validityPeriod], .certificateUntrusted), ([.issuerNotFound], .certificateUntrusted),
            ([.validityPeriod, .nameMismatch], .certificateExpired), ([.nameMismatch], .certificateNameMismatch),
            ([.revoked], .certificateRejected), ([.unknown], .certificateRejected),
        ]
        for (problems, code) in cases {
            let error = problems.error(remote: "192.0.2.1:5061")
            #expect(error.code == code, "\(problems)")
            #expect(error.message == "TLS certificate of 192.0.2.1:5061 refused: \(problems)")
        }
    }
}
