import CPJSUASupport
import Foundation
import PJSIP

/// The engine's side of each video call, kept up to date on the executor thread after every
/// media change (scheduled from `on_call_media_state` with the audio wiring): the options asked
/// for at make-call or answer time, applied once the stream is up; a counting tap on the call's
/// decoding port (the frames figure of ``PJSUA/VideoStatistics``); and the app's frame
/// subscriptions (``PJSUA/receiveVideo(from:bufferingNewest:timeout:)``).
///
/// Taps are attached and detached only on the executor thread; the video bridge's clock thread
/// only calls their `put_frame` (see VideoTap.c).
enum VideoWiring {
    /// A tap on a call's decoding port.
    struct Tap: @unchecked Sendable {
        // @unchecked Sendable: the pointer is only used on the engine's executor thread
        // (attach, detach, reading the counter); the run's lock guards the records holding it.
        let pointer: OpaquePointer
        let source: Int32
        let size: PJSUA.VideoSize
    }

    /// Copies frames into Swift for one subscription; the C tap retains it until its port is
    /// destroyed.
    final class FrameSink: Sendable {
        let continuation: AsyncStream<PJSUA.VideoFrame>.Continuation
        init(_ continuation: AsyncStream<PJSUA.VideoFrame>.Continuation) { self.continuation = continuation }
    }

    struct Subscription {
        let call: PJSUA.Call
        let tap: Tap
        let sink: FrameSink
    }

    // What is kept per call (options, counter, subscriptions) is in the call's record
    // (``CallRecord``), and leaves with it.

    /// Remembers what the app asked for a call's video; applied when the stream is up.
    static func remember(_ video: PJSUA.VideoOptions, for call: PJSUA.Call, in run: EngineRun) {
        run.withCall(call) { record in
            record.videoOptions = video
            record.videoOptionsApplied = false
        }
    }

    /// Stops our video of a call whose options say not to transmit at once, before anything
    /// goes out. Called in `on_call_media_state`, on pjsua's worker thread inside the media
    /// update: pjsua creates a video stream with its encoding paused and resumes it from a timer
    /// (PJSUA_VIDEO_STREAM_DELAY_START_ENCODE, 500 ms) with the capture device already connected,
    /// so stopping here (capture disconnected, encoding paused) keeps every picture in. Stopping
    /// only later, after the hop to the executor thread, could let the first pictures out on a
    /// busy engine. ``rewire(_:in:)`` then applies the rest of the options as usual.
    static func holdBackTransmission(of call: PJSUA.Call, in run: EngineRun) {
        let holdsBack = run.record(of: call) { record in
            guard let wanted = record.videoOptions, !record.videoOptionsApplied else { return false }
            return !wanted.transmitsAtOnce && wanted.direction.sends
        } ?? false
        guard holdsBack, hasActiveVideo(call.slot) else { return }
        _ = stopTransmission(call.slot)
    }

    /// Stops sending a call's video (`PJSUA_CALL_VID_STRM_STOP_TRANSMIT` on its first active
    /// video stream) only while the call holds a capture window; a call that holds none has
    /// nothing to stop, and succeeds.
    ///
    /// pjsua's stop finds the capture window by the call's capture device, not by the call's own
    /// window: stopped a second time while another call shares that device's window, it releases
    /// the window the call no longer holds, `dec_vid_win(-1)`, an assertion that aborts
    /// (docs/KNOWN-LIMITS.md KL-59). Our Linux PJSIP is patched; the iOS binary is not, so the
    /// engine never asks for that stop (`holdsCaptureWindow`). Executor thread, or pjsua's worker inside
    /// the call's media update (``holdBackTransmission(of:in:)``).
    static func stopTransmission(_ slot: pjsua_call_id) -> pj_status_t {
        guard holdsCapture(slot) else { return pjSuccess }
        var parameters = pjsua_call_vid_strm_op_param()
        pjsua_call_vid_strm_op_param_default(&parameters)
        return pjsua_call_set_vid_strm(slot, PJSUA_CALL_VID_STRM_STOP_TRANSMIT, &parameters)
    }

    /// Whether the call's first video stream (the one pjsua's stream operations act on) holds
    /// a capture window.
    private static func holdsCapture(_ slot: pjsua_call_id) -> Bool {
        let index = pjsua_call_get_vid_stream_idx(slot)
        guard index >= 0 else { return false }
        return withCallInfo(slot) { info in
            media(PJMEDIA_TYPE_VIDEO, of: info).contains { Int32($0.media.index) == index && holdsCaptureWindow($0.media) }
        } ?? false
    }

    /// The decoding side of a call's first video stream, when video is coming in.
    struct Incoming {
        let index: Int
        let decoder: Int32
        let size: PJSUA.VideoSize
        let frameRate: Int
    }

