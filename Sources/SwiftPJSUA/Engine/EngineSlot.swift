import Foundation

/// The process-wide claim on pjsua: only one engine may run at a time.
///
/// A released engine tears pjsua down on its own thread after its deinit returned; until that
/// finishes, the slot is `tearingDown`, and a new engine's start waits for it (bounded) instead
/// of failing.
enum EngineSlot {
    enum State { case free, running, tearingDown }
    enum Claim { case claimed, running, stillTearingDown }

    private static let state = LockedValueBox(State.free)
    /// How long a start waits for a released engine's teardown.
    static let teardownWait = Duration.seconds(10)

    static func claim() -> Claim {
        let deadline = Date().addingTimeInterval(Double(teardownWait.components.seconds))
        return state.withLockedValue(waitingWhile: { $0 == .tearingDown }, until: deadline) { state in
            switch state {
            case .free:
                state = .running
                return .claimed
            case .running: return .running
            case .tearingDown: return .stillTearingDown
            }
        }
    }

    /// The running engine was released; its teardown is queued on its thread.
    static func beginTeardown() {
        state.withLockedValue { $0 = .tearingDown }
    }

    static func release() {
        state.withLockedValue { state in
            state = .free
            self.state.broadcast()
        }
    }
}
