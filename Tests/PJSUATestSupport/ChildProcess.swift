import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A real peer (sipp, kamailio, a second softphone, the pjsua app) run as a child process by a
/// test or a benchmark: output goes to a log file, every wait is bounded, and `stop()` (or
/// deinit) always ends it and every process it forked (it runs in its own process group).
///
/// posix_spawn + waitpid rather than Foundation's Process, whose waitUntilExit spins forever on
/// Linux when the child's exit is not noticed by its run loop.
///
/// Nothing here blocks the calling thread: tests run on Swift's cooperative pool, which has one
/// thread per core (two here), and a thread held in a sleep or a wait stalls every other test in
/// the process. Waits are `async` (``waitForExit(timeout:)``, ``stopAndWait()``); `stop()`, which
/// `defer` and deinit need synchronous, signals at once and leaves the bounded wait to a thread
/// of its own.
public final class ChildProcess: @unchecked Sendable {
    // @unchecked Sendable: immutable after init; the exit status lives in `reaper` (its lock).
    public let pid: pid_t
    public let logPath: String
    public let name: String
    public let arguments: [String]
    private let reaper: Reaper

    /// Starts `executable` (a path, or a name looked up in the usual bin directories), with this
    /// process's environment plus `environment`, less the variables named in `unsetting`. The
    /// ports of `holding` stay reserved until the child has exited (and been reaped), however
    /// long after this object it lives.
    public init(_ executable: String, _ arguments: [String], name: String, environment: [String: String] = [:],
                unsetting: [String] = [], holding ports: PortBlock? = nil) throws {
        self.name = name
        self.arguments = arguments
        logPath = ChildLogs.directory + "/\(name)-\(UUID().uuidString.prefix(8)).log"
        let path = try Self.locate(executable)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Nothing else of ours: PJSIP makes its sockets without close-on-exec, and a child that
        // holds a copy of the engine's connection (say a stream agent's, spawned by a test running
        // alongside) keeps it open past the engine's close: that agent never saw `closed`.
        // (glibc 2.34's posix_spawn_file_actions_addclosefrom_np, which Swift's Glibc module does
        // not declare.)
        if let closeFrom = Self.closeFrom { _ = closeFrom(&actions, 3) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // A child inherits the spawning thread's signal mask, and Swift's threads (Dispatch's,
        // the test runner's) block most signals: kamailio's tm timers then never fired (no
        // fr_timer, no failover). The child starts with no signal blocked and default handlers.
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        posix_spawnattr_setpgroup(&attributes, 0)
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var everySignal = sigset_t()
        sigfillset(&everySignal)
        posix_spawnattr_setsigdefault(&attributes, &everySignal)
        var merged = ProcessInfo.processInfo.environment
        // SWIFT_PJSUA_CHILD_ASAN_OPTIONS and _TSAN_OPTIONS: the children's ASAN_OPTIONS and
        // TSAN_OPTIONS, not the test process's (make asan runs sanitized softphone children
        // without LeakSanitizer, make tsan without TSan's 1 s sleep at exit: see the Makefile).
        if let childOptions = merged["SWIFT_PJSUA_CHILD_ASAN_OPTIONS"] { merged["ASAN_OPTIONS"] = childOptions }
        if let childOptions = merged["SWIFT_PJSUA_CHILD_TSAN_OPTIONS"] { merged["TSAN_OPTIONS"] = childOptions }
        for (key, value) in environment { merged[key] = value }
        for key in unsetting { merged[key] = nil }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var child: pid_t = 0
        let rc = posix_spawn(&child, path, &actions, &attributes, argv, envp)
        guard rc == 0 else { throw ChildProcessError("cannot start \(executable): errno \(rc)") }
        pid = child
        reaper = Reaper(pid: child, holding: ports)
    }

    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private static let closeFrom: CloseFrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np").map { unsafeBitCast($0, to: CloseFrom.self) }

    /// The log stays (``ChildLogs``): a failure found after the object is gone, or read from the
    /// test's output later, can still be explained from the child's whole log.
    deinit {
        stop()
    }

    /// The full path of an installed program (or `executable` itself when it is a path).
    public static func locate(_ executable: String) throws -> String {
        if executable.hasPrefix("/") { return executable }
        for directory in ["/usr/local/bin", "/usr/bin", "/usr/sbin", "/bin", "/sbin"] {
            let path = directory + "/" + executable
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        throw ChildProcessError("\(executable) is not installed (make test and make bench install the peers)")
    }

    /// Everything the child printed so far.
    public var output: String {
        readText(logPath) ?? ""
    }

    /// The exit status once the process has exited (reaping it), nil while it runs; a death by
    /// signal is reported as 128 + the signal.
    public var exited: Int32? { reaper.status() }

    public var isRunning: Bool { exited == nil }

    /// Waits for the process to exit by itself; returns its exit status.
    @discardableResult
    public func waitForExit(timeout: Duration = .seconds(30)) async throws -> Int32 {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            if let status = exited { return status }
            if ContinuousClock.now >= deadline {
                stop()
                throw ChildProcessError(explain("did not finish within \(timeout)"))
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// How long a peer may take to start. A test run starts dozens of peers (softphones, a
    /// baresip, coturn) in its first seconds on two cores, and every engine start costs PJSIP
    /// 0.3-0.5 s of CPU (it makes a DTLS key at pjsua_init): measured, a softphone printed
    /// nothing for 15 s at the start of a run on an otherwise quiet machine. Waits for what a
    /// peer does once started keep ``waitForOutput(_:timeout:)``'s 15 s.
    public static let startTimeout = Duration.seconds(60)

    /// Waits until the child has printed `text`, the line that says it has started.
    public func waitUntilStarted(printing text: String) async throws {
        try await waitForOutput(text, timeout: Self.startTimeout)
    }

    /// Waits until `condition` holds for the child's output so far (`what` names it in the error).
    public func waitForOutput(_ what: String, timeout: Duration = .seconds(15), until condition: (String) -> Bool) async throws {
        try await wait(until: what, within: timeout) { condition(output) }
    }

    /// Waits until the child has printed a whole line that starts with `prefix` (a line that
    /// reports a port it bound, say); returns that line.
    public func waitForLine(startingWith prefix: String, timeout: Duration = ChildProcess.startTimeout) async throws -> String {
        var line: Substring?
        try await wait(until: "print a line starting with \"\(prefix)\"", within: timeout) {
            // The last piece is a line still being written (or empty after a final newline).
            line = output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().first { $0.hasPrefix(prefix) }
            return line != nil
        }
        guard let line else { throw ChildProcessError(explain("printed no line starting with \"\(prefix)\"")) }
        return String(line)
    }

    /// Waits until something on this host has bound the local `port` (UDP or TCP, IPv4 or IPv6),
    /// read from `/proc/net`: for a peer that prints nothing when it is ready (sipp). Throws if the
    /// child exits first or nothing binds it within ``startTimeout``.
    public func waitUntilBound(port: Int) async throws {
        let needle = String(format: ":%04X ", port)
        let tables = ["/proc/net/udp", "/proc/net/udp6", "/proc/net/tcp", "/proc/net/tcp6"]
        try await wait(until: "bind port \(port)", within: Self.startTimeout) {
            tables.contains { table in
                (readText(table) ?? "").split(separator: "\n").dropFirst().contains { line in
                    // The second column is the local address, e.g. 0100007F:1F90.
                    let columns = line.split(separator: " ", omittingEmptySubsequences: true)
                    return columns.count > 1 && (columns[1] + " ").hasSuffix(needle)
                }
            }
        }
    }

    /// Waits until the child's output contains `text`.
    public func waitForOutput(_ text: String, timeout: Duration = .seconds(15)) async throws {
        try await wait(until: "print \"\(text)\"", within: timeout) { output.contains(text) }
    }

    /// Polls `condition` every 20 ms; throws, naming `what` ("print ...", "bind ..."), when
    /// the child exits first or `timeout` passes.
    ///
    /// Whether the child has exited is read before `condition`, not after: a child that prints
    /// its last line and exits between the two reads (the unpatched pjsua app printing "Error:
    /// signal 6" as it aborts, under load) is then judged on its whole output, not on the output
    /// read before it printed.
    private func wait(until what: String, within timeout: Duration, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            let ended = !isRunning
            if condition() { return }
            if ended { throw ChildProcessError(explain("exited before it could \(what)")) }
            if ContinuousClock.now >= deadline { throw ChildProcessError(explain("did not \(what) within \(timeout)")) }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// A failure of this child, explained for a test's failure message: `headline` after its
    /// name, how it ended if it has (its status, or the signal and whether the test sent it),
    /// where its whole log is kept (``ChildLogs``), the first lines of the log that name a
    /// failure (the reason it stopped is near the start, not in the teardown at its end), and
    /// its last lines.
    public func explain(_ headline: String) -> String {
        let lines = output.split(separator: "\n", omittingEmptySubsequences: true)
        func indented(_ some: some Sequence<Substring>) -> String {
            some.map { "    " + $0.prefix(300) }.joined(separator: "\n")
        }
        var report = "\(name) \(headline)"
        if let ending = reaper.ending { report += " (it \(ending))" }
        report += "\n  its whole log (\(lines.count) lines): \(logPath)"
        let failures = lines.filter(Self.namesAFailure).prefix(8)
        if !failures.isEmpty { report += "\n  its first lines that name a failure:\n" + indented(failures) }
        report += "\n  its last lines:\n" + indented(lines.suffix(20))
        return report
    }

    /// Where this child's whole log is kept, for a test's own failure message.
    public var logNote: String { "\(name)'s whole log: \(logPath)" }

    private static let failureWords = ["error", "fail", "unable", "cannot", "can't", "could not", "refused", "denied", "in use",
                                       "abort", "fatal", "panic", "exception", "assert", "sanitizer", "segmentation", "not found",
                                       "no such", "invalid", "timed out", "timeout"]

    private static func namesAFailure(_ line: Substring) -> Bool {
        let lowered = line.lowercased()
        return failureWords.contains { lowered.contains($0) }
    }

    /// Sends a signal to the child's process group (nothing once the child has been reaped).
    public func signal(_ number: Int32) {
        reaper.signalGroup(number)
    }

    /// Ends the process group without blocking the caller (safe in `defer` and deinit): SIGTERM
    /// now; a thread of its own reaps the leader and sends SIGKILL to the group two seconds later
    /// if the leader is still there (and to any stragglers it forked either way). Callers that
    /// need the child gone (its port free, its log complete) use ``stopAndWait()``.
    public func stop() {
        reaper.stop()
    }

    /// Ends the process group like ``stop()`` and returns once the leader has exited and been
    /// reaped (SIGKILL follows SIGTERM after two seconds, so this takes at most a little more).
    public func stopAndWait() async {
        reaper.stop()
        let deadline = ContinuousClock.now.advanced(by: .seconds(5))
        while isRunning && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
    }
}

/// A child's exit status and its bounded termination, shared by the ``ChildProcess`` and the
/// thread that ends it: that thread may outlive the ChildProcess (stopped from its deinit), so it
/// holds this and not the ChildProcess.
private final class Reaper: Sendable {
    let pid: pid_t

    private struct State {
        var exitStatus: Int32?
        /// The signal that ended the child, if one did.
        var endingSignal: Int32?
        var stopping = false
        /// Whether the test sent the child a signal (``ChildProcess/signal(_:)``).
        var signalled = false
        /// The ports the child was given, released once it has been reaped.
        var ports: PortBlock?
    }

    private let state: Mutex<State>

    init(pid: pid_t, holding ports: PortBlock?) {
        self.pid = pid
        state = Mutex(State(ports: ports))
    }

    /// Signals the child's process group, under the lock that reaping takes: only while the
    /// leader is not reaped. Once it is, its pid (the group's id) is free, and this machine reuses
    /// pids within minutes (pid_max 32768): a later child of this suite, a process group leader
    /// too, could be given it, and a signal to the old group would end that one. (Three pjsua apps
    /// of a loaded CI run stopped answering so, 4 minutes after they started.)
    func signalGroup(_ number: Int32, noting: Bool = true) {
        state.withLock { state in
            guard state.exitStatus == nil else { return }
            if noting { state.signalled = true }
            kill(-pid, number)
        }
    }

    /// The exit status, reaping the child if it has just exited; nil while it runs. A child
    /// being stopped has what it forked killed first, while its leader, a zombie, still holds
    /// the group's id.
    func status() -> Int32? {
        state.withLock { state in
            if let exitStatus = state.exitStatus { return exitStatus }
            var info = siginfo_t()
            guard waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0, info.si_signo == SIGCHLD else {
                return nil
            }
            if state.stopping { kill(-pid, SIGKILL) }  // stragglers the leader forked
            var status: Int32 = 0
            guard waitpid(pid, &status, 0) == pid else { return nil }
            let signal = status & 0x7f
            state.exitStatus = signal == 0 ? (status >> 8) & 0xff : 128 + signal
            state.endingSignal = signal == 0 ? nil : signal
            state.ports = nil
            return state.exitStatus
        }
    }

    /// How the child ended, in words ("exited with status 1", "was killed by signal 11
    /// (Segmentation fault), not sent by the test"); nil while it runs.
    var ending: String? {
        guard let status = status() else { return nil }
        return state.withLock { state in
            guard let signal = state.endingSignal else { return "exited with status \(status)" }
            let name = strsignal(signal).map { String(cString: $0) } ?? "signal \(signal)"
            let sender = state.stopping || state.signalled ? "which the test sent or followed up" : "not sent by the test"
            return "was killed by signal \(signal) (\(name)), \(sender)"
        }
    }

    /// SIGTERM to the group now; the first call starts the thread that reaps and, after two
    /// seconds, kills. Later calls only signal again. Nothing once the child has been reaped
    /// (see ``signalGroup(_:noting:)``): what it forked was killed when it was, if it was being
    /// stopped then; what a child that exited by itself left behind, bounded.sh ends.
    func stop() {
        let first = state.withLock { state -> Bool? in
            guard state.exitStatus == nil else { return nil }
            defer { state.stopping = true }
            return !state.stopping
        }
        guard let first else { return }
        signalGroup(SIGTERM, noting: false)
        guard first else { return }
        PendingStops.shared.add(self)
        let thread = Thread { [self] in
            // A dedicated thread, not the cooperative pool: this wait blocks.
            for _ in 0..<100 where status() == nil { usleep(20_000) }
            signalGroup(SIGKILL, noting: false)
            for _ in 0..<100 where status() == nil { usleep(20_000) }
            PendingStops.shared.remove(self)
        }
        thread.name = "stop \(pid)"
        thread.start()
    }
}

/// The process groups whose stop is still in its grace period: if the test process exits before
/// their threads finish, an exit handler kills them, so no peer that ignores SIGTERM outlives
/// the run.
private final class PendingStops: Sendable {
    static let shared: PendingStops = {
        atexit { PendingStops.shared.killAll() }
        return PendingStops()
    }()

    private let reapers = Mutex<[ObjectIdentifier: Reaper]>([:])

    func add(_ reaper: Reaper) { reapers.withLock { $0[ObjectIdentifier(reaper)] = reaper } }
    func remove(_ reaper: Reaper) { reapers.withLock { $0[ObjectIdentifier(reaper)] = nil } }

    private func killAll() {
        for reaper in reapers.withLock({ Array($0.values) }) { reaper.signalGroup(SIGKILL, noting: false) }
    }
}

/// A child process could not be started or did not behave.
public struct ChildProcessError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A socket bound to a free loopback port (the kernel's pick), held until deinit: keeps the port
/// busy for as long as it lives.
public final class LoopbackSocket {
    public let descriptor: Int32
    public let port: Int

    /// A socket on a free port (0) or on `port`, on 127.0.0.1 or another loopback `host`;
    /// throws if it cannot be bound.
    public init(udp: Bool = true, on requested: Int = 0, host: String = "127.0.0.1") throws {
        let fd = socket(AF_INET, Int32(udp ? SOCK_DGRAM.rawValue : SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr(host)
        address.sin_port = UInt16(requested).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard fd >= 0, bound == 0, named == 0 else {
            if fd >= 0 { close(fd) }
            throw ChildProcessError("cannot bind a loopback socket: errno \(errno)")
        }
        if udp {
            // The kernel stamps each datagram on arrival (SO_TIMESTAMPNS, 35 on Linux's generic
            // socket options): receiveStampedBytesNow reads it, so a test timing packets is not
            // timing when its own task got to read them.
            var on: Int32 = 1
            _ = setsockopt(fd, SOL_SOCKET, 35, &on, socklen_t(MemoryLayout<Int32>.size))
        }
        descriptor = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Connects this (TCP) socket to 127.0.0.1:`port`; returns whether the connection was made.
    public func connect(toPort port: Int) -> Bool {
        withLoopbackAddress(port: port) { address, length in Glibc.connect(descriptor, address, length) == 0 }
    }

    /// The next datagram (or stream bytes) received, as text; nil if none came within `timeout`.
    /// Polls without blocking and sleeps asynchronously in between: a blocking wait would hold
    /// one of the cooperative pool's two threads (and stall the tests sharing it) for as long.
    public func receive(timeout: Duration) async -> String? {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            if let text = receiveNow() { return text }
            guard ContinuousClock.now < deadline else { return nil }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Whether a datagram (or stream bytes) is waiting to be read, without reading it.
    public var hasPendingInput: Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) == 1
    }

    /// Waits until a datagram (or stream bytes) has arrived, without reading it; false if none
    /// came within `timeout`.
    public func waitForInput(timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while !hasPendingInput {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    /// What is waiting to be read now, as text; nil if nothing is.
    public func receiveNow() -> String? {
        guard hasPendingInput else { return nil }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        guard count > 0 else { return nil }
        return String(decoding: buffer.prefix(count), as: UTF8.self)
    }

    /// The next datagram waiting to be read, as bytes; nil if none is.
    public func receiveBytesNow() -> [UInt8]? {
        guard hasPendingInput else { return nil }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        guard count > 0 else { return nil }
        return Array(buffer.prefix(count))
    }

    /// The next datagram waiting to be read and when the kernel received it (CLOCK_REALTIME,
    /// seconds: `SIOCGSTAMPNS`, 0x8907, the stamp of the datagram just read); nil if none is.
    public func receiveStampedBytesNow() -> (bytes: [UInt8], arrival: Double)? {
        guard let bytes = receiveBytesNow() else { return nil }
        var stamp = timespec()
        let stamped = withUnsafeMutablePointer(to: &stamp) { ioctl(descriptor, 0x8907, $0) }
        if stamped != 0 { clock_gettime(CLOCK_REALTIME, &stamp) }  // not stamped: read now
        return (bytes, Double(stamp.tv_sec) + Double(stamp.tv_nsec) / 1e9)
    }

    /// Binds `port` on 127.0.0.1 (UDP) for as long as the result lives.
    public static func occupying(_ port: Int) throws -> LoopbackSocket {
        try LoopbackSocket(udp: true, on: port)
    }

    /// Sends `text` as one UDP datagram to 127.0.0.1:`port`; returns whether it went out whole.
    @discardableResult
    public func send(_ text: String, toPort port: Int) -> Bool {
        send(bytes: Array(text.utf8), toPort: port)
    }

    /// Sends `bytes` as one UDP datagram to 127.0.0.1:`port`; returns whether it went out whole.
    @discardableResult
    public func send(bytes: [UInt8], toPort port: Int) -> Bool {
        withLoopbackAddress(port: port) { address, length in sendto(descriptor, bytes, bytes.count, 0, address, length) } == bytes.count
    }

    deinit { close(descriptor) }
}

/// Runs `body` with the socket address 127.0.0.1:`port`.
public func withLoopbackAddress<T>(port: Int, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
}

/// The contents of a file, or nil. FileHandle rather than `String(contentsOfFile:)` or
/// `Data(contentsOf:)`: those leak their buffer in this toolchain's FoundationEssentials
/// (`readBytesFromFile`), which LeakSanitizer reports under `make asan`.
public func readFile(_ path: String) -> Data? {
    guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
    defer { try? handle.close() }
    return (try? handle.readToEnd()) ?? Data()
}

/// A file's contents as UTF-8 text, or nil (see ``readFile(_:)``).
public func readText(_ path: String) -> String? {
    readFile(path).map { String(decoding: $0, as: UTF8.self) }
}

/// Gives freed heap pages back to the OS (glibc's `malloc_trim`, which the Glibc module does not
/// export), so that a resident-memory reading counts what is held.
public func releaseFreedHeap() {
    guard let process = dlopen(nil, RTLD_NOW) else { return }
    defer { dlclose(process) }
    if let trim = dlsym(process, "malloc_trim") {
        _ = unsafeBitCast(trim, to: (@convention(c) (Int) -> Int32).self)(0)
    }
}

/// The repository's root directory, found from this file's location.
public let packageRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    while url.lastPathComponent != "Tests" { url.deleteLastPathComponent() }
    return url.deletingLastPathComponent().path
}()

/// The repository's `Tests/Peers` directory (configs and scenarios of the test peers).
public let peersDirectory = packageRoot + "/Tests/Peers"
