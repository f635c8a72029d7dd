import CPJSUASupport
import PJSIP

extension PJSUA {
    /// Places a call.
    ///
    /// Drives `pjsua_call_make_call()`. The `CALLING` state event is published before this returns.
    /// - Parameters:
    ///   - uri: the callee, e.g. `sip:bob@example.com`; validated before PJSIP sees it.
    ///   - account: the account to call from; nil uses ``localAccount``.
    ///   - headers: extra headers for the INVITE (e.g. `X-Call-UUID`); checked before anything
    ///     is sent (``PJSUAError/Code/invalidHeader``).
    public func makeCall(to uri: SIPURI, from account: Account? = nil, headers: [SIPHeader] = []) throws -> Call {
        try placeCall(to: uri, from: account, headers: headers, setting: Self.callSetting())
    }

    /// Places a call with the given pjsua call settings (audio-only, or with video).
    func placeCall(to uri: SIPURI, from account: Account?, headers: [SIPHeader], setting: pjsua_call_setting) throws(PJSUAError) -> Call {
        try requireRunning()
        try Validation.sipURI(uri, what: "destination URI")
        let accountSlot = try resolve(account ?? defaultAccount)
        guard Int(pjsua_call_get_count()) < Int(pjsua_call_get_max_count()) else {
            throw PJSUAError(.tooMany, "all \(pjsua_call_get_max_count()) call slots are in use (maxCalls)")
        }
        let token = HandleToken.next()
        var slot: pjsua_call_id = -1
        var setting = setting
        try withMessageData(headers) { data throws(PJSUAError) in
            try withCStringArena { arena throws(PJSUAError) in
                var destination = arena.pj(uri.text)
                try check(pjsua_call_make_call(accountSlot, &destination, &setting, HandleToken.pointer(token), data, &slot),
                          "cannot call \(Validation.quoted(uri.text))")
            }
        }
        return Call(slot: slot, token: token)
    }

    /// Answers an incoming call with a provisional (``SIPResponseCode/ringing``,
    /// ``SIPResponseCode/sessionProgress``) or success (``SIPResponseCode/ok``) response; can be
    /// called again to move from 180 to 200. To refuse a call, ``reject(_:code:headers:)`` it.
    ///
    /// Drives `pjsua_call_answer2()` with audio-only call settings: an offered video stream is
    /// declined (`m=video 0` in the answer). `headers` go on this response only.
    ///
    /// A 180, 181 or 182 carries no SDP and is sent without call settings (as ``ring(_:code:headers:)``
    /// does): pjsua fixes a call's settings at the first answer that carries them, so ringing
    /// first leaves the final answer free to take video (``answer(_:code:headers:video:)``).
    /// A 183 carries early-media SDP and fixes them.
    /// - Throws: ``PJSUAError/Code/invalidArgument`` for a code outside 101...299 (100 is
    ///   pjsua's own; an error status is ``reject(_:code:headers:)``'s).
    public func answer(_ call: Call, code: SIPResponseCode = .ok, headers: [SIPHeader] = []) throws {
        try respond(to: call, code: code, headers: headers, setting: Self.callSetting())
    }

    /// The codes ``answer(_:code:headers:)`` sends: provisional (but pjsua's own 100) or success.
    static let answerCodes = 101...299

    /// Answers with the given pjsua call settings (audio-only, or with video); a response
    /// without SDP (180...182) is sent without them, leaving them to the final answer.
    func respond(to call: Call, code: SIPResponseCode, headers: [SIPHeader], setting: pjsua_call_setting) throws(PJSUAError) {
        let slot = try resolve(call)
        try code.require(Self.answerCodes, for: "answer", "a provisional or success status")
        var setting = setting
        try withMessageData(headers) { data throws(PJSUAError) in
            let status = (180...182).contains(code.rawValue) ? pjsua_call_answer2(slot, nil, UInt32(code.rawValue), nil, data)
                : pjsua_call_answer2(slot, &setting, UInt32(code.rawValue), nil, data)
            try check(status, "cannot answer \(call) with \(code)")
        }
    }

    /// The call settings of every call the engine places, answers or re-INVITEs: one audio
    /// stream, no video and no real-time text.
    ///
    /// pjsua's defaults (`pjsua_call_setting_default`) offer and accept video whenever the
    /// library was built with it, as the iOS binary and our Linux build are; a call that the app
    /// (and CallKit) believe to be audio-only must not send camera frames. pjproject 2.17's
    /// defaults also add a T.140 real-time text stream (`m=text`) to every call, with its own RTP
    /// sockets and conference port; nothing in the engine uses it. pjsua keeps the
    /// settings given at make-call or answer time for the call's later re-INVITEs and UPDATEs,
    /// and for answering the peer's re-offers.
    static func callSetting() -> pjsua_call_setting {
        var setting = pjsua_call_setting()
        pjsua_call_setting_default(&setting)
        setting.aud_cnt = 1
        setting.vid_cnt = 0
        setting.txt_cnt = 0
        return setting
    }

