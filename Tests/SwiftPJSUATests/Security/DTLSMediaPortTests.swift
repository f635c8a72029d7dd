import Foundation
import PJSUATestSupport
import SwiftPJSUA
import Testing

/// What reaches a DTLS-SRTP call's media port before DTLS is up: datagrams anyone who knows the
/// port can send, and the largest first flight a DTLS client can make the engine write (KL-34).
///
/// The engine calls a raw SIP peer, whose answer makes the engine the DTLS server
/// (`a=setup:active`) and names an `openssl s_client` as the media peer.
@Suite("A DTLS-SRTP call's media port before DTLS is up", .serialized)
struct DTLSMediaPortTests {
    @Test func oversizedDatagramsAndTheLargestClientHelloFlightLeaveTheEngineUpAndDTLSStillConnects() async throws {
        #expect(PJSUA.supportsDTLSSRTP)
        let certificates = try await TestCertificates.make()
        let fingerprint = try await sha256Fingerprint(of: certificates.selfSigned.certificate)
        var configuration = srtpEngine(.mandatory)
        configuration.srtp.keying = [.dtls]
        try await withEngine(configuration) { phone, transport, log in
            let peer = try RawSIPPeer(target: transport.port)
            let call = try await phone.makeCall(to: PJSUA.SIPURI(peer.uri))
            let invite = try #require(try await peer.request("INVITE"))
            let mediaPort = try #require(invite.text.firstMatch(of: #/m=audio (\d+) /#).flatMap { Int($0.1) })
            let junk = try LoopbackSocket()
            junk.sendOversized(to: mediaPort)

            // The answer: DTLS with us as the client, media to the port s_client will bind (one of
            // a block held until s_client has exited: the answer names it before s_client runs).
            let clientPorts = try PortBlock()
            let clientPort = clientPorts[0]
            peer.send(peer.response(to: invite, 200, toTag: "dtls", sdpBody: """
                v=0\r
                o=raw 1 1 IN IP4 127.0.0.1\r
                s=-\r
                c=IN IP4 127.0.0.1\r
                t=0 0\r
                m=audio \(clientPort) UDP/TLS/RTP/SAVP 0\r
                a=rtpmap:0 PCMU/8000\r
                a=rtcp-mux\r
                a=setup:active\r
                a=fingerprint:sha-256 \(fingerprint)\r

                """))
            try await log.state(call, .confirmed)
            junk.sendOversized(to: mediaPort)

            // The largest first flight a client can ask of the engine's DTLS server: the biggest
            // ECDHE group first (secp521r1), a CBC suite (encrypt-then-MAC echoed), a server name
            // and a fragment length echoed. Only an ECDSA suite is offered: the engine's
            // certificate is on a P-256 key (KL-37; an RSA one stalled a loaded first call).
            let client = try ChildProcess("openssl", [
                "s_client", "-dtls1_2", "-bind", "127.0.0.1:\(clientPort)", "-connect", "127.0.0.1:\(mediaPort)",
                "-use_srtp", "SRTP_AES128_CM_SHA1_80", "-cert", certificates.selfSigned.certificate,
                "-key", certificates.selfSigned.key, "-groups", "secp521r1:prime256v1", "-cipher", "ECDHE-ECDSA-AES256-SHA384",
                "-maxfraglen", "512", "-servername", "engine", "-ign_eof",
            ], name: "openssl-dtls-client", holding: clientPorts)
            defer { client.stop() }
            do {
                try await waitUntil("DTLS-SRTP is up", timeout: .seconds(10)) { try await phone.info(call).encryption.isEncrypted }
            } catch {
                await client.stopAndWait()
                Issue.record("\(error); openssl s_client: \(client.output.suffix(3000))")
                throw error
            }
            #expect(try await phone.info(call).encryption.keying == .dtls)
            try await client.waitForOutput("Server public key is 256 bit", timeout: .seconds(10))

            try await phone.hangUp(call)
            if let bye = try await peer.request("BYE") { peer.send(peer.response(to: bye, 200)) }
            try await log.state(call, .disconnected)
        }
    }
}

extension LoopbackSocket {
    /// Datagrams past every size the media path expects (PJMEDIA_MAX_MTU 1500, the receive
    /// buffer PJMEDIA_MAX_MRU 2000, the largest UDP payload), as noise and as DTLS-looking records
    /// (handshake, DTLS 1.2, lengths that lie).
    func sendOversized(to port: Int) {
        for size in [1501, 2001, 9000, 65000] {
            send(String(repeating: "\u{7f}", count: size), toPort: port)
            let dtlsLooking = [UInt8]([22, 0xfe, 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff]) + [UInt8](repeating: 1, count: size - 13)
            send(bytes: dtlsLooking, toPort: port)
        }
    }
}

/// The SHA-256 fingerprint of a PEM certificate, as SDP writes it (`AB:CD:...`).
func sha256Fingerprint(of certificate: String) async throws -> String {
    let openssl = try ChildProcess("openssl", ["x509", "-in", certificate, "-noout", "-fingerprint", "-sha256"], name: "openssl-fingerprint")
    #expect(try await openssl.waitForExit(timeout: .seconds(10)) == 0)
    let line = openssl.output.trimmingCharacters(in: .whitespacesAndNewlines)
    guard let equals = line.firstIndex(of: "=") else { throw ChildProcessError("no fingerprint in \(line)") }
    return String(line[line.index(after: equals)...])
}
