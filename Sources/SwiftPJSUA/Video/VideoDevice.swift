import PJSIP

extension PJSUA {
    /// A video capture or rendering device known to pjmedia (`pjmedia_vid_dev_info`): a camera,
    /// the colour-bar test pattern generator, a window renderer (SDL on Linux).
    public struct VideoDevice: Sendable, Hashable, Identifiable, CustomStringConvertible {
        /// pjmedia's index of a video device (`pjmedia_vid_dev_index`), valid for this engine run.
        public struct ID: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
            public let rawValue: Int
            public init(rawValue: Int) { self.rawValue = rawValue }

            /// The account's (or pjmedia's) default capture device
            /// (`PJMEDIA_VID_DEFAULT_CAPTURE_DEV`).
            public static let defaultCapture = ID(rawValue: Int(PJMEDIA_VID_DEFAULT_CAPTURE_DEV.rawValue))
            /// The default rendering device (`PJMEDIA_VID_DEFAULT_RENDER_DEV`).
            public static let defaultRenderer = ID(rawValue: Int(PJMEDIA_VID_DEFAULT_RENDER_DEV.rawValue))

            public var description: String { "video device \(rawValue)" }
        }

        /// Its index.
        public let id: ID
        /// Its name, e.g. `Colorbar generator` or a camera's name.
        public let name: String
        /// Its driver, e.g. `Colorbar`, `V4L2`, `SDL`, `AVF`.
        public let driver: String
        /// Whether it captures (a camera or a generator).
        public let canCapture: Bool
        /// Whether it renders (a window).
        public let canRender: Bool

        /// Whether this is one of pjmedia's colour-bar test pattern generators (no camera needed).
        public var isColorBars: Bool { driver.lowercased().hasPrefix("colorbar") || name.lowercased().hasPrefix("colorbar") }

        public var description: String {
            "\(id.rawValue): \(name) [\(driver)]\(canCapture ? " capture" : "")\(canRender ? " render" : "")"
        }
    }
}
