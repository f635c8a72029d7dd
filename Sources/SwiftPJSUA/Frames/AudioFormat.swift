extension PJSUA {
    /// The shape of call audio exchanged as frames: 16-bit PCM, mono, at a sample rate and frame
    /// duration the app chooses. The conference bridge resamples between this and the call's
    /// codec, so an app reading at 16 kHz and writing at 24 kHz needs no resampler of its own.
    public struct AudioFormat: Sendable, Hashable, CustomStringConvertible {
        /// The sample rates frames can have.
        public enum SampleRate: Int, Sendable, Hashable, CaseIterable {
            /// 8 kHz (narrowband: what G.711 carries).
            case hz8000 = 8000
            /// 16 kHz (wideband; the bridge's own rate by default, so no resampling).
            case hz16000 = 16000
            /// 24 kHz (what many speech synthesisers produce).
            case hz24000 = 24000
            /// 48 kHz (full band).
            case hz48000 = 48000
        }

        /// How much audio one frame holds.
        public enum FrameDuration: Int, Sendable, Hashable, CaseIterable {
            /// 10 milliseconds.
            case ms10 = 10
            /// 20 milliseconds (the bridge's own frame by default).
            case ms20 = 20
        }

        /// Samples per second.
        public var sampleRate: SampleRate
        /// Audio per frame.
        public var frameDuration: FrameDuration

        /// A format; by default 16 kHz in 20 ms frames.
        public init(sampleRate: SampleRate = .hz16000, frameDuration: FrameDuration = .ms20) {
            self.sampleRate = sampleRate
            self.frameDuration = frameDuration
        }

        /// The number of samples in one frame (e.g. 320 for 16 kHz, 20 ms).
        public var samplesPerFrame: Int { sampleRate.rawValue * frameDuration.rawValue / 1000 }

        /// How long `samples` samples last in this format, in whole milliseconds (rounded down).
        public func duration(ofSamples samples: UInt64) -> Duration {
            .milliseconds(milliseconds(ofSamples: samples))
        }

        func milliseconds(ofSamples samples: UInt64) -> Int {
            Int(samples * 1000 / UInt64(sampleRate.rawValue))
        }

        public var description: String { "PCM16 mono \(sampleRate.rawValue) Hz, \(frameDuration.rawValue) ms" }
    }
}
