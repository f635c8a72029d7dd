import Foundation

/// The system call UI the orchestration core reports to (CallKit's `CXProvider` on Apple
/// platforms; a fake in tests).
public protocol CallProvider: Sendable {
    /// Shows a new incoming call; throws when the system refuses it (Do Not Disturb, blocked, or a
    /// UUID it already knows: CallKit's `callUUIDAlreadyExists`).
    func reportNewIncomingCall(uuid: UUID, update: CallUpdate) async throws
    /// Updates what the call UI shows about a reported call (CallKit's `reportCall(with:updated:)`),
    /// e.g. when video starts or stops.
    func reportCallUpdated(uuid: UUID, update: CallUpdate) async
    /// Tells the system an outgoing call started connecting (the INVITE went out).
    func reportOutgoingCallStartedConnecting(uuid: UUID) async
    /// Tells the system an outgoing call was answered.
    func reportOutgoingCallConnected(uuid: UUID) async
    /// Tells the system a call ended for a reason other than the user's own action.
    func reportCallEnded(uuid: UUID, reason: CallEndReason) async
}
