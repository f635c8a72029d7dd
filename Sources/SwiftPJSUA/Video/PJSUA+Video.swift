import CPJSUASupport
import PJSIP

extension PJSUA {
    /// Whether the linked PJSIP was built with video (`PJMEDIA_HAS_VIDEO`): our Linux build and
    /// the iOS binary are. Without it every video call throws ``PJSUAError/Code/unsupported``.
    public static var supportsVideo: Bool { cpjsua_has_video != 0 }

    /// Places a call with video (and audio).
    ///
    /// Drives `pjsua_call_make_call()` with one video stream in the call settings: the offer has
    /// an `m=video` line with every enabled video codec (``videoCodecs()``). Our video goes out
    /// as soon as the stream is up, from `video.captureDevice`, unless `video` says otherwise.
    /// ``Event/videoMedia(call:streams:)`` reports the stream.
    public func makeCall(to uri: SIPURI, from account: Account? = nil, headers: [SIPHeader] = [], video: VideoOptions) throws -> Call {
        try Self.requireVideo()
        let call = try placeCall(to: uri, from: account, headers: headers, setting: Self.callSetting(video: video))
        VideoWiring.remember(video, for: call, in: try requireRunning())
        return call
    }

    /// Answers an incoming call accepting the video it offers (an offer without video is answered
    /// with audio alone, and video can be added later by either side).
    ///
    /// Drives `pjsua_call_answer2()` with one video stream in the call settings. The same settings
    /// answer the peer's later re-INVITEs, so the peer can add video afterwards.
    public func answer(_ call: Call, code: SIPResponseCode = .ok, headers: [SIPHeader] = [], video: VideoOptions) throws {
        try Self.requireVideo()
        VideoWiring.remember(video, for: call, in: try requireRunning())
        try respond(to: call, code: code, headers: headers, setting: Self.callSetting(video: video))
    }

    /// The call settings of a video call: one audio and one video stream in `video`'s direction.
    static func callSetting(video: VideoOptions) -> pjsua_call_setting {
        var setting = callSetting()
        setting.vid_cnt = 1
        if video.direction != .sendReceive {
            // media_dir is indexed by new media, audio first, then video (pjsua.h).
            setting.flag |= UInt32(PJSUA_CALL_SET_MEDIA_DIR.rawValue)
            withUnsafeMutableBytes(of: &setting.media_dir) { raw in
                let directions = raw.bindMemory(to: pjmedia_dir.self)
                for index in directions.indices { directions[index] = PJMEDIA_DIR_ENCODING_DECODING }
                directions[1] = video.direction.pjmedia
            }
        }
        return setting
    }

    /// Adds a video stream to a live call: a re-INVITE (or UPDATE) with a new `m=video` line.
    ///
    /// Drives `pjsua_call_set_vid_strm(PJSUA_CALL_VID_STRM_ADD)`. The outcome arrives as
    /// ``Event/videoMedia(call:streams:)``; a peer that declines leaves the stream inactive.
    public func addVideo(to call: Call, options video: VideoOptions = VideoOptions()) throws {
        let slot = try resolve(call)
        try Self.requireVideo()
        var parameters = pjsua_call_vid_strm_op_param()
        pjsua_call_vid_strm_op_param_default(&parameters)
        parameters.dir = video.direction.pjmedia
        if let device = video.captureDevice { parameters.cap_dev = pjmedia_vid_dev_index(device.rawValue) }
        VideoWiring.remember(VideoOptions(captureDevice: nil, direction: video.direction, transmitsAtOnce: video.transmitsAtOnce), for: call,
                             in: try requireRunning())
        try check(pjsua_call_set_vid_strm(slot, PJSUA_CALL_VID_STRM_ADD, &parameters), "cannot add video to \(call)")
    }

