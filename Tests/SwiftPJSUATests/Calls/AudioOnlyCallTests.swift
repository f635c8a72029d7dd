import CPJSUASupport
import Foundation
import PJSIP
@testable import SwiftPJSUA
import Testing

/// Calls carry no video unless asked, on a PJSIP built with video (as the iOS binary is): the
/// SDP that goes out, read by sipp, has no `m=video` line, and an offered video stream is
/// declined in the answer.
@Suite("Audio-only calls on a PJSIP with video")
struct AudioOnlyCallTests {
    /// Without video in the library these tests would pass for the wrong reason; and pjsua's own
    /// default call setting would offer video, which is what the engine must override.
    @Test func theLibraryUnderTestHasVideoAndPjsuaWouldOfferIt() {
        #expect(cpjsua_has_video == 1, "build PJSIP with video (scripts/install-pjproject.sh, PJPROJECT_VIDEO=1, the default)")
        var defaults = pjsua_call_setting()
        pjsua_call_setting_default(&defaults)
        #expect(defaults.vid_cnt == 1)
        #expect(PJSUA.callSetting().vid_cnt == 0)
        #expect(PJSUA.callSetting().aud_cnt == 1)
        #expect(defaults.txt_cnt == 1, "pjproject's default adds a real-time text stream")
        #expect(PJSUA.callSetting().txt_cnt == 0)
    }

    @Test func ourOfferAndOurHoldAndResumeReinvitesHaveNoVideo() async throws {
        try await withEngine { phone, _, log in
            let peer = try await sipp(["-sf", scenario("uas-audio-only-offers.xml")], name: "sipp-audio-only")
            let call = try await phone.makeCall(to: PJSUA.SIPURI("sip:audio@127.0.0.1:\(peer.sippPort)"))
            try await log.mediaActive(call)
            try await phone.hold(call)
            try await log.first("local hold") { event -> Void? in
                if case let .callMedia(c, .localHold, _) = event, c == call { return () }
                return nil
            }
            try await phone.resume(call)
            try await waitUntil("audio active again") { try await phone.info(call).media == .active }
            #expect(try await phone.info(call).hasVideo == false)
            try await phone.hangUp(call)
            try await log.state(call, .disconnected)
            #expect(try await peer.waitForExit() == 0, "sipp saw m=video or missed a step: \(peer.output.suffix(2000))")
            #expect(!log.all.contains { event in
                if case .callMedia(_, _, true) = event { return true }
                return false
            })
        }
    }

    @Test func anOfferedVideoStreamIsDeclinedInOurAnswer() async throws {
        try await withEngine { phone, transport, log in
            let peer = try await sipp(["-sf", scenario("uac-video-offer.xml"), "-s", "video", "127.0.0.1:\(transport.port)"],
                                name: "sipp-video-offer")
            let incoming = try await log.first("an incoming call") { event -> (PJSUA.Call, Bool)? in
                if case let .incomingCall(_, call, _, _, offeredVideo) = event { return (call, offeredVideo) }
                return nil
            }
            #expect(incoming.1, "the offer had video, and the event says so")
            try await phone.answer(incoming.0, code: 180)
            try await phone.answer(incoming.0)
            try await log.mediaActive(incoming.0)
            // Read from the events, not from the call: sipp hangs up 300 ms after its ACK, and a
            // loaded run's test asked for the info of a call that had ended by then.
            try await log.state(incoming.0, .disconnected)
            #expect(!log.all.contains { event in
                if case .callMedia(incoming.0, _, true) = event { return true }
                return false
            }, "the call reported video media")
            #expect(try await peer.waitForExit() == 0, "our 200 OK did not decline the video: \(peer.output.suffix(2000))")
        }
    }
}
