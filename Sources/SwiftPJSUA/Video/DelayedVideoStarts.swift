import CPJSUASupport
import PJSIP

/// pjsua's delayed start of a video stream's encoding, seen from the teardown.
///
/// pjsua makes a video stream with its encoding paused and resumes it from a timer
/// (`PJSUA_VIDEO_STREAM_DELAY_START_ENCODE`, 500 ms) that holds a reference on the stream until
/// it fires. Our teardown destroys pjsua with `PJSUA_DESTROY_NO_RX_MSG`, so pjsua_destroy polls no
/// events after stopping its worker threads: a start still pending then never fires, and the
/// stream, with its codec (an OpenH264 encoder and decoder, megabytes at CIF), is never freed
/// (docs/KNOWN-LIMITS.md KL-41). So the teardown lets the pending starts fire first; it waits
/// only when a video stream may have been made less than the delay ago.
enum DelayedVideoStarts {
    /// pjsua's delay, `PJSUA_VIDEO_STREAM_DELAY_START_ENCODE`.
    static let delay = Duration.milliseconds(Int(PJSUA_VIDEO_STREAM_DELAY_START_ENCODE))

    /// A call's media changed and it has a video stream: pjsua may just have made the stream
    /// and scheduled its start. Called in `on_call_media_state`, which pjsua calls after the
    /// media update that makes (and schedules) the streams, so the time noted is never earlier
    /// than the timer's.
    static func noteVideoMediaUpdate(in run: EngineRun) {
        run.withState { $0.lastVideoMediaUpdate = .now }
    }

    /// Waits until every start scheduled so far has fired: a pjsua timer falling due just after
    /// the last one (``noteVideoMediaUpdate(in:)``'s time plus the delay) has fired. Executor
    /// thread, in the teardown, while pjsua's worker threads still run; bounded, so a worker
    /// that never polls again costs at most two seconds more, not a hang.
    static func letPendingStartsFire(in run: EngineRun) {
        guard let last = run.withState({ $0.lastVideoMediaUpdate }) else { return }
        let remaining = last.advanced(by: delay) - .now
        guard remaining > .zero else { return }
        // Rounded up, plus a tick of the timer heap's millisecond clock, to fall due after it.
        let milliseconds = UInt32(remaining / .milliseconds(1)) + 2
        _ = cpjsua_pjsua_timer_barrier(milliseconds, milliseconds + 2_000)
    }
}
