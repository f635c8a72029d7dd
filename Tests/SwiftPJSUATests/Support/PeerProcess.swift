import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A real SIP peer (sipp, kamailio, a second softphone) run as a child process for one test:
/// output goes to a log file, every wait is bounded, and `stop()` (or deinit) always ends it.
final class PeerProcess: @unchecked Sendable {
    // @unchecked Sendable: `process` is only mutated in init; Foundation's Process is thread-safe
    // for the calls made here (isRunning, terminationStatus, terminate).
    let process = Process()
    let logPath: String
    let name: String

    init(_ executable: String, _ arguments: [String], name: String, directory: String? = nil) throws {
        self.name = name
        logPath = NSTemporaryDirectory() + "swift-pjsua-\(name)-\(UUID().uuidString.prefix(8)).log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.executableURL = URL(fileURLWithPath: try Self.locate(executable))
        process.arguments = arguments
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        try process.run()
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

    /// Waits for the process to exit by itself; returns its exit status.
    @discardableResult
    func waitForExit(timeout: Duration = .seconds(30)) async throws -> Int32 {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while process.isRunning {
            if ContinuousClock.now >= deadline {
                stop()
                throw PeerError("\(name) did not finish within \(timeout); its output:\n\(output.suffix(3000))")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return process.terminationStatus
    }

    /// Waits until the peer's output contains `text`.
    func waitForOutput(_ text: String, timeout: Duration = .seconds(15)) async throws {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while !output.contains(text) {
            if !process.isRunning { throw PeerError("\(name) exited before printing \"\(text)\":\n\(output.suffix(3000))") }
            if ContinuousClock.now >= deadline { throw PeerError("\(name) did not print \"\(text)\" within \(timeout):\n\(output.suffix(3000))") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Ends the process: SIGTERM, then SIGKILL after two seconds.
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        for _ in 0..<100 where process.isRunning { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
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

/// sipp against the engine, one call, bounded.
func sipp(_ arguments: [String], name: String) throws -> PeerProcess {
    let port = freePort()
    return try PeerProcess("sipp", ["-i", "127.0.0.1", "-p", "\(port)", "-m", "1", "-nostdin", "-timeout", "20s",
                                    "-timeout_error", "-trace_err", "-error_file", NSTemporaryDirectory() + "sipp-\(name)-\(port)-errors.log",
                                    "-max_recv_loops", "1000"] + arguments,
                           name: name, directory: peersDirectory + "/sipp")
}

/// sipp's listening port, from its arguments.
extension PeerProcess {
    var sippPort: Int {
        guard let arguments = process.arguments, let index = arguments.firstIndex(of: "-p"), index + 1 < arguments.count else { return 0 }
        return Int(arguments[index + 1]) ?? 0
    }
}
