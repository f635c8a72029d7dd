import Foundation

/// What sipp's statistics file (`-trace_stat -fd 1`) says about one run: the final counters and,
/// from the per-second rows, the pace at which sipp created calls. Shared by tests and pjsua-bench.
public struct SippStatistics: Sendable {
    /// The final value of every counter column ("SuccessfulCall(C)", ...), by column name.
    public let final: [String: Int]
    /// Calls created per second while sipp was still creating them: the calls created by the last
    /// row before the final count was reached, over the time since sipp started (the partial last
    /// period, and the tail of calls still being answered, are left out).
    public let attemptRate: Double
    /// From sipp's start to its last row (the end of its last call).
    public let elapsedSeconds: Double

    public init?(csv text: String) {
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

    public func counter(_ name: String) -> Int { final[name] ?? 0 }
}
