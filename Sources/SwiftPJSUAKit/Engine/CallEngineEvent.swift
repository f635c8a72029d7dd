import SwiftPJSUA

/// What the orchestration core needs to hear from a SIP engine, with the engine's call handle.
public enum CallEngineEvent<Call: Hashable & Sendable>: Sendable {
    /// An INVITE arrived; `offeredVideo` says whether its SDP offered video (the engine answers
    /// audio-only, so this does not make the call a video call).
    case incomingCall(call: Call, sipCallID: String, from: String, offeredVideo: Bool)
    /// A call's media changed; `hasVideo` says whether it now has an active video stream.
    case mediaChanged(call: Call, hasVideo: Bool)
    /// A call changed state; `lastStatus` is the last SIP status seen (code 0 when no response
    /// was involved).
    case callState(call: Call, state: CallPhase, sipCallID: String, lastStatus: PJSUA.SIPStatus)
}
