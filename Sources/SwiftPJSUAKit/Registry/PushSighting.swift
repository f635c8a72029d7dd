import Foundation

/// What a VoIP push means for the registry.
public enum PushSighting<Handle: Hashable & Sendable>: Sendable, Hashable {
    /// A call not seen before: report it as a new incoming call.
    case newCall(LogicalCall<Handle>)
    /// A push for a call already known (a duplicate push, or the INVITE came first).
    case repeated(LogicalCall<Handle>)
    /// A cancelling push for a known call whose INVITE has not arrived: the call is now ended.
    case cancelledKnownCall(LogicalCall<Handle>)
    /// A push for a call that already ended, or a cancelling push for an unknown call: it must
    /// still be reported (iOS requires it), then ended at once for `reason`.
    case alreadyEnded(uuid: UUID, update: CallUpdate, reason: CallEndReason)
}
