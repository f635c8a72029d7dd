import Dispatch
import SwiftPJSUA

/// Round trip of a trivial awaited call: on the engine (its own thread), on an actor with the
/// default executor, and on a DispatchQueue behind a checked continuation (what most wrappers do).
enum HopBenchmark {
    actor DefaultActor {
        var value = 0
        func read() -> Int { value }
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

    static func measure(_ iterations: Int, _ body: () async -> Void) async -> Percentiles {
        for _ in 0..<min(iterations, 2000) { await body() }  // warm-up
        var samples = [Double](repeating: 0, count: iterations)
        for index in 0..<iterations {
            let start = nanoseconds()
            await body()
            samples[index] = Double(nanoseconds() - start)
        }
        return Percentiles(samples)
    }

    static func run(iterations: Int) async throws {
        report(await figures(iterations: iterations))
    }

    /// Measures the three, interleaved, prints the figures and returns them.
    static func figures(iterations: Int) async -> [String: Any] {
        let phone = PJSUA()
        let actor = DefaultActor()
        let wrapper = QueueWrapper()
        // Interleave the three so machine noise hits them alike.
        var engine: [Double] = [], defaultActor: [Double] = [], dispatch: [Double] = []
        let rounds = 5
        for _ in 0..<rounds {
            engine += await measure(iterations / rounds) { _ = await phone.isRunning }.sorted
            defaultActor += await measure(iterations / rounds) { _ = await actor.read() }.sorted
            dispatch += await measure(iterations / rounds) { _ = await wrapper.read() }.sorted
        }
        let e = Percentiles(engine), a = Percentiles(defaultActor), d = Percentiles(dispatch)
        progress("hop round trip, \(iterations) iterations (ns): engine p50 \(Int(e.p50)) p99 \(Int(e.p99)); default actor p50 \(Int(a.p50)) p99 \(Int(a.p99)); DispatchQueue+continuation p50 \(Int(d.p50)) p99 \(Int(d.p99))")
        return ["engine_ns_p50": e.p50, "engine_ns_p99": e.p99, "default_actor_ns_p50": a.p50, "default_actor_ns_p99": a.p99,
                "dispatch_ns_p50": d.p50, "dispatch_ns_p99": d.p99, "iterations": iterations]
    }
}
