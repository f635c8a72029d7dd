/// Settings of a ``CallOrchestrator``.
public struct OrchestratorConfiguration<AccountHandle: Hashable & Sendable>: Sendable {
    /// How long a pushed call waits for its INVITE before it is ended as ``CallEndReason/failed``.
    public var inviteTimeout: Duration
    /// How long an answer or end tapped before the INVITE arrived waits before failing with
    /// ``CallOrchestratorError/timedOut(_:)`` (the call is then ended as failed).
    public var pendingActionTimeout: Duration
    /// The account re-registered when a push arrives, so the network path is fresh before the
    /// INVITE; nil skips the network wake. ``CallOrchestrator/setWakeAccount(_:)`` replaces it
    /// once the account exists.
    public var wakeAccount: AccountHandle?
    /// Whether incoming calls get 180 Ringing once reported to the call UI.
    public var sendsRinging: Bool
    /// Whether the app makes and takes video calls (CallKit's `CXProviderConfiguration.supportsVideo`,
    /// which `CallKitProvider` sets from this). When false, every call is audio-only: video
    /// offers are answered with audio alone, pushes and INVITEs are shown as audio calls, and a
    /// request for video fails with ``CallOrchestratorError/videoNotSupported(_:)``.
    public var supportsVideo: Bool
    /// Whether an incoming call whose INVITE offers video is answered with video when the answer
    /// does not say (CallKit's answer action never does); only with ``supportsVideo``. It also
    /// decides whether such a call is shown as a video call from the start (the push's `video`
    /// flag, then the INVITE's SDP), so that the call UI shows what answering will do.
    /// ``CallOrchestrator/answerCall(uuid:video:)`` overrides it per call.
    public var answersWithVideo: Bool

    /// Creates a configuration; the timeouts default to 15 seconds, video is off.
    public init(inviteTimeout: Duration = .seconds(15), pendingActionTimeout: Duration = .seconds(15),
                wakeAccount: AccountHandle? = nil, sendsRinging: Bool = true,
                supportsVideo: Bool = false, answersWithVideo: Bool = true) {
        self.inviteTimeout = inviteTimeout
        self.pendingActionTimeout = pendingActionTimeout
        self.wakeAccount = wakeAccount
        self.sendsRinging = sendsRinging
        self.supportsVideo = supportsVideo
        self.answersWithVideo = answersWithVideo
    }

    /// Whether an incoming call offering video is shown, and answered by default, as a video call.
    var showsOfferedVideo: Bool { supportsVideo && answersWithVideo }
}
