import PJSIP

extension PJSUA {
    /// The video codecs available, with their priorities, most preferred first (codecs with
    /// priority 0 are disabled and not offered).
    ///
    /// Drives `pjsua_vid_enum_codecs()`.
    public func videoCodecs() throws -> [Codec] {
        try requireRunning()
        try Self.requireVideo()
        var infos = [pjsua_codec_info](repeating: pjsua_codec_info(), count: 32)
        var count = UInt32(infos.count)
        try check(pjsua_vid_enum_codecs(&infos, &count), "pjsua_vid_enum_codecs")
        return infos.withUnsafeBufferPointer { buffer in
            buffer.prefix(Int(count)).map { Codec(id: String(pj: $0.codec_id), priority: Int($0.priority)) }
        }.enumerated().sorted { ($0.element.priority, -$0.offset) > ($1.element.priority, -$1.offset) }.map(\.element)
    }

    /// Sets a video codec's priority; 0 disables it. `id` may be a prefix such as `VP8` or
    /// `H264` (pjmedia's matching), or empty for all video codecs.
    ///
    /// Drives `pjsua_vid_codec_set_priority()`.
    public func setVideoCodecPriority(_ id: String, to priority: Int) throws {
        try requireRunning()
        try Self.requireVideo()
        guard (0...255).contains(priority) else {
            throw PJSUAError(.invalidArgument, "video codec priority \(priority) is out of range 0...255")
        }
        try Validation.headerValue(id, what: "video codec id", maxLength: 64)
        try withCStringArena { arena throws(PJSUAError) in
            var codec = arena.pj(id)
            try check(pjsua_vid_codec_set_priority(&codec, UInt8(priority)), "cannot set priority of video codec \(Validation.quoted(id))")
        }
    }

    /// Makes `ids` the only enabled video codecs, preferred in the given order (`["VP8"]`,
    /// `["H264", "VP8"]`).
    public func useVideoCodecs(_ ids: [String]) throws {
        guard !ids.isEmpty else { throw PJSUAError(.invalidArgument, "at least one video codec is needed") }
        let known = try videoCodecs()
        for id in ids where !known.contains(where: { $0.id.lowercased().hasPrefix(id.lowercased()) }) {
            throw PJSUAError(.invalidArgument, "unknown video codec \(Validation.quoted(id)); available: \(known.map(\.id).joined(separator: ", "))")
        }
        try setVideoCodecPriority("", to: 0)
        for (index, id) in ids.enumerated() {
            try setVideoCodecPriority(id, to: 254 - index)
        }
    }

    /// A video codec's encoding settings (size, frame rate, bitrate). `id` may be a prefix such
    /// as `VP8` or `H264`.
    ///
    /// Drives `pjsua_vid_codec_get_param()`.
    public func videoCodecSettings(_ id: String) throws -> VideoCodecSettings {
        try requireRunning()
        try Self.requireVideo()
        try Validation.headerValue(id, what: "video codec id", maxLength: 64)
        var parameters = pjmedia_vid_codec_param()
        try withCStringArena { arena throws(PJSUAError) in
            var codec = arena.pj(id)
            try check(pjsua_vid_codec_get_param(&codec, &parameters), "cannot read the settings of video codec \(Validation.quoted(id))")
        }
        let video = parameters.enc_fmt.det.vid
        return VideoCodecSettings(size: VideoSize(width: Int(video.size.w), height: Int(video.size.h)),
                                  frameRate: video.fps.denum > 0 ? Int(video.fps.num / video.fps.denum) : 0,
                                  averageBitrate: Int(video.avg_bps), maxBitrate: Int(video.max_bps))
    }

    /// Changes what a video codec encodes, for the calls set up from now on (for example
    /// 640x480 at 15 fps and 512 kbit/s). `id` may be a prefix such as `VP8` or `H264`.
    ///
    /// Drives `pjsua_vid_codec_get_param()` and `pjsua_vid_codec_set_param()`.
    public func setVideoCodecSettings(_ id: String, to settings: VideoCodecSettings) throws {
        try requireRunning()
        try Self.requireVideo()
        try settings.validate()
        try Validation.headerValue(id, what: "video codec id", maxLength: 64)
        try withCStringArena { arena throws(PJSUAError) in
            var codec = arena.pj(id)
            var parameters = pjmedia_vid_codec_param()
            try check(pjsua_vid_codec_get_param(&codec, &parameters), "cannot read the settings of video codec \(Validation.quoted(id))")
            parameters.enc_fmt.det.vid.size = pjmedia_rect_size(w: UInt32(settings.size.width), h: UInt32(settings.size.height))
            parameters.enc_fmt.det.vid.fps = pjmedia_ratio(num: Int32(settings.frameRate), denum: 1)
            parameters.enc_fmt.det.vid.avg_bps = UInt32(settings.averageBitrate)
            parameters.enc_fmt.det.vid.max_bps = UInt32(settings.maxBitrate)
            try check(pjsua_vid_codec_set_param(&codec, &parameters), "cannot change the settings of video codec \(Validation.quoted(id))")
        }
    }
}
