import Foundation
import PJSUATestSupport
import SwiftPJSUA
import Testing

/// SEC-12 (scripts/pjproject-patches/sec-12-stun-forgery.sh, upstream 082948b0a): the address
/// pjsua puts in Via and Contact comes, with a STUN server configured, from pjlib-util's simple
/// STUN client, which in 2.17 sent the same transaction ID every time (zeros, then the socket and
/// server indexes) and took any response carrying it.
@Suite("Security: forged STUN answers")
struct STUNForgeryTests {
    @Test func aBindingResponseForgedWithThePredictableTransactionIDDoesNotBecomeOurPublicAddress() async throws {
        // The forger knows our SIP port (it sees where the request went: what a forger on the path,
        // or one guessing 5060, knows) but not the request: it answers with the ID 2.17 sent for
        // its first socket and server, 16 zero bytes, before the real server answers (200 ms).
        let forger = try DatagramSocket()
        let forged = FakeSTUNServer.bindingResponse(transaction: [UInt8](repeating: 0, count: 16), mappedHost: "203.0.113.66", mappedPort: 6666)
        let stun = try FakeSTUNServer(publicHost: "192.0.2.10") { port in forger.send(forged, port: port) }
        defer { stun.stop() }
        var configuration = PJSUA.Configuration(port: 0, transport: .udp, bindAddress: "127.0.0.1", audioDevice: .null)
        configuration.nat.stunServers = [stun.address]
        try await withEngine(configuration) { _, transport, _ in
            #expect(stun.classicRequests >= 1, "the SIP socket's address was not asked of the STUN server")
            #expect(transport.host != "203.0.113.66", "the forged address is in our Via and Contact: \(transport)")
            #expect(transport.host == "192.0.2.10", "not the STUN server's answer: \(transport)")
        }
    }
}
