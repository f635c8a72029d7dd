/// The INVITE-session state of a call, as the orchestration core sees it.
public enum CallPhase: String, Sendable, Hashable {
    /// The INVITE was sent.
    case calling
    /// An INVITE was received.
    case incoming
    /// A provisional response with a to-tag was sent or received.
    case early
    /// A 2xx was sent or received, waiting for the ACK.
    case connecting
    /// The call is established.
    case confirmed
    /// The call has ended.
    case disconnected
}
