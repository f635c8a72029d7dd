// iOS only (CallKit, PushKit and AVAudioSession are iOS APIs here). SWIFTPJSUA_APPLE_STANDINS is
// set only by scripts/check-apple-code.sh, which compiles this file on Linux against stand-ins of
// Apple's declarations (Tests/AppleSDKStandIns): SwiftPM itself never sees it.
#if canImport(CallKit) && (os(iOS) || SWIFTPJSUA_APPLE_STANDINS)
import AVFoundation
import CallKit
import Foundation
@_spi(Locking) import SwiftPJSUA

/// The CallKit adapter: reports to a `CXProvider`, requests calls through a `CXCallController`,
/// and forwards provider actions to a ``CallActionHandling`` (a ``CallOrchestrator``).
///
/// It decides nothing: every action is fulfilled when the core succeeds and failed when it throws.
public final class CallKitProvider: NSObject, CallProvider, CXProviderDelegate, @unchecked Sendable {
    // @unchecked Sendable: `provider` and `controller` are immutable references to CallKit
    // objects that CallKit documents as usable from any thread.
    private struct State {
        var handler: (any CallActionHandling)?
        /// The actions the core works on, fulfilled or failed when it is done.
        var outstanding: [UUID: CXAction] = [:]
        /// The video choice of answers the app requested (``requestAnswer(of:video:)``), by call.
        var answerVideo: [UUID: Bool] = [:]
    }
    private let state = LockedValueBox(State())
    /// Audio-session, hold and mute events, delivered to the core in CallKit's order.
    private let ordered = OrderedWork()

    /// The CallKit provider reports go to.
    public let provider: CXProvider
    /// The controller used to request calls the user starts in the app.
    public let controller = CXCallController()

    /// Creates the adapter with the app's provider configuration; delegate callbacks arrive on `queue`.
    public init(configuration: CXProviderConfiguration, queue: DispatchQueue? = nil) {
        provider = CXProvider(configuration: configuration)
        super.init()
        provider.setDelegate(self, queue: queue)
    }

    /// Creates the adapter with the app's provider configuration, its `supportsVideo` set from
    /// the orchestrator's ``OrchestratorConfiguration/supportsVideo``, so CallKit and the core
    /// agree on whether video calls exist; delegate callbacks arrive on `queue`.
    public convenience init<AccountHandle>(configuration: CXProviderConfiguration,
                                           orchestration: OrchestratorConfiguration<AccountHandle>,
                                           queue: DispatchQueue? = nil) {
        configuration.supportsVideo = orchestration.supportsVideo
        self.init(configuration: configuration, queue: queue)
    }

    /// Sets where provider actions go (normally the app's ``CallOrchestrator``).
    public func setActionHandler(_ handler: any CallActionHandling) {
        state.withLockedValue { $0.handler = handler }
    }

    /// Asks CallKit to start an outgoing call to `destination` (a SIP URI), a video call with
    /// `video` (`CXStartCallAction.isVideo`); CallKit then performs the start-call action, which
    /// reaches the core. Returns the call's UUID.
    public func requestCall(to destination: String, displayName: String? = nil, video: Bool = false) async throws -> UUID {
        let uuid = UUID()
        let action = CXStartCallAction(call: uuid, handle: CXHandle(type: .generic, value: destination))
        action.contactIdentifier = displayName
        action.isVideo = video
        try await controller.request(CXTransaction(action: action))
        return uuid
    }

    /// Asks CallKit to answer an incoming call from the app's own UI, with video or not.
    ///
    /// CallKit's answer action carries no video flag: the choice is kept here until CallKit
    /// performs the action, then handed to ``CallActionHandling/answerCall(uuid:video:)``. An
    /// answer from the system's call UI carries none (nil: the core's
    /// ``OrchestratorConfiguration/answersWithVideo`` decides).
    public func requestAnswer(of uuid: UUID, video: Bool) async throws {
        state.withLockedValue { $0.answerVideo[uuid] = video }
        do {
            try await controller.request(CXTransaction(action: CXAnswerCallAction(call: uuid)))
        } catch {
            _ = state.withLockedValue { $0.answerVideo.removeValue(forKey: uuid) }
            throw error
        }
    }

    /// Asks CallKit to end a call the user hangs up in the app.
    public func requestEnd(of uuid: UUID) async throws {
        try await controller.request(CXTransaction(action: CXEndCallAction(call: uuid)))
    }

    // MARK: CallProvider

    /// Reports a new incoming call to CallKit.
    public func reportNewIncomingCall(uuid: UUID, update: CallUpdate) async throws {
        try await provider.reportNewIncomingCall(with: uuid, update: Self.callUpdate(update))
    }

    /// Updates what CallKit shows about a call (video starting or stopping).
    public func reportCallUpdated(uuid: UUID, update: CallUpdate) async {
        provider.reportCall(with: uuid, updated: Self.callUpdate(update))
    }

    /// Reports that the outgoing call started connecting.
    public func reportOutgoingCallStartedConnecting(uuid: UUID) async {
        provider.reportOutgoingCall(with: uuid, startedConnectingAt: nil)
    }

    /// Reports that the outgoing call was answered.
    public func reportOutgoingCallConnected(uuid: UUID) async {
        provider.reportOutgoingCall(with: uuid, connectedAt: nil)
    }

