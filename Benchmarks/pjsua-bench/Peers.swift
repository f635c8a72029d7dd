import Foundation

/// A child process (kamailio, sipp, softphone, the pjsua app) in its own process group, output to
/// a log file, always ended by `stop()`.
final class Child: @unchecked Sendable {
    // @unchecked Sendable: immutable after init; `exitStatus` is guarded by `lock`.
    let pid: pid_t
    let logPath: String
    private let lock = NSLock()
    private var exitStatus: Int32?

    init(_ path: String, _ arguments: [String]) throws {
        logPath = NSTemporaryDirectory() + "pjsua-bench-\(URL(fileURLWithPath: path).lastPathComponent)-\(UUID().uuidString.prefix(8)).log"
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
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, path, &actions, &attributes, argv, environ)
        guard rc == 0 else { throw BenchError("cannot start \(path): errno \(rc)") }
        pid = child
    }

    deinit { stop() }

    var output: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    var exited: Int32? {
        lock.lock()
        defer { lock.unlock() }
        if exitStatus == nil {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid { exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f) }
        }
        return exitStatus
    }

    func waitForOutput(_ text: String, seconds: Double = 15) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !output.contains(text) {
            if exited != nil || Date() > deadline { throw BenchError("\(logPath): no \"\(text)\"\n\(output.suffix(2000))") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    func waitForExit(seconds: Double) async throws -> Int32 {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            if let status = exited { return status }
            if Date() > deadline { stop(); throw BenchError("\(logPath) did not finish in \(seconds) s") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    func stop() {
        guard exited == nil else { return }
        kill(-pid, SIGTERM)
        for _ in 0..<150 where exited == nil { usleep(20_000) }
        kill(-pid, SIGKILL)
        for _ in 0..<100 where exited == nil { usleep(20_000) }
    }
}

/// The package root (Tests/Peers holds the peers' configs), from this file's location.
let packageRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    while url.lastPathComponent != "Benchmarks" { url.deleteLastPathComponent() }
    return url.deletingLastPathComponent().path
}()

/// A loopback UDP port that was free a moment ago.
func freeUDPPort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Finds an installed program.
func locate(_ name: String) throws -> String {
    for directory in ["/usr/local/bin", "/usr/bin", "/usr/sbin"] where FileManager.default.isExecutableFile(atPath: "\(directory)/\(name)") {
        return "\(directory)/\(name)"
    }
    throw BenchError("\(name) is not installed (make bench installs it)")
}
