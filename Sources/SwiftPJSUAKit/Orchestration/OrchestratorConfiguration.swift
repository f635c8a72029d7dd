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

    /// Creates a configuration; the timeouts default to 15 seconds.
    public init(inviteTimeout: Duration = .seconds(15), pendingActionTimeout: Duration = .seconds(15),
                wakeAccount: AccountHandle? = nil, sendsRinging: Bool = true) {
        self.inviteTimeout = inviteTimeout
        self.pendingActionTimeout = pendingActionTimeout
        self.wakeAccount = wakeAccount
        self.sendsRinging = sendsRinging
    }
}
