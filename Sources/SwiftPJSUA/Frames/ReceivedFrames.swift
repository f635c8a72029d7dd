import CPJSUASupport
import Foundation

/// The frames a reader's port received and the app has not taken yet: a bounded queue that drops
/// its oldest frame when full, and the task waiting for the next frame.
///
/// The bridge's clock thread adds frames (``add(_:)``); the app's task takes them (``next()``).
/// Adding never blocks and never waits for Swift concurrency: the frame goes into the queue under
/// `lock`, so frames keep their place even while the app's tasks cannot run.
///
/// Waking the waiting task is where the cost is. On the engine's own null clock (servers, bots),
/// a tick's wake-ups are not done from inside the tick but handed to ``FrameWakeUps``, which does
/// them all from one job once the tick has ended; with a sound device (pjsua's clock, no tick end
/// to hook) the waiting task is resumed at once.
final class ReceivedFrames: @unchecked Sendable {
    // @unchecked Sendable: every mutable property is guarded by `lock`; `capacity` is immutable.
    private let lock = NSLock()
    private let capacity: Int
    private var ring: [PJSUA.AudioFrame?]  // guarded by `lock`
    private var head = 0  // guarded by `lock`
    private var count = 0  // guarded by `lock`
    private var waiters: [UnsafeContinuation<PJSUA.AudioFrame?, Never>] = []  // guarded by `lock`
    private var wakeUpPending = false  // guarded by `lock`
    private var finished = false  // guarded by `lock`
    private var dropped = 0  // guarded by `lock`

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        ring = Array(repeating: nil, count: self.capacity)
    }

    /// Frames dropped because the app was `capacity` frames behind.
    var droppedFrames: Int { lock.withLock { dropped } }

    /// Queues a received frame (the bridge's clock thread).
    func add(_ frame: PJSUA.AudioFrame) {
        let deferred = cpjsua_null_clock_in_tick() != 0
        let wake: (UnsafeContinuation<PJSUA.AudioFrame?, Never>, PJSUA.AudioFrame)?? = lock.withLock {
            guard !finished else { return nil }
            push(frame)
            guard !waiters.isEmpty else { return nil }
            if deferred {
                guard !wakeUpPending else { return nil }
                wakeUpPending = true
                return .some(nil)
            }
            return takeWaiterAndFrame()
        }
        switch wake {
        case let .some(.some((waiter, frame))): waiter.resume(returning: frame)
        case .some(.none): FrameWakeUps.schedule(self)
        case .none: break
        }
    }

    /// Resumes the waiting task with the oldest frame, if both are there (``FrameWakeUps``' job).
    func wakeUp() {
        let wake = lock.withLock {
            wakeUpPending = false
            return takeWaiterAndFrame()
        }
        if let (waiter, frame) = wake { waiter.resume(returning: frame) }
    }

    /// The next frame, waiting for it; nil once finished (or when the task is cancelled, which
    /// calls `onCancel` first).
    func next(onCancel: @escaping @Sendable () -> Void) async -> PJSUA.AudioFrame? {
        if let frame = lock.withLock({ pop() }) { return frame }
        if Task.isCancelled {
            onCancel()
            return nil
        }
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<PJSUA.AudioFrame?, Never>) in
                let now: PJSUA.AudioFrame?? = lock.withLock {
                    if let frame = pop() { return .some(frame) }
                    if finished { return .some(nil) }
                    waiters.append(continuation)
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
        let waiting = lock.withLock {
            finished = true
            defer { waiters = [] }
            return waiters
        }
        waiting.forEach { $0.resume(returning: nil) }
    }

    // MARK: Under `lock`

    private func push(_ frame: PJSUA.AudioFrame) {
        if count == capacity {
            ring[head] = nil
            head = (head + 1) % capacity
            count -= 1
            dropped += 1
        }
        ring[(head + count) % capacity] = frame
        count += 1
    }

    private func pop() -> PJSUA.AudioFrame? {
        guard count > 0 else { return nil }
        let frame = ring[head]
        ring[head] = nil
        head = (head + 1) % capacity
        count -= 1
        return frame
    }

    private func takeWaiterAndFrame() -> (UnsafeContinuation<PJSUA.AudioFrame?, Never>, PJSUA.AudioFrame)? {
        guard !waiters.isEmpty, let frame = pop() else { return nil }
        return (waiters.removeFirst(), frame)
    }
}
