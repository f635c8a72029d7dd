import Foundation

/// What a VoIP push means for the registry.
enum PushSighting<Handle: Hashable & Sendable>: Sendable, Hashable {
    /// A call not seen before: report it as a new incoming call.
    case newCall(LogicalCall<Handle>)
    /// A push for a call already known (a duplicate push, or the INVITE came first).
    case repeated(LogicalCall<Handle>)
    /// A cancelling push for a known call whose INVITE has not arrived: the call is now ended.
    case cancelledKnownCall(LogicalCall<Handle>)
    /// A push for a call that already ended (`uuid` and `reason` are the ended call's): the call UI
    /// already knows that UUID, so the push is reported under a fresh placeholder UUID, ended at once.
    case alreadyEnded(uuid: UUID, update: CallUpdate, reason: CallEndReason)
    /// A cancelling push for a call never seen (the caller hung up before the push went out): it
    /// is reported under its own UUID and ended at once as unanswered (a missed call); a late
    /// INVITE for it is declined.
    case cancelledUnknownCall(uuid: UUID, update: CallUpdate)
}
