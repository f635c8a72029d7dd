import PJSIP

extension PJSUA {
    /// Receives a call's audio as frames in `format` (the bridge resamples from the call's
    /// codec). Works with any clocked device, including the null device on a server; with no
    /// device at all (``AudioDeviceMode/none`` before activation) frames start
    /// when the device does (KL-23).
    ///
    /// Adds a pjmedia port to the conference bridge (`pjsua_conf_add_port()`) and connects the
    /// call's slot to it (`pjsua_conf_connect()`). Several readers per call are allowed.
    /// - Parameters:
    ///   - call: a call whose audio is active.
    ///   - format: the sample rate and frame duration the app reads.
    ///   - limit: how far (in frames) the app may fall behind before the oldest frames are
    ///     dropped (1...10000): the newest `limit` frames are kept, as with
    ///     ``receiveVideo(from:bufferingNewest:timeout:)``.
    /// - Throws: ``PJSUAError/Code/mediaNotActive`` before the call's audio is up,
    ///   ``PJSUAError/Code/invalidArgument`` for a bad `limit`.
    public func receiveAudio(from call: Call, format: AudioFormat = AudioFormat(), bufferingNewest limit: Int = 50) throws -> AudioFrames {
        guard (1...10_000).contains(limit) else {
            throw PJSUAError(.invalidArgument, "bufferingNewest must be 1...10000 frames, not \(limit)")
        }
        let channel = try attachFrames(call, format: format, direction: .receive, capacityFrames: limit)
        return AudioFrames(channel: channel)
    }

    /// Sends audio into a call from frames in `format` (the bridge resamples to the call's
    /// codec), through a queue of at most `capacity`.
    ///
    /// Adds a pjmedia port to the conference bridge (`pjsua_conf_add_port()`) and connects it to
    /// the call's slot (`pjsua_conf_connect()`); the call also keeps hearing the sound device
    /// and players connected to it. The writer is not the microphone: ``setMuted(_:to:)`` does
    /// not silence it (``AudioFrameWriter/flush()`` and ``stopSending(_:)`` do).
    /// - Parameters:
    ///   - call: a call whose audio is active.
    ///   - format: the sample rate and frame duration the app writes.
    ///   - capacity: the most audio queued at once (1 ms to 10 minutes; rounded up to whole
    ///     frames).
    ///   - whenFull: what a write does when the queue is full.
    /// - Throws: ``PJSUAError/Code/mediaNotActive`` before the call's audio is up,
    ///   ``PJSUAError/Code/invalidArgument`` for a bad capacity.
    public func sendAudio(to call: Call, format: AudioFormat = AudioFormat(), capacity: Duration = .seconds(2),
                          whenFull: AudioFrameWriter.OverflowPolicy = .wait) throws -> AudioFrameWriter {
        // Compared as a Duration first: converting a huge one to milliseconds would overflow.
        try Validation.duration(capacity, in: .milliseconds(1) ... .seconds(600), what: "the capacity of a frame writer")
        let frameMilliseconds = format.frameDuration.rawValue
        let frames = (capacity.wholeMilliseconds + frameMilliseconds - 1) / frameMilliseconds
        let channel = try attachFrames(call, format: format, direction: .send, capacityFrames: frames)
        return AudioFrameWriter(channel: channel, policy: whenFull)
    }

    /// Stops a frame sequence: it ends, and its port leaves the bridge (`pjsua_conf_remove_port()`).
    public func stopReceiving(_ frames: AudioFrames) {
        FrameTaps.detach(frames.channel, in: run)
    }

    /// Stops a writer: queued audio is dropped, further writes fail, and its port leaves the
    /// bridge (`pjsua_conf_remove_port()`).
    public func stopSending(_ writer: AudioFrameWriter) {
        FrameTaps.detach(writer.channel, in: run)
    }

    private func attachFrames(_ call: Call, format: AudioFormat, direction: FrameChannel.Direction, capacityFrames: Int) throws -> FrameChannel {
        let run = try requireRunning()
        let callSlot = try audioPort(of: call)
        guard let channel = FrameChannel(call: call, format: format, direction: direction, capacityFrames: capacityFrames, executor: executor,
                                         run: run) else {
            throw PJSUAError(.invalidArgument, "cannot make a frame buffer of \(capacityFrames) frames of \(format)")
        }
        let slot = try channel.attach()
        FrameTaps.register(channel, slot: slot, in: run)
        let status = direction == .receive ? pjsua_conf_connect(callSlot, slot) : pjsua_conf_connect(slot, callSlot)
        guard status == pjSuccess else {
            FrameTaps.detach(channel, in: run)
            throw PJSUAError(status: status, operation: "cannot connect a frame port to \(call)")
        }
        return channel
    }
}
