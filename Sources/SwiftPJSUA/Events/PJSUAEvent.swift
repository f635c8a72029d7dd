extension PJSUA {
    /// Something that happened inside pjsua, delivered in callback order to every subscriber of
    /// ``PJSUA/events``.
    public enum Event: Sendable {
        /// A call arrived (`on_incoming_call`). Answer, ring or reject it through the engine.
        /// `headers` are every header of the INVITE, in order (e.g. `X-Call-UUID` from a push
        /// gateway, `Diversion`, `P-Asserted-Identity`; look one up with `headers.value(named:)`).
        case incomingCall(account: Account, call: Call, sipCallID: String, from: String, offeredVideo: Bool, headers: [SIPHeader])
        /// A call changed state (`on_call_state`). `lastStatus` is the last SIP status seen.
        case callState(call: Call, state: CallState, sipCallID: String, lastStatus: SIPStatus)
        /// A call's media changed (`on_call_media_state`): `state` is its audio; `hasVideo` whether a
        /// video stream is active (never, unless video was asked for). When the audio becomes
        /// active, the engine connects the call to the audio device both ways (one way when
        /// muted) on its own thread, before it runs any engine call made after this event.
        case callMedia(call: Call, state: MediaState, hasVideo: Bool)
        /// A REGISTER transaction finished (`on_reg_state2`).
        case registration(account: Account, state: RegistrationState)
        /// A DTMF digit arrived on a call (`on_dtmf_digit2`), RFC 2833/4733 or SIP INFO.
        case dtmf(call: Call, digit: Character)
        /// A step of ``PJSUA/handleIPChange(_:)`` finished (`on_ip_change_progress`); `error` is
        /// nil when it succeeded. The last step is ``IPChangeStep/completed``.
        case ipChange(step: IPChangeStep, error: PJSUAError?)
        /// An instant message arrived (`on_pager2`), in or outside a call, and has been answered:
        /// with 200 OK, or with the status ``Configuration/messageResponder`` chose.
        case message(Message)
        /// The outcome of a message sent with ``PJSUA/sendMessage(_:to:from:contentType:headers:)-(String,_,_,_,_)``
        /// or ``PJSUA/sendMessage(_:on:contentType:headers:)-(String,_,_,_)`` (`on_pager_status2`).
        case messageStatus(MessageStatus)
        /// A TLS connection came up, or was refused or closed (`on_transport_state`). A refused
        /// server certificate arrives here, with the reason, before the registration or call
        /// that needed the connection fails.
        case tlsConnection(TLSConnection)
    }
}
