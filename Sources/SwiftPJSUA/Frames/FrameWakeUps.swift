import CPJSUASupport
import Foundation

/// The wake-ups of apps' frame readers during a tick of the engine's null clock, done together
/// when the tick ends.
///
/// Waking a task per frame from inside the bridge's tick costs a thread wake-up per call per
/// frame, and on a busy core the woken thread preempts the clock thread each time: measured with
/// 50 echo calls on one core, ~3,000 context switches a second more than the C-only media path
/// and frames costing 1.6x its CPU. Here the clock's tick-end hook (``tickEnded``) starts one job
/// on the global executor that resumes every reader with a frame waiting; while it runs, later
/// ticks' readers join its list instead of starting another.
enum FrameWakeUps {
    /// The readers to wake, and whether the job that wakes them runs.
    private static let state = LockedValueBox<(pending: [ReceivedFrames], running: Bool)>(([], false))

    /// Adds a reader to wake when the tick ends (clock thread; once per reader until woken).
    static func schedule(_ reader: ReceivedFrames) {
        state.withLockedValue { $0.pending.append(reader) }
    }

    /// The null clock's hook, at the end of every tick: starts the job unless it runs already.
    static let tickEnded: cpjsua_tick_hook = {
        let start = state.withLockedValue { state in
            guard !state.pending.isEmpty, !state.running else { return false }
            state.running = true
            return true
        }
        if start { Task.detached { wakeUpPending() } }
    }

    private static func wakeUpPending() {
        while true {
            let readers = state.withLockedValue { state in
                defer { state.pending.removeAll(keepingCapacity: true) }
                if state.pending.isEmpty { state.running = false }
                return state.pending
            }
            if readers.isEmpty { return }
            for reader in readers { reader.wakeUp() }
        }
    }
}
