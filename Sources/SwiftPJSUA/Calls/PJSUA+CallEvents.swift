extension PJSUA {
    /// A call that arrived: what ``Event/incomingCall(account:call:sipCallID:from:offeredVideo:)``
    /// carries, as a value.
    public struct IncomingCall: Sendable, Hashable {
        /// The account the call arrived for.
        public let account: Account
        /// The call; answer, ring or reject it through the engine.
        public let call: Call
        /// The INVITE's `Call-ID`.
        public let sipCallID: String
        /// The caller: the INVITE's `From`, printed.
        public let from: String
        /// Whether the offer has an `m=video` line the engine would accept.
        public let offeredVideo: Bool
    }

    /// A call's new state: what ``Event/callState(call:state:sipCallID:lastStatus:)`` carries, as
    /// a value.
    public struct CallStateChange: Sendable, Hashable {
        /// The call.
        public let call: Call
        /// Its new state.
        public let state: CallState
        /// The call's SIP `Call-ID`.
        public let sipCallID: String
        /// The last SIP status seen on the call.
        public let lastStatus: SIPStatus
    }

    /// What happened to calls, for a consumer that follows every call's life (a call screen, a
    /// CallKit bridge) and nothing else: ``PJSUA/callEvents``.
    public enum CallEvent: Sendable, Hashable {
        /// A call arrived.
        case incoming(IncomingCall)
        /// A call changed state.
        case state(CallStateChange)
        /// A call's media changed: `state` is its audio's, `hasVideo` whether a video stream is
        /// active (see ``Event/callMedia(call:state:hasVideo:)``).
        case media(call: Call, state: MediaState, hasVideo: Bool)
    }

    /// The calls that arrive from now on, one ``IncomingCall`` each (`on_incoming_call`).
    public nonisolated var incomingCalls: EventStream<IncomingCall> {
        hub.stream(accepting: { if case .incomingCall = $0 { true } else { false } }) { event in
            guard case let .incomingCall(account, call, sipCallID, from, offeredVideo) = event else { return .skip }
            return .element(IncomingCall(account: account, call: call, sipCallID: sipCallID, from: from, offeredVideo: offeredVideo))
        }
    }

    /// Every call's arrival, state changes and media changes from now on, in callback order
    /// (`on_incoming_call`, `on_call_state`, `on_call_media_state`).
    public nonisolated var callEvents: EventStream<CallEvent> {
        hub.stream(accepting: { CallEvent($0) != nil }) { event in
            CallEvent(event).map { .element($0) } ?? .skip
        }
    }

    /// The state changes of `call`: first the newest state already published (if any), then each
    /// new one; the sequence finishes after ``CallState/disconnected``.
    ///
    /// Subscribing late loses nothing that matters: a call's first state is published inside
    /// ``makeCall(to:from:headers:)`` before the caller holds the handle, and on loopback a call
    /// may be confirmed before anyone subscribed; the sequence starts with the state the call is
    /// in. For a call that ended long ago (pjsua gave its slot to another call) it finishes at once.
    ///
    /// ```swift
    /// let call = try await phone.makeCall(to: "sip:bob@example.com")
    /// for await change in phone.stateChanges(of: call) {
    ///     print(change.state, change.lastStatus)
    /// }   // ends after DISCONNECTED
    /// ```
    public nonisolated func stateChanges(of call: Call) -> EventStream<CallStateChange> {
        hub.stream(
            accepting: { event in
                if case let .callState(c, _, _, _) = event { c == call } else { false }
            },
            startingAfter: { $0.start(of: call) }
        ) { event in
            guard case let .callState(call, state, sipCallID, lastStatus) = event else { return .skip }
            let change = CallStateChange(call: call, state: state, sipCallID: sipCallID, lastStatus: lastStatus)
            return state == .disconnected ? .last(change) : .element(change)
        }
    }
}

extension PJSUA.CallEvent {
    /// The call event `event` is, if it is one.
    init?(_ event: PJSUA.Event) {
        switch event {
        case let .incomingCall(account, call, sipCallID, from, offeredVideo):
            self = .incoming(.init(account: account, call: call, sipCallID: sipCallID, from: from, offeredVideo: offeredVideo))
        case let .callState(call, state, sipCallID, lastStatus):
            self = .state(.init(call: call, state: state, sipCallID: sipCallID, lastStatus: lastStatus))
        case let .callMedia(call, state, hasVideo):
            self = .media(call: call, state: state, hasVideo: hasVideo)
        default:
            return nil
        }
    }
}
