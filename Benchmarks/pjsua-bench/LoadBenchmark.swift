import Foundation
import PJSUATestSupport

/// sipp as UAC against `softphone answer --auto-answer 200` (the Swift engine) and, in the same
/// run and with the same limits, against the reference pjsua app:
/// - CPU: N interleaved runs per side (A, B, A, B, ...) at a fixed rate; each run's server CPU
///   seconds, the median per side and their ratio.
/// - find-max (optional): the highest asked rate of 50 ms calls that every call survives, by a
///   1.5x ramp then bisection between the last good and the first bad step.
/// - overload (optional, after find-max): both sides at 2x and 4x the larger of the two maxima;
///   goodput (successful calls per second) against each side's own maximum. The Swift side runs
///   with admission control (`softphone answer --max-cps <its max>`) when the build has it.
enum LoadBenchmark {
    enum Side: String, CaseIterable {
        case swift, pjsua
    }

    struct Options {
        var rate = 20
        var seconds = 10
        var holdMilliseconds = 1000
        var repetitions = 3
        var findMax = false
        /// First rate of the find-max ramp.
        var rampFrom = 20
        var stepSeconds = 5
        var overload = false
        var overloadSeconds = 5
        /// Whether the Swift side also gets a rate limit (`--max-cps` its maximum) in the overload
        /// runs; without it, only the in-progress limit (maxCalls) refuses calls, as in the pjsua app.
        var rateLimit = true
        /// The conference bridge's clock rate on both sides (softphone `--clock-rate`, the pjsua
        /// app's `--clock-rate=`); nil leaves both at their default (16 kHz).
        var clockRate: Int?
    }

    struct Outcome {
        var expected = 0
        var ok = 0
        var failed = 0
        /// Failed calls that got no answer at all (sipp's receive timeout or UDP retransmissions).
        var timedOut = 0
        var created = 0
        var responseP50 = Double.nan
        /// Server CPU seconds (its threads' schedstat) from just before sipp started to just after it ended.
        var cpuSeconds = Double.nan
        /// Calls sipp created per second (below the asked rate when sipp, or the concurrency limit,
        /// could not keep the pace).
        var attemptRate = Double.nan
        /// sipp's run from its start to its last call's end.
        var elapsedSeconds = Double.nan

        var complete: Bool { ok == expected && failed == 0 }
        /// Successful calls per second of sipp's call-creation time (answers that come later, within
        /// sipp's timeouts, still count; `elapsedSeconds` shows how long the tail was).
        var goodput: Double { created > 0 ? attemptRate * Double(ok) / Double(created) : 0 }
    }

    /// The most calls either side may hold at once (the build's PJSUA_MAX_CALLS).
    static let maxCalls = 128
    /// Short calls for find-max and overload, so that the concurrency limit is not what stops them.
    static let shortHoldMilliseconds = 50
    /// A find-max step passes when every call succeeds and sipp created calls at least this close
    /// to the asked rate.
    static let paceTolerance = 0.9