    /// Rejects an incoming call with a final error status: ``SIPResponseCode/busyHere`` by
    /// default, ``SIPResponseCode/decline`` is the other common one.
    ///
    /// Drives `pjsua_call_hangup()` with a final status code; `headers` go on the response.
    /// - Throws: ``PJSUAError/Code/invalidArgument`` for a code outside 300...699.
    public func reject(_ call: Call, code: SIPResponseCode = .busyHere, headers: [SIPHeader] = []) throws {
        try code.require(Self.refusalCodes, for: "reject", "a final error status")
        try end(call, code: code, headers: headers)
    }

    /// The codes that refuse a request: redirections and failures.
    static let refusalCodes = 300...699

    /// Ends a call: BYE when established, CANCEL when outgoing and not answered, 603 Decline when
    /// incoming and not answered (to refuse one with another status, ``reject(_:code:headers:)``:
    /// the one way to end a call with a code).
    ///
    /// Drives `pjsua_call_hangup()`. `headers` go on the BYE, CANCEL or final response.
    public func hangUp(_ call: Call, headers: [SIPHeader] = []) throws {
        try end(call, code: nil, headers: headers)
    }

    /// `pjsua_call_hangup()` with `code` (0, pjsua's default, when nil) for an unanswered
    /// incoming call.
    private func end(_ call: Call, code: SIPResponseCode?, headers: [SIPHeader]) throws(PJSUAError) {
        let slot = try resolve(call)
        // A call waiting for its credential provider ends by giving the challenge up (401).
        if try currentRun().credentials.abandon(call: call) { return }
        try withMessageData(headers) { data throws(PJSUAError) in
            try check(pjsua_call_hangup(slot, UInt32(code?.rawValue ?? 0), nil, data), "cannot hang up \(call)")
        }
    }

    /// Puts a call on hold (re-INVITE with `a=sendonly`); the call's media state becomes
    /// ``MediaState/localHold``.
    ///
    /// Drives `pjsua_call_set_hold()`.
    public func hold(_ call: Call) throws {
        let slot = try resolve(call)
        try check(pjsua_call_set_hold(slot, nil), "cannot hold \(call)")
    }

    /// Takes a call off hold (re-INVITE offering `a=sendrecv`).
    ///
    /// Drives `pjsua_call_reinvite2()` with `PJSUA_CALL_UNHOLD` and the call's settings (its
    /// video, if it has any, stays).
    public func resume(_ call: Call) throws {
        let slot = try resolve(call)
        var setting = Self.callSetting()
        setting.vid_cnt = withCallInfo(slot) { $0.pointee.setting.vid_cnt } ?? 0
        setting.flag = UInt32(PJSUA_CALL_UNHOLD.rawValue)
        try check(pjsua_call_reinvite2(slot, &setting, nil), "cannot resume \(call)")
    }

    /// Mutes (`to: true`) or unmutes a call's microphone path (the sound device to the call); the
    /// remote party is still heard. Survives hold, resume and device changes; ends with the call.
    ///
    /// Drives `pjsua_conf_disconnect()` / `pjsua_conf_connect()`.
    public func setMuted(_ call: Call, to muted: Bool) throws {
        _ = try resolve(call)
        let run = try requireRunning()
        run.withCall(call) { $0.isMuted = muted }
        // On the executor thread, like every wiring: see AudioWiring.
        AudioWiring.rewire(call, in: run)
    }

    /// Whether the sound device (conference slot 0) currently feeds the call's audio: the
    /// microphone path, as wired on the bridge (`pjsua_conf_get_port_info`).
    func microphonePathConnected(_ call: Call) throws(PJSUAError) -> Bool {
        let port = try audioPort(of: call)
        var info = pjsua_conf_port_info()
        try check(pjsua_conf_get_port_info(0, &info), "pjsua_conf_get_port_info")
        return withUnsafeBytes(of: info.listeners) { raw in
            raw.bindMemory(to: pjsua_conf_port_id.self).prefix(Int(info.listener_cnt)).contains(port)
        }
    }

    /// Whether a call's microphone path is muted.
    public func isMuted(_ call: Call) throws -> Bool {
        _ = try resolve(call)
        return run?.record(of: call) { $0.isMuted } ?? false
    }

