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
public final class PJSUAExecutor: SerialExecutor, @unchecked Sendable {
    // @unchecked Sendable: `jobs`, `head`, `stopping`, `sleeping`, `joined` are guarded by `mutex` (with `condition`
    // to wake the thread); `thread` is written once in init, before any job can be enqueued, and
    // freed in deinit; `descriptor` is touched only by the executor thread itself.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private enum Work {
        case job(UnownedJob)
        case block(@Sendable () -> Void)
    }
    private var jobs: [Work] = []
    private var head = 0
    private var stopping = false
    /// Whether the thread waits (or is about to wait) on `condition`; guarded by `mutex`.
    private var sleeping = false
    private var joined = false
    /// The thread (started and joined by CPJSUASupport, where pthread_t's per-platform type stays).
    private var thread: OpaquePointer?
    /// The `pj_thread_desc` (an array of `long`) PJLIB keeps a pointer to while the thread runs.
    private let descriptor: UnsafeMutablePointer<Int>
    private static let descriptorCount = MemoryLayout<pj_thread_desc>.size / MemoryLayout<Int>.stride
    /// The `pj_thread_t` PJLIB created for the executor thread, or nil if registration failed.
    private var pjThread: OpaquePointer?

    /// Creates the executor and starts its thread; the thread is registered with PJLIB before
    /// this initializer returns.
    public init(name: String = "pjsua-executor") {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        pthread_cond_init(condition, nil)
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
        pthread_mutex_lock(mutex)
        thread = created
        // Wait until the thread has registered with PJLIB, so that callers can rely on it.
        while pjThread == nil && !registrationFailed {
            pthread_cond_wait(condition, mutex)
        }
        pthread_mutex_unlock(mutex)
    }

    private var registrationFailed = false

    // The thread holds a strong reference to the executor until it exits, so deinit runs only
    // after the thread has stopped touching it.
    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        descriptor.deallocate()
        cpjsua_thread_free(thread)
    }

    /// Whether the calling thread is this executor's thread.
    public var isCurrent: Bool {
        guard let thread else { return false }
        return cpjsua_thread_is_current(thread) != 0
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        submit(.job(UnownedJob(job)))
    }

    /// Runs `block` on the executor thread after the work already enqueued. Used where no actor
    /// job is available (an engine's deinit tearing pjsua down on the thread that owns it).
    func execute(_ block: @escaping @Sendable () -> Void) {
        submit(.block(block))
    }

    private func submit(_ unowned: Work) {
        pthread_mutex_lock(mutex)
        let accepted = !stopping
        // Wake the thread only if it sleeps, and signal after unlocking, so that it does not
        // wake up straight into a held mutex.
        let wake = accepted && sleeping
        if accepted {
            jobs.append(unowned)
            if wake { sleeping = false }
        }
        pthread_mutex_unlock(mutex)
        if wake { pthread_cond_signal(condition) }
        // A job enqueued after shutdown can only come from a misuse after the actor is gone.
        precondition(accepted, "a job was enqueued on a PJSUA executor after it shut down")
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    public func checkIsolated() {
        precondition(isCurrent, "expected to run on the PJSUA executor thread")
    }

    public func isIsolatingCurrentContext() -> Bool? {
        isCurrent
    }

    /// Stops the thread after the jobs already enqueued have run, and joins it. Idempotent.
    /// Called from the executor thread itself (its owner released inside a job), it detaches the
    /// thread instead, which then ends once the current job returns.
    public func shutdown() {
        pthread_mutex_lock(mutex)
        if joined {
            pthread_mutex_unlock(mutex)
            return
        }
        stopping = true
        joined = true
        pthread_mutex_unlock(mutex)
        pthread_cond_signal(condition)
        guard let thread else { return }
        if isCurrent {
            cpjsua_thread_detach(thread)
        } else {
            cpjsua_thread_join(thread)
        }
    }

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
        pthread_mutex_lock(mutex)
        pjThread = registered
        registrationFailed = registered == nil
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
        precondition(registered != nil, "the PJSUA executor thread could not register with PJLIB")

        let executor = asUnownedSerialExecutor()
        while true {
            pthread_mutex_lock(mutex)
            while head == jobs.count && !stopping {
                sleeping = true
                pthread_cond_wait(condition, mutex)
            }
            sleeping = false
            if head == jobs.count {
                pthread_mutex_unlock(mutex)
                break
            }
            let job = jobs[head]
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            }
            pthread_mutex_unlock(mutex)
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
