import PJSUATestSupport
import Foundation

/// Percentiles of a sample set (nearest-rank).
struct Percentiles {
    let sorted: [Double]

    init(_ values: [Double]) { sorted = values.sorted() }

    func percentile(_ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1
        return sorted[max(0, min(sorted.count - 1, rank))]
    }

    var p50: Double { percentile(50) }
    var p99: Double { percentile(99) }
}

/// Monotonic nanoseconds.
func nanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// CPU time (user + system) this process has used, in milliseconds.
func processCPUMilliseconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    let user = Double(usage.ru_utime.tv_sec) * 1000 + Double(usage.ru_utime.tv_usec) / 1000
    let system = Double(usage.ru_stime.tv_sec) * 1000 + Double(usage.ru_stime.tv_usec) / 1000
    return user + system
}

/// CPU seconds (user + system) another process has used so far, from /proc/<pid>/stat.
func processCPUSeconds(pid: Int32) -> Double? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = text.lastIndex(of: ")") else { return nil }
    let fields = text[text.index(after: close)...].split(separator: " ")
    // After the command: state is field 3; utime and stime are fields 14 and 15.
    guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
    let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
    return (user + system) / ticks
}

/// CPU time in seconds of another process's live threads, from each one's schedstat (the
/// scheduler's own count, in nanoseconds), nil if unreadable. /proc/PID/stat's utime and stime
/// move in clock ticks (10 ms): a server that spends 0.1 s on a run reads ±10 % from that alone.
/// A thread that exits between two readings takes its time with it, so this is for processes
/// whose threads live as long as they do (the bench's servers).
func liveThreadsCPUSeconds(pid: Int32) -> Double? {
    guard let texts = taskFiles(pid: pid, named: "schedstat"), !texts.isEmpty else { return nil }
    let nanoseconds = texts.reduce(UInt64(0)) { sum, text in sum + (text.split(separator: " ").first.flatMap { UInt64($0) } ?? 0) }
    return Double(nanoseconds) / 1e9
}

/// The text of /proc/PID/task/*/NAME for each of another process's live threads (those that
/// could be read); nil if its task directory cannot be listed.
func taskFiles(pid: Int32, named name: String) -> [String]? {
    guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else { return nil }
    return tasks.compactMap { readText("/proc/\(pid)/task/\($0)/\(name)") }
}

/// The machine's 1-minute load average (other work skews CPU figures), NaN if unreadable.
func loadAverage() -> Double {
    readText("/proc/loadavg").flatMap { $0.split(separator: " ").first.flatMap { Double($0) } } ?? .nan
}

/// Context switches (voluntary and not) of all of another process's threads so far, from
/// /proc/<pid>/task/*/status; nil if unreadable. Thread wake-ups cost more than their CPU time
/// shows: this counts them.
func processContextSwitches(pid: Int32) -> Int? {
    guard let statuses = taskFiles(pid: pid, named: "status") else { return nil }
    var total = 0
    for status in statuses {
        for line in status.split(separator: "\n") where line.contains("ctxt_switches:") {
            total += Int(line.split(separator: "\t").last?.trimmingCharacters(in: .whitespaces) ?? "") ?? 0
        }
    }
    return total
}

/// Resident set size of this process in kB.
func residentKilobytes() -> Int {
    // readText, not String(contentsOfFile:), which leaks in this toolchain.
    releaseFreedHeap()
    guard let status = readText("/proc/self/status") else { return -1 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }
    return -1
}

/// Open file descriptors of this process.
func openFileDescriptors() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
}

/// Prints a progress line and flushes it at once (output often goes to a file or a pipe).
func progress(_ line: String) {
    print(line)
    fflush(nil)
}

/// Prints the result object as the last line (what scripts read).
func report(_ fields: [String: Any]) {
    var rounded: [String: Any] = [:]
    for (key, value) in fields {
        if let double = value as? Double { rounded[key] = double.isFinite ? (double * 1000).rounded() / 1000 : -1 } else { rounded[key] = value }
    }
    if let data = try? JSONSerialization.data(withJSONObject: rounded, options: [.sortedKeys]),
       let line = String(data: data, encoding: .utf8) {
        progress(line)
    }
}
