import SwiftPJSUA

/// PJSUA as the orchestration core's engine.
extension PJSUA: CallEngine {
    /// Subscribes to ``PJSUA/events`` now and translates call events for the core; the
    /// subscription ends when the returned stream is dropped or the engine shuts down. A
    /// subscription made while the engine is stopped receives the events of its next run.
    public nonisolated func callEvents() -> AsyncStream<CallEngineEvent<PJSUA.Call>> {
        let source = events
        let (stream, continuation) = AsyncStream<CallEngineEvent<PJSUA.Call>>.makeStream(bufferingPolicy: .unbounded)
        let pump = Task {
            for await event in source {
                if let translated = Self.translate(event) { continuation.yield(translated) }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in pump.cancel() }
        return stream
    }

    /// Calls ``PJSUA/makeCall(to:from:)`` from the local account, or with `video`
    /// ``PJSUA/makeCall(to:from:headers:video:)`` with video both ways from the default capture
    /// device (switch it with ``PJSUA/setVideoCaptureDevice(_:of:)``).
    public func placeCall(to destination: String, video: Bool) async throws -> PJSUA.Call {
        video ? try makeCall(to: destination, from: nil, video: .sendReceive) : try makeCall(to: destination, from: nil)
    }

    /// Calls ``PJSUA/ring(_:code:headers:)``: 180 Ringing that leaves audio or video to the answer.
    public func ringCall(_ call: PJSUA.Call) async throws {
        try ring(call)
    }

    /// Answers with 200 OK, with `video` through ``PJSUA/answer(_:code:headers:video:)`` (video
    /// both ways from the default capture device).
    public func answerCall(_ call: PJSUA.Call, video: Bool) async throws {
        if video {
            try answer(call, code: .ok, video: .sendReceive)
        } else {
            try answer(call, code: .ok)
        }
    }

    /// Calls ``PJSUA/addVideo(to:options:)`` (both ways) or ``PJSUA/removeVideo(from:)`` unless the
    /// call already is (or is not) a video call (``PJSUA/CallInfo/hasVideo``): adding a second
    /// stream, or removing none, would be a useless re-INVITE.
    public func setCallVideo(_ call: PJSUA.Call, enabled: Bool) async throws {
        guard try info(call).hasVideo != enabled else { return }
        if enabled {
            try addVideo(to: call, options: .sendReceive)
        } else {
            try removeVideo(from: call)
        }
    }

    /// Calls ``PJSUA/hangUp(_:code:headers:)`` with the default code.
    public func hangUpCall(_ call: PJSUA.Call) async throws {
        try hangUp(call)
    }

    /// Calls ``PJSUA/reject(_:code:headers:)``.
    public func rejectCall(_ call: PJSUA.Call, code: Int) async throws {
        try reject(call, code: PJSUA.SIPResponseCode(rawValue: code))
    }

    /// Calls ``PJSUA/hold(_:)`` or ``PJSUA/resume(_:)``.
    public func setCallHeld(_ call: PJSUA.Call, held: Bool) async throws {
        if held { try hold(call) } else { try resume(call) }
    }

    /// Calls ``PJSUA/setMuted(_:to:)``.
    public func setCallMuted(_ call: PJSUA.Call, muted: Bool) async throws {
        try setMuted(call, to: muted)
    }

    /// Calls ``PJSUA/sendDTMF(_:on:)``.
    public func sendDigits(_ digits: String, on call: PJSUA.Call) async throws {
        try sendDTMF(digits, on: call)
    }

    /// Calls ``PJSUA/activateAudioDevice()``.
    public func enableAudioDevice() async throws {
        try activateAudioDevice()
    }

    /// Calls ``PJSUA/deactivateAudioDevice()``.
    public func disableAudioDevice() async {
        deactivateAudioDevice()
    }

    /// Calls ``PJSUA/reRegister(_:updatingPush:)`` without changing the push parameters.
    public func recoverNetwork(for account: PJSUA.Account) async throws {
        try reRegister(account, updatingPush: nil)
    }

    /// Resumes any of `calls` this side holds, then ``PJSUA/conference(_:)``: a held call would
    /// join the conference silent until resumed.
    public func mergeCalls(_ calls: [PJSUA.Call]) async throws {
        for call in calls where try info(call).media == .localHold {
            try resume(call)
        }
        try conference(calls)
    }

    /// Calls ``PJSUA/split(_:)``.
    public func splitCall(_ call: PJSUA.Call) async throws {
        try split(call)
    }

    /// Calls ``PJSUA/handleIPChange(_:)`` with pjsua's default options.
    public func handleNetworkChange() async throws {
        try handleIPChange()
    }

    private nonisolated static func translate(_ event: PJSUA.Event) -> CallEngineEvent<PJSUA.Call>? {
        switch event {
        case let .incomingCall(_, call, sipCallID, from, offeredVideo):
            return .incomingCall(call: call, sipCallID: sipCallID, from: from, offeredVideo: offeredVideo)
        case let .callState(call, state, sipCallID, lastStatus):
            let phase: CallPhase
            switch state {
            case .null: return nil
            case .calling: phase = .calling
            case .incoming: phase = .incoming
            case .early: phase = .early
            case .connecting: phase = .connecting
            case .confirmed: phase = .confirmed
            case .disconnected: phase = .disconnected
            }
            return .callState(call: call, state: phase, sipCallID: sipCallID,
                              lastStatus: SIPStatusCode(lastStatus.code.rawValue, lastStatus.reason))
        case let .callMedia(call, _, hasVideo):
            return .mediaChanged(call: call, hasVideo: hasVideo)
        case .registration, .dtmf, .ipChange, .message, .unsolicitedNotify, .messageStatus, .tlsConnection,
             .transferStatus, .transferRequested, .transferCallPlaced, .callReplaced, .stats, .redirected:
            return nil
        case .videoMedia:
            // `callMedia`, published just before, already carries whether video is active.
            return nil
        }
    }
}