    static func incoming(_ slot: pjsua_call_id) -> Incoming? {
        let found: (index: Int, decoder: Int32)? = withCallInfo(slot) { info in
            guard let video = media(PJMEDIA_TYPE_VIDEO, of: info).first(where: {
                videoFlows($0.media) && PJSUA.VideoDirection($0.media.dir).receives
            }) else { return nil }
            let decoder = video.media.stream.vid.dec_slot
            return decoder == PJSUA_INVALID_ID.rawValue ? nil : (video.index, decoder)
        } ?? nil
        guard let found else { return nil }
        // The decoding port's format on the video bridge: the size pictures actually arrive at
        // (the codec parameters' dec_fmt is only the fmtp's bound, e.g. 656x656 for H.264 level 3.1;
        // the port follows the decoder's format-changed events).
        var port = pjsua_vid_conf_port_info()
        guard pjsua_vid_conf_get_port_info(found.decoder, &port) == pjSuccess else { return nil }
        let format = port.format.det.vid
        let rate = format.fps.denum > 0 ? Int((Double(format.fps.num) / Double(format.fps.denum)).rounded()) : 15
        return Incoming(index: found.index, decoder: found.decoder,
                        size: PJSUA.VideoSize(width: Int(format.size.w), height: Int(format.size.h)),
                        frameRate: min(max(rate, 1), 60))
    }

    /// Brings a call's video side in line with its media now. Executor thread only.
    static func rewire(_ call: PJSUA.Call, in run: EngineRun) {
        guard isVideoCall(call, in: run) else { return }
        let incoming = incoming(call.slot)
        // The options, once, when video first flows.
        let flowing = hasActiveVideo(call.slot)
        let pending: PJSUA.VideoOptions? = run.withState { state in
            guard flowing, let wanted = state.calls[call]?.videoOptions, state.calls[call]?.videoOptionsApplied == false else { return nil }
            state.calls[call]?.videoOptionsApplied = true
            return wanted
        }
        if let pending { apply(pending, to: call.slot) }
        // The counter follows the decoding port; subscriptions end when it changes or goes.
        let (stale, endedSubscriptions): (Tap?, [Subscription]) = run.withState { state in
            guard var record = state.calls[call] else { return (nil, []) }
            let stale = record.videoCounter.flatMap { $0.source == incoming?.decoder ? nil : $0 }
            if stale != nil { record.videoCounter = nil }
            let ended = record.videoSubscriptions.filter { $0.value.tap.source != incoming?.decoder }
            for key in ended.keys { record.videoSubscriptions[key] = nil }
            state.calls[call] = record
            return (stale, Array(ended.values))
        }
        if let stale { retire(stale, of: call, in: run) }
        for subscription in endedSubscriptions { end(subscription) }
        if let incoming, run.record(of: call, { $0.videoCounter == nil }) ?? true {
            var pointer: OpaquePointer?
            let status = cpjsua_video_tap_attach(incoming.decoder, UInt32(incoming.size.width), UInt32(incoming.size.height),
                                                 UInt32(incoming.frameRate), nil, nil, nil, &pointer)
            if status == pjSuccess, let pointer {
                run.withCall(call) { $0.videoCounter = Tap(pointer: pointer, source: incoming.decoder, size: incoming.size) }
                followDecodedSize(of: call, in: run)
            }
        }
    }

    /// The counter starts at the decoding port's pre-decode format (the fmtp's bound, e.g.
    /// 1088x1088 for VP8), which the bridge copies without scaling. Once pjmedia knows the real
    /// size (its first decoded picture), the counter moves to it, so that the bridge does not
    /// scale every picture up for a counter (docs/KNOWN-LIMITS.md KL-29). Checked every 100 ms
    /// for at most 10 s.
    private static func followDecodedSize(of call: PJSUA.Call, in run: EngineRun, attempt: Int = 0) {
        guard attempt < 100 else { return }
        Task {
            try? await Task.sleep(for: .milliseconds(100))
            run.onEngineThread {
                guard let tap = run.record(of: call, { $0.videoCounter }) ?? nil, let incoming = incoming(call.slot),
                      incoming.decoder == tap.source else { return }
                guard incoming.size != tap.size else { return followDecodedSize(of: call, in: run, attempt: attempt + 1) }
                var pointer: OpaquePointer?
                guard cpjsua_video_tap_attach(incoming.decoder, UInt32(incoming.size.width), UInt32(incoming.size.height),
                                              UInt32(incoming.frameRate), nil, nil, nil, &pointer) == pjSuccess, let pointer
                else { return }
                run.withCall(call) { $0.videoCounter = Tap(pointer: pointer, source: incoming.decoder, size: incoming.size) }
                retire(tap, of: call, in: run)
            }
        }
    }

    /// Whether the engine has anything to do for this call's video: it asked for video, or the
    /// call has (or had) a video stream.
    private static func isVideoCall(_ call: PJSUA.Call, in run: EngineRun) -> Bool {
        if run.record(of: call, { $0.videoOptions != nil || $0.videoCounter != nil }) == true { return true }
        return withCallInfo(call.slot) { !media(PJMEDIA_TYPE_VIDEO, of: $0).isEmpty } ?? false
    }

