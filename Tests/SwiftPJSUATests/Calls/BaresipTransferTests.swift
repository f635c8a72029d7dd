import Foundation
import PJSUATestSupport
import SwiftPJSUA
import Testing

/// Transfer interop with baresip 1.0 (the third implementation next to our engine and the
/// pjsua app): we transfer baresip, and baresip transfers us.
@Suite("Transfer against baresip", .serialized)
struct BaresipTransferTests {
    /// We call baresip and transfer it (REFER) to a softphone: baresip calls the softphone, the
    /// transfer reports 200, and our call with baresip ends.
    @Test func weTransferBaresipToASoftphone() async throws {
        let target = try await answeringSoftphone("carol", ["--exit-after", "1", "--hangup-after", "1"])
        defer { target.process.stop() }
        try await withEngine { phone, _, log in
            let peer = try Baresip(lifetime: 30)
            defer { peer.process.stop() }
            try await peer.waitUntilReady()
            let call = try await phone.makeCall(to: PJSUA.SIPURI(peer.uri))
            try await log.state(call, .confirmed)
            try await phone.transfer(call, to: PJSUA.SIPURI(target.uri))
            let outcome = try await log.transferOutcome(call)
            #expect(outcome.code == 200, "\(log.transferStatuses(of: call))\n\(peer.process.output.suffix(2000))")
            try await log.state(call, .disconnected)
            #expect(try await target.process.waitForExit(timeout: .seconds(15)) == 0, "\(target.process.output)")
            #expect(softphoneEvents(target.process.output, "incomingCall").count == 1, "\(target.process.output)")
        }
    }

    /// baresip calls us and transfers us (its `transfer` command) to a softphone: we follow the
    /// REFER with a new call that the softphone answers.
    @Test func baresipTransfersUsAndWeFollow() async throws {
        let target = try await answeringSoftphone("dave", ["--exit-after", "1"])
        defer { target.process.stop() }
        try await withEngine { phone, transport, log in
            let peer = try Baresip(lifetime: 30)
            defer { peer.process.stop() }
            try await peer.waitUntilReady()
            try await peer.dial(transport.uri(user: "bob").description)
            let incoming = try await log.incomingCall()
            try await phone.answer(incoming.call)
            try await log.state(incoming.call, .confirmed)
            try await Task.sleep(for: .milliseconds(300))
            _ = try await peer.command("transfer", target.uri)
            let request = try await log.transferRequest(on: incoming.call)
            #expect(request.accepted && request.to.contains(target.uri), "\(request)")
            let newCall = try await log.transferredCall(from: incoming.call)
            try await log.state(newCall, .confirmed)
            try await phone.hangUp(newCall)
            try await log.state(newCall, .disconnected)
            #expect(try await target.process.waitForExit(timeout: .seconds(15)) == 0, "\(target.process.output)")
        }
    }
}
