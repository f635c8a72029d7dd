import Foundation
import PJSUATestSupport
@testable import SwiftPJSUA
import SwiftPJSUAStreams
import Testing

/// A certificate from a trusted CA whose one DNS name is `localhost\0.attacker.example`: the name
/// after the NUL is the one the CA checked, the part before it is what a C string reads. PJSIP
/// 2.17 copied subjectAltNames up to the NUL, so both our name checks (SIP over TLS, in
/// sip_transport_tls.c, and the agent bridge's WebSocket client) took it for `localhost` and the
/// impostor was accepted (docs/SECURITY.md, SEC-7). Each must refuse it as misnamed.
@Suite("Security: a certificate name with a NUL inside")
struct CertificateNameTests {
    /// A registrar at `sips:localhost:PORT` presenting the certificate: the registration and a
    /// call are refused with certificateNameMismatch, as for a certificate of another name.
    @Test func aSIPServerWhoseCertificateNameHidesAnotherBehindANulIsRefusedAsMisnamed() async throws {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let kamailio = try await Kamailio(tls: certificates.nulName, caFile: certificates.caFile)
        defer { kamailio.stop() }
        let tlsPort = try #require(kamailio.tlsPort)
        try await withEngine(tlsEngine(caFile: certificates.caFile)) { phone, _, log in
            let alice = try await phone.addAccount(id: "sip:alice@localhost", registrar: PJSUA.SIPURI("sips:localhost:\(tlsPort)"),
                                                   username: "alice", password: "alice-secret")
            let state = try await log.registration(alice, "the registration through the impostor")
            #expect(!state.isRegistered, "registered through a certificate for localhost\\0.attacker.example: \(state)")
            #expect(state.certificateError?.code == .certificateNameMismatch, "\(String(describing: state.certificateError))")
            let connection = try await log.tlsConnection()
            #expect(!connection.isConnected)
            #expect(connection.problems.contains(.nameMismatch), "\(connection)")
        }
    }
}

extension MediaStreamTests {
    /// The agent bridge's wss:// client against an agent at `localhost` presenting the
    /// certificate: refused with certificateNameMismatch, no audio streamed to it. (In the
    /// media-stream suite, which is serialized, so that no two streaming tests load the machine.)
    @Test func aWssAgentWhoseCertificateNameHidesAnotherBehindANulIsRefusedAsMisnamed() async throws {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let impostor = try await StreamAgent(name: "stream-agent-wss-nul-name", tls: (certificates.nulName.certificate, certificates.nulName.key))
        defer { impostor.stop() }
        let app = try await tonePlayingPjsuaApp("pjsua-app-stream-wss-nul-name")
        defer { app.stop() }
        try await withStreamingEngine { phone, _, log in
            let call = try await phone.makeCall(to: PJSUA.SIPURI(app.uri()))
            try await log.mediaActive(call)
            var refusal: PJSUAError?
            do {
                let stream = try await phone.stream(call, to: impostor.url(host: "localhost"), options: .init(tls: .init(caFile: certificates.caFile)))
                await phone.stopStream(stream)
            } catch {
                refusal = error as? PJSUAError
            }
            #expect(refusal?.code == .certificateNameMismatch, "\(String(describing: refusal))")
            #expect(!impostor.process.output.contains("\"handshake\""), "the impostor was handed the stream: \(impostor.process.output.suffix(2000))")
            try await phone.hangUp(call)
        }
    }
}
