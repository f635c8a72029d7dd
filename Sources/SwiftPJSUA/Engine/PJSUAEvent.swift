extension PJSUA {
    /// Something that happened inside pjsua, delivered in callback order to every subscriber of
    /// ``PJSUA/events``.
    public enum Event: Sendable {
        /// A call arrived (`on_incoming_call`). Answer, ring or reject it through the engine.
        ///
        /// Every header of the INVITE, in order (e.g. `X-Call-UUID` from a push gateway,
        /// `Diversion`, `P-Asserted-Identity`), is in ``PJSUA/incomingCallHeaders(_:)``: look one
        /// up with `phone.incomingCallHeaders(call)?.value(named:)`. They stay readable after the
        /// call ended, until pjsua gives its slot to another call.
        case incomingCall(account: Account, call: Call, sipCallID: String, from: String, offeredVideo: Bool)
        /// A call changed state (`on_call_state`). `lastStatus` is the last SIP status seen.
        case callState(call: Call, state: CallState, sipCallID: String, lastStatus: SIPStatus)
        /// A call's media changed (`on_call_media_state`): `state` is its audio; `hasVideo` whether a
        /// video stream is active (never, unless video was asked for). When the audio becomes
        /// active, the engine connects the call to the audio device both ways (one way when
        /// muted) on its own thread, before it runs any engine call made after this event.
        case callMedia(call: Call, state: MediaState, hasVideo: Bool)
        /// A video call's media changed (`on_call_media_state`), right after its
        /// ``callMedia(call:state:hasVideo:)``: every video stream of the call, added, negotiated,
        /// paused or removed. Calls that never had an `m=video` line publish none.
        case videoMedia(call: Call, streams: [VideoStream])
        /// A REGISTER transaction finished (`on_reg_state2`).
        case registration(account: Account, state: RegistrationState)
        /// A DTMF digit arrived on a call (`on_dtmf_event`): RFC 4733 telephone events once the
        /// digit ends (with its duration), SIP INFO as the request arrives.
        case dtmf(call: Call, digit: DTMFDigit)
        /// Progress of a transfer we asked for (`on_call_transfer_status`) with
        /// ``PJSUA/transfer(_:to:hangUpWhenDone:)`` or
        /// ``PJSUA/transfer(_:replacing:requireReplaces:hangUpWhenDone:)``: the REFER's acceptance
        /// (100), then the transferee's new call as it reports it in NOTIFYs (180, 200 OK, or
        /// the failure). ``TransferProgress/isFinal`` marks the last one; after a 2xx final
        /// status the engine hangs up the call unless asked not to.
        case transferStatus(TransferProgress)
        /// A REFER arrived on a call (`on_call_transfer_request2`) and the ``TransferPolicy``
        /// decided: who asks (its `Referred-By`, or the call's remote party when it has none), whom
        /// to call, and whether it was accepted. When accepted,
        /// ``transferCallPlaced(call:newCall:)`` follows with the new call (unless pjsua cannot
        /// place it, say for an unusable target: the transferor is then told 500 in a NOTIFY).
        case transferRequested(TransferDecision)
        /// The engine placed `newCall` because of an accepted REFER on `call`. `newCall` is an
        /// ordinary outgoing call with its own events; the transferor usually ends `call` once
        /// `newCall` is answered.
        case transferCallPlaced(call: Call, newCall: Call)
        /// An INVITE with `Replaces` took over `call` (`on_call_replaced`), the other half of an
        /// attended transfer: `newCall` is answered in its place (with no `incomingCall`
        /// event) and `call` is ended. `newCall` then has its own state and media events.
        case callReplaced(call: Call, newCall: Call)
        /// A step of ``PJSUA/handleIPChange(_:)`` finished (`on_ip_change_progress`); `error` is
        /// nil when it succeeded. The last step is ``IPChangeStep/completed``.
        case ipChange(step: IPChangeStep, error: PJSUAError?)
        /// An instant message arrived (`on_pager2`), in or outside a call, and has been answered:
        /// with 200 OK, or with the status ``Configuration/messageResponder`` chose.
        case message(Message)
        /// A NOTIFY arrived outside any subscription for one of the
        /// ``Configuration/unsolicitedNotifyEvents`` (an unsolicited `message-summary`, a
        /// `check-sync`) and has been answered with 200 OK. Other packages are refused with 489
        /// Bad Event and publish nothing.
        case unsolicitedNotify(UnsolicitedNotify)
        /// The outcome of a message sent with ``PJSUA/sendMessage(_:to:from:contentType:headers:)-(String,_,_,_,_)``
        /// or ``PJSUA/sendMessage(_:on:contentType:headers:)-(String,_,_,_)`` (`on_pager_status2`).
        case messageStatus(MessageStatus)
        /// A TLS connection came up, or was refused or closed (`on_transport_state`). A refused
        /// server certificate arrives here, with the reason, before the registration or call
        /// that needed the connection fails.
        case tlsConnection(TLSConnection)
        /// Periodic quality figures of a call with active audio, every
        /// ``Configuration/statisticsInterval`` (see ``PJSUA/setStatisticsInterval(_:)``).
        case stats(call: Call, quality: CallQuality)
        /// An outgoing call was redirected (`on_call_redirected`): a 3xx named a target, or a
        /// target being tried failed. ``Redirect/isFollowed`` tells whether the engine re-sends
        /// the INVITE there (``RedirectPolicy/follow``); with ``RedirectPolicy/ask`` it is false
        /// and the call waits for ``PJSUA/decideRedirect(_:follow:)``.
        case redirected(Redirect)
        /// A buddy's presence changed (`on_buddy_state`): a NOTIFY of its `presence`
        /// subscription said something new (``PJSUA/addBuddy(_:account:watching:)``).
        case presence(PresenceUpdate)
        /// A buddy's line changed (`on_buddy_dlg_event_state`): a NOTIFY of its `dialog`
        /// subscription (RFC 4235) said something new, for a busy-lamp field.
        case lineState(LineState)
        /// One of our subscriptions (a buddy's, or an account's message summary) changed state:
        /// sent, active, or ended with the reason and when it is tried again.
        case subscriptionState(SubscriptionState)
        /// A watcher subscribed to an account's presence (`on_incoming_subscribe`), and the
        /// ``SubscriptionPolicy`` answered.
        case incomingSubscription(IncomingSubscription)
        /// Voicemail counts for an account changed or were repeated (`on_mwi_info`, or an
        /// unsolicited `message-summary` NOTIFY).
        case messageWaiting(MessageWaiting)
    }
}
