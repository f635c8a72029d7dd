import Foundation

/// What an incoming INVITE means for the registry.
enum InviteSighting<Handle: Hashable & Sendable>: Sendable, Hashable {
    /// A call not announced by a push: report it as a new incoming call.
    case newCall(LogicalCall<Handle>)
    /// The INVITE a push announced: the handle is now attached; carry out queued actions.
    case matchedPush(LogicalCall<Handle>)
    /// The same engine call seen again: nothing to do.
    case retransmission(LogicalCall<Handle>)
    /// A second engine call with the Call-ID of a call that already has one: reject it
    /// (482 Loop Detected, RFC 3261 section 8.2.2.2 merged request).
    case duplicateLeg(LogicalCall<Handle>)
    /// The INVITE of a call that already ended here (the user declined it, or it timed out):
    /// reject it without reporting.
    case alreadyEnded(EndedCall)
}