    /// Removes a call's video stream (its `m=video` line gets port 0): a re-INVITE or UPDATE.
    ///
    /// Drives `pjsua_call_set_vid_strm(PJSUA_CALL_VID_STRM_REMOVE)`.
    public func removeVideo(from call: Call) throws {
        try videoOperation(PJSUA_CALL_VID_STRM_REMOVE, on: call, "cannot remove the video of \(call)")
    }

    /// Changes the direction of a call's video stream (for example to ``VideoDirection/receiveOnly``
    /// to stop showing the camera while still watching the peer): a re-INVITE or UPDATE.
    ///
    /// Drives `pjsua_call_set_vid_strm(PJSUA_CALL_VID_STRM_CHANGE_DIR)`.
    public func setVideoDirection(_ direction: VideoDirection, of call: Call) throws {
        try videoOperation(PJSUA_CALL_VID_STRM_CHANGE_DIR, on: call, "cannot change the video direction of \(call)") {
            $0.dir = direction.pjmedia
        }
    }

    /// Starts (again) sending our video on a call whose video stream is up; no SIP is sent.
    ///
    /// Drives `pjsua_call_set_vid_strm(PJSUA_CALL_VID_STRM_START_TRANSMIT)`.
    public func startVideoTransmission(_ call: Call) throws {
        try videoOperation(PJSUA_CALL_VID_STRM_START_TRANSMIT, on: call, "cannot start sending video on \(call)")
    }

    /// Pauses sending our video (the stream stays negotiated); no SIP is sent. Stopping a call
    /// that sends no video already does nothing.
    ///
    /// Drives `pjsua_call_set_vid_strm(PJSUA_CALL_VID_STRM_STOP_TRANSMIT)`, only while the call
    /// holds its capture (a second stop in pjsua aborts when another call shares the capture
    /// device: docs/KNOWN-LIMITS.md KL-59).
    public func stopVideoTransmission(_ call: Call) throws {
        try videoOperation(on: call, "cannot stop sending video on \(call)") { slot, _ in VideoWiring.stopTransmission(slot) }
    }

    /// Switches the capture device of a call's video mid-call (say, front to back camera); no
    /// SIP is sent.
    ///
    /// Drives `pjsua_call_set_vid_strm(PJSUA_CALL_VID_STRM_CHANGE_CAP_DEV)`.
    public func setVideoCaptureDevice(_ device: VideoDevice.ID, of call: Call) throws {
        let devices = try videoDevices()
        guard device == .defaultCapture || devices.contains(where: { $0.id == device && $0.canCapture }) else {
            throw PJSUAError(.invalidArgument, "\(device) is not a capture device; capture devices: \(devices.filter(\.canCapture).map(\.description).joined(separator: "; "))")
        }
        try videoOperation(PJSUA_CALL_VID_STRM_CHANGE_CAP_DEV, on: call, "cannot switch the capture device of \(call)") {
            $0.cap_dev = pjmedia_vid_dev_index(device.rawValue)
        }
    }

    /// Makes our encoder send a keyframe now (for a peer that lost pictures, or a new viewer).
    ///
    /// pjmedia sends at most one keyframe a second (`PJMEDIA_VID_STREAM_MIN_KEYFRAME_INTERVAL_MSEC`)
    /// and sends several by itself when the stream starts; within that second this returns false
    /// and sends nothing more (the keyframe just sent serves the same purpose).
    ///
    /// Drives `pjsua_call_set_vid_strm(PJSUA_CALL_VID_STRM_SEND_KEYFRAME)`.
    /// - Returns: true when a keyframe will go out with the next picture.
    @discardableResult
    public func sendKeyframe(on call: Call) throws -> Bool {
        do {
            try videoOperation(PJSUA_CALL_VID_STRM_SEND_KEYFRAME, on: call, "cannot send a keyframe on \(call)")
            return true
        } catch let error as PJSUAError where error.status == cpjsua_status_etoomany {
            return false
        }
    }

