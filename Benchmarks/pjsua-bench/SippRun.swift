import Foundation
import PJSUATestSupport

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
        let ports = try PortBlock()
        var arguments = ["-sn", "uac", "-r", "\(rate)", "-m", "\(calls)", "-d", "\(holdMilliseconds)",
                         "-l", "\(concurrencyLimit)", "-i", "127.0.0.1", "-p", "\(ports[0])", "-nostdin",
                         "-timeout", "\(budget)s", "-recv_timeout", "5000",
                         "-trace_stat", "-stf", work + "/stat.csv", "-fd", "1"]
        if traceResponseTimes { arguments += ["-trace_rtt", "-rtt_freq", "1"] }
        let (executable, pinned) = try CPUPinning.command("sipp", arguments + ["127.0.0.1:\(port)"], cpu: CPUPinning.loadGeneratorCPU)
        let sipp = try ChildProcess(executable, pinned, name: "sipp", holding: ports)
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
