extension PJSUA {
    /// What a video codec encodes: picture size, frame rate and bitrate (the encoding side of
    /// `pjmedia_vid_codec_param`). Read them with ``PJSUA/videoCodecSettings(_:)``, change them
    /// with ``PJSUA/setVideoCodecSettings(_:to:)``; calls set up afterwards use them.
    public struct VideoCodecSettings: Sendable, Hashable {
        /// The size pictures are encoded at (the capture device's pictures are scaled to it).
        public var size: VideoSize
        /// Frames per second encoded.
        public var frameRate: Int
        /// The average bitrate aimed at, bits per second.
        public var averageBitrate: Int
        /// The highest bitrate allowed, bits per second.
        public var maxBitrate: Int

        /// Creates codec settings.
        public init(size: VideoSize, frameRate: Int, averageBitrate: Int, maxBitrate: Int) {
            self.size = size
            self.frameRate = frameRate
            self.averageBitrate = averageBitrate
            self.maxBitrate = maxBitrate
        }

        func validate() throws(PJSUAError) {
            guard (16...4096).contains(size.width), (16...4096).contains(size.height), size.width % 2 == 0, size.height % 2 == 0 else {
                throw PJSUAError(.invalidArgument, "video size \(size) must be even, 16...4096 on each side")
            }
            guard (1...60).contains(frameRate) else {
                throw PJSUAError(.invalidArgument, "video frame rate \(frameRate) is out of range 1...60")
            }
            guard (10_000...20_000_000).contains(averageBitrate), (averageBitrate...20_000_000).contains(maxBitrate) else {
                throw PJSUAError(.invalidArgument, "video bitrates \(averageBitrate)/\(maxBitrate) must be 10 kbit/s...20 Mbit/s, average <= max")
            }
        }
    }
}
