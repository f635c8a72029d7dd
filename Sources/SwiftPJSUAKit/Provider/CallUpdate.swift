/// What the system call UI shows about a call (mirrors `CXCallUpdate`).
public struct CallUpdate: Sendable, Hashable {
    /// The remote party's handle (SIP URI or number), when known.
    public var remoteHandle: String?
    /// The remote party's display name, when known.
    public var displayName: String?
    /// Whether the call is a video call: at first what the call was started with, or, for an
    /// incoming call, whether it offers video and will be answered with it
    /// (``OrchestratorConfiguration/answersWithVideo``); from the first media event on, whether
    /// the call has an active video stream.
    public var hasVideo: Bool

    /// Creates an update.
    public init(remoteHandle: String? = nil, displayName: String? = nil, hasVideo: Bool = false) {
        self.remoteHandle = remoteHandle
        self.displayName = displayName
        self.hasVideo = hasVideo
    }
}
