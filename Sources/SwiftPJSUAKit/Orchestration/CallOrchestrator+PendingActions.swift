import Foundation
import SwiftPJSUA

// Provider actions waiting for their call's engine handle: queued, carried out in order once the
// handle is known, failed when the call ends or `pendingActionTimeout` passes.
extension CallOrchestrator {
    func perform(_ kind: PendingAction.Kind, on uuid: UUID, handle: Handle) async -> Result<Void, CallOrchestratorError> {
        switch kind {
        case let .answer(video):
            let wanted = configuration.supportsVideo && (video ?? configuration.answersWithVideo)
            let withVideo = wanted && registry.call(uuid)?.offersVideo == true
            do {
                try await engine.answer(handle, video: withVideo)
                return .success(())
            } catch {
                return .failure(.engine(error))
            }
        case .end:
            guard let call = registry.call(uuid) else { return .success(()) }
            do {
                if call.direction == .incoming, !call.isConnected {
                    try await engine.reject(handle, code: .decline)
                } else {
                    try await engine.hangUp(handle)
                }
            } catch {
                // The engine call is already gone; the user ended it, so there is nothing to report.
                forget(uuid)
            }
            return .success(())
        }
    }

    func waitForHandle(_ kind: PendingAction.Kind, _ uuid: UUID) async -> Result<Void, CallOrchestratorError> {
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

    func runPending(_ uuid: UUID, _ handle: Handle) async {
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

    func failPending(_ uuid: UUID, _ error: CallOrchestratorError) {
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
}
