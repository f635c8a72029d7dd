import CPJSUASupport
import Foundation
import PJSIP

/// The serial executor every `PJSUA` actor runs on: one dedicated POSIX thread, registered with
/// PJLIB, that runs enqueued jobs in FIFO order and sleeps on a condition variable while idle.
///
/// Invariant 3 is enforced here: the thread registers itself with `pj_thread_register` before it
/// runs its first job, and its `pj_thread_desc` is owned by this object, which outlives the thread
/// (the thread keeps the executor alive until it has stopped using PJLIB).
///
/// Invariant 2 follows from it: the actor's methods are the only code that calls pjsua, and they
/// all run here, so nothing enters PJSIP from GCD or Swift-concurrency threads.
///
/// Not public: only an engine creates one, and its deinit stops it, so no job can be enqueued
/// after shutdown through the public API and no executor thread outlives its engine's teardown.
final class PJSUAExecutor: SerialExecutor, @unchecked Sendable {
    // @unchecked Sendable: the queue is in a `LockedValueBox`; `thread` is written once in init,
    // before any job can be enqueued, and freed in deinit; `descriptor` is touched only by the
    // executor thread itself.
    private enum Work {
        case job(UnownedJob)
        case block(@Sendable () -> Void)
    }
    /// The jobs not run yet and the thread's state, under the lock whose condition the thread
    /// sleeps on.
    private struct Queue {
        var jobs: [Work] = []
        var head = 0
        var stopping = false
        /// Whether the thread waits (or is about to wait) on the condition.
        var sleeping = false
        var joined = false
        /// Whether the thread registered with PJLIB; nil until it tried.
        var registered: Bool?

