import PJSIP

extension PJSUA {
    /// How a call's video is set up: given to ``PJSUA/makeCall(to:from:headers:video:)``,
    /// ``PJSUA/answer(_:code:headers:video:)`` and ``PJSUA/addVideo(to:options:)``.
    ///
    /// A call carries video only when one of those is given options: every other call (and every
    /// call answered inside the engine's callback) offers and accepts audio alone, so a call the
    /// app and CallKit believe audio-only never opens the camera.
    public struct VideoOptions: Sendable, Hashable {
        /// The capture device whose frames are sent; nil uses pjmedia's default capture device
        /// (the first camera, or the colour-bar generator on a machine without one). Applied
        /// once the stream is up (`PJSUA_CALL_VID_STRM_CHANGE_CAP_DEV`).
        public var captureDevice: VideoDevice.ID?
        /// Which way the video flows, as offered or answered in the SDP (`a=sendrecv` and kin).
        public var direction: VideoDirection
        /// Whether our video goes out as soon as the stream is up (pjsua's
        /// `vid_out_auto_transmit`). When false the stream is negotiated but nothing is sent until
        /// ``PJSUA/startVideoTransmission(_:)``.
        public var transmitsAtOnce: Bool

        /// Creates video options; the defaults send and receive, from the default capture device,
        /// at once.
        public init(captureDevice: VideoDevice.ID? = nil, direction: VideoDirection = .sendReceive, transmitsAtOnce: Bool = true) {
            self.captureDevice = captureDevice
            self.direction = direction
            self.transmitsAtOnce = transmitsAtOnce
        }

        /// Video both ways from the default capture device.
        public static let sendReceive = VideoOptions()
        /// Receive the peer's video, send none (`a=recvonly`): a viewer or a bot that analyses.
        public static let receiveOnly = VideoOptions(direction: .receiveOnly)
    }

    /// The direction of a video stream (`pjmedia_dir`).
    public enum VideoDirection: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// Neither way (`a=inactive`, or the stream is disabled).
        case inactive
        /// We send only (`PJMEDIA_DIR_ENCODING`, `a=sendonly`).
        case sendOnly
        /// We receive only (`PJMEDIA_DIR_DECODING`, `a=recvonly`).
        case receiveOnly
        /// Both ways (`PJMEDIA_DIR_ENCODING_DECODING`, `a=sendrecv`).
        case sendReceive

        init(_ dir: pjmedia_dir) {
            switch dir {
            case PJMEDIA_DIR_ENCODING: self = .sendOnly
            case PJMEDIA_DIR_DECODING: self = .receiveOnly
            case PJMEDIA_DIR_ENCODING_DECODING: self = .sendReceive
            default: self = .inactive
            }
        }

        var pjmedia: pjmedia_dir {
            switch self {
            case .inactive: PJMEDIA_DIR_NONE
            case .sendOnly: PJMEDIA_DIR_ENCODING
            case .receiveOnly: PJMEDIA_DIR_DECODING
            case .sendReceive: PJMEDIA_DIR_ENCODING_DECODING
            }
        }

        /// Whether video goes out in this direction.
        public var sends: Bool { self == .sendOnly || self == .sendReceive }
        /// Whether video comes in in this direction.
        public var receives: Bool { self == .receiveOnly || self == .sendReceive }

        public var description: String { rawValue }
    }
}