    private func videoOperation(_ operation: pjsua_call_vid_strm_op, on call: Call, _ what: @autoclosure () -> String,
                                _ configure: (inout pjsua_call_vid_strm_op_param) -> Void = { _ in }) throws {
        try videoOperation(on: call, what()) { slot, parameters in
            configure(&parameters)
            return pjsua_call_set_vid_strm(slot, operation, &parameters)
        }
    }

    private func videoOperation(on call: Call, _ what: @autoclosure () -> String,
                                _ operation: (pjsua_call_id, inout pjsua_call_vid_strm_op_param) -> pj_status_t) throws {
        let slot = try resolve(call)
        try Self.requireVideo()
        guard pjsua_call_get_vid_stream_idx(slot) >= 0 else {
            throw PJSUAError(.mediaNotActive, "\(what()): the call has no video stream")
        }
        var parameters = pjsua_call_vid_strm_op_param()
        pjsua_call_vid_strm_op_param_default(&parameters)
        try check(operation(slot, &parameters), what())
    }

    /// The video streams of a live call, as pjsua sees them now.
    ///
    /// Drives `pjsua_call_get_info()`.
    public func videoStreams(of call: Call) throws -> [VideoStream] {
        try withLiveCallInfo(call) { info in readVideoStreams(call.slot, info) }
    }

    /// The video devices pjmedia knows (cameras, the colour-bar generators, renderers).
    ///
    /// Drives `pjsua_vid_enum_devs()`.
    public func videoDevices() throws -> [VideoDevice] {
        try requireRunning()
        try Self.requireVideo()
        var infos = [pjmedia_vid_dev_info](repeating: pjmedia_vid_dev_info(), count: 32)
        var count = UInt32(infos.count)
        try check(pjsua_vid_enum_devs(&infos, &count), "pjsua_vid_enum_devs")
        return infos.prefix(Int(count)).map { info in
            var info = info
            let name = withUnsafeBytes(of: &info.name) { String(fixedCString: $0) }
            let driver = withUnsafeBytes(of: &info.driver) { String(fixedCString: $0) }
            return VideoDevice(id: VideoDevice.ID(rawValue: Int(info.id)), name: name, driver: driver,
                               canCapture: info.dir == PJMEDIA_DIR_CAPTURE || info.dir == PJMEDIA_DIR_CAPTURE_RENDER,
                               canRender: info.dir == PJMEDIA_DIR_RENDER || info.dir == PJMEDIA_DIR_CAPTURE_RENDER)
        }
    }

    /// The figures of a call's video stream now.
    ///
    /// Drives `pjsua_call_get_stream_info()` and `pjsua_call_get_stream_stat()`.
    /// - Throws: ``PJSUAError/Code/mediaNotActive`` when the call has no video stream.
    public func videoStatistics(of call: Call) throws -> VideoStatistics {
        let slot = try resolve(call)
        try Self.requireVideo()
        let found: (index: Int, direction: VideoDirection)? = try withLiveCallInfo(call) { info in
            media(PJMEDIA_TYPE_VIDEO, of: info).first { videoFlows($0.media) }
                .map { ($0.index, VideoDirection($0.media.dir)) }
        }
        guard let found else { throw PJSUAError(.mediaNotActive, "\(call) has no active video stream") }
        var stream = pjsua_stream_info()
        try check(pjsua_call_get_stream_info(slot, UInt32(found.index), &stream), "pjsua_call_get_stream_info")
        guard stream.type == PJMEDIA_TYPE_VIDEO else { throw PJSUAError(.mediaNotActive, "\(call) has no video stream") }
        var stat = pjsua_stream_stat()
        try check(pjsua_call_get_stream_stat(slot, UInt32(found.index), &stat), "pjsua_call_get_stream_stat")
        let codecInfo = stream.info.vid.codec_info
        let codec = "\(String(pj: codecInfo.encoding_name))/\(codecInfo.clock_rate)"
        let picture: (pjmedia_format?) -> (VideoSize, Double) = { format in
            guard let video = format?.det.vid else { return (VideoSize(width: 0, height: 0), 0) }
            let rate = video.fps.denum > 0 ? Double(video.fps.num) / Double(video.fps.denum) : 0
            return (VideoSize(width: Int(video.size.w), height: Int(video.size.h)), rate)
        }
        let parameters = stream.info.vid.codec_param?.pointee
        let (sendSize, sendRate) = picture(parameters?.enc_fmt)
        let (receiveSize, receiveRate) = picture(parameters?.dec_fmt)
        var now = pj_time_val()
        pj_gettimeofday(&now)
        let started = stat.rtcp.start
        let elapsedMilliseconds = max(0, (Int(now.sec) - Int(started.sec)) * 1000 + Int(now.msec) - Int(started.msec))
        return VideoStatistics(codec: codec, direction: found.direction, sendSize: sendSize, sendFrameRate: sendRate,
                               receiveSize: receiveSize, receiveFrameRate: receiveRate,
                               sent: RTPStatistics(stat.rtcp.tx), received: RTPStatistics(stat.rtcp.rx),
                               elapsed: .milliseconds(elapsedMilliseconds), framesReceived: VideoWiring.framesReceived(call, in: try requireRunning()))
    }

