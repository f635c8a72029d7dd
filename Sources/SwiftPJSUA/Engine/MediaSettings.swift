import CPJSUASupport
import PJSIP

extension PJSUA {
    /// How the conference bridge mixes audio: its clock rate and how it resamples calls whose
    /// codec runs at another rate. These settings decide most of a call's media CPU and memory.
    ///
    /// Every call's audio passes through pjsua's conference bridge. A call whose codec's clock
    /// rate differs from the bridge's gets two resamplers (one each way) that run every 20 ms for
    /// the whole call. Measured on this project's Linux build (libsamplerate; `pjsua-bench media`:
    /// 100 concurrent PCMU calls with RTP both ways and a WAV played into each, the same figures
    /// for `softphone answer` and the pjsua app with calls linked to the player only; see
    /// "Media cost at scale" in <doc:Performance>):
    ///
    /// | bridge | CPU per call-second | memory per call |
    /// |---|---|---|
    /// | 16 kHz, ``ResamplerQuality/high`` (the default) | ~9.5 ms | ~1,020 kB |
    /// | 16 kHz, ``ResamplerQuality/fast`` | ~2.3 ms | ~280 kB |
    /// | 8 kHz (``telephony``) | ~0.7 ms | ~155 kB |
    ///
    /// At 16 kHz and high quality, 880 kB of a call's memory are its two libsamplerate states
    /// (`src_new` under `pjmedia_conf_add_port`, measured with massif on the pjsua app); at 8 kHz
    /// what is left is the SIP dialog and SDP copies, the RTP transport's buffers, the stream and
    /// its jitter buffer (8 kB): no single knob gives back more. Opus runs at the bridge's rate
    /// inside unless ``opusSampleRate`` says otherwise: 14 ms per call-second at 16 kHz; at
    /// pjmedia's own 48 kHz it is resampled to a 16 kHz bridge: ~50 ms at high quality, ~20 ms
    /// at fast.
    /// Calls linked to slot 0 (``connectsCallsToAudioDevice``, the default) cost up to 1.7x that.
    ///
    /// In short: the default costs a PCMU call 10-13 ms of CPU per call-second; a server or bot
    /// answering PCMU/PCMA calls should set ``bot`` (0.6-0.7 ms, ~155 kB per call).
    ///
    /// - The default (pjsua's own for the build: 16 kHz, ``ResamplerQuality/high`` on Linux,
    ///   ``ResamplerQuality/medium`` in the iOS binary) suits phones: wideband
    ///   codecs (Opus, G.722) keep their bandwidth and a phone has one or two calls.
    /// - ``telephony`` (8 kHz) suits servers and bots whose calls are PCMU/PCMA (most trunks
    ///   and PBXs): nothing is resampled. Wideband calls are then narrowed to 4 kHz of audio.
    /// - ``bot``: ``telephony`` with calls unlinked from the sound device's slot
    ///   (``connectsCallsToAudioDevice`` off), for a process that never opens a device.
    /// - A server for wideband calls: 16 kHz, ``ResamplerQuality/fast``, ``opusSampleRate``
    ///   16000 and ``connectsCallsToAudioDevice`` off.
    ///
    /// To play one prompt into many calls, share one player (``PJSUA/makePlayer(_:loop:)``,
    /// ``PJSUA/connect(_:to:)``): a player whose file's rate differs from the bridge's has its
    /// own pair of resamplers too.
    public struct MediaSettings: Sendable, Hashable {
        /// The bridge's clock rate in Hz: 8000, 16000, 32000 or 48000. 16000 by default.
        public var clockRate: Int
        /// How calls at another clock rate are resampled; ``ResamplerQuality/high`` by default.
        public var resamplerQuality: ResamplerQuality

        /// The most audio each call's receive jitter buffer may hold (pjsua's `jb_max`, in
        /// whole milliseconds; its adaptive prefetch stays within 80 % of it); nil for pjsua's default,
        /// 500 ms. After a network hiccup the buffer keeps the burst that arrived and drains it
        /// only slowly, so the call's audio stays that much later for seconds; a small bound
        /// (e.g. 100 ms for a bot on a LAN or in one data centre) caps that delay, at the cost
        /// of dropping audio that arrives later than the bound. 40 ms...5 s.
        public var jitterBufferMax: Duration?

        /// Whether each call's audio is connected both ways to the bridge's slot 0 (the sound
        /// device; the null device or nothing when there is none) once it is active. On by
        /// default: a phone's calls are heard on its device.
        ///
        /// Off for a server or bot that talks to calls only through players, recorders, frames
        /// (``PJSUA/receiveAudio(from:format:bufferingNewest:)``) or conferences. The bridge then reads a call's
        /// received audio only while something listens to it, and mixes nothing into slot 0:
        /// without a device that slot is a sink, yet wired calls are decoded (and resampled, at
        /// a bridge rate other than the codec's) into it every 20 ms. ``PJSUA/setMuted(_:to:)``
        /// has nothing to cut then (it acts on the slot 0 links).
        public var connectsCallsToAudioDevice: Bool

        /// The Opus codec's internal sample rate in Hz (8000, 12000, 16000, 24000 or 48000); nil
        /// runs Opus at the bridge's ``clockRate`` (48000 on a 32 kHz bridge, a rate Opus lacks).
        /// pjmedia's Opus port runs at this rate, so at pjmedia's own 48000 every Opus call on a
        /// 16 kHz bridge is resampled 48 <-> 16 kHz both ways, which costs more than the codec
        /// (see "Media cost at scale" in <doc:Performance>) and ~1 ms of each call's setup (the two
        /// resamplers are built per call); at the bridge's rate nothing is resampled and the
        /// audio band is what the bridge carries anyway. The SDP
        /// still says `opus/48000/2` (RFC 7587); `maxplaybackrate` tells the far end. Builds
        /// without Opus (the iOS binary) refuse a rate with ``PJSUAError/Code/unsupported``.
        ///
        /// Drives `pjmedia_codec_opus_set_default_param()`.
        public var opusSampleRate: Int?

