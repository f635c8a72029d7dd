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

    /// The audio codecs available, with their priorities, most preferred first (the order of
    /// the SDP offer; codecs with priority 0 are disabled and not offered).
    ///
    /// Drives `pjsua_enum_codecs()`.
    public func codecs() throws -> [Codec] {
        try requireRunning()
        var infos = [pjsua_codec_info](repeating: pjsua_codec_info(), count: 64)
        var count = UInt32(infos.count)
        try check(pjsua_enum_codecs(&infos, &count), "pjsua_enum_codecs")
        return infos.prefix(Int(count)).map { Codec(id: String(pj: $0.codec_id), priority: Int($0.priority)) }
            .enumerated().sorted { ($0.element.priority, -$0.offset) > ($1.element.priority, -$1.offset) }.map(\.element)
    }

    /// Sets a codec's priority; 0 disables it. `id` may be a prefix such as `PCMU` (PJMEDIA's
    /// matching), or empty for all codecs.
    ///
    /// Drives `pjsua_codec_set_priority()`.
    public func setCodecPriority(_ id: String, to priority: Int) throws {
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
        try setCodecPriority("", to: 0)
        for (index, id) in ids.enumerated() {
            try setCodecPriority(id, to: 254 - index)
        }
    }

    /// Puts `ids` (those the build has) ahead of every other codec, in order, leaving the rest
    /// enabled behind them: ``Configuration/preferredCodecs`` at start.
    func preferCodecs(_ ids: [String]) throws(PJSUAError) {
        guard !ids.isEmpty else { return }
        var infos = [pjsua_codec_info](repeating: pjsua_codec_info(), count: 64)
        var count = UInt32(infos.count)
        try check(pjsua_enum_codecs(&infos, &count), "pjsua_enum_codecs")
        let known = infos.prefix(Int(count)).map { String(pj: $0.codec_id).lowercased() }
        // PJMEDIA_CODEC_PRIO_HIGHEST is 255; pjmedia's own defaults stay below 255 - ids.count.
        for (index, id) in ids.enumerated() where known.contains(where: { $0.hasPrefix(id.lowercased()) }) {
            // validateCallMedia bounds the list; clamped all the same, so no list traps here.
            let priority = UInt8(clamping: 255 - index)
            try withCStringArena { arena throws(PJSUAError) in
                var codec = arena.pj(id)
                try check(pjsua_codec_set_priority(&codec, priority), "cannot prefer codec \(Validation.quoted(id))")
            }
        }
    }
}