    /// Starts delivering a call's decoded incoming pictures to the app: for apps that render
    /// themselves, and for bots that analyse video.
    ///
    /// Frames arrive at the size the peer sends. That size is known once the first picture has
    /// been decoded, so this waits for it (at most `timeout`); a peer that later changes size is
    /// scaled to the first one by pjsua's video bridge.
    ///
    /// Drives `pjsua_vid_conf_add_port()` and `pjsua_vid_conf_connect()` (an I420 sink on pjsua's
    /// video bridge, fed by the call's decoding port). At most `limit` pictures wait in the
    /// sequence; older ones are dropped.
    /// - Throws: ``PJSUAError/Code/mediaNotActive`` when the call receives no video, or
    ///   ``PJSUAError/Code/timedOut`` when no picture was decoded within `timeout`.
    public func receiveVideo(from call: Call, bufferingNewest limit: Int = 30, timeout: Duration = .seconds(5)) async throws -> VideoFrames {
        _ = try resolve(call)
        try Self.requireVideo()
        guard (1...1000).contains(limit) else {
            throw PJSUAError(.invalidArgument, "video frame buffer \(limit) is out of range 1...1000")
        }
        guard VideoWiring.incoming(call.slot) != nil else {
            throw PJSUAError(.mediaNotActive, "\(call) receives no video (none negotiated, or not active yet)")
        }
        // Until the decoder has produced a picture, the decoding port's format is only the bound
        // of the codec's fmtp (656x656 for H.264 level 3.1, 1088x1088 for our VP8); pjmedia sets
        // the real size on its first format-changed event (vid_stream.c).
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while VideoWiring.framesReceived(call, in: try requireRunning()) == 0 {
            guard ContinuousClock.now < deadline else {
                throw PJSUAError(.timedOut, "no video picture from \(call) within \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(10))
            _ = try resolve(call)
        }
        return try VideoWiring.subscribe(call, bufferingNewest: limit, in: try requireRunning())
    }

    /// Ends a frame subscription; its sequence finishes.
    ///
    /// Drives `pjsua_vid_conf_remove_port()`.
    public func stopReceivingVideo(_ subscription: VideoSubscription) throws {
        VideoWiring.unsubscribe(subscription, in: try requireRunning())
    }

    /// The window pjsua renders a call's incoming video in, if any (pjsua creates one per
    /// incoming video stream, hidden; see ``setVideoWindowShown(_:to:)``).
    ///
    /// Drives `pjsua_call_get_vid_win()` and `pjsua_vid_win_get_info()`.
    public func videoWindow(of call: Call) throws -> VideoWindowInfo? {
        let slot = try resolve(call)
        try Self.requireVideo()
        let window = pjsua_call_get_vid_win(slot)
        guard window != PJSUA_INVALID_ID.rawValue else { return nil }
        return try videoWindowInfo(VideoWindow(rawValue: Int(window)))
    }

    /// What pjsua says about a video window now.
    ///
    /// Drives `pjsua_vid_win_get_info()`.
    public func videoWindowInfo(_ window: VideoWindow) throws -> VideoWindowInfo {
        try requireRunning()
        try Self.requireVideo()
        var info = pjsua_vid_win_info()
        try check(pjsua_vid_win_get_info(try Self.windowID(window), &info), "pjsua_vid_win_get_info(\(window))")
        let handle = UInt(bitPattern: info.hwnd.info.window)
        return VideoWindowInfo(window: window, renderer: VideoDevice.ID(rawValue: Int(info.rdr_dev)), isShown: info.show != 0,
                               size: VideoSize(width: Int(info.size.w), height: Int(info.size.h)), nativeHandle: handle == 0 ? nil : handle)
    }

    /// Shows (`to: true`) or hides a video window.
    ///
    /// Drives `pjsua_vid_win_set_show()`.
    public func setVideoWindowShown(_ window: VideoWindow, to shown: Bool) throws {
        try requireRunning()
        try Self.requireVideo()
        try check(pjsua_vid_win_set_show(try Self.windowID(window), shown ? 1 : 0), "pjsua_vid_win_set_show(\(window))")
    }

    /// Every account's video settings. Only calls given ``VideoOptions`` have a video stream
    /// (the call settings of every other call have `vid_cnt` 0), so these matter only for them:
    /// our video goes out as soon as a video stream is up (``VideoOptions/transmitsAtOnce`` false
    /// stops it in the media callback, before pjsua's delayed start of encoding), and pjsua's window for the incoming video stays hidden until
    /// ``setVideoWindowShown(_:to:)`` (a server has no screen; an app usually draws frames itself).
    static func setVideoDefaults(_ config: inout pjsua_acc_config) {
        config.vid_out_auto_transmit = 1
        config.vid_in_auto_show = 0
    }

    static func requireVideo() throws(PJSUAError) {
        guard supportsVideo else {
            throw PJSUAError(.unsupported, "this PJSIP build has no video (PJMEDIA_HAS_VIDEO is 0)")
        }
    }
}

/// Whether a call's video media holds a capture window: pjsua reports the stream's capture
/// device (`cap_dev`) only then (pjsua_call.c `pjsua_call_get_info`).
func holdsCaptureWindow(_ media: pjsua_call_media_info) -> Bool {
    media.stream.vid.cap_dev != PJMEDIA_VID_INVALID_DEV.rawValue
}

/// The video streams of a call, read in place from its info.
func readVideoStreams(_ slot: pjsua_call_id, _ info: UnsafePointer<pjsua_call_info>) -> [PJSUA.VideoStream] {
    media(PJMEDIA_TYPE_VIDEO, of: info).map { item in
        let video = item.media.stream.vid
        let active = videoFlows(item.media)
        let direction = PJSUA.VideoDirection(item.media.dir)
        // Without a capture window the encoder may still run (pjsua's delayed start resumes it
        // after a stop made in the media update) but has no picture to send.
        let captures = holdsCaptureWindow(item.media)
        return PJSUA.VideoStream(
            index: item.index, state: PJSUA.MediaState(item.media.status), direction: direction,
            isSending: active && direction.sends && captures
                && pjsua_call_vid_stream_is_running(slot, Int32(item.index), PJMEDIA_DIR_ENCODING) != 0,
            isReceiving: active && direction.receives && pjsua_call_vid_stream_is_running(slot, Int32(item.index), PJMEDIA_DIR_DECODING) != 0,
            captureDevice: !captures || !active ? nil : PJSUA.VideoDevice.ID(rawValue: Int(video.cap_dev)),
            window: video.win_in == PJSUA_INVALID_ID.rawValue || !active ? nil : PJSUA.VideoWindow(rawValue: Int(video.win_in)))
    }
}
