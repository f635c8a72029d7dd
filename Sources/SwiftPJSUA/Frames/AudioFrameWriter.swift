extension PJSUA {
    /// Sends audio into a call, frame by frame, through a bounded queue
    /// (``PJSUA/sendAudio(to:format:capacity:whenFull:)``).
    ///
    /// The conference bridge takes one frame per frame duration from the queue; when the queue
    /// is empty it sends silence, and if audio was flowing that is an underrun (reported once per
    /// dry spell in ``events``). ``flush()`` empties the queue at once, for barge-in; a ``Mark``
    /// placed between frames comes back in ``events`` when the audio before it has gone out,
    /// with the milliseconds of the app's audio played by then. Every method may be called from
    /// any task: none of them enters PJSIP. Write from one task at a time to keep frames in order.
    public final class AudioFrameWriter: Sendable {
        /// What ``write(_:)-(PJSUA.AudioFrame)`` does when the queue is full.
        public enum OverflowPolicy: Sendable, Hashable {
            /// Waits until the bridge has taken enough audio out (back-pressure).
            case wait
            /// Drops the oldest queued audio to make room (live sources that must not lag).
            case dropOldest
        }

        /// A point in the output stream (``mark()``).
        public struct Mark: Sendable, Hashable, CustomStringConvertible {
            /// Unique within its writer, increasing.
            public let id: UInt64
            public var description: String { "mark#\(id)" }
        }

        /// What happened to the output stream.
        public enum Event: Sendable, Hashable {
            /// All audio queued before the mark has gone to the network; the app's audio played so
            /// far (silence and dropped audio not counted).
            case markPlayed(Mark, played: Duration)
            /// ``flush()`` discarded the audio before the mark; what had been played by then.
            case markFlushed(Mark, played: Duration)
            /// The queue ran dry while audio was flowing: the far end hears silence from here on,
            /// until the next frame.
            case underrun(played: Duration)
        }

        /// Counters of the output stream.
        public struct Statistics: Sendable, Hashable {
            /// The app's audio sent so far.
            public var played: Duration
            /// Dry spells while audio was flowing.
            public var underruns: Int
            /// Frames sent as silence because the queue was empty.
            public var silentFrames: Int
            /// Audio dropped to make room (``OverflowPolicy/dropOldest``).
            public var dropped: Duration
        }

        /// The call the audio goes to.
        public var call: Call { channel.call }
        /// The format frames must have.
        public var format: AudioFormat { channel.format }
        /// What a write does when the queue is full.
        public let policy: OverflowPolicy
        /// The most audio the queue holds.
        public let capacity: Duration

        let channel: FrameChannel

        init(channel: FrameChannel, policy: OverflowPolicy) {
            self.channel = channel
            self.policy = policy
            capacity = .milliseconds(channel.capacityFrames * channel.format.frameDuration.rawValue)
        }

        /// Marks played or flushed and underruns, in order. Iterate from one task; ends when the
        /// writer is stopped or its call ends.
        public var events: AsyncStream<Event> { channel.events }

        /// Queues one frame.
        /// - Throws: ``PJSUAError/Code/invalidFrame`` when the frame's format is not the writer's,
        ///   ``PJSUAError/Code/staleHandle`` once the writer is stopped or its call ended,
        ///   `CancellationError` when the task was cancelled while waiting for room.
        public func write(_ frame: AudioFrame) async throws {
            guard frame.format == format else {
                throw PJSUAError(.invalidFrame, "this writer takes frames of \(format), not \(frame.format)")
            }
            try await channel.write(frame.samples, dropOldest: policy == .dropOldest)
        }

        /// Queues one frame given as samples.
        /// - Throws: ``PJSUAError/Code/invalidFrame`` when `samples` is not exactly one frame
        ///   (``AudioFormat/samplesPerFrame``), and as ``write(_:)-(PJSUA.AudioFrame)``.
        public func write(_ samples: [Int16]) async throws {
            try await write(AudioFrame(samples, format: format))
        }

        /// Empties the queue at once (barge-in): nothing queued so far is sent, pending marks are
        /// reported flushed. Returns how much audio was discarded.
        @discardableResult
        public func flush() -> Duration {
            format.duration(ofSamples: channel.flush())
        }

        /// How much audio waits in the queue.
        public var queuedDuration: Duration {
            format.duration(ofSamples: UInt64(channel.stats.queued))
        }

        /// Places a mark after the audio queued so far; it comes back in ``events``.
        /// - Throws: ``PJSUAError/Code/tooMany`` when 256 marks are pending,
        ///   ``PJSUAError/Code/staleHandle`` once the writer is stopped.
        public func mark() throws -> Mark {
            Mark(id: try channel.mark())
        }

        /// Waits until the audio queued before `mark` has gone to the network; returns the app's
        /// audio played by then (whole milliseconds), or nil when ``flush()`` discarded it, the writer
        /// closed first, or the mark is not one of this writer's most recent 1024.
        public func waitUntilPlayed(_ mark: Mark) async -> Duration? {
            await channel.waitUntilPlayed(mark.id).map { .milliseconds($0) }
        }

        /// The counters so far.
        public var statistics: Statistics {
            let stats = channel.stats
            return Statistics(played: format.duration(ofSamples: stats.played), underruns: Int(stats.underruns),
                              silentFrames: Int(stats.silent_frames), dropped: format.duration(ofSamples: stats.dropped))
        }

        /// Whether the writer is stopped (by ``PJSUA/stopSending(_:)``, its call's end or the
        /// engine's shutdown).
        public var isClosed: Bool { channel.closed }
    }
}
