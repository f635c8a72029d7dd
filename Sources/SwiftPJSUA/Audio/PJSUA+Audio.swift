import CPJSUASupport
import PJSIP

extension PJSUA {
    /// An audio device known to PJMEDIA.
    public struct AudioDevice: Sendable, Hashable, CustomStringConvertible {
        /// PJMEDIA's device index.
        public let index: Int
        /// The device name.
        public let name: String
        /// The driver (e.g. ALSA, Core Audio).
        public let driver: String
        /// Capture channels (0 for output-only devices).
        public let inputChannels: Int
        /// Playback channels (0 for input-only devices).
        public let outputChannels: Int

        public var description: String { "\(index): \(name) [\(driver)] in=\(inputChannels) out=\(outputChannels)" }
    }

    /// The audio devices PJMEDIA can see (empty on a server with no sound card).
    ///
    /// Drives `pjsua_enum_aud_devs()`.
    public func audioDevices() throws -> [AudioDevice] {
        try requireRunning()
        let capacity = 64
        var infos = [pjmedia_aud_dev_info](repeating: pjmedia_aud_dev_info(), count: capacity)
        var count = UInt32(capacity)
        try check(pjsua_enum_aud_devs(&infos, &count), "pjsua_enum_aud_devs")
        return infos.prefix(Int(count)).enumerated().map { index, info in
            let name = withUnsafeBytes(of: info.name) { String(fixedCString: $0) }
            let driver = withUnsafeBytes(of: info.driver) { String(fixedCString: $0) }
            return AudioDevice(index: index, name: name, driver: driver,
                               inputChannels: Int(info.input_count), outputChannels: Int(info.output_count))
        }
    }

    /// Opens the default capture and playback device and reconnects live calls to it. Call it when
    /// the platform's audio session is live (CallKit's `didActivate`), never earlier.
    ///
    /// Drives `pjsua_set_snd_dev()` with the default devices.
    /// - Throws: ``PJSUAError/Code/noSoundDevice`` when no device can be opened.
    public func activateAudioDevice() throws {
        try requireRunning()
        // Re-opening from a clean state is what CallKit needs after an interruption.
        detachSoundDevice()
        let status = pjsua_set_snd_dev(cpjsua_snd_default_capture_dev, cpjsua_snd_default_playback_dev)
        guard status == pjSuccess else {
            pjsua_set_no_snd_dev()
            throw PJSUAError(status: status, operation: "cannot open the default sound device", as: .noSoundDevice)
        }
        reconnectCallsToDevice()
    }

    /// Closes the sound device; calls stay up but no audio flows to or from the hardware. Call it
    /// when the platform deactivates the audio session.
    ///
    /// Drives `pjsua_set_no_snd_dev()`.
    public func deactivateAudioDevice() {
        guard phase == .running else { return }
        detachSoundDevice()
    }

    /// Uses a clocked null device: audio flows between calls, players and recorders with no
    /// hardware. For servers, bots and tests.
    ///
    /// Like `pjsua_set_null_snd_dev()`, but the bridge's clock thread keeps normal priority
    /// (pjsua's would take real-time priority and, once media outgrows a core, starve SIP): a
    /// pjmedia master port between a null port and the bridge, after `pjsua_set_no_snd_dev()`.
    public func useNullAudioDevice() throws {
        try requireRunning()
        try setAudioDevice(.null)
        reconnectCallsToDevice()
    }

    /// Whether a sound device (real, `pjsua_snd_is_active()`, or the null device) is open.
    public var isAudioDeviceActive: Bool {
        phase == .running && (nullDeviceActive || pjsua_snd_is_active() != 0)
    }

    func setAudioDevice(_ mode: AudioDeviceMode) throws(PJSUAError) {
        switch mode {
        case .none: detachSoundDevice()
        case .null:
            try check(cpjsua_null_clock_start(FrameWakeUps.tickEnded), "starting the null audio device")
            run?.withState { $0.nullDeviceActive = true }
        }
    }

    /// Closes whatever clocks the bridge: our null device's clock first (it must stop before
    /// pjsua touches the bridge's port 0), then pjsua's sound device.
    private func detachSoundDevice() {
        cpjsua_null_clock_stop()
        pjsua_set_no_snd_dev()
        run?.withState { $0.nullDeviceActive = false }
    }

    private func reconnectCallsToDevice() {
        guard let run, let slots = try? callSlots() else { return }
        AudioWiring.rewireAll(slots, in: run)
    }

    /// The conference bridge's clock rate in Hz (its master port, slot 0), as running.
    func bridgeClockRate() throws(PJSUAError) -> Int {
        var bridge = pjsua_conf_port_info()
        try check(pjsua_conf_get_port_info(0, &bridge), "pjsua_conf_get_port_info")
        return Int(bridge.clock_rate)
    }
}
