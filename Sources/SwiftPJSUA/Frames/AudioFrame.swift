extension PJSUA {
    /// One frame of call audio: exactly ``AudioFormat/samplesPerFrame`` 16-bit mono samples.
    public struct AudioFrame: Sendable, Hashable {
        /// The format the samples are in.
        public let format: AudioFormat
        /// The samples (`format.samplesPerFrame` of them).
        public let samples: [Int16]
        /// Where the frame starts in its stream, in samples at `format`'s rate since the stream
        /// began: frames received in order advance it by one frame each, so a frame the app's
        /// buffer had to drop shows up as a gap.
        public let timestamp: UInt64

        /// A frame of samples to send.
        /// - Throws: ``PJSUAError/Code/invalidFrame`` when `samples` is not exactly one frame of
        ///   `format`.
        public init(_ samples: [Int16], format: AudioFormat, timestamp: UInt64 = 0) throws(PJSUAError) {
            guard samples.count == format.samplesPerFrame else {
                throw PJSUAError(.invalidFrame, "a frame of \(format) has \(format.samplesPerFrame) samples, not \(samples.count)")
            }
            self.init(unchecked: samples, format: format, timestamp: timestamp)
        }

        init(unchecked samples: [Int16], format: AudioFormat, timestamp: UInt64) {
            self.format = format
            self.samples = samples
            self.timestamp = timestamp
        }

        /// A frame of silence.
        public static func silence(_ format: AudioFormat) -> AudioFrame {
            AudioFrame(unchecked: [Int16](repeating: 0, count: format.samplesPerFrame), format: format, timestamp: 0)
        }

        /// When the frame starts, counted from the start of its stream (whole milliseconds).
        public var start: Duration { format.duration(ofSamples: timestamp) }

        /// Root-mean-square level, 0...1 of full scale.
        public var rmsLevel: Double {
            let sum = samples.reduce(0.0) { $0 + Double($1) * Double($1) }
            return (sum / Double(max(1, samples.count))).squareRoot() / Double(Int16.max)
        }
    }
}
