import Foundation
import PJSUATestSupport
import Testing

/// scripts/bounded.sh, which bounds every `swift test` in make test, ends the whole process tree
/// it started: a test's peers run in process groups of their own, and after a timeout they used to
/// live on (timeout(1) signals its own group only), holding their ports.
@Suite("scripts/bounded.sh")
struct BoundedScriptTests {
    /// A command that starts three sleepers out of its process group: one in a session of its
    /// own (setsid), one in a group of its own (a job of a shell with job control), and one
    /// orphaned by a double fork that ignores SIGTERM; it prints their pids, then sleeps `$1`.
    private static let tree = #"""
        setsid sleep 300 & echo "pid $!"
        ( set -m; sleep 300 & echo "pid $!"; wait ) &
        bash -c 'setsid bash -c "trap \"\" TERM; sleep 300" & echo "pid $!"'
        sleep "$1"
        """#

    /// Runs bounded.sh with `limit` over ``tree`` sleeping `seconds`; returns its status, its
    /// output and the sleepers' pids.
    private func bounded(limit: Int, sleeping seconds: Int, name: String) async throws -> (status: Int32, output: String, pids: [pid_t]) {
        let child = try ChildProcess("bash", [packageRoot + "/scripts/bounded.sh", "\(limit)", "bash", "-c", Self.tree, "tree", "\(seconds)"],
                                     name: name, environment: ["BOUNDED_KILL_AFTER": "2"])
        defer { child.stop() }
        let status = try await child.waitForExit(timeout: .seconds(60))
        let pids = child.output.split(separator: "\n").compactMap { $0.hasPrefix("pid ") ? pid_t($0.dropFirst(4)) : nil }
        return (status, child.output, pids)
    }

    /// Whether `pid` is a live process (a zombie is not).
    private func isAlive(_ pid: pid_t) -> Bool {
        guard let stat = readText("/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else { return false }
        return !stat[close...].hasPrefix(") Z")
    }

    @Test func aCommandStillRunningAtItsLimitIsEndedWithEveryProcessItStarted() async throws {
        let run = try await bounded(limit: 2, sleeping: 300, name: "bounded-timeout")
        defer { run.pids.forEach { kill($0, SIGKILL) } }
        #expect(run.status == 124, "\(run.output)")
        #expect(run.output.contains("was still running after 2 s and was stopped"), "\(run.output)")
        #expect(run.pids.count == 3, "\(run.output)")
        #expect(run.pids.filter(isAlive).isEmpty, "still running after bounded.sh returned: \(run.pids.filter(isAlive))\n\(run.output)")
    }

    @Test func processesACommandLeavesBehindAreEndedAndNamed() async throws {
        let run = try await bounded(limit: 60, sleeping: 1, name: "bounded-leftovers")
        defer { run.pids.forEach { kill($0, SIGKILL) } }
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("exited (0) leaving processes behind: ending sleep"), "\(run.output)")
        #expect(run.pids.count == 3, "\(run.output)")
        #expect(run.pids.filter(isAlive).isEmpty, "still running after bounded.sh returned: \(run.pids.filter(isAlive))\n\(run.output)")
    }

    @Test func theCommandsOwnStatusIsPassedOn() async throws {
        for (script, expected) in [("exit 3", Int32(3)), ("kill -SEGV $$", 128 + SIGSEGV)] {
            let child = try ChildProcess("bash", [packageRoot + "/scripts/bounded.sh", "30", "bash", "-c", script], name: "bounded-status")
            #expect(try await child.waitForExit(timeout: .seconds(30)) == expected, "\(script): \(child.output)")
        }
    }
}
