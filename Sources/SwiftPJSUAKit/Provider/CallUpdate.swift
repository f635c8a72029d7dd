/// What the system call UI shows about a call (mirrors `CXCallUpdate`).
public struct CallUpdate: Sendable, Hashable {
    /// The remote party's handle (SIP URI or number), when known.
    public var remoteHandle: String?
    /// The remote party's display name, when known.
    public var displayName: String?
    /// Whether the call has an active video stream (false until the engine reports one: the
    /// engine answers and calls audio-only, whatever the push or the INVITE offered).
    public var hasVideo: Bool

    /// Creates an update.
    public init(remoteHandle: String? = nil, displayName: String? = nil, hasVideo: Bool = false) {
        self.remoteHandle = remoteHandle
        self.displayName = displayName
        self.hasVideo = hasVideo
    }
}
