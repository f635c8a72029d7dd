import Foundation

/// One logical call as the orchestration core tracks it: a UUID tied to at most one engine call
/// handle and one SIP Call-ID, however the push and the INVITE arrived.
struct LogicalCall<Handle: Hashable & Sendable>: Sendable, Hashable {
    /// The call's UUID, the one the system call UI knows it by.
    let uuid: UUID
    /// Who placed the call.
    let direction: CallDirection
    /// The SIP Call-ID, once known (from the push, the INVITE, or the first state event).
    var sipCallID: String?
    /// The engine's call handle, once the INVITE arrived (incoming) or was sent (outgoing).
    var handle: Handle?
    /// What the call UI shows about the call.
    var update: CallUpdate
    /// Whether the remote side offers video: the INVITE's SDP once it arrived, the push's `video`
    /// flag before (incoming); whether we offered it (outgoing).
    var offersVideo: Bool
    /// Whether a VoIP push announced the call.
    var announcedByPush: Bool
    /// Whether the call was established (2xx and ACK).
    var isConnected: Bool
    /// Whether the user ended the call here (so its end is not reported back to the call UI).
    var isEndingLocally: Bool
}
