import SwiftPJSUA

/// The subset of a SIP engine the orchestration core drives; ``PJSUACallEngine`` adapts a
/// `PJSUA` to it, and tests use a fake.
public protocol CallEngine: Sendable {
    /// The engine's handle for one call.
    associatedtype CallHandle: Hashable & Sendable
    /// The engine's handle for an account (used to recover the network on a push).
    associatedtype AccountHandle: Hashable & Sendable

    /// A new, independent subscription to the engine's call events, starting now. It finishes
    /// when the engine shuts down; one made while the engine is stopped receives the events of its
    /// next run (the core subscribes again as soon as a subscription finishes).
    func callEvents() -> AsyncStream<CallEngineEvent<CallHandle>>
    /// Places an outgoing call to `destination` (a SIP URI); with `video`, the offer carries video
    /// too, otherwise audio alone.
    func makeCall(to destination: PJSUA.SIPURI, video: Bool) async throws -> CallHandle
    /// Sends a provisional response (180 Ringing) for an incoming call.
    func ring(_ call: CallHandle) async throws
    /// Answers an incoming call with 200 OK; with `video`, accepting the video it offers (and
    /// video the peer adds later), otherwise audio alone.
    func answer(_ call: CallHandle, video: Bool) async throws
    /// Adds video to a live call (`enabled`) or removes it: a re-INVITE. Does nothing when the
    /// call already has (or has no) active video. The outcome arrives as a media event.
    func setVideo(_ call: CallHandle, to enabled: Bool) async throws
    /// Ends a call (BYE, CANCEL, or 603 for an unanswered incoming call).
    func hangUp(_ call: CallHandle) async throws
    /// Rejects an incoming call with a final status `code` (300...699), e.g.
    /// `PJSUA.SIPResponseCode.decline`.
    func reject(_ call: CallHandle, code: PJSUA.SIPResponseCode) async throws
    /// Puts a call on hold or takes it off hold.
    func setHeld(_ call: CallHandle, to held: Bool) async throws
    /// Mutes or unmutes the microphone on a call.
    func setMuted(_ call: CallHandle, to muted: Bool) async throws
    /// Sends DTMF digits on a call.
    func sendDTMF(_ digits: String, on call: CallHandle) async throws
    /// Mixes `calls` into one local conference (each hears every other, and us), taking any of
    /// them off hold first; calls already in the conference stay.
    func conference(_ calls: [CallHandle]) async throws
    /// Takes a call out of the local conference.
    func split(_ call: CallHandle) async throws
    /// Opens the audio device; called only while the platform audio session is active.
    func activateAudioDevice() async throws
    /// Closes the audio device.
    func deactivateAudioDevice() async
    /// Re-registers `account` so the network path is fresh before the pushed INVITE arrives.
    func reRegister(_ account: AccountHandle) async throws
    /// Moves signalling and calls to the device's new network (listeners, registrations with
    /// the new Contact, re-INVITEs); ``NetworkChangeCoordinator`` calls it, one at a time.
    func handleIPChange() async throws
}
