import Foundation
import PJSIP

/// Everything one run of the engine owns, from `PJSUA.start` to the one teardown path
/// (``PJSUA/tearDown(_:flags:endingSubscriptions:)``) that `shutdown()`, `deinit` and a failed
/// start share: what the configuration fixed for the run, the policies the app may change while
/// it runs, and the media the engine made for it.
///
/// Two sides reach it: the actor, which holds its run, and pjsua's C callbacks, which cannot
/// carry a context and find it through ``current`` (the one global anchor). A run is never
/// reused: the next `start` makes a new one, so nothing of a run survives into the next.
final class EngineRun: Sendable {

    /// The actor's event hub: subscriptions outlive runs (a failed start keeps them), so the
    /// actor owns the hub and the run publishes to it.
    let hub: EventHub
    /// The engine's executor, where every wiring and every teardown step runs.
    let executor: PJSUAExecutor
    let logHandler: PJSUA.LogHandler?
    /// ``PJSUA/Configuration/autoAnswerCode``: every incoming call is answered with it inside the
    /// callback.
    let autoAnswerCode: PJSUA.SIPResponseCode?
    let acceptsReplaces: Bool
    let messageResponder: PJSUA.MessageResponder?
    let redirectPolicy: PJSUA.RedirectPolicy
    let detectsInbandDTMF: Bool
    /// ``PJSUA/MediaSettings/connectsCallsToAudioDevice``: whether calls are wired to slot 0.
    let wiresCallsToSlotZero: Bool
    /// What the actor's methods read of the configuration while the run lasts.
    let settings: Settings
    /// The media hooks installed into pjsua for the run (``PJSUA/Configuration/mediaHooks``).
    let mediaHooks: [PJSUA.MediaHooks]
    /// The credential providers of the run's accounts and their pending challenges.
    let credentials = CredentialRequests()

    /// The configuration values the actor applies after `start` (to accounts and transports).
    struct Settings {
        let rtpPort: Int
        /// ``PJSUA/Configuration/rtpPortCount`` (nil: no bound).
        let rtpPortCount: Int?
        let maxCalls: Int
        /// The address RTP binds to and the SDP advertises: the configured bind address, if any.
        let mediaBindAddress: String?
        let unregisterTimeout: Duration
        /// The TLS settings of every TLS transport the run opens.
        let tls: PJSUA.TLSConfiguration
    }

    /// What changes while the run goes on, under its lock. Held only to read or write it: never
    /// across a call into pjsua, a publication, a continuation or anything else that takes a
    /// lock, so it nests inside any lock pjsua holds around a callback and never the other way
    /// round.
    private let state: LockedValueBox<State>

    /// What changes while the run goes on.
    struct State {
        /// How incoming REFERs are answered (``PJSUA/setTransferPolicy(_:)``).
        var transferPolicy: PJSUA.TransferPolicy
        /// The actor's view of the run: its listeners in creation order, the local account
        /// made at start, and whether our null device clocks the bridge (pjsua_snd_is_active()
        /// does not count it). Here, not on the actor, so nothing of them outlives the run.
        var transports: [PJSUA.Transport] = []
        var localAccount: PJSUA.Account?
        var nullDeviceActive = false
        /// Players by id, with their handle's token.
        var players: [Int32: UInt] = [:]
        /// Recorders by id, with their handle's token.
        var recorders: [Int32: UInt] = [:]
        /// Tone generators and the statistics timer.
        var callMedia = CallMediaResources()
        /// One record per call: everything kept for a call lives in it, and it goes in one
        /// place (``EngineRun/endCall(_:)``).
        var calls: [PJSUA.Call: CallRecord] = [:]
        /// The headers of the INVITE of the last incoming call in each call slot, with that
        /// call's token. Not part of the call's record on purpose: they stay readable after the
        /// call ended (a subscriber may read them after its last event) until the slot's next
        /// incoming call replaces them, so there are at most `maxCalls` of them.
        var inviteHeaders: [pjsua_call_id: (token: UInt, headers: [PJSUA.SIPHeader])] = [:]
        /// The call whose accepted REFER pjsua is following (``TransferContext``).
        var followedTransfer: PJSUA.Call?
        /// The `Referred-By` of the last REFER received, with its dialog's Call-ID
        /// (``ReferWatcher``).
        var lastReferredBy: (sipCallID: String, referredBy: String)?
        /// The local conference's members (``ConferenceWiring``).
        var conference: Set<PJSUA.Call> = []
        /// The number of the last video subscription made.
        var lastVideoSubscription = 0
        /// When a call last reported media with a video stream (``DelayedVideoStarts``).
        var lastVideoMediaUpdate: ContinuousClock.Instant?
        /// The most recent TLS certificate refusal, and the reason text pjsip gives a request
        /// that failed because of one (``CertificateRefusals``).
        var certificateRefusal: (error: PJSUAError, at: ContinuousClock.Instant)?
        var certificateFailureReason: String?
        /// Buddies, subscription policies and message-waiting accounts (``PresenceState``).
        var presence = PresenceState()
        /// Attachments kept past their call (``PJSUA/MediaHookContext/holdUntilStop(_:)``: a
        /// media stream's connection waiting for the agent's close); the teardown stops them.
        var heldAttachments: [ObjectIdentifier: any PJSUA.CallMediaAttachment] = [:]
    }

