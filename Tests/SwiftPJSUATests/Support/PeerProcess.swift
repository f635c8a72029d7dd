import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A real SIP peer (sipp, kamailio, a second softphone) run as a child process for one test:
/// output goes to a log file, every wait is bounded, and `stop()` (or deinit) always ends it and
/// every process it forked (it runs in its own process group).
///
/// posix_spawn + waitpid rather than Foundation's Process, whose waitUntilExit spins forever on
/// Linux when the child's exit is not noticed by its run loop.
final class PeerProcess: @unchecked Sendable {
    // @unchecked Sendable: `exitStatus` is guarded by `lock`; the rest is immutable after init.
    let pid: pid_t
    let logPath: String
    let name: String
    let arguments: [String]
    private let lock = NSLock()
    private var exitStatus: Int32?

    init(_ executable: String, _ arguments: [String], name: String,
         environment: [String: String] = [:]) throws {
        self.name = name
        self.arguments = arguments
        logPath = NSTemporaryDirectory() + "swift-pjsua-\(name)-\(UUID().uuidString.prefix(8)).log"
        let path = try Self.locate(executable)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        var merged = ProcessInfo.processInfo.environment
        for (key, value) in environment { merged[key] = value }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var child: pid_t = 0
        let rc = posix_spawn(&child, path, &actions, &attributes, argv, envp)
        guard rc == 0 else { throw PeerError("cannot start \(executable): errno \(rc)") }
        pid = child
    }

    deinit { stop() }

    static func locate(_ executable: String) throws -> String {
        if executable.hasPrefix("/") { return executable }
        for directory in ["/usr/local/bin", "/usr/bin", "/usr/sbin", "/bin", "/sbin"] {
            let path = directory + "/" + executable
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        throw PeerError("\(executable) is not installed (make test installs the test peers)")
    }

    var output: String {
        (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    }

    /// The exit status once the process has exited (reaping it), nil while it runs.
    var exited: Int32? {
        lock.lock()
        defer { lock.unlock() }
        if let exitStatus { return exitStatus }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid {
            // WIFEXITED / WEXITSTATUS; a signal death is reported as 128 + signal.
            exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        }
        return exitStatus
    }

    var isRunning: Bool { exited == nil }

    /// Waits for the process to exit by itself; returns its exit status.
    @discardableResult
    func waitForExit(timeout: Duration = .seconds(30)) async throws -> Int32 {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            if let status = exited { return status }
            if ContinuousClock.now >= deadline {
                stop()
                throw PeerError("\(name) did not finish within \(timeout); its output:\n\(output.suffix(3000))")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Waits until the peer's output contains `text`.
    func waitForOutput(_ text: String, timeout: Duration = .seconds(15)) async throws {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while !output.contains(text) {
            if !isRunning { throw PeerError("\(name) exited before printing \"\(text)\":\n\(output.suffix(3000))") }
            if ContinuousClock.now >= deadline { throw PeerError("\(name) did not print \"\(text)\" within \(timeout):\n\(output.suffix(3000))") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Sends a signal to the process group.
    func signal(_ number: Int32) {
        kill(-pid, number)
    }

    /// Ends the process group: SIGTERM, then SIGKILL after two seconds.
    func stop() {
        guard isRunning else {
            kill(-pid, SIGKILL)  // stragglers the leader forked
            return
        }
        kill(-pid, SIGTERM)
        for _ in 0..<100 where isRunning { usleep(20_000) }
        kill(-pid, SIGKILL)
        for _ in 0..<100 where isRunning { usleep(20_000) }
    }
}

struct PeerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A loopback port that was free a moment ago (the kernel's pick for a bound-then-closed socket).
func freePort(udp: Bool = true) -> Int {
    let fd = socket(AF_INET, Int32(udp ? SOCK_DGRAM.rawValue : SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    _ = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// The repository's `Tests/Peers` directory (configs and scenarios of the test peers).
let peersDirectory: String = {
    var url = URL(fileURLWithPath: #filePath)
    while url.lastPathComponent != "Tests" { url.deleteLastPathComponent() }
    return url.appendingPathComponent("Peers").path
}()

/// A sipp scenario file of Tests/Peers/sipp.
func scenario(_ file: String) -> String { peersDirectory + "/sipp/" + file }

/// sipp against the engine, one call, bounded.
func sipp(_ arguments: [String], name: String) throws -> PeerProcess {
    let port = freePort()
    return try PeerProcess("sipp", ["-i", "127.0.0.1", "-p", "\(port)", "-m", "1", "-nostdin", "-timeout", "20s",
                                    "-timeout_error", "-trace_err", "-error_file", NSTemporaryDirectory() + "sipp-\(name)-\(port)-errors.log",
                                    "-max_recv_loops", "1000"] + arguments,
                           name: name)
}

/// sipp's listening port, from its arguments.
extension PeerProcess {
    var sippPort: Int {
        guard let index = arguments.firstIndex(of: "-p"), index + 1 < arguments.count else { return 0 }
        return Int(arguments[index + 1]) ?? 0
    }
}
