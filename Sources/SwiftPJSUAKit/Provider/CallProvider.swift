import Foundation

/// The system call UI the orchestration core reports to (CallKit's `CXProvider` on Apple
/// platforms; a fake in tests).
public protocol CallProvider: Sendable {
    /// Shows a new incoming call; throws when the system refuses it (Do Not Disturb, blocked).
    func reportNewIncomingCall(uuid: UUID, update: CallUpdate) async throws
    /// Acknowledges a VoIP push for a call already reported (PushKit wants every push reported).
    func reportRepeatedIncomingPush(uuid: UUID, update: CallUpdate) async
    /// Tells the system an outgoing call started connecting (the INVITE went out).
    func reportOutgoingCallStartedConnecting(uuid: UUID) async
    /// Tells the system an outgoing call was answered.
    func reportOutgoingCallConnected(uuid: UUID) async
    /// Tells the system a call ended for a reason other than the user's own action.
    func reportCallEnded(uuid: UUID, reason: CallEndReason) async
}
