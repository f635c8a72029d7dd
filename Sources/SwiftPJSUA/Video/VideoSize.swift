extension PJSUA {
    /// A picture size in pixels.
    public struct VideoSize: Sendable, Hashable, CustomStringConvertible {
        /// Width in pixels.
        public let width: Int
        /// Height in pixels.
        public let height: Int

        /// Creates a size.
        public init(width: Int, height: Int) {
            self.width = width
            self.height = height
        }

        public var description: String { "\(width)x\(height)" }
    }
}
