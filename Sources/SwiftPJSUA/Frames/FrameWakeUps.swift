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
    private static let lock = NSLock()
    nonisolated(unsafe) private static var pending: [ReceivedFrames] = []  // guarded by `lock`
    nonisolated(unsafe) private static var running = false  // guarded by `lock`

    /// Adds a reader to wake when the tick ends (clock thread; once per reader until woken).
    static func schedule(_ reader: ReceivedFrames) {
        lock.withLock { pending.append(reader) }
    }

    /// The null clock's hook, at the end of every tick: starts the job unless it runs already.
    static let tickEnded: cpjsua_tick_hook = {
        let start = lock.withLock {
            guard !pending.isEmpty, !running else { return false }
            running = true
            return true
        }
        if start { Task.detached { wakeUpPending() } }
    }

    private static func wakeUpPending() {
        while true {
            let readers = lock.withLock {
                defer { pending.removeAll(keepingCapacity: true) }
                if pending.isEmpty { running = false }
                return pending
            }
            if readers.isEmpty { return }
            for reader in readers { reader.wakeUp() }
        }
    }
}
