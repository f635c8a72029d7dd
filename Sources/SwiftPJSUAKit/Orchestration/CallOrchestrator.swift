import Foundation

/// The platform-neutral core of a CallKit integration: turns provider actions into engine calls
/// and engine events into provider reports, keeping one logical call per SIP call whatever order
/// its push and its INVITE arrive in.
///
/// Rules it holds:
/// - Every VoIP push is reported to the provider (iOS requires it), even a duplicate, a late one,
///   a cancelled one or an unreadable one.
/// - The engine's audio device is opened only by ``audioSessionDidActivate()`` and closed by
///   ``audioSessionDidDeactivate()``; nothing else touches it.
/// - An answer or end tapped before the INVITE arrives waits for it, and fails with
///   ``CallOrchestratorError/timedOut(_:)`` after ``OrchestratorConfiguration/pendingActionTimeout``.
/// - A pushed call whose INVITE never comes is ended as ``CallEndReason/failed`` after
///   ``OrchestratorConfiguration/inviteTimeout``.
public actor CallOrchestrator<Engine: CallEngine, Provider: CallProvider, Audio: AudioSessionControl> {
    /// The engine's call handle.
    public typealias Handle = Engine.CallHandle

    /// The SIP engine driven.
    public nonisolated let engine: Engine
    /// The call UI reported to.
    public nonisolated let provider: Provider
    /// The platform audio session configured for calls.
    public nonisolated let audioSession: Audio
    /// The settings.
    public nonisolated let configuration: OrchestratorConfiguration<Engine.AccountHandle>

    private var registry = CallRegistry<Handle>()
    private var pending: [UUID: [PendingAction]] = [:]
    private var inviteTimers: [UUID: Task<Void, Never>] = [:]
    private var orphanEvents: [Handle: [CallEngineEvent<Handle>]] = [:]
    private var orphanOrder: [Handle] = []
    private var nextActionID: UInt64 = 0
    private var eventPump: Task<Void, Never>?
    /// The account re-registered on a push; starts as the configuration's.
    private var wakeAccount: Engine.AccountHandle?
    /// Whether the platform audio session is active (between activation and deactivation).
    public private(set) var isAudioSessionActive = false

    /// How many unknown engine calls' events are kept for an outgoing call still being placed.
    static var orphanHandleLimit: Int { 64 }
    /// How many events are kept per unknown engine call (the newest win).
    static var orphanEventLimit: Int { 16 }

    /// Creates an orchestrator; call ``start()`` to begin listening to the engine.
    public init(engine: Engine, provider: Provider, audioSession: Audio,
                configuration: OrchestratorConfiguration<Engine.AccountHandle> = .init()) {
        self.engine = engine
        self.provider = provider
        self.audioSession = audioSession
        self.configuration = configuration
        self.wakeAccount = configuration.wakeAccount
    }

    /// Sets the account re-registered when a push arrives (nil: none), replacing
    /// ``OrchestratorConfiguration/wakeAccount``. An app creates the orchestrator at launch, before
    /// the engine has started and its account exists; it calls this once the account is added.
    public func setWakeAccount(_ account: Engine.AccountHandle?) {
        wakeAccount = account
    }

    /// Subscribes to the engine's call events; does nothing when already started.
    ///
    /// The subscription outlives engine restarts: when the engine's event sequence ends (the
    /// engine shut down), the core subscribes again at once, so the next run's calls are seen, and
    /// ends what the finished run left behind (see ``engineEventsEnded()``).
    public func start() {
        guard eventPump == nil else { return }
        let engine = self.engine
        let first = engine.callEvents()
        eventPump = Task { [weak self] in
            var stream = first
            while !Task.isCancelled {
                var delivered = false
                for await event in stream {
                    guard let self else { return }
                    delivered = true
                    await self.process(event)
                }
                guard !Task.isCancelled else { return }
                // Subscribe before anything else awaits: events of a run that starts meanwhile are
                // kept by the new subscription.
                stream = engine.callEvents()
                guard let self else { return }
                await self.engineEventsEnded()
                if !delivered {
                    // A sequence that ends at once, again and again, must not spin: an engine
                    // that cannot be subscribed to yet is polled every 100 ms instead.
                    try? await Task.sleep(for: .milliseconds(100))
                }
            }
        }
    }

    // The event pump holds the engine (to subscribe again after a restart) and waits on its
    // events: an orchestrator released without stop() must end it, or the pump would keep the
    // engine (its thread, pjsua) alive for good.
    deinit {
        eventPump?.cancel()
        for timer in inviteTimers.values { timer.cancel() }
    }

    /// Stops listening to the engine and fails every waiting action with
    /// ``CallOrchestratorError/callEnded(_:)``.
    public func stop() {
        eventPump?.cancel()
        eventPump = nil
        for timer in inviteTimers.values { timer.cancel() }
        inviteTimers = [:]
        for (uuid, actions) in pending {
            for action in actions { action.finish(.failure(.callEnded(uuid))) }
        }
        pending = [:]
    }

    /// The live calls.
    public var liveCalls: [LogicalCall<Handle>] { registry.liveCalls }

    /// The live call with this UUID.
    public func call(_ uuid: UUID) -> LogicalCall<Handle>? { registry.call(uuid) }

    /// The remembered ended call with this UUID.
    public func endedCall(_ uuid: UUID) -> EndedCall? { registry.endedCall(uuid) }

    /// How many provider actions wait for this call's engine handle.
    func pendingActionCount(for uuid: UUID) -> Int { pending[uuid]?.count ?? 0 }

    // MARK: - Pushes

    /// Handles a VoIP push whose payload was parsed (or failed to parse) by ``VoIPPushPayload``.
    ///
    /// Always posts a new incoming call to the provider first (see ``PushOutcome``).
    public func handleIncomingPush(_ parsed: Result<VoIPPushPayload, PushPayloadError>) async -> PushOutcome {
        switch parsed {
        case let .success(payload):
            return await handleIncomingPush(payload)
        case let .failure(error):
            // iOS ends an app that does not report a VoIP push, so even garbage gets a call.
            let placeholder = await reportPlaceholder(update: CallUpdate())
            return .invalidPayload(placeholder, error)
        }
    }

    /// Handles a VoIP push announcing an incoming call.
    ///
    /// Always posts a new incoming call to the provider first (see ``PushOutcome``).
    public func handleIncomingPush(_ payload: VoIPPushPayload) async -> PushOutcome {
        switch registry.notePush(payload, showsOfferedVideo: configuration.showsOfferedVideo) {
        case let .newCall(call):
            startInviteTimer(call.uuid)
            do {
                try await provider.reportNewIncomingCall(uuid: call.uuid, update: call.update)
            } catch {
                stopInviteTimer(call.uuid)
                let refused = registry.end(call.uuid, reason: .failed)
                failPending(call.uuid, .callEnded(call.uuid))
                // The refused report does not count as reporting the push: the placeholder is its
                // one retry under a fresh UUID.
                await reportPlaceholder(update: call.update, retrying: false)
                if let handle = refused?.handle { await decline(handle, code: 486) }
                return .refusedBySystem(call.uuid)
            }
            await wakeNetwork()
            return .reportedNewCall(call.uuid)
        case let .repeated(call):
            // The provider knows this UUID already and would refuse it again.
            await reportPlaceholder(update: call.update)
            return .repeatedCall(call.uuid)
        case let .cancelledKnownCall(call):
            stopInviteTimer(call.uuid)
            failPending(call.uuid, .callEnded(call.uuid))
            await provider.reportCallEnded(uuid: call.uuid, reason: .unanswered)
            await reportPlaceholder(update: call.update)
            return .reportedAndEnded(call.uuid, .unanswered)
        case let .cancelledUnknownCall(uuid, update):
            // A missed call the provider has never seen: report it under its own UUID.
            if let posted = await postPushReport(uuid: uuid, update: update) {
                await provider.reportCallEnded(uuid: posted, reason: posted == uuid ? .unanswered : .failed)
            }
            return .reportedAndEnded(uuid, .unanswered)
        case let .alreadyEnded(uuid, update, reason):
            // The provider already saw `uuid` (and saw it end): reporting it again would be refused.
            await reportPlaceholder(update: update)
            return .reportedAndEnded(uuid, reason)
        }
    }

    // MARK: - Provider actions

    /// Places an outgoing call (CallKit's start-call action) to `destination`, a SIP URI; with
    /// `video` (CallKit's `isVideo`) the offer carries video too.
    ///
    /// The call is recorded with `hasVideo == video`, what the call UI was told when the call
    /// started; the media event then says whether the peer took the video.
    /// - Throws: ``CallOrchestratorError/videoNotSupported(_:)`` for a video call when
    ///   ``OrchestratorConfiguration/supportsVideo`` is false (nothing is sent).
    public func startCall(uuid: UUID, to destination: String, video: Bool = false) async throws(CallOrchestratorError) {
        if video, !configuration.supportsVideo { throw .videoNotSupported(uuid) }
        guard registry.beginOutgoing(uuid: uuid, destination: destination, video: video) else { throw .duplicateCall(uuid) }
        do {
            try await audioSession.configureForVoiceCall()
        } catch {
            forget(uuid)
            throw .audioSessionFailure(String(describing: error))
        }
        let handle: Handle
        do {
            handle = try await engine.placeCall(to: destination, video: video)
        } catch {
            forget(uuid)
            throw .engineFailure(String(describing: error))
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
            throw .audioSessionFailure(String(describing: error))
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
        do {
            try await engine.setCallHeld(handle, held: held)
        } catch {
            throw .engineFailure(String(describing: error))
        }
    }

    /// Mutes or unmutes a call (CallKit's set-muted action).
    public func setMuted(uuid: UUID, muted: Bool) async throws(CallOrchestratorError) {
        let handle = try readyHandle(uuid)
        do {
            try await engine.setCallMuted(handle, muted: muted)
        } catch {
            throw .engineFailure(String(describing: error))
        }
    }

    /// Adds video to a live call or removes it (the app's camera button; CallKit has no action for
    /// it): a re-INVITE. The call UI's `hasVideo` follows once the engine reports the new media,
    /// so a peer that declines the video leaves the call shown as audio-only.
    /// - Throws: ``CallOrchestratorError/videoNotSupported(_:)`` when
    ///   ``OrchestratorConfiguration/supportsVideo`` is false.
    public func setVideo(uuid: UUID, enabled: Bool) async throws(CallOrchestratorError) {
        guard configuration.supportsVideo else { throw .videoNotSupported(uuid) }
        let handle = try readyHandle(uuid)
        do {
            try await engine.setCallVideo(handle, enabled: enabled)
        } catch {
            throw .engineFailure(String(describing: error))
        }
    }

    /// Sends DTMF digits on a call (CallKit's play-DTMF action).
    public func playDTMF(uuid: UUID, digits: String) async throws(CallOrchestratorError) {
        let handle = try readyHandle(uuid)
        do {
            try await engine.sendDigits(digits, on: handle)
        } catch {
            throw .engineFailure(String(describing: error))
        }
    }

    /// Merges a call into a local conference with another, or splits it out (CallKit's
    /// set-group action: `other` nil leaves the group).
    public func setGroup(uuid: UUID, with other: UUID?) async throws(CallOrchestratorError) {
        let handle = try readyHandle(uuid)
        do {
            if let other {
                try await engine.mergeCalls([handle, try readyHandle(other)])
            } else {
                try await engine.splitCall(handle)
            }
        } catch let error as CallOrchestratorError {
            throw error
        } catch {
            throw .engineFailure(String(describing: error))
        }
    }

    /// The platform activated the audio session (CallKit's `didActivate`): opens the engine's
    /// audio device, the only place that does.
    public func audioSessionDidActivate() async throws(CallOrchestratorError) {
        isAudioSessionActive = true
        do {
            try await engine.enableAudioDevice()
        } catch {
            throw .engineFailure(String(describing: error))
        }
        if !isAudioSessionActive {
            // Deactivated while the device was opening: close it again.
            await engine.disableAudioDevice()
        }
    }

    /// The platform deactivated the audio session (CallKit's `didDeactivate`): closes the
    /// engine's audio device.
    public func audioSessionDidDeactivate() async {
        isAudioSessionActive = false
        await engine.disableAudioDevice()
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

    /// The engine's event sequence ended (the engine shut down): its calls are gone without
    /// their DISCONNECTED events. Ends, as ``CallEndReason/failed``, every call that belonged to that
    /// run (those with an engine handle, and outgoing calls still being placed), fails their
    /// waiting actions and forgets buffered events (engine handles are reused by the next run).
    ///
    /// Incoming calls announced by a push whose INVITE has not arrived are kept: their INVITE
    /// reaches the next run, and their invite timer still bounds the wait.
    func engineEventsEnded() async {
        orphanEvents = [:]
        orphanOrder = []
        for call in registry.liveCalls where call.handle != nil || call.direction == .outgoing {
            registry.end(call.uuid, reason: .failed)
            stopInviteTimer(call.uuid)
            failPending(call.uuid, .callEnded(call.uuid))
            if !call.isEndingLocally { await provider.reportCallEnded(uuid: call.uuid, reason: .failed) }
        }
    }

    // MARK: - Engine events

    /// Handles one engine event (the event pump started by ``start()`` calls this).
    func process(_ event: CallEngineEvent<Handle>) async {
        switch event {
        case let .incomingCall(handle, sipCallID, from, offeredVideo):
            await handleInvite(handle: handle, sipCallID: sipCallID, from: from, offeredVideo: offeredVideo)
        case let .callState(handle, state, sipCallID, lastStatus):
            guard let call = registry.call(handle: handle) else {
                bufferOrphan(event, of: handle)
                return
            }
            await handleState(of: call, state: state, sipCallID: sipCallID, lastStatus: lastStatus)
        case let .mediaChanged(handle, hasVideo):
            guard let call = registry.call(handle: handle) else {
                bufferOrphan(event, of: handle)
                return
            }
            if let updated = registry.setHasVideo(hasVideo, for: call.uuid) {
                await provider.reportCallUpdated(uuid: updated.uuid, update: updated.update)
            }
        }
    }

    private func handleInvite(handle: Handle, sipCallID: String, from: String, offeredVideo: Bool) async {
        let pushedVideo = registry.call(sipCallID: sipCallID)?.update.hasVideo
        switch registry.noteInvite(handle: handle, sipCallID: sipCallID, from: from, offeredVideo: offeredVideo,
                                   showsOfferedVideo: configuration.showsOfferedVideo) {
        case let .newCall(call):
            do {
                try await provider.reportNewIncomingCall(uuid: call.uuid, update: call.update)
            } catch {
                forget(call.uuid)
                await decline(handle, code: 486)
                return
            }
            await ringIfStillWaiting(call.uuid, handle: handle)
            await replayOrphans(of: handle)
        case let .matchedPush(call):
            stopInviteTimer(call.uuid)
            if let pushedVideo, pushedVideo != call.update.hasVideo {
                // The push said video and the INVITE does not (or the reverse): the SDP decides.
                await provider.reportCallUpdated(uuid: call.uuid, update: call.update)
            }
            if pending[call.uuid]?.isEmpty ?? true {
                await ringIfStillWaiting(call.uuid, handle: handle)
            } else {
                await runPending(call.uuid, handle)
            }
            await replayOrphans(of: handle)
        case .retransmission:
            break
        case .duplicateLeg:
            await decline(handle, code: 482)
        case .alreadyEnded:
            await decline(handle, code: 603)
        }
    }

    private func handleState(of call: LogicalCall<Handle>, state: CallPhase, sipCallID: String,
                             lastStatus: SIPStatusCode) async {
        if call.direction == .outgoing { registry.learnSIPCallID(sipCallID, for: call.uuid) }
        switch state {
        case .confirmed:
            guard let before = registry.markConnected(call.uuid), !before.isConnected else { return }
            if call.direction == .outgoing { await provider.reportOutgoingCallConnected(uuid: call.uuid) }
        case .disconnected:
            guard let current = registry.call(call.uuid) else { return }
            let reason = CallEndReason(sipStatusCode: lastStatus.code, wasConnected: current.isConnected)
            registry.end(call.uuid, reason: reason)
            stopInviteTimer(call.uuid)
            failPending(call.uuid, .callEnded(call.uuid))
            if !current.isEndingLocally { await provider.reportCallEnded(uuid: call.uuid, reason: reason) }
        case .calling, .incoming, .early, .connecting:
            break
        }
    }

    // MARK: - Pending actions and timers

    private func perform(_ kind: PendingAction.Kind, on uuid: UUID, handle: Handle) async -> Result<Void, CallOrchestratorError> {
        switch kind {
        case let .answer(video):
            let wanted = configuration.supportsVideo && (video ?? configuration.answersWithVideo)
            let withVideo = wanted && registry.call(uuid)?.offersVideo == true
            do {
                try await engine.answerCall(handle, video: withVideo)
                return .success(())
            } catch {
                return .failure(.engineFailure(String(describing: error)))
            }
        case .end:
            guard let call = registry.call(uuid) else { return .success(()) }
            do {
                if call.direction == .incoming, !call.isConnected {
                    try await engine.rejectCall(handle, code: 603)
                } else {
                    try await engine.hangUpCall(handle)
                }
            } catch {
                // The engine call is already gone; the user ended it, so there is nothing to report.
                forget(uuid)
            }
            return .success(())
        }
    }

    private func waitForHandle(_ kind: PendingAction.Kind, _ uuid: UUID) async -> Result<Void, CallOrchestratorError> {
        nextActionID += 1
        let id = nextActionID
        let timeout = configuration.pendingActionTimeout
        return await withCheckedContinuation { continuation in
            let timer = Task { [weak self] in
                do {
                    try await Task.sleep(for: timeout)
                } catch {
                    return
                }
                await self?.pendingActionTimedOut(uuid, id: id)
            }
            pending[uuid, default: []].append(PendingAction(id: id, kind: kind, continuation: continuation, timeout: timer))
        }
    }

    private func runPending(_ uuid: UUID, _ handle: Handle) async {
        while let action = takeFirstPending(uuid) {
            action.finish(await perform(action.kind, on: uuid, handle: handle))
        }
    }

    private func takeFirstPending(_ uuid: UUID) -> PendingAction? {
        guard var actions = pending[uuid], !actions.isEmpty else { return nil }
        let first = actions.removeFirst()
        pending[uuid] = actions.isEmpty ? nil : actions
        return first
    }

    private func failPending(_ uuid: UUID, _ error: CallOrchestratorError) {
        for action in pending.removeValue(forKey: uuid) ?? [] { action.finish(.failure(error)) }
    }

    private func pendingActionTimedOut(_ uuid: UUID, id: UInt64) async {
        guard var actions = pending[uuid], let index = actions.firstIndex(where: { $0.id == id }) else { return }
        let action = actions.remove(at: index)
        pending[uuid] = actions.isEmpty ? nil : actions
        action.finish(.failure(.timedOut(uuid)))
        // The user's intent cannot be carried out: end the call rather than leave it dangling.
        guard let call = registry.call(uuid), call.handle == nil else { return }
        registry.end(uuid, reason: .failed)
        stopInviteTimer(uuid)
        failPending(uuid, .timedOut(uuid))
        await provider.reportCallEnded(uuid: uuid, reason: .failed)
    }

    private func startInviteTimer(_ uuid: UUID) {
        let timeout = configuration.inviteTimeout
        inviteTimers[uuid] = Task { [weak self] in
            do {
                try await Task.sleep(for: timeout)
            } catch {
                return
            }
            await self?.inviteTimedOut(uuid)
        }
    }

    private func stopInviteTimer(_ uuid: UUID) {
        inviteTimers.removeValue(forKey: uuid)?.cancel()
    }

    private func inviteTimedOut(_ uuid: UUID) async {
        inviteTimers[uuid] = nil
        guard let call = registry.call(uuid), call.handle == nil else { return }
        registry.end(uuid, reason: .failed)
        failPending(uuid, .timedOut(uuid))
        await provider.reportCallEnded(uuid: uuid, reason: .failed)
    }

    // MARK: - Helpers

    private func readyHandle(_ uuid: UUID) throws(CallOrchestratorError) -> Handle {
        guard let call = registry.call(uuid) else { throw .unknownCall(uuid) }
        guard let handle = call.handle else { throw .callNotReady(uuid) }
        return handle
    }

    /// Ends a call without reporting it (the provider already knows, or never knew).
    private func forget(_ uuid: UUID) {
        registry.end(uuid, reason: .failed)
        stopInviteTimer(uuid)
        failPending(uuid, .callEnded(uuid))
    }

    private func ringIfStillWaiting(_ uuid: UUID, handle: Handle) async {
        guard configuration.sendsRinging, let call = registry.call(uuid), !call.isEndingLocally, !call.isConnected else { return }
        do {
            try await engine.ringCall(handle)
        } catch {
            // The call ended meanwhile; its DISCONNECTED event carries the outcome.
        }
    }

    private func decline(_ handle: Handle, code: Int) async {
        do {
            try await engine.rejectCall(handle, code: code)
        } catch {
            // Already gone: nothing left to decline.
        }
    }

    private func hangUpQuietly(_ handle: Handle) async {
        do {
            try await engine.hangUpCall(handle)
        } catch {
            // Already gone.
        }
    }

    /// Posts a new incoming call for a push under `uuid`; when the provider refuses it, for any
    /// reason, retries once under a fresh UUID (a refused report does not count as reporting the
    /// push). Returns the UUID posted, nil when both were refused (Do Not Disturb refuses every
    /// report; nothing more can be done).
    private func postPushReport(uuid: UUID, update: CallUpdate, retrying: Bool = true) async -> UUID? {
        for candidate in retrying ? [uuid, UUID()] : [uuid] {
            do {
                try await provider.reportNewIncomingCall(uuid: candidate, update: update)
                return candidate
            } catch {
                continue
            }
        }
        return nil
    }

    /// Reports a push that announces no new call under a fresh UUID and ends it at once as
    /// ``CallEndReason/failed``; returns the UUID posted (the first tried when none was).
    /// `retrying: false` when the placeholder already is the retry of a refused report.
    @discardableResult
    private func reportPlaceholder(update: CallUpdate, retrying: Bool = true) async -> UUID {
        let uuid = UUID()
        guard let posted = await postPushReport(uuid: uuid, update: update, retrying: retrying) else { return uuid }
        await provider.reportCallEnded(uuid: posted, reason: .failed)
        return posted
    }

    private func wakeNetwork() async {
        guard let account = wakeAccount else { return }
        do {
            try await engine.recoverNetwork(for: account)
        } catch {
            // Best effort: the INVITE may still arrive over the old path.
        }
    }

    private func bufferOrphan(_ event: CallEngineEvent<Handle>, of handle: Handle) {
        if orphanEvents[handle] == nil {
            orphanOrder.append(handle)
            while orphanOrder.count > Self.orphanHandleLimit {
                orphanEvents[orphanOrder.removeFirst()] = nil
            }
        }
        var events = orphanEvents[handle] ?? []
        if events.count >= Self.orphanEventLimit { events.removeFirst() }
        events.append(event)
        orphanEvents[handle] = events
    }

    private func replayOrphans(of handle: Handle) async {
        guard let events = orphanEvents.removeValue(forKey: handle) else { return }
        orphanOrder.removeAll { $0 == handle }
        for event in events { await process(event) }
    }
}
