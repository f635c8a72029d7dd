import Foundation
import PJSUATestSupport
import SwiftPJSUA
import Testing

@Suite("Receive-only video: a viewer's call (recvonly offer, the peer answers sendonly)")
struct ReceiveOnlyVideoTests {
    /// pjsua marks a video stream the peer answered `sendonly` as held by the peer
    /// (`PJSUA_CALL_MEDIA_REMOTE_HOLD`), though its pictures arrive and are decoded: frames,
    /// statistics, `hasVideo` and the window follow the pictures, not that label.
    @Test func aReceiveOnlyCallDeliversTheColourBarsItsPeerSends() async throws {
        let (child, port) = try await answeringSoftphone(["--video", "--video-device", "colorbar", "--video-codecs", "H264",
                                                          "--video-size", "352x288", "--exit-after", "1"],
                                                         name: "softphone-video-sender")
        defer { child.stop() }
        try await withEngine { phone, _, log in
            try await phone.useVideoCodecs(["H264"])
            let call = try await phone.makeCall(to: PJSUA.SIPURI("sip:viewer@127.0.0.1:\(port)"), video: .receiveOnly)
            try await log.state(call, .confirmed)
            let streams = try await log.video(call, "receiving") { $0?.isReceiving == true }
            #expect(streams.first?.direction == .receiveOnly && streams.first?.isSending == false, "\(streams)")
            #expect(streams.first?.window != nil, "\(streams)")

            let frames = try await phone.receiveVideo(from: call, timeout: .seconds(10))
            var frame: PJSUA.VideoFrame?
            var count = 0
            for await picture in frames {
                count += 1
                frame = picture
                if count == 10 { break }
            }
            let last = try #require(frame)
            let bars = ColourBars.match(last)
            #expect(bars.matches, "\(bars.seen) \(last.size)")
            try await phone.stopReceivingVideo(frames.id)

            let statistics = try await phone.videoStatistics(of: call)
            #expect(statistics.direction == .receiveOnly && statistics.framesReceived >= 10 && statistics.sent.packets == 0, "\(statistics)")
            #expect(try await phone.quality(of: call).video != nil)
            #expect(try await phone.info(call).hasVideo)
            try await phone.hangUp(call)
            try await log.state(call, .disconnected)
        }
        #expect(try await child.waitForExit(timeout: .seconds(10)) == 0, "\(child.output.suffix(2000))")
    }
}
