import Foundation

/// A call that has ended, remembered so that late pushes and late INVITEs for it are recognised.
public struct EndedCall: Sendable, Hashable {
    /// The ended call's UUID.
    public let uuid: UUID
    /// Its SIP Call-ID, when it was known.
    public let sipCallID: String?
    /// Why it ended.
    public let reason: CallEndReason
}
