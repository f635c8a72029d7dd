extension PJSUA {
    /// The figures of a call's video stream: its codec, the negotiated picture both ways, RTP
    /// both ways (packets, bytes, loss) and the bitrates they make, and the frames decoded.
    public struct VideoStatistics: Sendable, Hashable {
        /// The codec in use, e.g. `VP8/90000` or `H264/90000`.
        public let codec: String
        /// The stream's direction as negotiated.
        public let direction: VideoDirection
        /// The size we encode (send) at, from the negotiated codec parameters.
        public let sendSize: VideoSize
        /// The frame rate we encode at, frames per second.
        public let sendFrameRate: Double
        /// The size the decoder is set up for; the peer's encoder may send smaller pictures,
        /// which ``VideoFrame``s show as they are.
        public let receiveSize: VideoSize
        /// The frame rate the decoder expects, frames per second.
        public let receiveFrameRate: Double
        /// RTP sent (losses as the peer's RTCP reports describe them).
        public let sent: RTPStatistics
        /// RTP received.
        public let received: RTPStatistics
        /// How long the stream has run, from pjmedia's RTCP session start.
        public let elapsed: Duration
        /// Pictures the decoder handed to the video bridge so far (pjsua's decoding port,
        /// counted by the engine while the call's video is received).
        public let framesReceived: Int

        /// The average bitrate sent, bits per second of RTP payload since the stream started.
        public var sendBitrate: Double { Self.rate(bytes: sent.bytes, over: elapsed) }
        /// The average bitrate received, bits per second of RTP payload since the stream started.
        public var receiveBitrate: Double { Self.rate(bytes: received.bytes, over: elapsed) }
        /// The average rate of pictures received, frames per second since the stream started.
        public var receivedFrameRate: Double {
            let seconds = Self.seconds(elapsed)
            return seconds > 0 ? Double(framesReceived) / seconds : 0
        }

        /// Creates the figures of a video stream.
        public init(codec: String, direction: VideoDirection, sendSize: VideoSize, sendFrameRate: Double, receiveSize: VideoSize,
                    receiveFrameRate: Double, sent: RTPStatistics, received: RTPStatistics, elapsed: Duration, framesReceived: Int) {
            self.codec = codec
            self.direction = direction
            self.sendSize = sendSize
            self.sendFrameRate = sendFrameRate
            self.receiveSize = receiveSize
            self.receiveFrameRate = receiveFrameRate
            self.sent = sent
            self.received = received
            self.elapsed = elapsed
            self.framesReceived = framesReceived
        }

        static func seconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }

        static func rate(bytes: Int, over duration: Duration) -> Double {
            let seconds = seconds(duration)
            return seconds > 0 ? Double(bytes) * 8 / seconds : 0
        }
    }
}
