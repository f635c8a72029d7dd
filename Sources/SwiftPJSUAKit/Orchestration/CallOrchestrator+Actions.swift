import Foundation
import SwiftPJSUA

// Provider actions: what the user did in the call UI, carried out on the engine; an answer or
// end tapped before the INVITE arrived waits for it (see CallOrchestrator+PendingActions.swift).
extension CallOrchestrator {
    /// Places an outgoing call (CallKit's start-call action) to `destination`, a SIP URI; with
    /// `video` (CallKit's `isVideo`) the offer carries video too.
    ///
    /// The call is recorded with `hasVideo == video`, what the call UI was told when the call
    /// started; the media event then says whether the peer took the video.
    /// `destination` is the call UI's handle, a `String` (CallKit's `CXHandle` value); it
    /// becomes a `PJSUA.SIPURI` here, before anything is recorded.
    /// - Throws: ``CallOrchestratorError/videoNotSupported(_:)`` for a video call when
    ///   ``OrchestratorConfiguration/supportsVideo`` is false (nothing is sent);
    ///   ``CallOrchestratorError/engine(_:)`` with the `PJSUAError` (`invalidURI`) of a
    ///   destination that is not a SIP URI (nothing is recorded or sent).
    public func startCall(uuid: UUID, to destination: String, video: Bool = false) async throws(CallOrchestratorError) {
        if video, !configuration.supportsVideo { throw .videoNotSupported(uuid) }
        let uri: PJSUA.SIPURI
        do {
            uri = try PJSUA.SIPURI(destination)
        } catch {
            throw .engine(error)
        }
        guard registry.beginOutgoing(uuid: uuid, destination: destination, video: video) else { throw .duplicateCall(uuid) }
        do {
            try await audioSession.configureForVoiceCall()
        } catch {
            forget(uuid)
            throw .audioSession(error)
        }
        let handle: Handle
        do {
            handle = try await engine.makeCall(to: uri, video: video)
        } catch {
            forget(uuid)
            throw .engine(error)
        }
        guard registry.attach(handle: handle, to: uuid) != nil else {
            // Forgotten while the INVITE was being sent (the orchestrator was stopped).
            await hangUpQuietly(handle)
            throw .callEnded(uuid)
        }
        await provider.reportOutgoingCallStartedConnecting(uuid: uuid)
        await runPending(uuid, handle)
        await replayOrphans(of: handle)
    }

    /// Answers an incoming call (CallKit's answer action); waits for the INVITE when the push
    /// came first.
    ///
    /// The call is answered with video when its INVITE offers video and `video` says so, or,
    /// `video` being nil (CallKit's answer action has no video flag),
    /// ``OrchestratorConfiguration/answersWithVideo`` does; never when
    /// ``OrchestratorConfiguration/supportsVideo`` is false. An INVITE without video is answered
    /// with audio alone whatever `video` says: add video afterwards with ``setVideo(uuid:enabled:)``.
    /// - Throws: ``CallOrchestratorError/videoNotSupported(_:)`` when `video` is true and
    ///   ``OrchestratorConfiguration/supportsVideo`` is false.
    public func answerCall(uuid: UUID, video: Bool? = nil) async throws(CallOrchestratorError) {
        guard let call = registry.call(uuid) else { throw .unknownCall(uuid) }
        guard call.direction == .incoming else { throw .wrongDirection(uuid) }
        if video == true, !configuration.supportsVideo { throw .videoNotSupported(uuid) }
        do {
            try await audioSession.configureForVoiceCall()
        } catch {
            throw .audioSession(error)
        }
        guard let current = registry.call(uuid), !current.isEndingLocally else { throw .callEnded(uuid) }
        if let handle = current.handle {
            try await perform(.answer(video: video), on: uuid, handle: handle).get()
        } else {
            try await waitForHandle(.answer(video: video), uuid).get()
        }
    }

    /// Ends a call (CallKit's end action): declines an unanswered incoming call (603), cancels an
    /// unanswered outgoing one, hangs up an established one. Waits for the INVITE when the push
    /// came first. Ending a call that already ended succeeds.
    public func endCall(uuid: UUID) async throws(CallOrchestratorError) {
        guard let call = registry.markEndingLocally(uuid) else {
            if registry.endedCall(uuid) != nil { return }
            throw .unknownCall(uuid)
        }
        if let handle = call.handle {
            try await perform(.end, on: uuid, handle: handle).get()
        } else {
            try await waitForHandle(.end, uuid).get()
        }
    }

    /// Puts a call on hold or takes it off (CallKit's set-held action).
    public func setHeld(uuid: UUID, held: Bool) async throws(CallOrchestratorError) {
        let handle = try readyHandle(uuid)
        try await onEngine { try await engine.setHeld(handle, to: held) }
    }

