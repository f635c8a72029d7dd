import Foundation
import PJSUATestSupport
import SwiftPJSUA
import Testing

/// Every way a value can be printed: `description`, `debugDescription`, `dump` (the mirror).
func everyRendering(of value: Any) -> [String] {
    var dumped = ""
    dump(value, to: &dumped)
    return [String(describing: value), String(reflecting: value), dumped]
}

@Suite("Secrets never appear in logs, errors or descriptions")
struct SecretsTests {
    /// A digest password and a TLS key password, used for real (kamailio over TLS challenges the
    /// REGISTER, the engine's listener loads the encrypted key): neither appears in PJSIP's log
    /// at its highest level with SIP messages, nor in any rendering of the configurations, the
    /// events or an error.
    @Test func passwordsStayOutOfTheFullLogConfigurationsEventsAndErrors() async throws {
        let certificates = try await TestCertificates.make()
        let kamailio = try await Kamailio(tls: certificates.server, caFile: certificates.caFile)
        defer { kamailio.stop() }
        let tlsPort = try #require(kamailio.tlsPort)
        let digestPassword = "alice-secret"
        let keyPassword = certificates.keyPassword
        let lines = LineLog()
        var configuration = tlsEngine(caFile: certificates.caFile, logHandler: { _, line in lines.append(line) })
        #expect(configuration.logLevel == .verbose)
        configuration.tls.certificateFile = certificates.encryptedKey.certificate
        configuration.tls.privateKeyFile = certificates.encryptedKey.key
        configuration.tls.privateKeyPassword = keyPassword
        let account = PJSUA.Account.Configuration(id: "sips:alice@127.0.0.1", registrar: try PJSUA.SIPURI("sips:127.0.0.1:\(tlsPort)"),
                                                  username: "alice", password: digestPassword,
                                                  srtp: PJSUA.SRTPConfiguration(mode: .optional))
        var renderings: [String] = []
        renderings += everyRendering(of: configuration)
        renderings += everyRendering(of: configuration.tls)
        renderings += everyRendering(of: account)
        let events = try await withEngine(configuration) { phone, transport, log in
            let added = try await phone.addAccount(account)
            let state = try await log.registration(added, "registered over TLS with digest auth")
            #expect(state.isRegistered, "\(state)")
            // A softphone calls our TLS listener and verifies it: the encrypted key is loaded
            // with its password and used.
            let caller = try ChildProcess(try softphone(), ["call", transport.uri(user: "secret").description, "--listen", "tls:127.0.0.1:0",
                                                           "--ca-file", certificates.caFile, "--seconds", "0.5", "--timeout", "10"],
                                          name: "softphone-tls-caller")
            defer { caller.stop() }
            try await phone.answer(try await log.incomingCall(timeout: ChildProcess.startTimeout).call)
            #expect(try await caller.waitForExit(timeout: .seconds(20)) == 0, "\(caller.output)")
            // A refused password: the error says why, not what.
            var badPassword = account
            badPassword.password = digestPassword + String(repeating: "x", count: 300)
            do {
                try await phone.addAccount(badPassword)
                Issue.record("a 312-byte password was accepted")
            } catch { renderings += everyRendering(of: error) }
            // A bad input error that names the account.
            do {
                _ = try await phone.makeCall(to: "sip:bad uri@127.0.0.1", from: added)
                Issue.record("a URI with a space was accepted")
            } catch { renderings += everyRendering(of: error) }
            try await phone.setRegistration(added, enabled: false)
            try await log.registration(added, "unregistered", where: \.isUnregistration)
            return log.all
        }
        for event in events { renderings += everyRendering(of: event) }
        // A refused TLS configuration (the key file is missing): its error names the file only.
        var broken = configuration
        broken.tls.privateKeyFile = "/nonexistent/key.pem"
        await EngineTurns.shared.acquire()
        do {
            try await PJSUA().start(broken)
            Issue.record("a missing key file was accepted")
        } catch {
            renderings += everyRendering(of: error)
            #expect(String(describing: error).contains("/nonexistent/key.pem"), "\(error)")
        }
        await EngineTurns.shared.release()

        let log = lines.values
        // The log really was at full verbosity with the digest exchange and the TLS key loaded.
        #expect(log.contains { $0.contains("Authorization: Digest") })
        #expect(log.contains { $0.contains("REGISTER sips:") })
        #expect(!events.isEmpty)
        for secret in [digestPassword, keyPassword] {
            #expect(!log.contains { $0.contains(secret) }, "\(secret) in the log")
            #expect(!renderings.contains { $0.contains(secret) }, "\(secret) in \(renderings.first { $0.contains(secret) } ?? "")")
        }
        #expect(renderings.contains { $0.contains("<redacted>") })
    }

    /// The CLI takes passwords from the environment only, and prints neither.
    @Test func theCLIPrintsNoPassword() async throws {
        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        let certificates = try await TestCertificates.make()
        let kamailio = try await Kamailio(tls: certificates.server, caFile: certificates.caFile)
        defer { kamailio.stop() }
        let tlsPort = try #require(kamailio.tlsPort)
        let result = try await runSoftphone([
            "register", "--listen", "tls:127.0.0.1:0", "--ca-file", certificates.caFile,
            "--cert", certificates.encryptedKey.certificate, "--key", certificates.encryptedKey.key, "--key-password-env", "KEY_PASSWORD",
            "--account", "sip:alice@127.0.0.1", "--registrar", "sips:127.0.0.1:\(tlsPort)", "--username", "alice",
            "--password-env", "ALICE", "--json",
        ], environment: ["ALICE": "alice-secret", "KEY_PASSWORD": certificates.keyPassword])
        #expect(result.status == 0, "\(result.output)")
        #expect(!result.output.contains("alice-secret"))
        #expect(!result.output.contains(certificates.keyPassword))
    }
}