        /// Creates media settings; the defaults are pjsua's for the platform (its
        /// `pjsua_media_config_default()`): the build's `PJSUA_DEFAULT_CLOCK_RATE` and
        /// `PJSUA_DEFAULT_CODEC_QUALITY` (16 kHz and ``ResamplerQuality/high`` on Linux, 16 kHz
        /// and ``ResamplerQuality/medium`` in the iOS binary, whose preset saves a phone's battery).
        public init(clockRate: Int = MediaSettings.platformClockRate,
                    resamplerQuality: ResamplerQuality = .platformDefault, jitterBufferMax: Duration? = nil,
                    connectsCallsToAudioDevice: Bool = true, opusSampleRate: Int? = nil) {
            self.clockRate = clockRate
            self.resamplerQuality = resamplerQuality
            self.jitterBufferMax = jitterBufferMax
            self.connectsCallsToAudioDevice = connectsCallsToAudioDevice
            self.opusSampleRate = opusSampleRate
        }

        /// The bridge at 8 kHz: PCMU/PCMA calls are never resampled. For servers and bots.
        public static let telephony = MediaSettings(clockRate: 8000, resamplerQuality: .fast)

        /// ``telephony`` with calls left unlinked from the sound device's slot
        /// (``connectsCallsToAudioDevice`` off): for a bot or server that talks to its calls only
        /// through players, recorders, frames or conferences and never opens a device. The
        /// cheapest setting for PCMU/PCMA calls (see "Media cost at scale" in <doc:Performance>).
        public static let bot = MediaSettings(clockRate: 8000, resamplerQuality: .fast, connectsCallsToAudioDevice: false)

        /// pjsua's default bridge rate in this build (`PJSUA_DEFAULT_CLOCK_RATE`): 16000.
        public static let platformClockRate = Int(cpjsua_default_clock_rate)

        /// The clock rates the bridge may run at.
        public static let clockRates = [8000, 16000, 32000, 48000]

        /// The sample rates Opus encodes at.
        public static let opusSampleRates = [8000, 12000, 16000, 24000, 48000]

        func validate() throws(PJSUAError) {
            guard Self.clockRates.contains(clockRate) else {
                throw PJSUAError(.invalidArgument, "media clock rate \(clockRate) Hz is not one of 8000, 16000, 32000, 48000")
            }
            if let bound = jitterBufferMax {
                try Validation.duration(bound, in: .milliseconds(40) ... .seconds(5), what: "the jitter buffer's bound")
            }
            if let opusSampleRate, !Self.opusSampleRates.contains(opusSampleRate) {
                throw PJSUAError(.invalidArgument, "Opus sample rate \(opusSampleRate) Hz is not one of 8000, 12000, 16000, 24000, 48000")
            }
        }

        /// Sets what lives in the codec manager (after pjsua_init, on the engine's thread).
        /// Always sets Opus's rate in a build with Opus: pjmedia keeps it in a process-wide static
        /// that outlives pjsua, so an earlier run's rate would otherwise stay.
        func applyToCodecs() throws(PJSUAError) {
            if opusSampleRate == nil && cpjsua_opus_sample_rate() == 0 { return }  // no Opus in this build
            let rate = opusSampleRate ?? (Self.opusSampleRates.contains(clockRate) ? clockRate : 48000)
            let status = cpjsua_opus_set_sample_rate(UInt32(rate))
            guard status == pjSuccess else {
                throw PJSUAError(status: status, operation: "cannot set the Opus sample rate to \(rate) Hz", as: .unsupported)
            }
        }

        /// Puts the settings into pjsua's media configuration.
        func apply(to media: inout pjsua_media_config) {
            media.clock_rate = UInt32(clockRate)
            media.quality = UInt32(resamplerQuality.pjsuaQuality)
            media.jb_max = Int32(jitterBufferMax?.wholeMilliseconds ?? -1)
        }
    }

    /// How the conference bridge resamples a call whose codec runs at another clock rate
    /// (pjsua's `media_cfg.quality`, which also sets the Speex codec's quality).
    public enum ResamplerQuality: String, Sendable, Hashable, CaseIterable {
        /// The cheapest: pjsua quality 2 (`PJMEDIA_CONF_USE_LINEAR`). With libsamplerate (the
        /// Linux build) that is its fastest sinc filter, fine for speech; with pjmedia's own
        /// resampler (the iOS binary) it is linear interpolation, which aliases.
        case fast
        /// pjsua quality 4 (`PJMEDIA_CONF_SMALL_FILTER`): a short filter.
        case medium
        /// pjsua's default quality (8): the longest filter, and the most CPU and memory. With
        /// libsamplerate it also delays each direction of a resampled call by one more frame
        /// (20 ms, measured by `pjsua-bench frames --clock-rate 16000`).
        case high

        /// pjsua's default in this build (`PJSUA_DEFAULT_CODEC_QUALITY`): ``high`` (8) on Linux,
        /// ``medium`` (4) in the iOS binary (the iPhone preset's small filter).
        public static let platformDefault = ResamplerQuality(pjsuaQuality: Int(cpjsua_default_codec_quality))

        /// The case for a pjsua quality: at least 8 is ``high``, at least 4 ``medium``, else ``fast``.
        init(pjsuaQuality quality: Int) {
            self = quality >= 8 ? .high : quality >= 4 ? .medium : .fast
        }

        var pjsuaQuality: Int {
            switch self {
            case .fast: 2
            case .medium: 4
            case .high: 8
            }
        }
    }
}
