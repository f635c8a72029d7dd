import Foundation
import SwiftPJSUA

// Engine events: INVITEs matched with pushes, state changes reported to the provider, events of
// a call not yet known buffered until its handle is, and the end of an engine run.
extension CallOrchestrator {
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
                await decline(handle, code: .busyHere)
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
            await decline(handle, code: .loopDetected)
        case .alreadyEnded:
            await decline(handle, code: .decline)
        }
    }

    private func handleState(of call: LogicalCall<Handle>, state: CallPhase, sipCallID: String,
                             lastStatus: PJSUA.SIPStatus) async {
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

    private func ringIfStillWaiting(_ uuid: UUID, handle: Handle) async {
        guard configuration.sendsRinging, let call = registry.call(uuid), !call.isEndingLocally, !call.isConnected else { return }
        do {
            try await engine.ring(handle)
        } catch {
            // The call ended meanwhile; its DISCONNECTED event carries the outcome.
        }
    }

    func decline(_ handle: Handle, code: PJSUA.SIPResponseCode) async {
        do {
            try await engine.reject(handle, code: code)
        } catch {
            // Already gone: nothing left to decline.
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

    func replayOrphans(of handle: Handle) async {
        guard let events = orphanEvents.removeValue(forKey: handle) else { return }
        orphanOrder.removeAll { $0 == handle }
        for event in events { await process(event) }
    }
}