        /// Jobs are taken from `head`; the consumed prefix is dropped once it is both large and
        /// at least half of the array (so each job is moved at most once on average), and a
        /// drained queue gives back a burst's memory.
        mutating func compact() {
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: jobs.capacity <= PJSUAExecutor.retainedCapacity)
                head = 0
            } else if head >= PJSUAExecutor.retainedCapacity && head * 2 >= jobs.count {
                jobs.removeSubrange(0..<head)
                head = 0
            }
        }
    }
    private let queue = LockedValueBox(Queue())
    /// The thread, started and joined by CPJSUASupport (the POSIX thread type differs per platform).
    private var thread: OpaquePointer?
    /// The `pj_thread_desc` (an array of `long`) PJLIB keeps a pointer to while the thread runs.
    private let descriptor: UnsafeMutablePointer<Int>
    private static let descriptorCount = MemoryLayout<pj_thread_desc>.size / MemoryLayout<Int>.stride

    /// Creates the executor and starts its thread; the thread is registered with PJLIB before
    /// this initializer returns.
    init(name: String = "pjsua-executor") {
        descriptor = .allocate(capacity: Self.descriptorCount)
        descriptor.initialize(repeating: 0, count: Self.descriptorCount)

        let box = Unmanaged.passRetained(ThreadStart(executor: self, name: name))
        var created: OpaquePointer?
        let rc = cpjsua_thread_start(&created, { raw in
            guard let raw else { return }
            let start = Unmanaged<ThreadStart>.fromOpaque(raw).takeRetainedValue()
            start.executor.threadMain(name: start.name)
        }, box.toOpaque())
        // Only resource exhaustion (EAGAIN) fails here; an engine without its thread cannot exist.
        precondition(rc == 0, "cannot start the PJSUA executor thread: \(String(cString: strerror(rc)))")
        thread = created
        // Wait until the thread has registered with PJLIB, so that callers can rely on it.
        queue.withLockedValue(waitingWhile: { $0.registered == nil }) { _ in }
    }

    // The thread holds a strong reference to the executor until it exits, so deinit runs only
    // after the thread has stopped touching it.
    deinit {
        descriptor.deallocate()
        cpjsua_thread_free(thread)
    }

    /// Whether the calling thread is this executor's thread.
    var isCurrent: Bool {
        guard let thread else { return false }
        return cpjsua_thread_is_current(thread) != 0
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let accepted = submit(.job(UnownedJob(job)))
        // Only the engine's actor enqueues jobs, and it stops its executor in its deinit, when no
        // job of it can exist any more: unreachable through the public API.
        precondition(accepted, "a job was enqueued on a PJSUA executor after it shut down")
    }

    /// Runs `block` on the executor thread after the work already enqueued (the media callback's
    /// audio wiring; an engine's deinit tearing pjsua down on the thread that owns it). Returns
    /// false, and drops the block, once the executor is stopping.
    @discardableResult
    func execute(_ block: @escaping @Sendable () -> Void) -> Bool {
        submit(.block(block))
    }

    private func submit(_ unowned: Work) -> Bool {
        // Wake the thread only if it sleeps, and signal after unlocking, so that it does not
        // wake up straight into a held lock.
        let (accepted, wake) = queue.withLockedValue { queue in
            let accepted = !queue.stopping
            let wake = accepted && queue.sleeping
            if accepted {
                queue.jobs.append(unowned)
                if wake { queue.sleeping = false }
            }
            return (accepted, wake)
        }
        if wake { queue.signal() }
        return accepted
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    func checkIsolated() {
        precondition(isCurrent, "expected to run on the PJSUA executor thread")
    }

    func isIsolatingCurrentContext() -> Bool? {
        isCurrent
    }

    /// Stops the thread after the jobs already enqueued have run. Idempotent.
    ///
    /// With `wait` (and not called on the executor thread itself) it joins the thread; otherwise
    /// it detaches it and returns at once, and the thread ends by itself once the queue is
    /// drained (an engine dropped while running: its teardown job must not block the releasing
    /// thread, which may be the main thread or a pjsua worker inside a callback).
    func shutdown(wait: Bool = true) {
        let wake: Bool? = queue.withLockedValue { queue in
            if queue.joined { return nil }
            queue.stopping = true
            queue.joined = true
            defer { queue.sleeping = false }
            return queue.sleeping
        }
        guard let wake else { return }
        if wake { queue.signal() }
        guard let thread else { return }
        if wait && !isCurrent {
            cpjsua_thread_join(thread)
        } else {
            cpjsua_thread_detach(thread)
        }
    }

    /// The queue's current capacity in jobs (tests check that it shrinks after a burst).
    var queueCapacity: Int {
        queue.withLockedValue { $0.jobs.capacity }
    }

    /// The queue capacity kept across idle periods.
    static let retainedCapacity = 256

    private func threadMain(name: String) {
        PJLibrary.acquire()
        var registered: OpaquePointer?
        if pj_thread_is_registered() != 0 {
            // pj_init() registered this thread as PJLIB's main thread (with PJLIB's own static
            // descriptor, which lives as long as the process).
            registered = pj_thread_this()
        } else {
            let status = name.withCString { pj_thread_register($0, descriptor, &registered) }
            if status != pjSuccess { registered = nil }
        }
        queue.withLockedValue { queue in
            queue.registered = registered != nil
            self.queue.broadcast()
        }
        precondition(registered != nil, "the PJSUA executor thread could not register with PJLIB")

        let executor = asUnownedSerialExecutor()
        while true {
            let next: Work? = queue.withLockedValue(waitingWhile: { queue in
                let idle = queue.head == queue.jobs.count && !queue.stopping
                if idle { queue.sleeping = true }
                return idle
            }) { queue in
                queue.sleeping = false
                if queue.head == queue.jobs.count { return nil }
                let job = queue.jobs[queue.head]
                queue.head += 1
                queue.compact()
                return job
            }
            guard let job = next else { break }
            switch job {
            case .job(let job): job.runSynchronously(on: executor)
            case .block(let block): block()
            }
        }
        PJLibrary.release()
    }
}

private final class ThreadStart {
    let executor: PJSUAExecutor
    let name: String
    init(executor: PJSUAExecutor, name: String) {
        self.executor = executor
        self.name = name
    }
}
