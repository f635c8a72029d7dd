extension PJSUA {
    /// The audio a call receives, as a sequence of frames in the format the app asked for
    /// (``PJSUA/receiveAudio(from:format:bufferingNewest:)``).
    ///
    /// One frame arrives per frame duration, paced by the conference bridge's clock (the sound
    /// device's, or the null device's on a server), with silence where the call had nothing. If
    /// the app falls more than the buffered frames behind, the oldest frames are dropped: the
    /// gap shows in ``AudioFrame/timestamp`` and in ``droppedFrames``. The sequence ends when the
    /// call ends, when ``PJSUA/stopReceiving(_:)`` is called, or when the engine shuts down.
    /// Iterate it from one task.
    public struct AudioFrames: AsyncSequence, Sendable {
        public typealias Element = AudioFrame
        public typealias Failure = Never

        /// The call the audio comes from.
        public var call: Call { channel.call }
        /// The format frames come in.
        public var format: AudioFormat { channel.format }

        let channel: FrameChannel

        /// Frames dropped so far because the app took them too slowly.
        public var droppedFrames: Int { channel.droppedFrames }

        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(channel: channel)
        }

        /// Iterates the frames.
        public struct AsyncIterator: AsyncIteratorProtocol {
            let channel: FrameChannel

            public mutating func next() async -> AudioFrame? {
                await channel.nextFrame()
            }
        }
    }
}