    /// Reports that a call ended for `reason`.
    public func reportCallEnded(uuid: UUID, reason: CallEndReason) async {
        provider.reportCall(with: uuid, endedAt: nil, reason: Self.endedReason(reason))
    }

    // MARK: CXProviderDelegate

    /// Forwards CallKit's reset to the core.
    public func providerDidReset(_ provider: CXProvider) {
        guard let handler = currentHandler() else { return }
        Task { await handler.providerDidReset() }
    }

    /// Forwards a start-call action to the core.
    public func provider(_ provider: CXProvider, perform action: CXStartCallAction) {
        let uuid = action.callUUID
        let destination = action.handle.value
        let video = action.isVideo
        run(action) { handler in try await handler.startCall(uuid: uuid, to: destination, video: video) }
    }

    /// Forwards an answer action to the core, with the video choice of ``requestAnswer(of:video:)``
    /// when the app requested it.
    public func provider(_ provider: CXProvider, perform action: CXAnswerCallAction) {
        let uuid = action.callUUID
        let video = state.withLockedValue { $0.answerVideo.removeValue(forKey: uuid) }
        run(action) { handler in try await handler.answerCall(uuid: uuid, video: video) }
    }

    /// Forwards an end action to the core.
    public func provider(_ provider: CXProvider, perform action: CXEndCallAction) {
        let uuid = action.callUUID
        state.withLockedValue { $0.answerVideo[uuid] = nil }
        run(action) { handler in try await handler.endCall(uuid: uuid) }
    }

    /// Forwards a hold action to the core.
    public func provider(_ provider: CXProvider, perform action: CXSetHeldCallAction) {
        let uuid = action.callUUID
        let held = action.isOnHold
        run(action, inOrder: true) { handler in try await handler.setHeld(uuid: uuid, held: held) }
    }

    /// Forwards a mute action to the core.
    public func provider(_ provider: CXProvider, perform action: CXSetMutedCallAction) {
        let uuid = action.callUUID
        let muted = action.isMuted
        run(action, inOrder: true) { handler in try await handler.setMuted(uuid: uuid, muted: muted) }
    }

    /// Forwards a DTMF action to the core.
    public func provider(_ provider: CXProvider, perform action: CXPlayDTMFCallAction) {
        let uuid = action.callUUID
        let digits = action.digits
        run(action) { handler in try await handler.playDTMF(uuid: uuid, digits: digits) }
    }

    /// Forwards a group action (merge into a conference, or split from it) to the core.
    public func provider(_ provider: CXProvider, perform action: CXSetGroupCallAction) {
        let uuid = action.callUUID
        let other = action.callUUIDToGroupWith
        run(action, inOrder: true) { handler in try await handler.setGroup(uuid: uuid, with: other) }
    }

    /// Tells the core the audio session is live, so it opens the engine's audio device.
    public func provider(_ provider: CXProvider, didActivate audioSession: AVAudioSession) {
        guard let handler = currentHandler() else { return }
        ordered.submit {
            do {
                try await handler.audioSessionDidActivate()
            } catch {
                // The core already knows the session is active; the device failure is its to log.
            }
        }
    }

    /// Tells the core the audio session ended, so it closes the engine's audio device.
    public func provider(_ provider: CXProvider, didDeactivate audioSession: AVAudioSession) {
        guard let handler = currentHandler() else { return }
        ordered.submit { await handler.audioSessionDidDeactivate() }
    }

    // MARK: Helpers

    private func currentHandler() -> (any CallActionHandling)? {
        state.withLockedValue { $0.handler }
    }

    /// Keeps `action` under the lock while the core works, then fulfills or fails it; with
    /// `inOrder`, the work waits for the audio-session, hold and mute events before it.
    private func run(_ action: CXAction, inOrder: Bool = false,
                     _ work: @escaping @Sendable (any CallActionHandling) async throws -> Void) {
        guard let handler = currentHandler() else {
            action.fail()
            return
        }
        let id = action.uuid
        // Unchecked: CallKit's actions are not Sendable, but CallKit lets any thread fulfill them.
        state.withLockedValueUnchecked { $0.outstanding[id] = action }
        let job: @Sendable () async -> Void = { [weak self] in
            var succeeded = true
            do {
                try await work(handler)
            } catch {
                succeeded = false
            }
            self?.finish(id, succeeded: succeeded)
        }
        if inOrder { ordered.submit(job) } else { Task { await job() } }
    }

    private func finish(_ id: UUID, succeeded: Bool) {
        guard let action = state.withLockedValue({ $0.outstanding.removeValue(forKey: id) }) else { return }
        if succeeded { action.fulfill() } else { action.fail() }
    }

    private static func callUpdate(_ update: CallUpdate) -> CXCallUpdate {
        let result = CXCallUpdate()
        if let handle = update.remoteHandle { result.remoteHandle = CXHandle(type: .generic, value: handle) }
        result.localizedCallerName = update.displayName
        result.hasVideo = update.hasVideo
        result.supportsHolding = true
        result.supportsGrouping = true
        result.supportsUngrouping = true
        result.supportsDTMF = true
        return result
    }

    private static func endedReason(_ reason: CallEndReason) -> CXCallEndedReason {
        switch reason {
        case .failed: .failed
        case .remoteEnded: .remoteEnded
        case .unanswered: .unanswered
        case .answeredElsewhere: .answeredElsewhere
        case .declinedElsewhere: .declinedElsewhere
        }
    }
}
#endif
