import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Where the logs of a test process's children are kept: all of them, whole, in one directory per
/// test process, so that a failure can be explained from the log of the child that caused it after
/// the test (and the ``ChildProcess``) is gone. A failure message names the file
/// (``ChildProcess/explain(_:)``, ``ChildProcess/logNote``).
///
/// The directory is `SWIFT_PJSUA_LOG_DIR` when set (`make test-stress` gives every run its own and
/// removes those of runs that passed); otherwise a new one under `$TMPDIR/swift-pjsua-logs`, named
/// by the time and the process id, and the directories of earlier test processes are pruned to
/// the newest ``kept`` (the 296 tests of the suites that start peers wrote 799 logs, 4.1 MB;
/// logs used to be removed with their object, and a failure then showed only the tail its
/// message quoted).
public enum ChildLogs {
    /// How many earlier processes' directories stay when a new one is made (one `make test`
    /// runs three test processes: the main pass, ASan and the iOS profile).
    public static let kept = 3

    /// This process's log directory (made on first use).
    public static let directory: String = {
        if let given = ProcessInfo.processInfo.environment["SWIFT_PJSUA_LOG_DIR"], !given.isEmpty {
            try? FileManager.default.createDirectory(atPath: given, withIntermediateDirectories: true)
            return given
        }
        let root = NSTemporaryDirectory() + "swift-pjsua-logs"
        try? FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        prune(root)
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.dateFormat = "yyyyMMdd-HHmmss"
        let path = root + "/" + format.string(from: Date()) + "-\(getpid())"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        FileHandle.standardError.write(Data("swift-pjsua: the logs of this run's child processes are kept in \(path)\n".utf8))
        return path
    }()

    /// Removes the directories of test processes that have ended, but the newest ``kept``.
    private static func prune(_ root: String) {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).sorted()
        let ended = names.filter { name in
            // <date>-<time>-<pid>: a process still running (another test run) keeps its directory.
            guard let pid = name.split(separator: "-").last.flatMap({ pid_t($0) }) else { return false }
            return kill(pid, 0) != 0 && errno == ESRCH
        }
        for name in ended.dropLast(kept) {
            try? FileManager.default.removeItem(atPath: root + "/" + name)
        }
    }
}