    init(_ configuration: PJSUA.Configuration, hub: EventHub, executor: PJSUAExecutor) {
        self.hub = hub
        self.executor = executor
        logHandler = configuration.logHandler
        autoAnswerCode = configuration.autoAnswerCode
        acceptsReplaces = configuration.acceptsReplaces
        messageResponder = configuration.messageResponder
        redirectPolicy = configuration.redirectPolicy
        detectsInbandDTMF = configuration.detectsInbandDTMF
        wiresCallsToSlotZero = configuration.media.connectsCallsToAudioDevice
        settings = Settings(rtpPort: configuration.rtpPort, rtpPortCount: configuration.rtpPortCount, maxCalls: configuration.maxCalls,
                            mediaBindAddress: configuration.bindAddress,
                            unregisterTimeout: configuration.unregisterTimeout, tls: configuration.tls)
        mediaHooks = configuration.mediaHooks
        state = LockedValueBox(State(transferPolicy: configuration.transferPolicy))
    }

    /// Runs `body` with the run's mutable state, under its lock. `body` only reads and writes it.
    func withState<T, E: Error>(_ body: (inout sending State) throws(E) -> sending T) throws(E) -> sending T {
        try state.withLockedValue(body)
    }

    /// ``withState(_:)`` for handing the state a C resource of the executor thread (a tone
    /// source, a detector's port, a pool to release later), which the caller keeps using there.
    func withStateUnchecked<T>(_ body: (inout State) -> T) -> T {
        state.withLockedValueUnchecked(body)
    }

    /// Runs `body` with `call`'s record, made empty if the call had none; under the state's lock.
    func withCall<T, E: Error>(_ call: PJSUA.Call, _ body: (inout sending CallRecord) throws(E) -> sending T) throws(E) -> sending T {
        try state.withLockedValue { (state) throws(E) -> sending T in try body(&state.calls[call, default: CallRecord()]) }
    }

    /// Reads `call`'s record, if it has one, without making one.
    func record<T>(of call: PJSUA.Call, _ read: (inout sending CallRecord) -> sending T) -> sending T? {
        state.withLockedValue { state -> sending T? in
            guard var record = state.calls[call] else { return nil }
            return read(&record)
        }
    }