    static var softphonePath: String {
        let executable = Bundle.main.executablePath ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: executable).deletingLastPathComponent().path + "/softphone"
    }

    static func startServer(_ side: Side, port: Int, maxNewCallsPerSecond: Int?, clockRate: Int?) async throws -> ChildProcess {
        switch side {
        case .swift:
            var arguments = ["answer", "--listen", "udp:127.0.0.1:\(port)", "--auto-answer", "200", "--quiet"]
            if let maxNewCallsPerSecond { arguments += ["--max-cps", "\(maxNewCallsPerSecond)"] }
            if let clockRate { arguments += ["--clock-rate", "\(clockRate)"] }
            let (executable, pinned) = try CPUPinning.command(softphonePath, arguments, cpu: CPUPinning.serverCPU)
            let child = try ChildProcess(executable, pinned, name: "softphone")
            try await child.waitForOutput("listening")
            return child
        case .pjsua:
            let (executable, pinned) = try CPUPinning.command("pjsua", ["--null-audio", "--auto-answer=200", "--local-port=\(port)", "--bound-addr=127.0.0.1",
                                                        "--no-tcp", "--max-calls=\(maxCalls)", "--log-level=0", "--app-log-level=0",
                                                        "--no-vad", "--thread-cnt=1",
                                                        // No console: with stdin closed the app would quit at once.
                                                        "--use-cli", "--no-cli-console", "--cli-telnet-port=0"]
                                                        + (clockRate.map { ["--clock-rate=\($0)"] } ?? []), cpu: CPUPinning.serverCPU)
            let child = try ChildProcess(executable, pinned, name: "pjsua-app")
            // The pjsua app has no "ready" line at log level 0: wait until its SIP port is bound.
            // A fixed pause was too short on a busy machine: the first calls failed, or its
            // start-up (pjsua_init makes a DTLS key, ~0.3 s of CPU) was counted as the run's CPU.
            let deadline = ContinuousClock.now.advanced(by: .seconds(15))
            while !MediaBenchmark.udpPortIsBound(port), child.exited == nil, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            if child.exited != nil || !MediaBenchmark.udpPortIsBound(port) { throw BenchError("the pjsua app did not start:\n\(child.output.suffix(2000))") }
            try await Task.sleep(for: .milliseconds(200))
            return child
        }
    }

    /// Whether this build's `softphone answer` has admission control on the command line.
    static func softphoneHasMaxCPS() async -> Bool {
        guard let help = try? ChildProcess(softphonePath, ["answer", "--help"], name: "softphone-help") else { return false }
        _ = try? await help.waitForExit(timeout: .seconds(10))
        return help.output.contains("--max-cps")
    }

    /// One fresh server process and one sipp run against it.
    static func measure(_ side: Side, _ run: SippRun, clockRate: Int?, maxNewCallsPerSecond: Int? = nil) async throws -> Outcome {
        // A port of a block held for the measurement (the server cannot report a port it picked).
        let block = try PortBlock()
        defer { withExtendedLifetime(block) {} }
        let port = block[0]
        let server = try await startServer(side, port: port, maxNewCallsPerSecond: maxNewCallsPerSecond, clockRate: clockRate)
        defer { server.stop() }
        // One call first, outside the measured CPU: each server's first call pays one-off costs
        // (the pjsua app makes its DTLS key then, about 0.3 s of bignum work) that are not a
        // per-call cost and would otherwise be most of a short run's difference.
        let warmUp = SippRun(rate: 1, calls: 1, holdMilliseconds: 100, concurrencyLimit: 1, traceResponseTimes: false)
        let warmed = try await warmUp.run(againstPort: port)
        guard warmed.statistics?.counter("SuccessfulCall(C)") == 1 else {
            throw BenchError("the warm-up call against \(side.rawValue) failed:\n\(warmed.output.suffix(1500))")
        }
        try await Task.sleep(for: .milliseconds(200))
        let cpuBefore = liveThreadsCPUSeconds(pid: server.pid)
        let result = try await run.run(againstPort: port)
        // Let the server finish tearing down the last calls before reading its CPU time.
        try await Task.sleep(for: .milliseconds(200))
        var outcome = Outcome(expected: run.calls)
        if let cpuBefore, let cpuAfter = liveThreadsCPUSeconds(pid: server.pid) { outcome.cpuSeconds = cpuAfter - cpuBefore }
        if server.exited != nil { throw BenchError("\(side.rawValue) server exited during the run:\n\(server.output.suffix(2000))") }
        guard let statistics = result.statistics else {
            throw BenchError("sipp left no statistics against \(side.rawValue):\n\(result.output.suffix(1500))")
        }
        outcome.ok = statistics.counter("SuccessfulCall(C)")
        outcome.failed = statistics.counter("FailedCall(C)")
        outcome.timedOut = statistics.counter("FailedTimeoutOnRecv(C)") + statistics.counter("FailedMaxUDPRetrans(C)")
        outcome.created = statistics.counter("OutgoingCall(C)")
        outcome.attemptRate = statistics.attemptRate
        outcome.elapsedSeconds = statistics.elapsedSeconds
        outcome.responseP50 = Percentiles(result.responseTimes).p50
        if outcome.ok + outcome.failed == 0 {
            throw BenchError("sipp reported no calls against \(side.rawValue):\n\(result.output.suffix(1500))")
        }
        return outcome
    }

    static func run(_ options: Options) async throws {
        var fields: [String: Any] = ["rate": options.rate, "seconds": options.seconds, "hold_ms": options.holdMilliseconds,
                                     "repeat": options.repetitions, "clock_rate": options.clockRate ?? 16000]
        progress("load: both servers' audio bridge at \(options.clockRate ?? 16000) Hz"
                 + (options.clockRate == nil ? " (their default: PCMU calls are resampled)" : ""))
        let complete = try await cpuRuns(options, into: &fields)
        if options.findMax || options.overload {
            var maxima: [Side: Int] = [:]
            for side in Side.allCases {
                maxima[side] = try await findMax(side, options, into: &fields)
            }
            if options.overload {
                try await overload(options, maxima: maxima, into: &fields)
            }
        }
        report(fields)
        if !complete {
            FileHandle.standardError.write(Data("pjsua-bench: some CPU runs did not complete every call; the CPU ratio is not comparable\n".utf8))
            exit(1)
        }
    }

    // MARK: CPU from interleaved runs

    /// Returns whether every run of both sides completed every call.
    static func cpuRuns(_ options: Options, into fields: inout [String: Any]) async throws -> Bool {
        let sipp = SippRun(rate: options.rate, calls: options.rate * options.seconds, holdMilliseconds: options.holdMilliseconds,
                           concurrencyLimit: maxCalls - 8, traceResponseTimes: true)
        var outcomes: [Side: [Outcome]] = [:]
        for repetition in 1...options.repetitions {
            for side in Side.allCases {
                let outcome = try await measure(side, sipp, clockRate: options.clockRate)
                outcomes[side, default: []].append(outcome)
                progress("load \(side.rawValue) run \(repetition)/\(options.repetitions): \(options.rate) calls/s for \(options.seconds) s, hold \(options.holdMilliseconds) ms: "
                         + "ok \(outcome.ok)/\(outcome.expected), failed \(outcome.failed), response p50 \(format(outcome.responseP50)) ms, "
                         + "server CPU \(format(outcome.cpuSeconds, digits: 3)) s\(outcome.complete ? "" : "  INCOMPLETE")")
            }
        }
        var medians: [Side: Double] = [:]
        var complete = true
        for side in Side.allCases {
            let runs = outcomes[side] ?? []
            let key = side.rawValue
            medians[side] = median(runs.map(\.cpuSeconds))
            fields["\(key)_cpu_s_runs"] = jsonNumbers(runs.map(\.cpuSeconds))
            fields["\(key)_cpu_s_median"] = medians[side]
            fields["\(key)_ok_runs"] = runs.map(\.ok)
            fields["\(key)_failed_runs"] = runs.map(\.failed)
            fields["\(key)_response_ms_p50_runs"] = jsonNumbers(runs.map(\.responseP50))
            fields["\(key)_response_ms_p50"] = median(runs.map(\.responseP50))
            let incomplete = runs.filter { !$0.complete }.count
            if incomplete > 0 { complete = false }
            progress("load \(key): server CPU median \(format(medians[side] ?? .nan, digits: 3)) s of "
                     + runs.map { format($0.cpuSeconds, digits: 3) }.joined(separator: ", ")
                     + (incomplete > 0 ? "; \(incomplete) of \(runs.count) runs did not complete every call" : "; every call of every run completed"))
        }
        let ratio = (medians[.swift] ?? .nan) / (medians[.pjsua] ?? .nan)
        fields["cpu_ratio"] = ratio
        fields["calls_per_run"] = sipp.calls
        fields["cpu_runs_complete"] = complete
        progress("cpu ratio swift/pjsua = \(format(ratio, digits: 3)) (median of \(options.repetitions) interleaved runs)"
                 + (complete ? "" : " -- NOT COMPARABLE: some runs failed calls"))
        return complete
    }

    // MARK: find-max

    /// The highest asked rate at which every 50 ms call succeeded and sipp kept the pace: a 1.5x
    /// ramp, then up to three bisection steps between the last good and the first bad rate (until
    /// they are within 5 %). Returns 0 if even the first step failed.
    static func findMax(_ side: Side, _ options: Options, into fields: inout [String: Any]) async throws -> Int {
        var steps: [[String: Any]] = []
        var attemptAtBest = Double.nan
        func passes(_ rate: Int, _ phase: String) async throws -> Bool {
            let sipp = SippRun(rate: rate, calls: rate * options.stepSeconds, holdMilliseconds: shortHoldMilliseconds,
                               concurrencyLimit: maxCalls - 8, traceResponseTimes: false)
            let outcome = try await measure(side, sipp, clockRate: options.clockRate)
            let kept = outcome.attemptRate >= paceTolerance * Double(rate)
            let good = outcome.complete && kept
            let verdict = good ? "" : outcome.complete ? "  (too slow: sipp fell below \(Int(paceTolerance * 100)) % of the pace)" : "  (calls failed)"
            progress("find-max \(side.rawValue) \(phase): asked \(rate) calls/s -> sipp created \(format(outcome.attemptRate)) calls/s, "
                     + "ok \(outcome.ok)/\(outcome.expected), failed \(outcome.failed)\(verdict)")
            steps.append(["asked": rate, "ok": outcome.ok, "failed": outcome.failed, "attempt_cps": jsonNumber(outcome.attemptRate)])
            if good { attemptAtBest = outcome.attemptRate }
            return good
        }
        var good = 0
        var bad: Int?
        var rate = max(10, options.rampFrom)
        while rate <= 5000 {
            if try await passes(rate, "ramp") {
                good = rate
                rate = rate * 3 / 2
            } else {
                bad = rate
                break
            }
        }
        if var bad {
            for _ in 0..<3 where bad - good > max(1, good / 20) {
                let middle = (good + bad) / 2
                if try await passes(middle, "bisect") { good = middle } else { bad = middle }
            }
        }
        progress("find-max \(side.rawValue): \(good) calls/s with zero failures (sipp created \(format(attemptAtBest)) calls/s there)")
        fields["\(side.rawValue)_max_cps_zero_fail"] = good
        fields["\(side.rawValue)_max_attempt_cps"] = good > 0 ? attemptAtBest : .nan
        fields["\(side.rawValue)_find_max_steps"] = steps
        return good
    }

    // MARK: overload

    static func overload(_ options: Options, maxima: [Side: Int], into fields: inout [String: Any]) async throws {
        let reference = maxima.values.max() ?? 0
        guard reference > 0 else {
            progress("overload: skipped (no side has a zero-failure maximum)")
            return
        }
        let admission = await softphoneHasMaxCPS()
        let swiftLimit = admission && options.rateLimit ? maxima[.swift].flatMap { $0 > 0 ? $0 : nil } : nil
        progress("overload: reference \(reference) calls/s (the larger maximum), \(options.overloadSeconds) s per run, \(shortHoldMilliseconds) ms calls; "
                 + (swiftLimit.map { "swift with --max-cps \($0)" }
                    ?? (options.rateLimit ? "swift WITHOUT a rate limit (softphone answer has no --max-cps)"
                                          : "swift with the in-progress limit only (--no-rate-limit)")))
        fields["overload_reference_cps"] = reference
        fields["overload_seconds"] = options.overloadSeconds
        fields["swift_admission_max_cps"] = swiftLimit ?? -1
        for factor in [2, 4] {
            let asked = factor * reference
            // A wide concurrency limit: the servers' own limits (max calls, admission control), not
            // sipp's, should decide which of the offered calls fail.
            let sipp = SippRun(rate: asked, calls: asked * options.overloadSeconds, holdMilliseconds: shortHoldMilliseconds,
                               concurrencyLimit: 1000, traceResponseTimes: false)
            var parts: [String] = []
            fields["overload_\(factor)x_asked_cps"] = asked
            for side in Side.allCases {
                let outcome = try await measure(side, sipp, clockRate: options.clockRate, maxNewCallsPerSecond: side == .swift ? swiftLimit : nil)
                let ownMax = maxima[side] ?? 0
                let fraction = ownMax > 0 ? outcome.goodput / Double(ownMax) : .nan
                // The rate actually served at the maximum: sipp may create fewer calls than asked
                // (down to 90 % passes a step), and the served rate is the honest denominator.
                let served = fields["\(side.rawValue)_max_attempt_cps"] as? Double ?? .nan
                let fractionOfServed = served > 0 ? outcome.goodput / served : .nan
                let key = "\(side.rawValue)_overload_\(factor)x"
                fields["\(key)_goodput_cps"] = outcome.goodput
                fields["\(key)_goodput_of_max"] = fraction
                fields["\(key)_goodput_of_served_max"] = fractionOfServed
                fields["\(key)_ok"] = outcome.ok
                fields["\(key)_failed"] = outcome.failed
                fields["\(key)_timed_out"] = outcome.timedOut
                fields["\(key)_attempt_cps"] = outcome.attemptRate
                fields["\(key)_server_cpu_s"] = outcome.cpuSeconds
                fields["\(key)_run_s"] = outcome.elapsedSeconds
                progress("overload \(factor)x \(side.rawValue): ok \(outcome.ok), failed \(outcome.failed) (\(outcome.timedOut) unanswered, the rest refused), "
                         + "sipp created \(format(outcome.attemptRate)) calls/s of \(asked) asked; the run took \(format(outcome.elapsedSeconds, digits: 1)) s "
                         + "(last answers included), server CPU \(format(outcome.cpuSeconds, digits: 2)) s")
                parts.append("\(side.rawValue) goodput \(format(outcome.goodput)) calls/s (\(format(fraction, digits: 2)) of its max \(ownMax) asked, "
                             + "\(format(fractionOfServed, digits: 2)) of the \(format(served)) calls/s served there), "
                             + "\(outcome.failed) failed/refused, sipp attempted \(format(outcome.attemptRate)) calls/s")
            }
            progress("overload \(factor)x (asked \(asked) calls/s): " + parts.joined(separator: "; "))
        }
    }

    // MARK: helpers

    /// The middle value (the mean of the two middle ones for an even count); NaN if any value is.
    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty, values.allSatisfy(\.isFinite) else { return .nan }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    static func format(_ value: Double, digits: Int = 0) -> String {
        value.isFinite ? String(format: "%.\(digits)f", value) : "n/a"
    }

    /// A JSON-safe number rounded like `report` rounds top-level ones (-1 for NaN).
    static func jsonNumber(_ value: Double) -> Double {
        value.isFinite ? (value * 1000).rounded() / 1000 : -1
    }

    static func jsonNumbers(_ values: [Double]) -> [Double] { values.map(jsonNumber) }
}