    /// Recovers signalling after the device's network changed (or after a VoIP push woke the
    /// app, when the old TCP/TLS connection is usually dead): opens the listeners again on the
    /// new address, shuts down connections bound to the old one, registers every account again
    /// with its new Contact and moves or ends its calls (``Account/Configuration/ipChangeCalls``).
    /// Call it once the new network is up (SwiftPJSUAKit's `NetworkChangeCoordinator` decides
    /// when). Each step arrives as ``Event/ipChange(step:error:)``, ending with
    /// ``IPChangeStep/completed``; registrations as ``Event/registration(account:state:)``.
    /// A call while a change is still being handled is folded into it (pjsua answers busy,
    /// pjproject #3696).
    ///
    /// Challenges still waiting for a ``CredentialProvider`` are given up first, because the
    /// change replaces what they would answer through (pjsua sends every account's REGISTER
    /// afresh, and may hang calls up or shut their connections down): such a registration
    /// fails with 401 and pjsua's change then leaves the account alone (call
    /// ``reRegister(_:updatingPush:)`` once the change has completed), and such a call ends,
    /// as when its provider declines.
    ///
    /// Drives `pjsua_handle_ip_change()`.
    public func handleIPChange(_ options: IPChangeOptions = IPChangeOptions()) throws {
        let run = try requireRunning()
        try Validation.duration(options.listenerRestartDelay, in: .zero ... .seconds(60), what: "listenerRestartDelay")
        run.credentials.abandonAll()
        var parameters = pjsua_ip_change_param()
        pjsua_ip_change_param_default(&parameters)
        parameters.restart_listener = options.restartListener ? 1 : 0
        parameters.restart_lis_delay = UInt32(options.listenerRestartDelay.wholeMilliseconds)
        parameters.shutdown_transport = options.shutDownTransports ? 1 : 0
        let status = pjsua_handle_ip_change(&parameters)
        // A change already being handled (PJ_EBUSY / PJSIP_EBUSY, pjproject #3696) covers this one.
        guard status == pjSuccess || status == cpjsua_status_ebusy || status == cpjsua_status_sip_ebusy else {
            throw PJSUAError(status: status, operation: "pjsua_handle_ip_change")
        }
    }

    /// A snapshot of a live call.
    public struct CallInfo: Sendable, Hashable {
        /// The call.
        public let call: Call
        /// Its state.
        public let state: CallState
        /// The SIP Call-ID header value.
        public let sipCallID: String
        /// The remote party (From of an incoming call, To of an outgoing one).
        public let remote: String
        /// The last SIP status seen.
        public let lastStatus: SIPStatus
        /// The audio state.
        public let media: MediaState
        /// Whether we placed the call.
        public let isOutgoing: Bool
        /// Whether the call has an active video stream.
        public let hasVideo: Bool
        /// Whether the audio is encrypted (SRTP), and how.
        public let encryption: MediaEncryption
    }

    /// The current state of a live call.
    ///
    /// Drives `pjsua_call_get_info()`.
    public func info(_ call: Call) throws -> CallInfo {
        let run = self.run
        return try withLiveCallInfo(call) { info in
            let identity = callIdentity(call, info, in: run)
            return CallInfo(call: call, state: CallState(info.pointee.state), sipCallID: identity.sipCallID, remote: identity.remote,
                            lastStatus: SIPStatus(code: .init(info.pointee.last_status), reason: String(pj: info.pointee.last_status_text), in: run),
                            media: MediaState(info.pointee.media_status), isOutgoing: info.pointee.role == PJSIP_ROLE_UAC,
                            hasVideo: hasActiveVideo(info), encryption: mediaEncryption(of: call.slot, info))
        }
    }

    /// Every header of the INVITE that started an incoming call, in message order (e.g.
    /// `X-Call-UUID` from a push gateway, `Diversion`, `P-Asserted-Identity`; look one up with
    /// `value(named:)`): what ``Event/incomingCall(account:call:sipCallID:from:offeredVideo:)``
    /// does not carry.
    ///
    /// Read from the INVITE in pjsua's `on_incoming_call`, before the event. They stay readable
    /// after the call ended, until pjsua gives the call's slot to another incoming call or the
    /// engine shuts down; nil for an outgoing call, and after that.
    public nonisolated func incomingCallHeaders(_ call: Call) -> [SIPHeader]? {
        runBox.withLockedValue { $0 }?.withState { state in
            guard let kept = state.inviteHeaders[call.slot], kept.token == call.token else { return nil }
            return kept.headers
        }
    }

    /// The calls currently alive.
    ///
    /// Drives `pjsua_enum_calls()`.
    public func activeCalls() throws -> [Call] {
        try requireRunning()
        return try callSlots().map(callHandle)
    }

    /// The slots of the calls pjsua holds now (`pjsua_enum_calls`).
    func callSlots() throws(PJSUAError) -> [pjsua_call_id] {
        var ids = [pjsua_call_id](repeating: -1, count: PJSUA.maxCallsLimit)
        var count = UInt32(ids.count)
        try check(pjsua_enum_calls(&ids, &count), "pjsua_enum_calls")
        return Array(ids.prefix(Int(count)))
    }

    /// Runs `body` with the current `pjsua_call_info` of a live call, read in place (see
    /// `withCallInfo`).
    func withLiveCallInfo<T>(_ call: Call, _ body: (UnsafePointer<pjsua_call_info>) throws(PJSUAError) -> T) throws(PJSUAError) -> T {
        let slot = try resolve(call)
        guard let result = try withCallInfo(slot, body) else {
            throw PJSUAError(.staleHandle, "\(call) ended while it was being read")
        }
        return result
    }
}
