extension PJSUA {
    /// One video stream of a call as pjsua sees it now (`pjsua_call_media_info` of a video
    /// media), published in ``Event/videoMedia(call:streams:)``.
    public struct VideoStream: Sendable, Hashable, CustomStringConvertible {
        /// The stream's index among the call's media (its `m=` line).
        public let index: Int
        /// The stream's state (``MediaState/none`` once removed or declined).
        public let state: MediaState
        /// The negotiated direction.
        public let direction: VideoDirection
        /// Whether our video is going out now: the encoder runs and a capture device feeds it
        /// (false after ``PJSUA/stopVideoTransmission(_:)``, and for a call made or answered with
        /// ``VideoOptions/transmitsAtOnce`` false until ``PJSUA/startVideoTransmission(_:)``).
        public let isSending: Bool
        /// Whether the peer's video is being decoded now.
        public let isReceiving: Bool
        /// The capture device feeding the stream, if any.
        public let captureDevice: VideoDevice.ID?
        /// pjsua's window showing the incoming video (`pjsua_vid_win_id`), if any: for apps that
        /// let pjsua render (see ``PJSUA/videoWindow(of:)``).
        public let window: VideoWindow?

        /// Whether video actually flows, one way or both.
        public var isActive: Bool { state == .active && direction != .inactive }

        public var description: String {
            "video[\(index)] \(state) \(direction)\(isSending ? " sending" : "")\(isReceiving ? " receiving" : "")"
        }
    }
}
