import Foundation

/// One logical call as the orchestration core tracks it: a UUID tied to at most one engine call
/// handle and one SIP Call-ID, however the push and the INVITE arrived.
public struct LogicalCall<Handle: Hashable & Sendable>: Sendable, Hashable {
    /// The call's UUID, the one the system call UI knows it by.
    public let uuid: UUID
    /// Who placed the call.
    public let direction: CallDirection
    /// The SIP Call-ID, once known (from the push, the INVITE, or the first state event).
    public internal(set) var sipCallID: String?
    /// The engine's call handle, once the INVITE arrived (incoming) or was sent (outgoing).
    public internal(set) var handle: Handle?
    /// What the call UI shows about the call.
    public internal(set) var update: CallUpdate
    /// Whether the remote side offers video: the INVITE's SDP once it arrived, the push's `video`
    /// flag before (incoming); whether we offered it (outgoing).
    public internal(set) var offersVideo: Bool
    /// Whether a VoIP push announced the call.
    public internal(set) var announcedByPush: Bool
    /// Whether the call was established (2xx and ACK).
    public internal(set) var isConnected: Bool
    /// Whether the user ended the call here (so its end is not reported back to the call UI).
    public internal(set) var isEndingLocally: Bool
}
