import Foundation

/// What the orchestration core did with a VoIP push.
///
/// In every case a new incoming call was posted to the call provider, as iOS requires of every
/// VoIP push (it terminates an app whose push ends without one): under the call's own UUID when
/// the provider has never seen it, otherwise under a fresh placeholder UUID that is ended at once
/// as ``CallEndReason/failed``. A report the provider refuses, for any reason, is retried once
/// under a fresh placeholder UUID; if that is refused too (Do Not Disturb refuses everything),
/// nothing more is tried.
public enum PushOutcome: Sendable, Hashable {
    /// A new incoming call was reported; its INVITE is awaited (or already arrived).
    case reportedNewCall(UUID)
    /// The push repeated a live call (a duplicate push, or the INVITE came first): a placeholder
    /// was reported and ended; the call is untouched.
    case repeatedCall(UUID)
    /// The call ended at once for `reason`: the caller already cancelled (the call was reported
    /// under its own UUID when the provider had never seen it, else a placeholder was), or the call
    /// had already ended (a placeholder was reported).
    case reportedAndEnded(UUID, CallEndReason)
    /// The system refused to show the call (Do Not Disturb, blocked caller); a placeholder was
    /// reported and ended, and the call's INVITE will be declined.
    case refusedBySystem(UUID)
    /// The payload was unusable; a placeholder call (this UUID) was reported and ended as failed.
    case invalidPayload(UUID, PushPayloadError)
}
