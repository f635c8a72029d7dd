extension PJSUA {
    /// pjsua's window showing a call's incoming video (`pjsua_vid_win_id`): for apps that let
    /// pjsua render (SDL on Linux, a UIView on iOS) rather than reading ``VideoFrame``s.
    public struct VideoWindow: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        public var description: String { "video window \(rawValue)" }
    }

    /// What pjsua says about a video window (`pjsua_vid_win_info`).
    public struct VideoWindowInfo: Sendable, Hashable {
        /// The window.
        public let window: VideoWindow
        /// The renderer drawing it.
        public let renderer: VideoDevice.ID
        /// Whether it is shown.
        public let isShown: Bool
        /// Its size on screen.
        public let size: VideoSize
        /// The platform's window or view handle (`pjmedia_vid_dev_hwnd`: an `SDL_Window*`
        /// on Linux, a `UIView*` on iOS), as a raw address for the app to hand to its UI layer;
        /// nil when the renderer has none.
        public let nativeHandle: UInt?
    }
}
