import Dispatch
import Foundation
import SwiftPJSUA

/// Round trip of a trivial awaited call: on the engine (its own thread), on an actor of the same
/// design with nothing of ours (a plain dedicated thread), on an actor with the default executor,
/// and on a DispatchQueue behind a checked continuation (what most wrappers do).
///
/// `make bench-check` compares the engine with the plain thread: both hand the job to another
/// thread and the result back to the caller's pool, so their ratio sits near 1 whether the machine
/// is quiet or busy. The DispatchQueue figure is only reported: on a quiet machine its p50 is
/// bimodal (about 5 or about 15 µs from one run to the next), because the pool thread that ran the
/// queue's block often runs the resumed caller too, and the caller's next block after it, with no
/// thread woken; no actor on a thread of its own can do that.
enum HopBenchmark {
    // The actors' methods change the actor's state, so that the optimizer cannot drop the call
    // and its hop (a method that only read a stored property measured 40 ns: no hop at all).
    actor DefaultActor {
        var value = 0
        func read() -> Int {
            value &+= 1
            return value
        }
    }

    final class QueueWrapper: @unchecked Sendable {
        // @unchecked Sendable: `value` is only touched on `queue`.
        let queue = DispatchQueue(label: "bench.wrapper")
        var value = 0
        func read() async -> Int {
            await withCheckedContinuation { continuation in
                queue.async { continuation.resume(returning: self.value) }
            }
        }
    }

    /// The engine's executor design and nothing else: one thread that takes jobs from an array
    /// under a mutex and sleeps on a condition variable, woken only when it sleeps (no PJLIB, no
    /// queue compaction, no blocks beside jobs). Its thread lives as long as the process.
    final class PlainThreadExecutor: SerialExecutor, @unchecked Sendable {
        // @unchecked Sendable: `jobs`, `head` and `sleeping` are guarded by `mutex`.
        private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        private var jobs: [UnownedJob] = []
        private var head = 0
        private var sleeping = false

        init() {
            pthread_mutex_init(mutex, nil)
            pthread_cond_init(condition, nil)
            Thread { [self] in run() }.start()
        }

        func enqueue(_ job: consuming ExecutorJob) {
            pthread_mutex_lock(mutex)
            jobs.append(UnownedJob(job))
            let wake = sleeping
            sleeping = false
            pthread_mutex_unlock(mutex)
            if wake { pthread_cond_signal(condition) }
        }

        func asUnownedSerialExecutor() -> UnownedSerialExecutor {
            UnownedSerialExecutor(ordinary: self)
        }

        private func run() {
            let executor = asUnownedSerialExecutor()
            while true {
                pthread_mutex_lock(mutex)
                while head == jobs.count {
                    sleeping = true
                    pthread_cond_wait(condition, mutex)
                }
                let job = jobs[head]
                head += 1
                if head == jobs.count {
                    jobs.removeAll(keepingCapacity: true)
                    head = 0
                }
                pthread_mutex_unlock(mutex)
                job.runSynchronously(on: executor)
            }
        }
    }

    actor PlainThreadActor {
        let executor = PlainThreadExecutor()
        nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
        var value = 0
        func read() -> Int {
            value &+= 1
            return value
        }
    }

    /// Times `iterations` rounds of the bodies, one call of each per round in turn, so that a
    /// burst of machine load falls on all of them alike (in blocks of a fifth of the run each,
    /// a load that came and went between blocks once read the engine at 5x the plain thread);
    /// returns each body's percentiles, in order.
    static func measure(_ iterations: Int, _ bodies: [() async -> Void]) async -> [Percentiles] {
        for _ in 0..<min(iterations, 2000) { for body in bodies { await body() } }  // warm-up
        var samples = [[Double]](repeating: [Double](repeating: 0, count: iterations), count: bodies.count)
        for index in 0..<iterations {
            for (which, body) in bodies.enumerated() {
                let start = nanoseconds()
                await body()
                samples[which][index] = Double(nanoseconds() - start)
            }
        }
        return samples.map(Percentiles.init)
    }

    static func run(iterations: Int) async throws {
        report(await figures(iterations: iterations))
    }

    /// Measures the four, interleaved, prints the figures and returns them.
    static func figures(iterations: Int) async -> [String: Any] {
        let phone = PJSUA()
        let plain = PlainThreadActor()
        let actor = DefaultActor()
        let wrapper = QueueWrapper()
        // Interleaved call by call, so that machine noise hits the four alike.
        let measured = await measure(iterations, [{ _ = await phone.isRunning }, { _ = await plain.read() },
                                                  { _ = await actor.read() }, { _ = await wrapper.read() }])
        let e = measured[0], t = measured[1], a = measured[2], d = measured[3]
        progress("hop round trip, \(iterations) iterations (ns): engine p50 \(Int(e.p50)) p99 \(Int(e.p99)); plain thread p50 \(Int(t.p50)) p99 \(Int(t.p99)); default actor p50 \(Int(a.p50)) p99 \(Int(a.p99)); DispatchQueue+continuation p50 \(Int(d.p50)) p99 \(Int(d.p99))")
        return ["engine_ns_p50": e.p50, "engine_ns_p99": e.p99, "plain_thread_ns_p50": t.p50, "plain_thread_ns_p99": t.p99,
                "default_actor_ns_p50": a.p50, "default_actor_ns_p99": a.p99,
                "dispatch_ns_p50": d.p50, "dispatch_ns_p99": d.p99, "iterations": iterations]
    }
}
