import Foundation

/// `pjsua-bench check` (`make bench-check`, part of `make test`): the cheap same-run ratios at
/// small sizes, each against a threshold far enough above its run-to-run noise that only a gross
/// regression fails it. Prints each figure with its threshold and PASS or FAIL, then one line per
/// failing ratio; exits 1 if any failed. About a minute on the project's 2-core VM (setup 3-10 s,
/// hop 1 s, screen 2 s, load 32 s, frames 20 s, stream 18 s).
///
/// Noise, 2026-12-01, release build, 5 runs of the whole check on the machine as it was (other
/// helpers' builds: load average 2.5-6) and 5 more with one core kept busy by `yes > /dev/null`:
///
/// | check | figure | 5 runs as it was | 5 runs, one core busy | threshold | for scale |
/// |---|---|---|---|---|---|
/// | setup | self-call cycle p50, Swift / C loop | 0.76-1.11 | 0.81-1.19 | 2.0 | 1.44 at load 14; the Opus regression: 4-5 |
/// | hop | round trip p50, engine / an actor on a plain thread | 0.88-1.03 (8 runs, quiet) | 1.00-1.03 | 2.0 | see below |
/// | screen | the input screen's ns per message / PJSIP's parse of it, 13 ordinary messages (2026-12-06) | 0.083-0.095 (3 runs, load average 6-8) | | 0.25 | 0.19 before the screen found each body once (its byte-by-byte search, made up to three times per request, cost 57 % of an INVITE's parse) |
/// | load | server CPU, softphone / pjsua app, 8 kHz | 0.90-1.02 | 0.70-1.08 | 1.5 | 2026-12-03, after a warm-up call and with schedstat: 0.96-1.04 (3 quiet runs), 1.08-1.14 (2, a core busy) |
/// | frames | CPU per call-second, Swift / C player | 1.29-1.56 | 1.17-1.29 | 2.5 | Performance.md target: <= 1.5 (50 calls) |
/// | stream | CPU per call-second, media stream to the C echo agent / Swift frames (2026-12-03) | 1.21-1.52 (3 runs, quiet) | 1.26-1.31 (2 runs) | 2.2 | issue 20's target <= 1.5; 2.26 at 50 calls before the C `media` reader |
///
/// hop was engine / DispatchQueue + continuation until 2026-12-02 (0.90-1.21 in the runs above),
/// and CI on a quiet machine failed it at 2.70: there the queue's p50 is bimodal, 5 or 15 µs from
/// one run to the next (the pool thread that ran the queue's block runs the resumed caller too,
/// with no thread woken), while the engine's stays at 10-17 µs; 4 of 9 quiet `check --only
/// setup,hop` runs read 1.80-3.46, on 47e4098 (before EventQueue) too. The
/// baseline is now the engine's design with nothing of ours (HopBenchmark.PlainThreadExecutor):
/// 0.88-1.03 on the same quiet machine (2026-12-02), the queue still reported beside it.
/// 2026-12-06: a CI run on a machine loaded by stress-ng and a concurrent build read 5.02 (23.0 vs
/// 4.6 µs): the four were measured in blocks of a fifth of the run each, and a load that came and
/// went between blocks fell on the engine's. They now alternate call by call: 0.76-0.79 quiet (3
/// runs), 0.76-1.10 with one core kept busy, 0.98-1.02 with two, 1.00-1.01 with three.
///
/// (load: one more run of each kind read 0.45 and one failed calls, while the pjsua app's
/// start-up was still counted or its port not yet bound; the bench now waits for the port.
/// Later CI runs read 0.19-0.44: the pjsua app makes its DTLS key at its first call, about 0.3 s
/// of bignum work, more than the 100 calls themselves, so the check guarded almost nothing. Each
/// server now answers one call before the measured ones, and the CPU is read from every thread's
/// schedstat in nanoseconds rather than in 10 ms ticks.)
enum CheckBenchmark {
    struct Check: Sendable {
        let name: String
        /// What the figure is, for the report line.
        let what: String
        let threshold: Double
        let measure: @Sendable () async throws -> (figure: Double, detail: String)
    }

