import Foundation
import PJSUATestSupport

/// sipp as UAC at R calls/s against `softphone answer --auto-answer 200` (the Swift engine) and,
/// in the same run and with the same limits, against the reference pjsua app.
enum LoadBenchmark {
    struct Outcome {
        var ok = 0
        var failed = 0
        var responseP50 = Double.nan
        var cpuSeconds = Double.nan
        /// Calls completed per second of sipp's run (sipp falls behind the asked rate when the
        /// server answers slowly).
        var achievedRate = Double.nan
    }

    enum Side: String, CaseIterable {
        case swift, pjsua
    }

    static func startServer(_ side: Side, port: Int) async throws -> ChildProcess {
        switch side {
        case .swift:
            let directory = URL(fileURLWithPath: Bundle.main.executablePath ?? CommandLine.arguments[0]).deletingLastPathComponent().path
            let child = try ChildProcess(directory + "/softphone", ["answer", "--listen", "udp:127.0.0.1:\(port)", "--auto-answer", "200", "--quiet"], name: "softphone")
            try await child.waitForOutput("listening")
            return child
        case .pjsua:
            let child = try ChildProcess("pjsua", ["--null-audio", "--auto-answer=200", "--local-port=\(port)", "--bound-addr=127.0.0.1",
                                                        "--no-tcp", "--max-calls=\(maxCalls)", "--log-level=0", "--app-log-level=0",
                                                        "--no-vad", "--thread-cnt=1",
                                                        // No console: with stdin closed the app would quit at once.
                                                        "--use-cli", "--no-cli-console", "--cli-telnet-port=0"], name: "pjsua-app")
            // The pjsua app has no "ready" line at log level 0; give it a moment to bind.
            try await Task.sleep(for: .milliseconds(700))
            if child.exited != nil { throw BenchError("the pjsua app exited:\n\(child.output.suffix(2000))") }
            return child
        }
    }

    /// The most calls either side may hold at once (the build's PJSUA_MAX_CALLS).
    static let maxCalls = 128

    static func measure(_ side: Side, rate: Int, seconds: Int, holdMilliseconds: Int) async throws -> Outcome {
        let port = freeLoopbackPort()
        let server = try await startServer(side, port: port)
        defer { server.stop() }
        let work = NSTemporaryDirectory() + "pjsua-bench-load-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let total = rate * seconds
        // Concurrency limit: what the server can hold (2 legs never exceed max calls here).
        let sipp = try ChildProcess("sipp", ["-sn", "uac", "-r", "\(rate)", "-m", "\(total)", "-d", "\(holdMilliseconds)",
                                                  "-l", "\(maxCalls - 8)", "-i", "127.0.0.1", "-p", "\(freeLoopbackPort())", "-nostdin",
                                                  "-timeout", "\(seconds * 3 + 30)s", "-recv_timeout", "5000",
                                                  "-trace_rtt", "-rtt_freq", "1", "-trace_stat", "-stf", work + "/stat.csv",
                                                  "-fd", "1", "127.0.0.1:\(port)"], name: "sipp")
        let started = ContinuousClock.now
        _ = try await sipp.waitForExit(timeout: .seconds(seconds * 3 + 60))
        let elapsed = ContinuousClock.now - started
        var outcome = Outcome()
        outcome.cpuSeconds = processCPUSeconds(pid: server.pid) ?? .nan
        // Final counters from the last line of sipp's statistics file.
        if let text = try? String(contentsOfFile: work + "/stat.csv", encoding: .utf8) {
            let rows = text.split(separator: "\n").map { $0.split(separator: ";", omittingEmptySubsequences: false).map(String.init) }
            if let header = rows.first, let last = rows.last, rows.count > 1 {
                func value(_ name: String) -> Int? { header.firstIndex(of: name).flatMap { $0 < last.count ? Int(last[$0]) : nil } }
                outcome.ok = value("SuccessfulCall(C)") ?? 0
                outcome.failed = value("FailedCall(C)") ?? 0
            }
        }
        // Per-call response times (INVITE -> 200) from sipp's RTT file (written in its cwd), in
        // sipp's 1 ms resolution.
        let cwd = FileManager.default.currentDirectoryPath
        if let file = try? FileManager.default.contentsOfDirectory(atPath: cwd).first(where: { $0.hasPrefix("uac_\(sipp.pid)_rtt") }) {
            let path = cwd + "/" + file
            if let text = try? String(contentsOfFile: path, encoding: .utf8) {
                let values = text.split(separator: "\n").dropFirst().compactMap { line -> Double? in
                    let fields = line.split(separator: ";")
                    return fields.count >= 2 ? Double(fields[1]) : nil
                }
                outcome.responseP50 = Percentiles(values).p50
            }
            try? FileManager.default.removeItem(atPath: path)
        }
        let elapsedSeconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        outcome.achievedRate = Double(outcome.ok) / max(elapsedSeconds, 0.001)
        if outcome.ok + outcome.failed == 0 {
            throw BenchError("sipp reported no calls against \(side):\n\(sipp.output.suffix(1500))")
        }
        return outcome
    }

    static func run(rate: Int, seconds: Int, holdMilliseconds: Int, findMax: Bool) async throws {
        var fields: [String: Any] = ["rate": rate, "seconds": seconds, "hold_ms": holdMilliseconds]
        for side in Side.allCases {
            let outcome = try await measure(side, rate: rate, seconds: seconds, holdMilliseconds: holdMilliseconds)
            progress("load \(side.rawValue): \(rate) calls/s for \(seconds) s, hold \(holdMilliseconds) ms: ok \(outcome.ok), failed \(outcome.failed), response p50 \(outcome.responseP50) ms, CPU \(outcome.cpuSeconds) s")
            fields["\(side.rawValue)_ok"] = outcome.ok
            fields["\(side.rawValue)_failed"] = outcome.failed
            fields["\(side.rawValue)_response_ms_p50"] = outcome.responseP50
            fields["\(side.rawValue)_cpu_s"] = outcome.cpuSeconds
        }
        if findMax {
            // Short calls (50 ms), so that the concurrency limit is not what stops the ramp: the
            // rate goes up by half each step until a call fails or sipp cannot keep the pace.
            for side in Side.allCases {
                var best = 0.0
                var step = max(10, rate)
                while step <= 5000 {
                    let outcome = try await measure(side, rate: step, seconds: 5, holdMilliseconds: 50)
                    progress("find-max \(side.rawValue): asked \(step) calls/s -> achieved \(Int(outcome.achievedRate)) calls/s, ok \(outcome.ok), failed \(outcome.failed)")
                    guard outcome.failed == 0 else { break }
                    best = max(best, outcome.achievedRate)
                    if outcome.achievedRate < 0.8 * Double(step) { break }
                    step = step * 3 / 2
                }
                fields["\(side.rawValue)_max_cps_zero_fail"] = best.rounded()
            }
        }
        report(fields)
    }
}
