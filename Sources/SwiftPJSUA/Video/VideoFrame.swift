extension PJSUA {
    /// One decoded picture of a call's incoming video, planar I420 (YUV 4:2:0, BT.601 studio
    /// range): a full-size luma plane followed by two quarter-size chroma planes (U, then V).
    public struct VideoFrame: Sendable, Hashable {
        /// The picture's size.
        public let size: VideoSize
        /// When the video bridge delivered it, on the bridge's 90 kHz clock (pjmedia's video
        /// timestamps); differences between frames are what matter.
        public let timestamp: UInt64
        /// The I420 bytes: `width * height` of Y, then `(width/2) * (height/2)` of U and of V.
        public let bytes: [UInt8]

        /// Creates a frame from I420 bytes.
        public init(size: VideoSize, timestamp: UInt64, bytes: [UInt8]) {
            self.size = size
            self.timestamp = timestamp
            self.bytes = bytes
        }

        /// The time on the video bridge's clock (``timestamp`` in seconds).
        public var time: Duration { .microseconds(Int64(timestamp) * 1000 / 90) }

        /// The Y, U and V samples at a pixel, or nil outside the picture (or for a truncated
        /// buffer).
        public func yuv(x: Int, y: Int) -> (y: UInt8, u: UInt8, v: UInt8)? {
            let (width, height) = (size.width, size.height)
            guard x >= 0, y >= 0, x < width, y < height else { return nil }
            let chromaWidth = (width + 1) / 2
            let chromaHeight = (height + 1) / 2
            let luma = y * width + x
            let chroma = (y / 2) * chromaWidth + x / 2
            let u = width * height + chroma
            let v = width * height + chromaWidth * chromaHeight + chroma
            guard v < bytes.count else { return nil }
            return (bytes[luma], bytes[u], bytes[v])
        }

        /// The colour at a pixel as 8-bit RGB (BT.601 studio range converted to full range), or
        /// nil outside the picture.
        public func rgb(x: Int, y: Int) -> (red: UInt8, green: UInt8, blue: UInt8)? {
            guard let sample = yuv(x: x, y: y) else { return nil }
            let c = 1.164 * (Double(sample.y) - 16)
            let d = Double(sample.u) - 128
            let e = Double(sample.v) - 128
            let clamp: (Double) -> UInt8 = { UInt8(max(0, min(255, $0.rounded()))) }
            return (clamp(c + 1.596 * e), clamp(c - 0.392 * d - 0.813 * e), clamp(c + 2.017 * d))
        }
    }
}
