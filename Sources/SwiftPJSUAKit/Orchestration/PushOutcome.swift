import Foundation

/// What the orchestration core did with a VoIP push; in every case the push was reported to the
/// call provider, as iOS requires.
public enum PushOutcome: Sendable, Hashable {
    /// A new incoming call was reported; its INVITE is awaited (or already arrived).
    case reportedNewCall(UUID)
    /// The push repeated a call already reported; it was acknowledged.
    case repeatedCall(UUID)
    /// The call was reported (or acknowledged) and ended at once, for `reason`: the caller already
    /// cancelled, or the call had already ended.
    case reportedAndEnded(UUID, CallEndReason)
    /// The system refused to show the call (Do Not Disturb, blocked caller); its INVITE will be declined.
    case refusedBySystem(UUID)
    /// The payload was unusable; a placeholder call was reported and ended as failed.
    case invalidPayload(UUID, PushPayloadError)
}
