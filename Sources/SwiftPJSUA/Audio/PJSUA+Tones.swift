import PJSIP

/// A pjmedia tone generator on the conference bridge: its port (whose pool goes with it) and its
/// slot. Created, used and destroyed on the engine's executor thread only (actor state).
final class ToneSource {
    let port: UnsafeMutablePointer<pjmedia_port>
    let slot: pjsua_conf_port_id
    /// The call it plays into; nil for the local sound device (slot 0).
    let call: PJSUA.Call?

    /// Creates a generator with the bridge's clock and frame size (pjsua_conf_get_port_info of
    /// slot 0), so the bridge needs no resampling, and adds it to the bridge.
    init(name: String, call: PJSUA.Call?) throws(PJSUAError) {
        var bridge = pjsua_conf_port_info()
        try check(pjsua_conf_get_port_info(0, &bridge), "pjsua_conf_get_port_info")
        guard let pool = pjsua_pool_create(name, 512, 512) else {
            throw PJSUAError(.pjsip, "cannot allocate a memory pool for a tone generator")
        }
        var created: UnsafeMutablePointer<pjmedia_port>?
        let status = pjmedia_tonegen_create(pool, bridge.clock_rate, 1, bridge.samples_per_frame / max(bridge.channel_count, 1), 16, 0, &created)
        guard status == pjSuccess, let port = created else {
            pj_pool_release(pool)
            throw PJSUAError(status: status, operation: "pjmedia_tonegen_create")
        }
        let kept = BridgePortLifetime.attach(port, pool: pool)
        guard kept == pjSuccess else { throw PJSUAError(status: kept, operation: "pjmedia_port_init_grp_lock") }
        var slot: pjsua_conf_port_id = -1
        let added = pjsua_conf_add_port(pool, port, &slot)
        guard added == pjSuccess else {
            pjmedia_port_destroy(port)  // the port's last reference: it goes, and its pool with it
            throw PJSUAError(status: added, operation: "pjsua_conf_add_port")
        }
        self.port = port
        self.slot = slot
        self.call = call
    }

    /// Connects the generator to the bridge slot it plays into (idempotent).
    func connect(to listener: pjsua_conf_port_id) throws(PJSUAError) {
        try check(pjsua_conf_connect(slot, listener), "cannot connect a tone generator")
    }

    /// Plays tones; `repeating` loops them until stopped.
    func play(_ segments: [PJSUA.ToneSegment], repeating: Bool) throws(PJSUAError) {
        var tones = segments.map { segment in
            pjmedia_tone_desc(freq1: Int16(segment.frequency1), freq2: Int16(segment.frequency2),
                              on_msec: Int16(segment.on.wholeMilliseconds), off_msec: Int16(segment.off.wholeMilliseconds),
                              volume: 0, flags: 0)
        }
        pjmedia_tonegen_stop(port)
        try check(pjmedia_tonegen_play(port, UInt32(tones.count), &tones, repeating ? UInt32(PJMEDIA_TONEGEN_LOOP) : 0),
                  "pjmedia_tonegen_play")
    }

    /// Queues DTMF digits behind any still playing.
    func play(digits: String, on: Duration, off: Duration) throws(PJSUAError) {
        var queue = digits.uppercased().utf8.map { byte in
            pjmedia_tone_digit(digit: CChar(bitPattern: byte), on_msec: Int16(on.wholeMilliseconds),
                               off_msec: Int16(off.wholeMilliseconds), volume: 0)
        }
        try check(pjmedia_tonegen_play_digits(port, UInt32(queue.count), &queue, 0), "pjmedia_tonegen_play_digits")
    }

    /// Whether tones are still queued or playing.
    var isBusy: Bool { pjmedia_tonegen_is_busy(port) != 0 }

    /// Takes the generator off the bridge and drops our reference: the port and its pool go
    /// once the bridge has applied the removal (``BridgePortLifetime``).
    func destroy() {
        pjsua_conf_remove_port(slot)
        pjmedia_port_destroy(port)
    }
}

