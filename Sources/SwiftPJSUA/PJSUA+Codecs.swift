import PJSIP

extension PJSUA {
    /// An audio codec and its priority (0 disables it; higher is preferred).
    public struct Codec: Sendable, Hashable, CustomStringConvertible {
        /// PJMEDIA's codec id, e.g. `PCMU/8000/1` or `opus/48000/2`.
        public let id: String
        /// The priority, 0...255.
        public let priority: Int

        public var description: String { "\(id) (priority \(priority))" }
    }

    /// The audio codecs available, with their priorities.
    ///
    /// Drives `pjsua_enum_codecs()`.
    public func codecs() throws -> [Codec] {
        try requireRunning()
        var infos = [pjsua_codec_info](repeating: pjsua_codec_info(), count: 64)
        var count = UInt32(infos.count)
        try check(pjsua_enum_codecs(&infos, &count), "pjsua_enum_codecs")
        return infos.prefix(Int(count)).map { Codec(id: String(pj: $0.codec_id), priority: Int($0.priority)) }
    }

    /// Sets a codec's priority; 0 disables it. `id` may be a prefix such as `PCMU` (PJMEDIA's
    /// matching), or empty for all codecs.
    ///
    /// Drives `pjsua_codec_set_priority()`.
    public func setCodecPriority(_ id: String, _ priority: Int) throws {
        try requireRunning()
        guard (0...255).contains(priority) else {
            throw PJSUAError(.invalidArgument, "codec priority \(priority) is out of range 0...255")
        }
        try Validation.headerValue(id, what: "codec id", maxLength: 64)
        try withCStringArena { arena throws(PJSUAError) in
            var codec = arena.pj(id)
            try check(pjsua_codec_set_priority(&codec, UInt8(priority)), "cannot set priority of codec \(Validation.quoted(id))")
        }
    }

    /// Makes `ids` the only enabled codecs, preferred in the given order.
    public func useCodecs(_ ids: [String]) throws {
        guard !ids.isEmpty else { throw PJSUAError(.invalidArgument, "at least one codec is needed") }
        let known = try codecs()
        for id in ids where !known.contains(where: { $0.id.lowercased().hasPrefix(id.lowercased()) }) {
            throw PJSUAError(.invalidArgument, "unknown codec \(Validation.quoted(id)); available: \(known.map(\.id).joined(separator: ", "))")
        }
        try setCodecPriority("", 0)
        for (index, id) in ids.enumerated() {
            try setCodecPriority(id, 254 - index)
        }
    }

    /// Statistics of a call's audio stream.
    public struct MediaStatistics: Sendable, Hashable {
        /// The codec in use, e.g. `PCMU/8000`.
        public let codec: String
        /// RTP packets sent.
        public let packetsSent: Int
        /// RTP packets received.
        public let packetsReceived: Int
        /// Received packets lost.
        public let packetsLost: Int
        /// Mean receive jitter in microseconds.
        public let jitterMicroseconds: Int
    }

    /// The codec and RTP statistics of a call's audio.
    ///
    /// Drives `pjsua_call_get_stream_info()` and `pjsua_call_get_stream_stat()`.
    public func mediaStatistics(_ call: Call) throws -> MediaStatistics {
        let slot = call.slot
        guard let index = try withLiveCallInfo(call, { info in audioMedia(info).first.map { UInt32($0.index) } }) else {
            throw PJSUAError(.mediaNotActive, "\(call) has no audio stream")
        }
        var stream = pjsua_stream_info()
        try check(pjsua_call_get_stream_info(slot, index, &stream), "pjsua_call_get_stream_info")
        var stat = pjsua_stream_stat()
        try check(pjsua_call_get_stream_stat(slot, index, &stat), "pjsua_call_get_stream_stat")
        let format = stream.info.aud.fmt
        return MediaStatistics(
            codec: "\(String(pj: format.encoding_name))/\(format.clock_rate)",
            packetsSent: Int(stat.rtcp.tx.pkt), packetsReceived: Int(stat.rtcp.rx.pkt),
            packetsLost: Int(stat.rtcp.rx.loss), jitterMicroseconds: Int(stat.rtcp.rx.jitter.mean))
    }
}