    /// `call` ended (its DISCONNECTED state, on pjsua's thread): the one place a call's record
    /// goes. A digit whose end packet never came is published now, with the duration seen so
    /// far (pjmedia warns that end indications can be lost), and the call's frame ports are
    /// closed; the record itself is removed on the executor thread, where its media leave the
    /// bridge, unless the teardown took it first (both run there, so one of them does).
    func endCall(_ call: PJSUA.Call) {
        let (pending, channels) = withState { state in
            let pending = state.calls[call]?.pendingDigit
            state.calls[call]?.pendingDigit = nil
            return (pending, state.calls[call]?.frameChannels.values.map(\.channel) ?? [])
        }
        if let pending { DTMFReception.publish(pending, of: call, in: self) }
        for channel in channels { channel.close() }
        onEngineThread { [self] in
            let record = withState { state in
                if state.followedTransfer == call { state.followedTransfer = nil }
                return state.calls.removeValue(forKey: call)
            }
            record?.releaseMedia(in: self)
        }
    }

    /// What packages keep for `call` (``PJSUA/CallMediaAttachment``).
    func attachments(of call: PJSUA.Call) -> [any PJSUA.CallMediaAttachment] {
        record(of: call) { Array($0.attachments.values) } ?? []
    }

    /// The engine stops: every attachment, of a call or held past one, is told so (executor
    /// thread, from the teardown, while pjsua exists).
    func stopAttachments() {
        let all = withState { state in
            defer { state.heldAttachments = [:] }
            return state.calls.values.flatMap { $0.attachments.values } + Array(state.heldAttachments.values)
        }
        for attachment in all { attachment.engineStopping() }
    }

    /// Every call's record, taken at teardown (executor thread, before pjsua_destroy).
    func takeAllCalls() -> [CallRecord] {
        withState { state in
            defer { state.calls = [:] }
            return Array(state.calls.values)
        }
    }

    func publish(_ event: PJSUA.Event) {
        if case let .dtmf(call, digit) = event {
            for attachment in attachments(of: call) { attachment.callKeyed(digit) }
        }
        hub.publish(event)
    }

    func log(level: Int, message: String) {
        logHandler?(PJSUA.LogLevel(rawValue: level) ?? .trace, message)
    }

    /// `pjsua_acc_config.auto_repond_sip_message` for the run's accounts: pjsua answers 200
    /// itself unless the app chooses.
    var pjsuaAnswersMessages: pj_bool_t {
        messageResponder == nil ? 1 : 0
    }

    /// Runs `work` on the engine's executor thread, if this run is still the current one then
    /// (work scheduled while pjsua was being destroyed finds it ended, and does nothing).
    func onEngineThread(_ work: @escaping @Sendable () -> Void) {
        executor.execute { [self] in
            guard EngineRun.current === self else { return }
            work()
        }
    }

    /// Whether the calling thread is the engine's executor thread.
    var isOnEngineThread: Bool { executor.isCurrent }

    /// Schedules the wiring of `call` on the executor thread (see ``AudioWiring``), ahead of any
    /// engine call made after the event that follows.
    func scheduleRewire(_ call: PJSUA.Call) {
        onEngineThread {
            AudioWiring.rewire(call, in: self)
            InbandDTMF.wire(call, in: self)
            VideoWiring.rewire(call, in: self)
        }
    }
}

// The anchor. The engine's other globals are not run state, and stay global on purpose:
// `HandleToken` (handles are unique for the life of the process, across runs), `EngineSlot` (the
// claim on pjsua across engines, which outlives the run being torn down), `PJLibrary` (PJLIB's
// init count, shared with C code), `ReferWatcher.module` (C memory PJSIP keeps a pointer to
// across runs), and `FrameWakeUps` (the null clock's tick-end hook is a C function with no context
// argument).
extension EngineRun {
    /// The run pjsua's callbacks report to. The one global of engine state, because a C function
    /// pointer carries no context: set when a run begins (before `pjsua_init` installs the
    /// callbacks), cleared after `pjsua_destroy` (after which no callback fires).
    private static let running = LockedValueBox<EngineRun?>(nil)

    /// The running engine's run, for C callbacks and the threads they hand work to; nil
    /// between runs.
    static var current: EngineRun? {
        running.withLockedValue { $0 }
    }

    static func begin(_ run: EngineRun) {
        running.withLockedValue { $0 = run }
    }

    static func end() {
        running.withLockedValue { $0 = nil }
    }
}
