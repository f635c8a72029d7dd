extension PJSUA {
    /// Something that happened inside pjsua, delivered in callback order to every subscriber of
    /// ``PJSUA/events``.
    public enum Event: Sendable {
        /// A call arrived (`on_incoming_call`). Answer, ring or reject it through the engine.
        case incomingCall(account: Account, call: Call, sipCallID: String, from: String, offeredVideo: Bool)
        /// A call changed state (`on_call_state`). `lastStatus` is the last SIP status seen.
        case callState(call: Call, state: CallState, sipCallID: String, lastStatus: SIPStatus)
        /// A call's media changed (`on_call_media_state`): `state` is its audio; `hasVideo` whether a
        /// video stream is active (never, unless video was asked for). When the audio becomes
        /// active, the engine connects the call to the audio device both ways (one way when
        /// muted) on its own thread, before it runs any engine call made after this event.
        case callMedia(call: Call, state: MediaState, hasVideo: Bool)
        /// A REGISTER transaction finished (`on_reg_state2`).
        case registration(account: Account, state: RegistrationState)
        /// A DTMF digit arrived on a call (`on_dtmf_event`): RFC 4733 telephone events once the
        /// digit ends (with its duration), SIP INFO as the request arrives.
        case dtmf(call: Call, digit: DTMFDigit)
        /// Periodic quality figures of a call with active audio, every
        /// ``Configuration/statisticsInterval`` (see ``PJSUA/setStatisticsInterval(_:)``).
        case stats(call: Call, quality: CallQuality)
        /// An outgoing call was redirected (`on_call_redirected`): a 3xx named `target`, or a
        /// target being tried failed with `status`. `followed` tells whether the engine
        /// re-sends the INVITE there (``RedirectPolicy/follow``); with ``RedirectPolicy/ask``
        /// it is false and the call waits for ``PJSUA/followRedirect(_:_:)``.
        case redirected(call: Call, target: String, status: SIPStatus, followed: Bool)
    }
}
