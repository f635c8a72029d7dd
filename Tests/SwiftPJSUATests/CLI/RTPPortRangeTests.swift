import Foundation
import PJSUATestSupport
@testable import SwiftPJSUA
import Testing

/// `Configuration.rtpPortCount` (`softphone --rtp-ports FROM-TO`): media binds only inside the
/// range and wraps back to its start, so agents on one host given ranges of their own never take
/// each other's ports (KL-46).
@Suite("RTP port ranges")
struct RTPPortRangeTests {
    /// The port of the answer's `m=audio` line.
    private static func mediaPort(_ answer: RawSIPMessage) -> Int? {
        guard let line = answer.text.split(whereSeparator: \.isNewline).first(where: { $0.hasPrefix("m=audio ") }) else { return nil }
        return Int(line.split(separator: " ")[1])
    }

    /// Two calls take the range's two pairs; once the first ended, a third wraps back to the
    /// range's start (pjsua's next port, FROM+4, is past the range).
    @Test func callsBindInsideTheRangeAndWrapToItsStart() async throws {
        let first = try freeRTPPorts(count: 4)
        let (child, port) = try await answeringSoftphone(["--rtp-ports", "\(first)-\(first + 3)"], name: "softphone-rtp-ports")
        defer { child.stop() }
        let peer = try RawSIPPeer(target: port)
        func call() async throws -> (invite: RawSIPRequest, answer: RawSIPMessage) {
            var invite = RawSIPRequest(peer: peer, method: "INVITE")
            invite.contentType = "application/sdp"
            invite.body = RawSIPPeer.audioOffer()
            let answer = try #require(try await peer.exchange(invite))
            peer.send(invite.ack(for: answer))
            return (invite, answer)
        }
        func hangUp(_ call: (invite: RawSIPRequest, answer: RawSIPMessage)) async throws {
            let bye = call.invite.inDialog("BYE", cseq: call.invite.cseq + 1, toTag: call.answer.toTag)
            #expect(try await peer.exchange(bye)?.statusCode == 200)
        }
        let a = try await call()
        #expect(a.answer.statusCode == 200 && Self.mediaPort(a.answer) == first, "\(a.answer.text)")
        let b = try await call()
        #expect(b.answer.statusCode == 200 && Self.mediaPort(b.answer) == first + 2, "\(b.answer.text)")
        try await hangUp(a)
        // The first call's sockets close a moment after its BYE is answered: until then the
        // range is full and the INVITE is refused (500), so a refused one is tried again.
        var c = try await call()
        let deadline = ContinuousClock.now.advanced(by: .seconds(10))
        while c.answer.statusCode == 500, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            c = try await call()
        }
        #expect(c.answer.statusCode == 200 && Self.mediaPort(c.answer) == first, "\(c.answer.text)")
        try await hangUp(b)
        try await hangUp(c)
        #expect(child.isRunning, "\(child.output.suffix(2000))")
    }

    @Test func aRangeTooSmallOrPastTheLastPortIsRefusedAtStart() async throws {
        for (port, count) in [(4000, 3), (65_530, 8), (4000, 0)] {
            var configuration = PJSUA.Configuration(port: 0, bindAddress: "127.0.0.1", rtpPort: port)
            configuration.rtpPortCount = count
            let phone = PJSUA()
            do {
                _ = try await phone.start(configuration)
                Issue.record("rtpPort \(port), rtpPortCount \(count) started")
                await phone.shutdown()
            } catch let error as PJSUAError {
                #expect(error.code == .invalidArgument && error.message.contains("rtpPortCount"), "\(error)")
            } catch {
                Issue.record("not a PJSUAError: \(error)")
            }
        }
    }
}
