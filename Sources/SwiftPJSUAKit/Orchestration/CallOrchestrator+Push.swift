import Foundation
import SwiftPJSUA

// VoIP pushes: each one reported to the provider, the INVITE it announces awaited for
// `inviteTimeout`, the wake account re-registered.
extension CallOrchestrator {
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
                if let handle = refused?.handle { await decline(handle, code: .busyHere) }
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
            try await engine.reRegister(account)
        } catch {
            // Best effort: the INVITE may still arrive over the old path.
        }
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

    func stopInviteTimer(_ uuid: UUID) {
        inviteTimers.removeValue(forKey: uuid)?.cancel()
    }

    private func inviteTimedOut(_ uuid: UUID) async {
        inviteTimers[uuid] = nil
        guard let call = registry.call(uuid), call.handle == nil else { return }
        registry.end(uuid, reason: .failed)
        failPending(uuid, .timedOut(uuid))
        await provider.reportCallEnded(uuid: uuid, reason: .failed)
    }
}
