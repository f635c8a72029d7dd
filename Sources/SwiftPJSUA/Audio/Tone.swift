extension PJSUA {
    /// A tone pjmedia's tone generator can play into a call or to the local sound device.
    public enum Tone: Sendable, Hashable {
        /// North American ringback (440 + 480 Hz, 2 s on, 4 s off), repeated until stopped:
        /// what a caller hears while the far end rings and the network sends no early media.
        case ringback
        /// Busy (480 + 620 Hz, 0.5 s on, 0.5 s off), repeated until stopped.
        case busy
        /// The dual tones of DTMF digits (0-9, *, #, A-D), each 100 ms with 50 ms between, once:
        /// local keypad feedback.
        case dtmf(String)
        /// Up to 32 segments of one or two frequencies, once or repeated until stopped.
        case custom([ToneSegment], repeating: Bool)
    }

    /// One step of a ``Tone/custom(_:repeating:)`` tone (`pjmedia_tone_desc`).
    public struct ToneSegment: Sendable, Hashable {
        /// The first frequency in Hz (1...8000 at most half the bridge's clock rate).
        public var frequency1: Int
        /// An optional second frequency in Hz, 0 for none.
        public var frequency2: Int
        /// How long it sounds.
        public var on: Duration
        /// The silence after it.
        public var off: Duration

        /// Creates a segment.
        public init(frequency1: Int, frequency2: Int = 0, on: Duration, off: Duration = .zero) {
            self.frequency1 = frequency1
            self.frequency2 = frequency2
            self.on = on
            self.off = off
        }
    }

    /// A tone being played (a tone generator's conference slot plus a unique token).
    public struct TonePlayer: Hashable, Sendable, CustomStringConvertible {
        let slot: Int32
        let token: UInt
        public var description: String { "tone#\(slot).\(token)" }
    }
}
