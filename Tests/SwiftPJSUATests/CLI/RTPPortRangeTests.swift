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
        let block = try PortBlock()
        defer { withExtendedLifetime(block) {} }
        let first = block[0]
        let (child, port) = try await answeringSoftphone(["--rtp-ports", "\(first)-\(first + 3)"], name: "softphone-rtp-ports")
        defer { child.stop() }
        let peer = try RawSIPPeer(target: port)
        func call() async throws -> (invite: RawSIPRequest, answer: RawSIPMessage) {
            let (invite, answer) = try await peer.invite()
            return (invite, try #require(answer))
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

    /// Without a range, media starts at a random even port from ``rtpPort`` up (KL-46). Another
    /// process holding the 200 ports from `rtpPort` (all 100 pairs pjsua tries from a fixed
    /// start) used to fail every call, placed ("Address already in use") or answered (500); now
    /// both go through on ports past that block. Fails only if the random start is the block's
    /// very first pair: about 1 in 20,000 for a block below 25000.
    @Test func withoutARangeABlockHeldAtTheFirstPortNoLongerFailsCalls() async throws {
        let (first, held) = try Self.holdTwoHundredPorts()
        defer { withExtendedLifetime(held) {} }
        let configuration = PJSUA.Configuration(port: 0, bindAddress: "127.0.0.1", audioDevice: .null, rtpPort: first)
        try await withEngine(configuration) { phone, transport, log in
            let peer = try RawSIPPeer(target: transport.port)
            _ = try await phone.makeCall(to: PJSUA.SIPURI(peer.uri))
            let invite = try #require(try await peer.request("INVITE"))
            let port = try #require(Self.mediaPort(invite), "\(invite.text)")
            #expect(port >= first + 200 && port.isMultiple(of: 2), "placed call's media at \(port), block \(first)-\(first + 199)")
        }
        let (child, port) = try await answeringSoftphone(["--rtp-ports", "\(first)"], name: "softphone-rtp-random-start")
        defer { child.stop() }
        let peer = try RawSIPPeer(target: port)
        let (invite, reply) = try await peer.invite()
        let answer = try #require(reply)
        let media = Self.mediaPort(answer) ?? 0
        #expect(answer.statusCode == 200 && media >= first + 200, "answered call: \(answer.text)")
        #expect(try await peer.exchange(invite.inDialog("BYE", cseq: invite.cseq + 1, toTag: answer.toTag))?.statusCode == 200)
        #expect(child.isRunning, "\(child.output.suffix(2000))")
    }

    /// Without a range, a bind that fails draws a new random pair rather than walking to the next
    /// one (KL-46). pjsua draws the start once and walks up one pair per failed bind, giving up
    /// after 100: a walk that reached a block of 100 or more pairs another process holds failed a
    /// call, however much of the range was free. Here the range is the last 301 pairs below 65535
    /// and the top 255 of them are held. Walking, 50 calls in a row fail at least one, whatever
    /// the start: each call takes the next free pair, so the calls reach the block and need three
    /// calls' 100 binds to cross it (the walk then wraps to the range's start inside the loop; the
    /// block is at the top because pjsua draws afresh when a call that bound 65534 leaves it at 0).
    /// Drawing, a call fails only if 100 draws all land in the block: (255/301)^100, about 1 in
    /// 16 million.
    @Test func aBlockOfHeldPairsPastTheStartIsLeftByANewDrawNotWalkedThrough() async throws {
        let first = 64_934, block = 65_026  // 46 free pairs, then 255 held up to 65535
        // A port of the block another process holds (an engine's media starts anywhere from 4000
        // up) is held all the same.
        let held = (block...65_535).compactMap { try? LoopbackSocket.occupying($0) }
        defer { withExtendedLifetime(held) {} }
        let (child, port) = try await answeringSoftphone(["--rtp-ports", "\(first)"], name: "softphone-rtp-held-block")
        defer { child.stop() }
        let peer = try RawSIPPeer(target: port)
        for call in 1...50 {
            let (invite, reply) = try await peer.invite()
            let answer = try #require(reply, "call \(call) was not answered")
            let media = Self.mediaPort(answer) ?? 0
            #expect(answer.statusCode == 200 && media >= first && media < block, "call \(call): \(answer.startLine), media at \(media)")
            guard answer.statusCode == 200 else { continue }
            #expect(try await peer.exchange(invite.inDialog("BYE", cseq: invite.cseq + 1, toTag: answer.toTag))?.statusCode == 200)
        }
        #expect(child.isRunning, "\(child.output.suffix(2000))")
    }

    /// 200 UDP ports in a row on 127.0.0.1, bound for as long as the sockets live: a block
    /// starting at an even port between 10000 and 24800, below Linux's ephemeral ports.
    private static func holdTwoHundredPorts() throws -> (first: Int, sockets: [LoopbackSocket]) {
        for _ in 0..<40 {
            let first = 10_000 + Int.random(in: 0..<75) * 200
            var sockets: [LoopbackSocket] = []
            for port in first..<(first + 200) {
                guard let socket = try? LoopbackSocket.occupying(port) else { break }
                sockets.append(socket)
            }
            if sockets.count == 200 { return (first, sockets) }
        }
        throw ChildProcessError("no 200 free UDP ports in a row between 10000 and 25000 in 40 tries")
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
