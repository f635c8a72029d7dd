import CPJSUABaseline
import Foundation
@_spi(Benchmarks) import SwiftPJSUA

/// N sequential loopback self-calls through the Swift engine, and the same loop in plain C
/// against the same library (Benchmarks/CPJSUABaseline), alternating in one run.
enum SetupBenchmark {
    static func swiftCalls(_ count: Int) async throws -> [(setup: Double, total: Double)] {
        let phone = PJSUA()
        let transport = try await phone.start(.init(port: 0, bindAddress: "127.0.0.1", audioDevice: .null))
        var caller = SelfCaller(phone: phone, uri: transport.uri(user: "bench"))
        var durations: [(setup: Double, total: Double)] = []
        do {
            for _ in 0..<count { durations.append(try await caller.cycle()) }
        } catch {
            await phone.shutdown()
            throw error
        }
        await phone.shutdown()
        return durations
    }

    /// The C loop runs on a thread of its own (it registers that thread with PJLIB), while no
    /// engine can take PJLIB up or down: the last Swift run's engine thread shuts PJLIB down
    /// after `shutdown()` returned, and PJLIB's init count is not atomic.
    static func cCalls(_ count: Int) async throws -> [(setup: Double, total: Double)] {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                var setups = [Double](repeating: 0, count: count)
                var durations = [Double](repeating: 0, count: count)
                let status = PJSUA.withPJLIBLifecycleHeld { cpjsua_baseline_setup(Int32(count), &setups, &durations) }
                if status == 0 {
                    continuation.resume(returning: Array(zip(setups, durations)).map { (setup: $0.0, total: $0.1) })
                } else {
                    continuation.resume(throwing: BenchError("C baseline failed at step \(status)"))
                }
            }
            thread.start()
        }
    }

    static func run(calls: Int) async throws {
        report(try await figures(calls: calls))
    }

    /// Runs both loops, alternating in rounds, prints the figures and returns them
    /// (`ratio_p50` is the whole cycle's p50, Swift over C).
    static func figures(calls: Int) async throws -> [String: Any] {
        let rounds = 4
        let perRound = max(1, calls / rounds)
        _ = try await swiftCalls(5)  // warm-up both
        _ = try await cCalls(5)
        var swift: [(setup: Double, total: Double)] = [], c: [(setup: Double, total: Double)] = []
        for _ in 0..<rounds {
            swift += try await swiftCalls(perRound)
            c += try await cCalls(perRound)
        }
        let s = Percentiles(swift.map(\.total)), b = Percentiles(c.map(\.total))
        let s1 = Percentiles(swift.map(\.setup)), b1 = Percentiles(c.map(\.setup))
        progress("self-call cycle (make -> both CONFIRMED -> hangup -> both DISCONNECTED), \(swift.count) calls each (ms): Swift p50 \(s.p50) p99 \(s.p99); C p50 \(b.p50) p99 \(b.p99); ratio p50 \(s.p50 / b.p50)")
        progress("  of which make -> both CONFIRMED (ms): Swift p50 \(s1.p50) p99 \(s1.p99); C p50 \(b1.p50) p99 \(b1.p99); ratio p50 \(s1.p50 / b1.p50)")
        return ["swift_ms_p50": s.p50, "swift_ms_p99": s.p99, "c_ms_p50": b.p50, "c_ms_p99": b.p99,
                "ratio_p50": s.p50 / b.p50, "swift_setup_ms_p50": s1.p50, "c_setup_ms_p50": b1.p50,
                "setup_ratio_p50": s1.p50 / b1.p50, "calls": swift.count]
    }
}
