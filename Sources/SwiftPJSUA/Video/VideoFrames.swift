extension PJSUA {
    /// The decoded pictures of a call's incoming video, as they arrive: an `AsyncSequence` of
    /// ``VideoFrame``s from ``PJSUA/receiveVideo(from:bufferingNewest:timeout:)``.
    ///
    /// A slow consumer loses the oldest pictures, never the engine's time: the video bridge's
    /// thread only copies each picture and yields it without waiting. The sequence ends when the
    /// call's video stops (it is removed, the call ends, or the engine stops) or with
    /// ``PJSUA/stopReceivingVideo(_:)``.
    public struct VideoFrames: AsyncSequence, Sendable {
        public typealias Element = VideoFrame
        let stream: AsyncStream<VideoFrame>
        /// The subscription, for ``PJSUA/stopReceivingVideo(_:)``.
        public let id: VideoSubscription
        /// The size frames arrive at: the call's negotiated decoding size (the video bridge
        /// scales pictures of another size to it).
        public let size: VideoSize

        public func makeAsyncIterator() -> AsyncStream<VideoFrame>.Iterator {
            stream.makeAsyncIterator()
        }
    }

    /// A subscription to a call's incoming video (``PJSUA/receiveVideo(from:bufferingNewest:timeout:)``).
    public struct VideoSubscription: Sendable, Hashable, CustomStringConvertible {
        let call: Call
        let number: Int

        public var description: String { "video subscription \(number) of \(call)" }
    }
}
