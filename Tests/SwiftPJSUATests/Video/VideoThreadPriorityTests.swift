import Foundation
import PJSUATestSupport
import SwiftPJSUA
import Testing

/// No thread of the engine runs at a real-time policy unless the app asks: pjmedia raises its media
/// clocks' threads to the highest priority (`SCHED_RR` as root) unless created with
/// `PJMEDIA_CLOCK_NO_HIGHEST_PRIO`. KL-26 took the audio bridge's clock off it; pjmedia's video
/// conference bridge (vid_conf.c) created its clock the same way (KL-33, patched in our build).
@Suite("Video calls keep every engine thread at normal priority", .serialized)
struct VideoThreadPriorityTests {
    /// Root only: another user cannot raise a thread to a real-time policy, so the test would
    /// pass whatever pjmedia asked for (CI runs as root).
    @Test(.enabled(if: geteuid() == 0, "root only: as another user no thread can be raised, so nothing is proved"))
    func aVideoCallsClockAndCodecThreadsKeepNormalPriorityAsRoot() async throws {
        let (child, port) = try await answeringSoftphone(["--video", "--video-codecs", "H264", "--video-size", "352x288", "--exit-after", "1"],
                                                         name: "softphone-video-priority")
        defer { child.stop() }
        try await withEngine { phone, _, log in
            try await useCheapVideo(phone)
            let call = try await phone.makeCall(to: PJSUA.SIPURI("sip:video@127.0.0.1:\(port)"), video: .sendReceive)
            try await log.state(call, .confirmed)
            _ = try await log.video(call, "active") { $0?.isActive == true }
            // Pictures flow both ways: every clock that drives them is running.
            try await waitUntil("pictures decoded") { try await phone.videoStatistics(of: call).framesReceived >= 5 }
            let policies = try threadSchedulingPolicies()
            // SCHED_FIFO 1, SCHED_RR 2, SCHED_DEADLINE 6 (not SCHED_BATCH 3, which Dispatch may
            // give a background thread of this process).
            let realTime = policies.filter { [1, 2, 6].contains($0.policy) }
            #expect(realTime.isEmpty, "threads with a real-time policy: \(realTime) (of \(policies.count))")
            try await phone.hangUp(call)
            try await log.state(call, .disconnected)
        }
    }
}