    /// Mutes or unmutes a call (CallKit's set-muted action).
    public func setMuted(uuid: UUID, muted: Bool) async throws(CallOrchestratorError) {
        let handle = try readyHandle(uuid)
        try await onEngine { try await engine.setMuted(handle, to: muted) }
    }

    /// Adds video to a live call or removes it (the app's camera button; CallKit has no action for
    /// it): a re-INVITE. The call UI's `hasVideo` follows once the engine reports the new media,
    /// so a peer that declines the video leaves the call shown as audio-only.
    /// - Throws: ``CallOrchestratorError/videoNotSupported(_:)`` when
    ///   ``OrchestratorConfiguration/supportsVideo`` is false.
    public func setVideo(uuid: UUID, enabled: Bool) async throws(CallOrchestratorError) {
        guard configuration.supportsVideo else { throw .videoNotSupported(uuid) }
        let handle = try readyHandle(uuid)
        try await onEngine { try await engine.setVideo(handle, to: enabled) }
    }

    /// Sends DTMF digits on a call (CallKit's play-DTMF action).
    public func playDTMF(uuid: UUID, digits: String) async throws(CallOrchestratorError) {
        let handle = try readyHandle(uuid)
        try await onEngine { try await engine.sendDTMF(digits, on: handle) }
    }

    /// Merges a call into a local conference with another, or splits it out (CallKit's
    /// set-group action: `other` nil leaves the group).
    public func setGroup(uuid: UUID, with other: UUID?) async throws(CallOrchestratorError) {
        let handle = try readyHandle(uuid)
        do {
            if let other {
                try await engine.conference([handle, try readyHandle(other)])
            } else {
                try await engine.split(handle)
            }
        } catch let error as CallOrchestratorError {
            throw error
        } catch {
            throw .engine(error)
        }
    }

    /// The platform activated the audio session (CallKit's `didActivate`): opens the engine's
    /// audio device, the only place that does.
    ///
    /// Returns once the device matches the session; throws when it failed to open (the session
    /// still counts as active).
    public func audioSessionDidActivate() async throws(CallOrchestratorError) {
        isAudioSessionActive = true
        if audioDeviceIsBusy {
            // The running operation sees the change when it finishes and opens the device.
            await withCheckedContinuation { audioDeviceWaiters.append($0) }
        } else {
            await matchAudioDeviceToSession()
        }
        if isAudioSessionActive, let failure = audioDeviceFailure {
            throw .engine(failure)
        }
    }

    /// The platform deactivated the audio session (CallKit's `didDeactivate`): closes the
    /// engine's audio device. When the device is still opening, it returns at once and the
    /// device is closed as soon as the opening finishes.
    public func audioSessionDidDeactivate() async {
        isAudioSessionActive = false
        guard !audioDeviceIsBusy else { return }
        await matchAudioDeviceToSession()
    }

    /// Opens or closes the engine's audio device as ``isAudioSessionActive`` says, then again
    /// each time it changed meanwhile, one operation at a time: an activation and a deactivation
    /// racing would otherwise reach the engine in either order, and the later one in the engine
    /// need not be the later one here. The last operation always matches the session.
    private func matchAudioDeviceToSession() async {
        audioDeviceIsBusy = true
        var wanted = isAudioSessionActive
        while true {
            if wanted {
                do {
                    try await engine.activateAudioDevice()
                    audioDeviceFailure = nil
                } catch {
                    audioDeviceFailure = error
                }
            } else {
                await engine.deactivateAudioDevice()
                audioDeviceFailure = nil
            }
            if isAudioSessionActive == wanted { break }
            wanted = isAudioSessionActive
        }
        audioDeviceIsBusy = false
        let waiters = audioDeviceWaiters
        audioDeviceWaiters = []
        for waiter in waiters { waiter.resume() }
    }

    /// The platform reset the call UI (CallKit's `providerDidReset`): hangs up and forgets every
    /// call, fails waiting actions, and closes the audio device.
    public func providerDidReset() async {
        let calls = registry.liveCalls
        for call in calls {
            forget(call.uuid)
            if let handle = call.handle { await hangUpQuietly(handle) }
        }
        await audioSessionDidDeactivate()
    }

    /// Runs an engine operation; its error becomes ``CallOrchestratorError/engine(_:)``.
    private func onEngine<T>(_ operation: () async throws -> T) async throws(CallOrchestratorError) -> T {
        do {
            return try await operation()
        } catch {
            throw .engine(error)
        }
    }

    private func readyHandle(_ uuid: UUID) throws(CallOrchestratorError) -> Handle {
        guard let call = registry.call(uuid) else { throw .unknownCall(uuid) }
        guard let handle = call.handle else { throw .callNotReady(uuid) }
        return handle
    }

    private func hangUpQuietly(_ handle: Handle) async {
        do {
            try await engine.hangUp(handle)
        } catch {
            // Already gone.
        }
    }
}
