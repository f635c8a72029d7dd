import CPJSUASupport
import Foundation

/// The frames a reader's port received and the app has not taken yet: a bounded queue that drops
/// its oldest frame when full, and the task waiting for the next frame.
///
/// The bridge's clock thread adds frames (``add(_:)``); the app's task takes them (``next()``).
/// Adding never blocks and never waits for Swift concurrency: the frame goes into the queue under
/// its lock, so frames keep their place even while the app's tasks cannot run.
///
/// Waking the waiting task is where the cost is. On the engine's own null clock (servers, bots),
/// a tick's wake-ups are not done from inside the tick but handed to ``FrameWakeUps``, which does
/// them all from one job once the tick has ended; with a sound device (pjsua's clock, no tick end
/// to hook) the waiting task is resumed at once.
final class ReceivedFrames: Sendable {
    private struct Queue {
        let capacity: Int
        var ring: [PJSUA.AudioFrame?]
        var head = 0
        var count = 0
        var waiters: [UnsafeContinuation<PJSUA.AudioFrame?, Never>] = []
        var wakeUpPending = false
        var finished = false
        var dropped = 0

        mutating func push(_ frame: PJSUA.AudioFrame) {
            if count == capacity {
                ring[head] = nil
                head = (head + 1) % capacity
                count -= 1
                dropped += 1
            }
            ring[(head + count) % capacity] = frame
            count += 1
        }

        mutating func pop() -> PJSUA.AudioFrame? {
            guard count > 0 else { return nil }
            let frame = ring[head]
            ring[head] = nil
            head = (head + 1) % capacity
            count -= 1
            return frame
        }

        mutating func takeWaiterAndFrame() -> (UnsafeContinuation<PJSUA.AudioFrame?, Never>, PJSUA.AudioFrame)? {
            guard !waiters.isEmpty, let frame = pop() else { return nil }
            return (waiters.removeFirst(), frame)
        }
    }
    private let queue: LockedValueBox<Queue>

    init(capacity: Int) {
        let capacity = max(1, capacity)
        queue = LockedValueBox(Queue(capacity: capacity, ring: Array(repeating: nil, count: capacity)))
    }

    /// Frames dropped because the app was `capacity` frames behind.
    var droppedFrames: Int { queue.withLockedValue { $0.dropped } }

    /// Queues a received frame (the bridge's clock thread).
    func add(_ frame: PJSUA.AudioFrame) {
        let deferred = cpjsua_null_clock_in_tick() != 0
        let wake: (UnsafeContinuation<PJSUA.AudioFrame?, Never>, PJSUA.AudioFrame)?? = queue.withLockedValue { queue in
            guard !queue.finished else { return nil }
            queue.push(frame)
            guard !queue.waiters.isEmpty else { return nil }
            if deferred {
                guard !queue.wakeUpPending else { return nil }
                queue.wakeUpPending = true
                return .some(nil)
            }
            return queue.takeWaiterAndFrame()
        }
        switch wake {
        case let .some(.some((waiter, frame))): waiter.resume(returning: frame)
        case .some(.none): FrameWakeUps.schedule(self)
        case .none: break
        }
    }

    /// Resumes the waiting task with the oldest frame, if both are there (``FrameWakeUps``' job).
    func wakeUp() {
        let wake = queue.withLockedValue { queue in
            queue.wakeUpPending = false
            return queue.takeWaiterAndFrame()
        }
        if let (waiter, frame) = wake { waiter.resume(returning: frame) }
    }

    /// The next frame, waiting for it; nil once finished (or when the task is cancelled, which
    /// calls `onCancel` first).
    func next(onCancel: @escaping @Sendable () -> Void) async -> PJSUA.AudioFrame? {
        if let frame = queue.withLockedValue({ $0.pop() }) { return frame }
        if Task.isCancelled {
            onCancel()
            return nil
        }
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<PJSUA.AudioFrame?, Never>) in
                let now: PJSUA.AudioFrame?? = queue.withLockedValue { queue in
                    if let frame = queue.pop() { return .some(frame) }
                    if queue.finished { return .some(nil) }
                    queue.waiters.append(continuation)
                    return .none
                }
                if case let .some(frame) = now { continuation.resume(returning: frame) }
            }
        } onCancel: {
            onCancel()
            finish()
        }
    }

    /// Ends the sequence: waiting tasks get nil now, later calls after the queued frames.
    func finish() {
        let waiting = queue.withLockedValue { queue in
            queue.finished = true
            defer { queue.waiters = [] }
            return queue.waiters
        }
        waiting.forEach { $0.resume(returning: nil) }
    }
}