extension PJSUA {
    /// Plays a tone into a call (the remote party hears it) or, with no call, to the local
    /// sound device (the user hears it: ringback while the far end rings, keypad feedback).
    /// Repeating tones play until ``stopTone(_:)``; others end by themselves, and their
    /// generator is released at the next tone, when its call ends, or at shutdown.
    ///
    /// Drives `pjmedia_tonegen_create()`, `pjmedia_tonegen_play()` /
    /// `pjmedia_tonegen_play_digits()`, `pjsua_conf_add_port()` and `pjsua_conf_connect()`.
    public func playTone(_ tone: Tone, on call: Call? = nil) throws -> TonePlayer {
        let run = try requireRunning()
        let listener: pjsua_conf_port_id = try call.map { call throws(PJSUAError) in try audioPort(of: call) } ?? 0
        try Self.validate(tone)
        releaseFinishedTones()
        let source = try ToneSource(name: "tone", call: call)
        do {
            switch tone {
            case .ringback:
                try source.play([ToneSegment(frequency1: 440, frequency2: 480, on: .seconds(2), off: .seconds(4))], repeating: true)
            case .busy:
                try source.play([ToneSegment(frequency1: 480, frequency2: 620, on: .milliseconds(500), off: .milliseconds(500))], repeating: true)
            case let .dtmf(digits):
                try source.play(digits: digits, on: .milliseconds(100), off: .milliseconds(50))
            case let .custom(segments, repeating):
                try source.play(segments, repeating: repeating)
            }
            try source.connect(to: listener)
        } catch {
            source.destroy()
            throw error
        }
        let token = HandleToken.next()
        run.withStateUnchecked { $0.callMedia.tones[token] = source }
        return TonePlayer(slot: source.slot, token: token)
    }

    /// Stops a tone and releases its generator; does nothing for a tone already released
    /// (a one-shot tone that ended, a tone whose call ended).
    ///
    /// Drives `pjsua_conf_remove_port()` and `pjmedia_port_destroy()`.
    public func stopTone(_ player: TonePlayer) throws {
        let run = try requireRunning()
        run.withState { $0.callMedia.tones.removeValue(forKey: player.token) }?.destroy()
    }

    /// Whether a tone is still sounding (a one-shot tone ends by itself).
    public func isPlaying(_ player: TonePlayer) throws -> Bool {
        let run = try requireRunning()
        return run.withState { $0.callMedia.tones[player.token] }?.isBusy ?? false
    }

    private static func validate(_ tone: Tone) throws(PJSUAError) {
        switch tone {
        case .ringback, .busy: return
        case let .dtmf(digits):
            try validateDTMF(digits, limit: 32)
        case let .custom(segments, _):
            guard (1...32).contains(segments.count) else {
                throw PJSUAError(.invalidArgument, "a tone needs 1...32 segments, not \(segments.count)")
            }
            for segment in segments {
                guard (1...8000).contains(segment.frequency1), (0...8000).contains(segment.frequency2) else {
                    throw PJSUAError(.invalidArgument, "tone frequencies \(segment.frequency1)/\(segment.frequency2) Hz are outside 1...8000 Hz")
                }
                let range = Duration.milliseconds(1)...Duration.milliseconds(30_000)
                guard range.contains(segment.on), segment.off >= .zero, segment.off <= .milliseconds(30_000) else {
                    throw PJSUAError(.invalidArgument, "a tone segment lasts 1 ms...30 s with 0...30 s of silence after it")
                }
            }
        }
    }

    /// Releases one-shot tones that finished and tones of calls that ended.
    func releaseFinishedTones() {
        guard let run else { return }
        let media = run.withState { $0.callMedia }
        for (token, source) in media.tones where !source.isBusy || source.call.map({ !isLive($0) }) ?? false {
            source.destroy()
            run.withState { _ = $0.callMedia.tones.removeValue(forKey: token) }
        }
    }
}
