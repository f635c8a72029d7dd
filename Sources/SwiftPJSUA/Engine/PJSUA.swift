import CPJSUASupport
import Foundation
import PJSIP

/// A SIP user agent: the pjsua library driven from Swift.
///
/// Every method runs on the engine's own thread (a `PJSUAExecutor` registered with PJLIB), so
/// PJSIP is only ever entered from that thread and from pjsua's own worker threads. pjsua is a
/// process-wide singleton: only one engine can be started at a time in a process.
///
/// ```swift
/// let phone = PJSUA()
/// try await phone.start(.init(port: 5060, transport: .udp))
/// let call = try await phone.makeCall(to: "sip:bob@example.com", from: account)
/// ```
public actor PJSUA {
    /// The executor this actor runs on; stored strongly for the actor's lifetime.
    nonisolated let executor: PJSUAExecutor
    nonisolated let hub = EventHub()

    enum Phase { case idle, starting, running, stopping }
    var phase: Phase = .idle
    /// What this run owns (nil while idle): made by ``start(_:)``, ended by ``tearDown(_:flags:endingSubscriptions:)``.
    /// Every per-run value lives in it, so the next start begins clean by construction.
    /// Written on the actor only; stored in ``runBox`` so that the few nonisolated entries
    /// (``incomingCallHeaders(_:)``) are handed the same run rather than looking one up.
    var run: EngineRun? {
        get { runBox.withLockedValue { $0 } }
        set { runBox.withLockedValue { $0 = newValue } }
    }
    /// The storage of ``run``: read it off the actor (a nonisolated entry) here, write it only
    /// through ``run``.
    nonisolated let runBox = LockedValueBox<EngineRun?>(nil)
    /// Callers of ``shutdown()`` that arrived while another shutdown was under way. On the actor,
    /// not the run: they are resumed after the run has ended.
    var shutdownWaiters: [CheckedContinuation<Void, Never>] = []

    /// The number of pjsua worker threads. Invariant 1: pjsua's worker threads pump SIP and media
    /// events; the executor thread does not poll. With 0, no callback would ever fire. Not a knob.
    static let workerThreadCount: UInt32 = 1

    /// Creates an engine (not yet started) with its own executor thread.
    public init() {
        executor = PJSUAExecutor()
    }

    deinit {
        let executor = self.executor
        let hub = self.hub
        if let run = runBox.withLockedValue({ $0 }) {
            // Dropped while running: pjsua is torn down on the engine's own thread, after the
            // work already queued there, and the thread then ends by itself. Nothing here waits,
            // so releasing the last reference never blocks the releasing thread (it may be the
            // main thread, or a pjsua worker inside a log handler, which pjsua_destroy joins).
            // Unregistrations and BYEs are sent, their answers not awaited. A new engine's
            // start() waits for this teardown to finish (EngineSlot).
            EngineSlot.beginTeardown()
            executor.execute { PJSUA.tearDown(run, flags: PJSUA_DESTROY_NO_RX_MSG) }
        } else {
            // Dropped while idle: no run will ever end the subscriptions, so end them now.
            hub.finishAll()
        }
        executor.shutdown(wait: false)
    }

    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    /// A new subscription to the engine's events, starting now.
    ///
    /// Each read of this property creates an independent subscriber that receives every event from
    /// this moment on, in callback order, with nothing dropped; several subscribers (the app and
    /// SwiftPJSUAKit, say) never take events from one another. The sequence finishes when the
    /// engine shuts down, or when the engine is released, whether it was running or not. A
    /// subscription is read once: when its `for await` loop ends (or its iterator, or the
    /// unread value, is released) it ends, and nothing is buffered for it any more.
    public nonisolated var events: Events {
        hub.subscribe()
    }

    /// Whether the engine is started.
    public var isRunning: Bool { phase == .running }

    /// The transports the engine listens on, in creation order.
    public var listeningTransports: [Transport] { transports }

    /// The local account created at start for the first transport (`pjsua_acc_add_local`): calls
    /// made with no account go out from it, and calls to addresses no account matches land on it.
    public var localAccount: Account? { defaultAccount }

    /// Starts pjsua: creates and initialises the library, opens the transport and a local account.
    ///
    /// Drives `pjsua_create()`, `pjsua_init()`, `pjsua_transport_create()`, `pjsua_start()`.
    /// - Returns: the transport opened, with the port actually bound.
    /// - Throws: ``PJSUAError/Code/alreadyRunning`` if an engine already runs in this process,
    ///   ``PJSUAError/Code/invalidArgument`` for bad configuration values,
    ///   ``PJSUAError/Code/incompatibleLibrary`` when the loaded PJSIP library is not the one the
    ///   engine was compiled against, or PJSIP's error.
    @discardableResult
    public func start(_ configuration: Configuration = Configuration()) throws -> Transport {
        guard phase == .idle else {
            throw PJSUAError(.alreadyRunning, phase == .stopping ? "this engine is still shutting down" : "this engine is already started")
        }
        try Self.validate(configuration)
        if let mismatch = LibraryCheck.beforeCreate { throw mismatch }
        switch EngineSlot.claim() {
        case .claimed: break
        case .running:
            throw PJSUAError(.alreadyRunning, "another PJSUA engine is already running in this process (pjsua is a process-wide singleton)")
        case .stillTearingDown:
            throw PJSUAError(.alreadyRunning, "a released PJSUA engine is still tearing down after \(EngineSlot.teardownWait)")
        }
        phase = .starting
        do {
            try check(PJLibrary.createPJSUA(), "pjsua_create")
        } catch {
            EngineSlot.release()
            phase = .idle
            throw error
        }
        let run = EngineRun(configuration, hub: hub, executor: executor)
        EngineRun.begin(run)
        self.run = run
        do {
            try initialise(configuration)
            if let mismatch = LibraryCheck.afterInit() { throw mismatch }
            try installInputScreen()
            let transport = try openTransport(kind: configuration.transport, ipv6: configuration.ipv6,
                                              port: configuration.port, bindAddress: configuration.bindAddress)
            try installAdmission(configuration.admission)
            run.withState { $0.presence.configuredNotifyEvents = configuration.unsolicitedNotifyEvents }
            try installUnhandledRequests(accepting: configuration.unsolicitedNotifyEvents)
            try ReferWatcher.install()
            try check(pjsua_start(), "pjsua_start")
            try setAudioDevice(configuration.audioDevice)
            try startCallMedia(configuration)
            let local = try addLocalAccount(on: transport)
            run.withState { $0.localAccount = local }
            phase = .running
            return transport
        } catch {
            // A failed start is not a shutdown: subscribers keep waiting for the next run.
            Self.tearDown(run, flags: PJSUA_DESTROY_NO_NETWORK, endingSubscriptions: false)
            self.run = nil
            phase = .idle
            throw error
        }
    }

    /// Shuts pjsua down: hangs up every call (their `DISCONNECTED` events are delivered),
    /// unregisters registered accounts (waiting at most ``Configuration/unregisterTimeout``), destroys pjsua and finishes every event
    /// sequence. Does nothing if the engine is not started; while another caller's shutdown is
    /// under way, returns when that one has finished. The engine can be started again
    /// afterwards. Within half a second of a call's video stream starting, it waits for pjsua's
    /// delayed start of that stream's encoding first, so the stream and its codec are freed.
    ///
    /// Drives `pjsua_call_hangup_all()`, `pjsua_acc_set_registration()` and `pjsua_destroy2()`.
    public func shutdown() async {
        if phase == .stopping {
            await withCheckedContinuation { shutdownWaiters.append($0) }
            return
        }
        guard phase == .running, let run else { return }
        phase = .stopping
        let watch = hub.subscribe()
        run.credentials.abandonAll()  // their INVITE sessions are about to go
        pjsua_call_hangup_all()
        let unregistering = unregisterAll()
        if !unregistering.isEmpty {
            await Self.waitForUnregistration(of: unregistering, in: watch, timeout: run.settings.unregisterTimeout)
        }
        // Calls hung up before an answer end when the CANCEL is answered; give them a moment.
        let deadline = ContinuousClock.now.advanced(by: .seconds(1))
        while pjsua_call_get_count() > 0 && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        // We waited for the unregistrations ourselves; NO_RX_MSG skips pjsua's fixed one-second
        // grace sleep. Remaining calls are still hung up (transmission stays on).
        Self.tearDown(run, flags: PJSUA_DESTROY_NO_RX_MSG)
        self.run = nil
        phase = .idle
        let waiters = shutdownWaiters
        shutdownWaiters = []
        for waiter in waiters { waiter.resume() }
    }

    /// Sends an un-REGISTER for every account that is registered; returns their slots.
    private func unregisterAll() -> Set<Int32> {
        var ids = [pjsua_acc_id](repeating: -1, count: PJSUA.maxAccountsLimit)
        var count = UInt32(ids.count)
        guard pjsua_enum_accs(&ids, &count) == pjSuccess else { return [] }
        var pending = Set<Int32>()
        for id in ids.prefix(Int(count)) where Self.isRegistered(id) {
            if pjsua_acc_set_registration(id, 0) == pjSuccess { pending.insert(id) }
        }
        return pending
    }

    /// Whether the account in `slot` holds a registration that an un-REGISTER would remove.
    static func isRegistered(_ slot: pjsua_acc_id) -> Bool {
        var info = pjsua_acc_info()
        return pjsua_acc_get_info(slot, &info) == pjSuccess && info.has_registration != 0
            && info.status.rawValue / 100 == 2 && info.expires > 0 && info.expires != UInt32.max
    }

    static func waitForUnregistration(of slots: Set<Int32>, in events: Events, timeout: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                var pending = slots
                for await event in events {
                    if case let .registration(account, state) = event, state.isUnregistration {
                        pending.remove(account.slot)
                        if pending.isEmpty { return }
                    }
                }
            }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
        }
    }

    /// Ends a run: the one teardown path, which ``shutdown()``, `deinit` and a failed
    /// ``start(_:)`` share. On the engine's executor thread. Releases what the run made on the
    /// bridge (in-band DTMF detectors, tone generators, frame ports, video taps, players,
    /// recorders) while pjsua still exists, destroys pjsua, then ends the run: after
    /// `pjsua_destroy` no callback can fire, so nothing can reach the run any more.
    static func tearDown(_ run: EngineRun, flags: pjsua_destroy_flag, endingSubscriptions: Bool = true) {
        let owned = run.withState { state in
            defer {
                state.callMedia = CallMediaResources()
                state.players = [:]
                state.recorders = [:]
            }
            return (state.callMedia, state.players, state.recorders)
        }
        owned.0.statisticsTask?.cancel()
        for retry in run.withState({ $0.presence.endForTeardown() }) { retry.cancel() }
        for source in owned.0.tones.values { source.destroy() }
        run.stopAttachments()  // e.g. `stop` to every media stream's agent, connections dropped while pjsua exists
        for record in run.takeAllCalls() { record.releaseMedia(in: run) }
        for id in owned.1.keys { pjsua_player_destroy(id) }
        for id in owned.2.keys { pjsua_recorder_destroy(id) }
        run.credentials.close()  // challenges still pending are dropped before pjsua goes
        DelayedVideoStarts.letPendingStartsFire(in: run)  // they hold their streams (KL-41)
        PJLibrary.destroyPJSUA(flags: flags)
        for hooks in run.mediaHooks { hooks.releaseAll() }  // wrappers whose group lock outlived pjsua
        EngineRun.end()
        if endingSubscriptions { run.hub.finishAll() }
        EngineSlot.release()
    }

    /// The running engine's run, or ``PJSUAError/Code/notStarted``.
    @discardableResult
    func requireRunning() throws(PJSUAError) -> EngineRun {
        // Invariants 2 and 3, checked on every path into pjsua: we run on the executor's
        // thread, which PJLIB knows.
        assert(executor.isCurrent && pj_thread_is_registered() != 0, "pjsua entered from a foreign thread")
        guard phase == .running, let run else {
            throw PJSUAError(.notStarted, phase == .stopping ? "the engine is shutting down" : "the engine is not started")
        }
        return run
    }

    private static func validate(_ configuration: Configuration) throws(PJSUAError) {
        guard Set(configuration.mediaHooks.map(\.name)).count == configuration.mediaHooks.count else {
            throw PJSUAError(.invalidArgument, "mediaHooks lists the same hooks twice")
        }
        guard (0...65535).contains(configuration.port) else {
            throw PJSUAError(.invalidArgument, "port \(configuration.port) is out of range 0...65535")
        }
        guard (1...maxCallsLimit).contains(configuration.maxCalls) else {
            throw PJSUAError(.invalidArgument, "maxCalls \(configuration.maxCalls) is out of range 1...\(maxCallsLimit) (PJSUA_MAX_CALLS)")
        }
        guard (1...65534).contains(configuration.rtpPort) else {
            throw PJSUAError(.invalidArgument, "rtpPort \(configuration.rtpPort) is out of range 1...65534")
        }
        if let count = configuration.rtpPortCount, !(4...(65536 - configuration.rtpPort)).contains(count) {
            throw PJSUAError(.invalidArgument, "rtpPortCount \(count) is out of range 4...\(max(4, 65536 - configuration.rtpPort)) (from rtpPort \(configuration.rtpPort) to 65535 at most)")
        }
        try Validation.duration(configuration.unregisterTimeout, in: .zero ... .seconds(600), what: "unregisterTimeout")
        if let address = configuration.bindAddress {
            try Validation.ipAddress(address, ipv6: configuration.ipv6, what: "bind address")
        }
        try Validation.headerValue(configuration.userAgent, what: "user agent")
        try configuration.admission.validate()
        try validateEventPackages(configuration.unsolicitedNotifyEvents)
        try configuration.transferPolicy.validate()
        try configuration.nat.validate()
        try configuration.media.validate()
        try validate(configuration.tls)
        try configuration.srtp.validate()
        try validateCallMedia(configuration)
        if let code = configuration.autoAnswerCode, !Configuration.canAutoAnswer(with: code) {
            throw PJSUAError(.invalidArgument, "autoAnswerCode \(code) is not 180, 183, 200 or a final error status (300...699)")
        }
    }

    private func initialise(_ configuration: Configuration) throws(PJSUAError) {
        try withCStringArena { arena throws(PJSUAError) in
            var config = pjsua_config()
            pjsua_config_default(&config)
            precondition(Self.workerThreadCount >= 1, "pjsua needs at least one worker thread, or no callback fires")
            config.thread_cnt = Self.workerThreadCount
            config.max_calls = UInt32(configuration.maxCalls)
            config.user_agent = arena.pj(configuration.userAgent)
            config.enable_unsolicited_mwi = 0  // UnhandledRequests answers out-of-dialog NOTIFYs

            var logging = pjsua_logging_config()
            pjsua_logging_config_default(&logging)
            // pjsua hands lines at or below console_level to the callback (instead of stdout), so
            // both follow the handler: with no handler nothing is logged anywhere.
            let level = UInt32(configuration.logHandler == nil ? 0 : configuration.logLevel.rawValue)
            logging.level = level
            logging.console_level = level
            logging.msg_logging = configuration.logSIPMessages ? 1 : 0
            logging.decor = UInt32(PJ_LOG_HAS_SENDER.rawValue | PJ_LOG_HAS_THREAD_ID.rawValue)
            installCallbacks(into: &config, logging: &logging)
            try Self.installMediaHooks(configuration.mediaHooks, into: &config)
            Self.apply(configuration.srtp, to: &config)

            var media = pjsua_media_config()
            pjsua_media_config_default(&media)
            media.no_vad = 1
            configuration.media.apply(to: &media)
            // RTP shares SIP's ioqueue and worker thread unless asked otherwise: pjmedia's own
            // worker polls every 10 ms even when idle (measured: half of an idle engine's CPU).
            media.has_ioqueue = configuration.dedicatedMediaThread ? 1 : 0
            media.thread_cnt = configuration.dedicatedMediaThread ? 1 : 0
            configuration.nat.apply(to: &config, media: &media, arena)
            _ = cpjsua_sdl_set_hints()  // before pjsua_init opens SDL: no signal handlers, no display probe (KL-8)
            try check(pjsua_init(&config, &logging, &media), "pjsua_init")
        }
    }

    /// Where the calling code runs: on the executor thread, and whether PJLIB knows that thread.
    func threadReport() -> (onExecutor: Bool, registeredWithPJLIB: Bool) {
        (executor.isCurrent, pj_thread_is_registered() != 0)
    }

    /// The run's listeners, in creation order (none while idle).
    var transports: [Transport] { run?.withState { $0.transports } ?? [] }

    /// The run's local account, until the app removes it (nil while idle).
    var defaultAccount: Account? { run?.withState { $0.localAccount } }

    /// Whether the run's null device clocks the bridge (pjsua_snd_is_active() does not count it).
    var nullDeviceActive: Bool { run?.withState { $0.nullDeviceActive } ?? false }

    /// The run being started or running, for the steps of `start` (which run before the phase
    /// is `.running`) and the methods behind ``requireRunning()``.
    func currentRun() throws(PJSUAError) -> EngineRun {
        guard let run else { throw PJSUAError(.notStarted, "the engine is not started") }
        return run
    }
}
