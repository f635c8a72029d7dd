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

    // The state below is internal rather than private only so that the extensions that handle
    // pushes (CallOrchestrator+Push.swift), provider actions (+Actions, +PendingActions) and
    // engine events (+EngineEvents) reach it; nothing outside the orchestrator touches it.

    /// Every logical call, live or recently ended.
    var registry = CallRegistry<Handle>()
    /// Provider actions waiting for their call's engine handle, oldest first.
    var pending: [UUID: [PendingAction]] = [:]
    /// Per pushed call, the timer that ends it when its INVITE does not come.
    var inviteTimers: [UUID: Task<Void, Never>] = [:]
    /// Events of engine calls not known yet (an outgoing call still being placed), by handle.
    var orphanEvents: [Handle: [CallEngineEvent<Handle>]] = [:]
    /// The handles in ``orphanEvents``, oldest first, so the oldest are dropped past the limit.
    var orphanOrder: [Handle] = []
    /// The last identifier given to a pending action.
    var nextActionID: UInt64 = 0
    /// The task that feeds the engine's events to ``process(_:)``, from ``start()`` to ``stop()``.
    var eventPump: Task<Void, Never>?
    /// The account re-registered on a push; starts as the configuration's.
    var wakeAccount: Engine.AccountHandle?
    /// Whether the platform audio session is active (between activation and deactivation).
    public internal(set) var isAudioSessionActive = false
    /// Whether a device operation is running; only one runs at a time, so the engine sees the
    /// openings and closings in the order the orchestrator decided them.
    var audioDeviceIsBusy = false
    /// Why the last device operation, an opening, failed; nil when the last one succeeded or was
    /// a closing. Reported to activations that waited for it.
    var audioDeviceFailure: (any Error)?
    /// Activations waiting for the running device operation to finish.
    var audioDeviceWaiters: [CheckedContinuation<Void, Never>] = []

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
    /// ends what the finished run left behind (see `engineEventsEnded()`).
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

    /// The engine's handle of the live call with this UUID; nil when there is no such call or its
    /// engine call does not exist yet (a pushed call whose INVITE has not arrived, an outgoing
    /// call still being placed). Use it with the engine's own API, e.g. to render the call's video.
    public func handle(for uuid: UUID) -> Handle? { registry.call(uuid)?.handle }

    /// The live calls.
    var liveCalls: [LogicalCall<Handle>] { registry.liveCalls }

    /// The live call with this UUID.
    func call(_ uuid: UUID) -> LogicalCall<Handle>? { registry.call(uuid) }

    /// The remembered ended call with this UUID.
    func endedCall(_ uuid: UUID) -> EndedCall? { registry.endedCall(uuid) }

    /// How many provider actions wait for this call's engine handle.
    func pendingActionCount(for uuid: UUID) -> Int { pending[uuid]?.count ?? 0 }

    // MARK: - Shared by pushes, actions and engine events

    /// Ends a call without reporting it (the provider already knows, or never knew).
    func forget(_ uuid: UUID) {
        registry.end(uuid, reason: .failed)
        stopInviteTimer(uuid)
        failPending(uuid, .callEnded(uuid))
    }
}