    static let checks: [Check] = [
        Check(name: "setup", what: "self-call cycle p50, Swift engine / C loop", threshold: 2.0) {
            let fields = try await SetupBenchmark.figures(calls: 60)
            return (number(fields["ratio_p50"]),
                    "p50 \(LoadBenchmark.format(number(fields["swift_ms_p50"]), digits: 2)) vs \(LoadBenchmark.format(number(fields["c_ms_p50"]), digits: 2)) ms")
        },
        Check(name: "hop", what: "awaited round trip p50, engine / an actor on a plain thread of its own", threshold: 2.0) {
            let fields = await HopBenchmark.figures(iterations: 20_000)
            let engine = number(fields["engine_ns_p50"]), plain = number(fields["plain_thread_ns_p50"])
            let dispatch = number(fields["dispatch_ns_p50"])
            return (engine / plain, "p50 \(Int(engine.isFinite ? engine : -1)) vs \(Int(plain.isFinite ? plain : -1)) ns; DispatchQueue \(Int(dispatch.isFinite ? dispatch : -1)) ns")
        },
        Check(name: "screen", what: "the input screen's time per message / PJSIP's parse of it, 13 ordinary messages", threshold: 0.25) {
            let fields = try await ScreenBenchmark.figures(rounds: 4000, repetitions: 3)
            return (number(fields["screen_over_parse"]),
                    "\(LoadBenchmark.format(number(fields["screen_ns_total"]), digits: 0)) vs \(LoadBenchmark.format(number(fields["parse_ns_total"]), digits: 0)) ns")
        },
        Check(name: "load", what: "server CPU of the same sipp calls (8 kHz bridge), softphone / pjsua app", threshold: 1.5) {
            var fields: [String: Any] = [:]
            let options = LoadBenchmark.Options(rate: 20, seconds: 5, holdMilliseconds: 1000, repetitions: 2, clockRate: 8000)
            let complete = try await LoadBenchmark.cpuRuns(options, into: &fields)
            guard complete else { throw BenchError("sipp calls failed, so the CPU figures are not comparable") }
            return (number(fields["cpu_ratio"]),
                    "median \(LoadBenchmark.format(number(fields["swift_cpu_s_median"]), digits: 3)) vs \(LoadBenchmark.format(number(fields["pjsua_cpu_s_median"]), digits: 3)) s")
        },
        Check(name: "frames", what: "server CPU per call-second, frames echoed through Swift / C player", threshold: 2.5) {
            let options = FramesBenchmark.Options(calls: 30, seconds: 4, repetitions: 2)
            let fields = try await FramesBenchmark.figures(options)
            guard fields["swift_all_calls_up"] as? Bool == true else { throw BenchError("not every echo call stayed up") }
            return (number(fields["cpu_ratio"]),
                    "median \(LoadBenchmark.format(number(fields["swift_cpu_ms_per_call_s"]), digits: 2)) vs \(LoadBenchmark.format(number(fields["c_cpu_ms_per_call_s"]), digits: 2)) ms")
        },
        Check(name: "stream", what: "server CPU per call-second, streamed to a WebSocket echo agent / frames echoed through Swift", threshold: 2.2) {
            let options = FramesBenchmark.Options(calls: 30, seconds: 4, repetitions: 2, sides: [.swift, .stream])
            let fields = try await FramesBenchmark.figures(options)
            guard fields["swift_all_calls_up"] as? Bool == true, fields["stream_all_calls_up"] as? Bool == true else {
                throw BenchError("not every echo or streamed call stayed up")
            }
            return (number(fields["stream_over_frames_cpu_ratio"]),
                    "median \(LoadBenchmark.format(number(fields["stream_cpu_ms_per_call_s"]), digits: 2)) vs \(LoadBenchmark.format(number(fields["swift_cpu_ms_per_call_s"]), digits: 2)) ms")
        },
    ]

    static func run(only names: [String]?) async throws {
        let selected = checks.filter { names?.contains($0.name) ?? true }
        guard !selected.isEmpty else { throw BenchError("check: no check named \(names ?? []); known: \(checks.map(\.name))") }
        let started = ContinuousClock.now
        var results: [(check: Check, figure: Double, line: String, failure: String?)] = []
        var fields: [String: Any] = [:]
        for check in selected {
            progress("== check \(check.name): \(check.what)")
            let checkStarted = ContinuousClock.now
            do {
                var (figure, detail) = try await measure(check)
                detail += ", \((ContinuousClock.now - checkStarted).components.seconds) s"
                let passed = figure.isFinite && figure <= check.threshold
                let line = "check \(check.name): \(LoadBenchmark.format(figure, digits: 2)) (threshold \(LoadBenchmark.format(check.threshold, digits: 2)); \(detail)) \(passed ? "PASS" : "FAIL")"
                progress(line)
                let failure = passed ? nil : "\(check.name): \(check.what) is \(LoadBenchmark.format(figure, digits: 2)), above \(LoadBenchmark.format(check.threshold, digits: 2)) (\(detail))"
                results.append((check, figure, line, failure))
                fields["\(check.name)_ratio"] = figure
            } catch {
                let reason = firstLine(of: error)
                let line = "check \(check.name): no figure (\(reason)) FAIL"
                progress(line)
                results.append((check, .nan, line, "\(check.name): \(reason)"))
            }
            fields["\(check.name)_threshold"] = check.threshold
        }
        let elapsed = ContinuousClock.now - started
        progress("== bench-check (\(elapsed.components.seconds) s, load average \(LoadBenchmark.format(loadAverage(), digits: 2))):")
        for result in results { progress(result.line) }
        let failures = results.compactMap(\.failure)
        fields["passed"] = failures.isEmpty
        fields["seconds"] = Double(elapsed.components.seconds)
        report(fields)
        if !failures.isEmpty {
            for failure in failures { FileHandle.standardError.write(Data("bench-check FAIL \(failure)\n".utf8)) }
            exit(1)
        }
    }

    /// A check's figure. A measurement that gives none (echo calls that did not stay up, sipp
    /// calls that failed: seen when the machine stalled the server for over a second at load
    /// average 9) is taken once more; a figure, whatever it is, is never measured again, so a
    /// regression fails on its first figure, and a check that cannot measure twice still fails.
    private static func measure(_ check: Check) async throws -> (figure: Double, detail: String) {
        do {
            return try await check.measure()
        } catch {
            progress("check \(check.name): no figure (\(firstLine(of: error))); measuring once more")
            return try await check.measure()
        }
    }

    /// An error's first line, at most 200 characters (a failed child's output follows it).
    private static func firstLine(of error: any Error) -> String {
        String(String(describing: error).prefix { $0 != "\n" }.prefix(200))
    }

    static func number(_ value: Any?) -> Double {
        (value as? Double) ?? (value as? Int).map(Double.init) ?? .nan
    }
}
