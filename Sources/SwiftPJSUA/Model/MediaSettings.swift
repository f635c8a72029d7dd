import PJSIP

extension PJSUA {
    /// How the conference bridge mixes audio: its clock rate and how it resamples calls whose
    /// codec runs at another rate. These settings decide most of a call's media CPU and memory.
    ///
    /// Every call's audio passes through pjsua's conference bridge. A call whose codec's clock
    /// rate differs from the bridge's is resampled both ways, every 20 ms, for the whole call.
    /// Measured on this project's Linux build (libsamplerate, 100 concurrent PCMU calls, see the
    /// README's performance section): the bridge at 16 kHz with ``ResamplerQuality/high`` costs
    /// about 30 ms of CPU and 1 MB of memory per call-second and call; ``ResamplerQuality/fast``
    /// about 6 ms; the bridge at 8 kHz (no resampling for PCMU/PCMA) under 1 ms and about
    /// 0.16 MB per call.
    ///
    /// - The default (16 kHz, ``ResamplerQuality/high``, pjsua's own) suits phones: wideband
    ///   codecs (Opus, G.722) keep their bandwidth and a phone has one or two calls.
    /// - ``telephony`` (8 kHz) suits servers and bots whose calls are PCMU/PCMA (most trunks
    ///   and PBXs): nothing is resampled. Wideband calls are then narrowed to 4 kHz of audio.
    public struct MediaSettings: Sendable, Hashable {
        /// The bridge's clock rate in Hz: 8000, 16000, 32000 or 48000. 16000 by default.
        public var clockRate: Int
        /// How calls at another clock rate are resampled; ``ResamplerQuality/high`` by default.
        public var resamplerQuality: ResamplerQuality

        /// The most audio each call's receive jitter buffer may hold, in milliseconds (pjsua's
        /// `jb_max`; its adaptive prefetch stays within 80 % of it); nil for pjsua's default,
        /// 500 ms. After a network hiccup the buffer keeps the burst that arrived and drains it
        /// only slowly, so the call's audio stays that much later for seconds; a small bound
        /// (e.g. 100 ms for a bot on a LAN or in one data centre) caps that delay, at the cost
        /// of dropping audio that arrives later than the bound. 40...5000.
        public var jitterBufferMaxMilliseconds: Int?

        /// Creates media settings; the defaults are pjsua's.
        public init(clockRate: Int = 16000, resamplerQuality: ResamplerQuality = .high, jitterBufferMaxMilliseconds: Int? = nil) {
            self.clockRate = clockRate
            self.resamplerQuality = resamplerQuality
            self.jitterBufferMaxMilliseconds = jitterBufferMaxMilliseconds
        }

        /// The bridge at 8 kHz: PCMU/PCMA calls are never resampled. For servers and bots.
        public static let telephony = MediaSettings(clockRate: 8000, resamplerQuality: .fast)

        /// The clock rates the bridge may run at.
        public static let clockRates = [8000, 16000, 32000, 48000]

        func validate() throws(PJSUAError) {
            guard Self.clockRates.contains(clockRate) else {
                throw PJSUAError(.invalidArgument, "media clock rate \(clockRate) Hz is not one of 8000, 16000, 32000, 48000")
            }
            if let bound = jitterBufferMaxMilliseconds, !(40...5000).contains(bound) {
                throw PJSUAError(.invalidArgument, "the jitter buffer's bound must be 40...5000 ms, not \(bound)")
            }
        }

        /// Puts the settings into pjsua's media configuration.
        func apply(to media: inout pjsua_media_config) {
            media.clock_rate = UInt32(clockRate)
            media.quality = UInt32(resamplerQuality.pjsuaQuality)
            media.jb_max = Int32(jitterBufferMaxMilliseconds ?? -1)
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

        var pjsuaQuality: Int {
            switch self {
            case .fast: 2
            case .medium: 4
            case .high: 8
            }
        }
    }
}
