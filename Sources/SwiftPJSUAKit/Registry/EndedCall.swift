import Foundation

/// A call that has ended, remembered so that late pushes and late INVITEs for it are recognised.
struct EndedCall: Sendable, Hashable {
    /// The ended call's UUID.
    let uuid: UUID
    /// Its SIP Call-ID, when it was known.
    let sipCallID: String?
    /// Why it ended.
    let reason: CallEndReason
}
