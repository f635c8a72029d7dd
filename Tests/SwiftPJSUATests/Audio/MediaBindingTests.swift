import Foundation
import PJSUATestSupport
import SwiftPJSUA
import Testing

/// With a bind address, media binds to it and the SDP advertises it: a peer reached on
/// loopback gets loopback media, never the host's external interface.
@Suite("Media follows the bind address")
struct MediaBindingTests {
    @Test(arguments: [false, true])
    func rtpBindsToAndTheOfferAdvertisesTheBindAddress(fromAddedAccount: Bool) async throws {
        // A range, so that media starts at rtpPort (without one it starts at a random port above).
        let block = try PortBlock()
        defer { withExtendedLifetime(block) {} }
        let rtpPort = block[0]
        var configuration = PJSUA.Configuration(port: 0, transport: .udp, bindAddress: "127.0.0.1", audioDevice: .null, rtpPort: rtpPort)
        configuration.rtpPortCount = 4
        try await withEngine(configuration) { phone, _, log in
            let account = fromAddedAccount ? try await phone.addAccount(id: "sip:alice@127.0.0.1") : nil
            let peer = try await sipp(["-sf", scenario("uas-sdp-loopback.xml")], name: "sipp-sdp-loopback")
            let call = try await phone.makeCall(to: PJSUA.SIPURI("sip:media@127.0.0.1:\(peer.sippPort)"), from: account)
            try await log.mediaActive(call)
            let bound = udpSocketAddresses(port: rtpPort) + udpSocketAddresses(port: rtpPort + 1)
            #expect(bound == ["127.0.0.1", "127.0.0.1"], "RTP and RTCP sockets on port \(rtpPort): \(bound)")
            try await phone.hangUp(call)
            try await log.state(call, .disconnected)
            #expect(try await peer.waitForExit() == 0, "the offer's SDP did not name 127.0.0.1: \(peer.output.suffix(2000))")
        }
    }
}

/// The local IPv4 addresses of this machine's UDP sockets on `port` (from /proc/net/udp).
private func udpSocketAddresses(port: Int) -> [String] {
    guard let table = readText("/proc/net/udp") else { return [] }
    return table.split(separator: "\n").dropFirst().compactMap { line in
        let fields = line.split(separator: " ")
        guard fields.count > 1 else { return nil }
        let local = fields[1].split(separator: ":")
        guard local.count == 2, Int(local[1], radix: 16) == port, let raw = UInt32(local[0], radix: 16) else { return nil }
        // The kernel prints the address as a host-order (little-endian here) integer.
        return [raw & 0xff, (raw >> 8) & 0xff, (raw >> 16) & 0xff, raw >> 24].map(String.init).joined(separator: ".")
    }
}
