import Foundation
import PJSUATestSupport

/// What sipp's statistics file (`-trace_stat -fd 1`) says about one run: the final counters and,
/// from the per-second rows, the pace at which sipp created calls.
struct SippStatistics {
    /// The final value of every counter column ("SuccessfulCall(C)", ...), by column name.
    let final: [String: Int]
    /// Calls created per second while sipp was still creating them: the calls created by the last
    /// row before the final count was reached, over the time since sipp started (the partial last
    /// period, and the tail of calls still being answered, are left out).
    let attemptRate: Double
    /// From sipp's start to its last row (the end of its last call).
    let elapsedSeconds: Double

    init?(csv text: String) {
        let rows = text.split(separator: "\n").map { $0.split(separator: ";", omittingEmptySubsequences: false).map(String.init) }
        guard let header = rows.first, rows.count > 1, let last = rows.last else { return nil }
        var final: [String: Int] = [:]
        for (index, name) in header.enumerated() where index < last.count {
            if let value = Int(last[index]) { final[name] = value }
        }
        self.final = final
        // Times are "date<TAB>time<TAB>epoch-seconds"; the epoch is what can be subtracted.
        func epoch(_ field: String) -> Double? { field.split(separator: "\t").last.flatMap { Double($0) } }
        guard let startColumn = header.firstIndex(of: "StartTime"), let nowColumn = header.firstIndex(of: "CurrentTime"),
              let createdColumn = header.firstIndex(of: "OutgoingCall(C)") else {
            attemptRate = .nan
            elapsedSeconds = .nan
            return
        }
        let samples = rows.dropFirst().compactMap { row -> (time: Double, created: Int)? in
            guard row.count > max(nowColumn, createdColumn), let time = epoch(row[nowColumn]), let created = Int(row[createdColumn]) else { return nil }
            return (time, created)
        }
        guard let start = last.count > startColumn ? epoch(last[startColumn]) : nil,
              let end = samples.last, let done = samples.firstIndex(where: { $0.created == end.created }) else {
            attemptRate = .nan
            elapsedSeconds = .nan
            return
        }
        elapsedSeconds = end.time - start
        // The last full period before creation ended, or, when all was created within the first
        // period, the row where the total appears.
        let reference = samples[..<done].last(where: { $0.created > 0 }) ?? samples[done]
        attemptRate = Double(reference.created) / max(reference.time - start, 0.001)
    }

    func counter(_ name: String) -> Int { final[name] ?? 0 }
}

/// One sipp UAC run (the built-in `uac` scenario) at a fixed rate and call count against a server
/// on the loopback.
struct SippRun {
    var rate: Int
    var calls: Int
    var holdMilliseconds: Int
    /// sipp's `-l`: how many calls it keeps open at once (it slows its pace beyond that).
    var concurrencyLimit: Int
    /// Per-call INVITE -> 200 times (sipp's RTT file, 1 ms resolution); costs sipp a file write per
    /// call, so it is left off where sipp's own pace matters.
    var traceResponseTimes: Bool

    struct Result {
        var statistics: SippStatistics?
        var responseTimes: [Double] = []
        var output: String
    }

    func run(againstPort port: Int) async throws -> Result {
        let work = NSTemporaryDirectory() + "pjsua-bench-load-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let budget = calls / max(rate, 1) * 3 + 30
        var arguments = ["-sn", "uac", "-r", "\(rate)", "-m", "\(calls)", "-d", "\(holdMilliseconds)",
                         "-l", "\(concurrencyLimit)", "-i", "127.0.0.1", "-p", "\(freeLoopbackPort())", "-nostdin",
                         "-timeout", "\(budget)s", "-recv_timeout", "5000",
                         "-trace_stat", "-stf", work + "/stat.csv", "-fd", "1"]
        if traceResponseTimes { arguments += ["-trace_rtt", "-rtt_freq", "1"] }
        let sipp = try ChildProcess("sipp", arguments + ["127.0.0.1:\(port)"], name: "sipp")
        _ = try await sipp.waitForExit(timeout: .seconds(budget + 30))
        var result = Result(output: sipp.output)
        if let text = try? String(contentsOfFile: work + "/stat.csv", encoding: .utf8) {
            result.statistics = SippStatistics(csv: text)
        }
        // sipp writes the RTT file into its working directory (ours).
        let cwd = FileManager.default.currentDirectoryPath
        if traceResponseTimes,
           let file = try? FileManager.default.contentsOfDirectory(atPath: cwd).first(where: { $0.hasPrefix("uac_\(sipp.pid)_rtt") }) {
            let path = cwd + "/" + file
            if let text = try? String(contentsOfFile: path, encoding: .utf8) {
                result.responseTimes = text.split(separator: "\n").dropFirst().compactMap { line -> Double? in
                    let fields = line.split(separator: ";")
                    return fields.count >= 2 ? Double(fields[1]) : nil
                }
            }
            try? FileManager.default.removeItem(atPath: path)
        }
        return result
    }
}