    private static func hasActiveVideo(_ slot: pjsua_call_id) -> Bool {
        withCallInfo(slot) { SwiftPJSUA.hasActiveVideo($0) } ?? false
    }

    private static func apply(_ options: PJSUA.VideoOptions, to slot: pjsua_call_id) {
        var parameters = pjsua_call_vid_strm_op_param()
        pjsua_call_vid_strm_op_param_default(&parameters)
        if let device = options.captureDevice, options.direction.sends {
            parameters.cap_dev = pjmedia_vid_dev_index(device.rawValue)
            _ = pjsua_call_set_vid_strm(slot, PJSUA_CALL_VID_STRM_CHANGE_CAP_DEV, &parameters)
        }
        // Normally stopped already, inside the media update (holdBackTransmission): then the
        // device change above only recorded the device, and there is nothing to stop.
        if !options.transmitsAtOnce, options.direction.sends {
            _ = stopTransmission(slot)
        }
    }

    private static func retire(_ tap: Tap, of call: PJSUA.Call, in run: EngineRun) {
        let frames = Int(cpjsua_video_tap_frames(tap.pointer))
        cpjsua_video_tap_detach(tap.pointer)
        run.withCall(call) { $0.videoFramesCounted += frames }
    }

    /// Ends a subscription: its tap leaves the bridge and its sequence finishes. Executor thread.
    static func end(_ subscription: Subscription) {
        cpjsua_video_tap_detach(subscription.tap.pointer)
        subscription.sink.continuation.finish()
    }

    /// Frames decoded for a call so far. Executor thread only.
    static func framesReceived(_ call: PJSUA.Call, in run: EngineRun) -> Int {
        let (tap, before) = run.record(of: call) { ($0.videoCounter, $0.videoFramesCounted) } ?? (nil, 0)
        return before + (tap.map { Int(cpjsua_video_tap_frames($0.pointer)) } ?? 0)
    }

    /// Starts copying a call's decoded pictures to a new frame sequence. Executor thread only.
    static func subscribe(_ call: PJSUA.Call, bufferingNewest limit: Int, in run: EngineRun) throws(PJSUAError) -> PJSUA.VideoFrames {
        guard let incoming = incoming(call.slot) else {
            throw PJSUAError(.mediaNotActive, "\(call) receives no video (none negotiated, or not active yet)")
        }
        let (stream, continuation) = AsyncStream<PJSUA.VideoFrame>.makeStream(bufferingPolicy: .bufferingNewest(limit))
        let sink = FrameSink(continuation)
        let context = Unmanaged.passRetained(sink).toOpaque()
        var pointer: OpaquePointer?
        let status = cpjsua_video_tap_attach(incoming.decoder, UInt32(incoming.size.width), UInt32(incoming.size.height),
                                             UInt32(incoming.frameRate), deliverFrame, context, releaseSink, &pointer)
        guard status == pjSuccess, let pointer else {
            continuation.finish()
            throw PJSUAError(status: status, operation: "cannot tap the video of \(call)")
        }
        let subscription = Subscription(call: call, tap: Tap(pointer: pointer, source: incoming.decoder, size: incoming.size), sink: sink)
        let id: PJSUA.VideoSubscription = run.withState { state in
            state.lastVideoSubscription += 1
            let id = PJSUA.VideoSubscription(call: call, number: state.lastVideoSubscription)
            state.calls[call, default: CallRecord()].videoSubscriptions[id] = subscription
            return id
        }
        return PJSUA.VideoFrames(stream: stream, id: id, size: incoming.size)
    }

    /// Ends a subscription; false when it had ended already. Executor thread only.
    @discardableResult
    static func unsubscribe(_ id: PJSUA.VideoSubscription, in run: EngineRun) -> Bool {
        guard let subscription = run.withState({ $0.calls[id.call]?.videoSubscriptions.removeValue(forKey: id) })
        else { return false }
        end(subscription)
        return true
    }
}

/// The tap's notify: runs on the video bridge's clock thread; copies and yields, never waits.
private func deliverFrame(_ context: UnsafeMutableRawPointer?, _ data: UnsafePointer<UInt8>, _ size: UInt32, _ width: UInt32,
                          _ height: UInt32, _ timestamp: UInt64) {
    guard let context else { return }
    let sink = Unmanaged<VideoWiring.FrameSink>.fromOpaque(context).takeUnretainedValue()
    let bytes = Array(UnsafeBufferPointer(start: data, count: Int(size)))
    sink.continuation.yield(PJSUA.VideoFrame(size: PJSUA.VideoSize(width: Int(width), height: Int(height)), timestamp: timestamp, bytes: bytes))
}

/// Releases the tap's reference on its sink once the port is destroyed.
private func releaseSink(_ context: UnsafeMutableRawPointer?) {
    guard let context else { return }
    let sink = Unmanaged<VideoWiring.FrameSink>.fromOpaque(context).takeRetainedValue()
    sink.continuation.finish()
}
