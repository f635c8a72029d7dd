import Foundation

/// The provider actions a platform call UI forwards to the orchestration core; the Apple
/// adapters talk to ``CallOrchestrator`` through this, so they need not know its generic types.
public protocol CallActionHandling: Sendable {
    /// Places an outgoing call to `destination` (a SIP URI), with video or not.
    func startCall(uuid: UUID, to destination: String, video: Bool) async throws
    /// Answers an incoming call; `video` nil leaves the choice to the configuration.
    func answerCall(uuid: UUID, video: Bool?) async throws
    /// Ends a call.
    func endCall(uuid: UUID) async throws
    /// Puts a call on hold or takes it off.
    func setHeld(uuid: UUID, held: Bool) async throws
    /// Mutes or unmutes a call.
    func setMuted(uuid: UUID, muted: Bool) async throws
    /// Sends DTMF digits on a call.
    func playDTMF(uuid: UUID, digits: String) async throws
    /// Merges a call into a local conference with another (`other`), or takes it out of its
    /// conference (`other` nil): CallKit's set-group action.
    func setGroup(uuid: UUID, with other: UUID?) async throws
    /// The platform activated the audio session.
    func audioSessionDidActivate() async throws
    /// The platform deactivated the audio session.
    func audioSessionDidDeactivate() async
    /// The platform reset the call UI: every call is gone.
    func providerDidReset() async
    /// Handles a VoIP push (parsed, or failed to parse).
    func handleIncomingPush(_ parsed: Result<VoIPPushPayload, PushPayloadError>) async -> PushOutcome
}

extension CallOrchestrator: CallActionHandling {}
