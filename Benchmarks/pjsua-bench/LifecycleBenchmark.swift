import Foundation
import SwiftPJSUA

/// What an engine restart costs: N cycles of `start` (UDP on loopback, the null audio device) and
/// `shutdown`, each timed, on one engine object (a bot that restarts) and on a new one each time
/// (an app that makes a new engine, whose executor thread starts and ends each time). Every test
/// that starts an engine pays one cycle, so this is also the floor of the test suite's serial chain.
enum LifecycleBenchmark {
    static func cycles(_ count: Int, reusing: Bool) async throws -> (start: [Double], shutdown: [Double]) {
        var starts: [Double] = [], shutdowns: [Double] = []
        let reused = PJSUA()
        for _ in 0..<count {
            let phone = reusing ? reused : PJSUA()
            let clock = ContinuousClock()
            let began = clock.now
            _ = try await phone.start(.init(port: 0, bindAddress: "127.0.0.1", audioDevice: .null))
            let started = clock.now
            await phone.shutdown()
            let ended = clock.now
            starts.append(milliseconds(began.duration(to: started)))
            shutdowns.append(milliseconds(started.duration(to: ended)))
        }
        return (starts, shutdowns)
    }

    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    static func run(cycles count: Int) async throws {
        _ = try await cycles(3, reusing: true)  // warm-up
        var fields: [String: Any] = ["cycles": count]
        for reusing in [true, false] {
            let (starts, shutdowns) = try await cycles(count, reusing: reusing)
            let s = Percentiles(starts), d = Percentiles(shutdowns)
            let label = reusing ? "one engine" : "a new engine each time"
            progress("start -> shutdown, \(count) cycles, \(label) (ms): start p50 \(s.p50) p99 \(s.p99); shutdown p50 \(d.p50) p99 \(d.p99)")
            let key = reusing ? "reused" : "new"
            fields["\(key)_start_ms_p50"] = s.p50
            fields["\(key)_shutdown_ms_p50"] = d.p50
        }
        report(fields)
    }
}
