import SwiftPJSUA

/// The adapter that lets the orchestration core drive a `PJSUA` engine: wrap the
/// app's engine in one and hand it to ``CallOrchestrator`` or ``NetworkChangeCoordinator``.
///
/// ```swift
/// let phone = PJSUA()
/// let core = CallOrchestrator(engine: PJSUACallEngine(phone), provider: callKit,
///                             audioSession: AVAudioSessionControl())
/// ```
///
/// The adapter keeps the core's vocabulary (``CallEngine``) off `PJSUA` itself, so the engine's
/// own API stays the only one on its type. It holds the engine strongly and owns nothing else:
/// copies drive the same engine.
public struct PJSUACallEngine: CallEngine {
    /// The engine driven.
    public let phone: PJSUA

    /// Wraps `phone`.
    public init(_ phone: PJSUA) {
        self.phone = phone
    }

    /// Subscribes to `PJSUA.callEvents` now and translates them for the core; the
    /// subscription ends when the returned stream is dropped or the engine shuts down. A
    /// subscription made while the engine is stopped receives the events of its next run.
    public func callEvents() -> AsyncStream<CallEngineEvent<PJSUA.Call>> {
        let source = phone.callEvents
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

    /// Calls `PJSUA.makeCall(to:from:headers:)` from the local account, or with
    /// `video` `PJSUA.makeCall(to:from:headers:video:)` with video both ways from the
    /// default capture device (switch it with `PJSUA.setVideoCaptureDevice(_:of:)`).
    public func makeCall(to destination: PJSUA.SIPURI, video: Bool) async throws -> PJSUA.Call {
        if video {
            try await phone.makeCall(to: destination, from: nil, video: .sendReceive)
        } else {
            try await phone.makeCall(to: destination, from: nil)
        }
    }

    /// Calls `PJSUA.ring(_:code:headers:)`: 180 Ringing that leaves audio or video to
    /// the answer.
    public func ring(_ call: PJSUA.Call) async throws {
        try await phone.ring(call)
    }

    /// Answers with 200 OK, with `video` through `PJSUA.answer(_:code:headers:video:)`
    /// (video both ways from the default capture device), else through
    /// `PJSUA.answer(_:code:headers:)`.
    public func answer(_ call: PJSUA.Call, video: Bool) async throws {
        if video {
            try await phone.answer(call, code: .ok, video: .sendReceive)
        } else {
            try await phone.answer(call, code: .ok)
        }
    }

    /// Calls `PJSUA.addVideo(to:options:)` (both ways) or
    /// `PJSUA.removeVideo(from:)` unless the call already is (or is not) a video
    /// call (`PJSUA.CallInfo.hasVideo`): adding a second stream, or removing none,
    /// would be a useless re-INVITE.
    public func setVideo(_ call: PJSUA.Call, to enabled: Bool) async throws {
        try await Self.setVideo(of: call, enabled: enabled, on: phone)
    }

    /// Calls `PJSUA.hangUp(_:headers:)`.
    public func hangUp(_ call: PJSUA.Call) async throws {
        try await phone.hangUp(call)
    }

    /// Calls `PJSUA.reject(_:code:headers:)`.
    public func reject(_ call: PJSUA.Call, code: PJSUA.SIPResponseCode) async throws {
        try await phone.reject(call, code: code)
    }

    /// Calls `PJSUA.hold(_:)` or `PJSUA.resume(_:)`.
    public func setHeld(_ call: PJSUA.Call, to held: Bool) async throws {
        if held {
            try await phone.hold(call)
        } else {
            try await phone.resume(call)
        }
    }

    /// Calls `PJSUA.setMuted(_:to:)`.
    public func setMuted(_ call: PJSUA.Call, to muted: Bool) async throws {
        try await phone.setMuted(call, to: muted)
    }

    /// Calls `PJSUA.sendDTMF(_:on:method:duration:)` with its defaults.
    public func sendDTMF(_ digits: String, on call: PJSUA.Call) async throws {
        try await phone.sendDTMF(digits, on: call)
    }

    /// Resumes any of `calls` this side holds, then `PJSUA.conference(_:)`: a held
    /// call would join the conference silent until resumed.
    public func conference(_ calls: [PJSUA.Call]) async throws {
        try await Self.merge(calls, on: phone)
    }

    /// Calls `PJSUA.split(_:)`.
    public func split(_ call: PJSUA.Call) async throws {
        try await phone.split(call)
    }

    /// Calls `PJSUA.activateAudioDevice()`.
    public func activateAudioDevice() async throws {
        try await phone.activateAudioDevice()
    }

    /// Calls `PJSUA.deactivateAudioDevice()`.
    public func deactivateAudioDevice() async {
        await phone.deactivateAudioDevice()
    }

    /// Calls `PJSUA.reRegister(_:updatingPush:)` without changing the push parameters.
    public func reRegister(_ account: PJSUA.Account) async throws {
        try await phone.reRegister(account, updatingPush: nil)
    }

    /// Calls `PJSUA.handleIPChange(_:)` with pjsua's default options.
    public func handleIPChange() async throws {
        try await phone.handleIPChange()
    }

    // The two steps below that read the call before acting run on the engine's actor in one go
    // (an `isolated` parameter), as they did when they were methods of PJSUA: nothing else the
    // engine does can come between the read and the action.

    private static func setVideo(of call: PJSUA.Call, enabled: Bool, on phone: isolated PJSUA) throws {
        guard try phone.info(call).hasVideo != enabled else { return }
        if enabled {
            try phone.addVideo(to: call, options: .sendReceive)
        } else {
            try phone.removeVideo(from: call)
        }
    }

    private static func merge(_ calls: [PJSUA.Call], on phone: isolated PJSUA) throws {
        for call in calls where try phone.info(call).media == .localHold {
            try phone.resume(call)
        }
        try phone.conference(calls)
    }

    private static func translate(_ event: PJSUA.CallEvent) -> CallEngineEvent<PJSUA.Call>? {
        switch event {
        case let .incoming(incoming):
            return .incomingCall(call: incoming.call, sipCallID: incoming.sipCallID, from: incoming.from,
                                 offeredVideo: incoming.offeredVideo)
        case let .state(change):
            let phase: CallPhase
            switch change.state {
            case .null: return nil
            case .calling: phase = .calling
            case .incoming: phase = .incoming
            case .early: phase = .early
            case .connecting: phase = .connecting
            case .confirmed: phase = .confirmed
            case .disconnected: phase = .disconnected
            }
            return .callState(call: change.call, state: phase, sipCallID: change.sipCallID, lastStatus: change.lastStatus)
        case let .media(call, _, hasVideo):
            return .mediaChanged(call: call, hasVideo: hasVideo)
        }
    }
}
