import Foundation
import Synchronization

/// A private network namespace joined to this one by a veth pair, made for one test and removed
/// by ``remove()`` (or deinit): the namespace side starts with `10.<a>.<b>.2/24`, this side has
/// `.1`. Needs root and iproute2's `ip`; traffic between the two never leaves the host.
///
/// Every `ip` run is awaited asynchronously (Swift's cooperative pool has one thread per core, and
/// a thread held waiting for a child stalls every other test); ``remove()``, which `defer` and
/// deinit need synchronous, hands the deletion to a thread of its own.
public final class NetworkNamespace: Sendable {
    public let name: String
    /// The interface inside the namespace.
    public let interface: String
    /// This side's address, e.g. 10.213.7.1.
    public let hostAddress: String
    private let hostInterface: String
    private let prefix: String
    private let removed = Mutex(false)

    /// Tags and subnets handed to this process's namespaces: a tag is never reused, a subnet is
    /// reserved from ``freePrefix()`` until ``remove()``, so tests creating namespaces at the same
    /// time never pick the same one (checking `ip addr` alone races with the other's `addr add`).
    private final class Allocation: Sendable {
        private let counter = Mutex(100)
        private let prefixes = Mutex<Set<String>>([])

        func next() -> Int {
            counter.withLock { counter in
                counter = counter >= 999 ? 100 : counter + 1
                return counter
            }
        }

        /// Reserves the first candidate not reserved already; nil if none.
        func reserve(_ candidates: [String]) -> String? {
            prefixes.withLock { prefixes in
                guard let free = candidates.first(where: { !prefixes.contains($0) }) else { return nil }
                prefixes.insert(free)
                return free
            }
        }

        func release(_ prefix: String) { _ = prefixes.withLock { $0.remove(prefix) } }
    }

    private static let names = Allocation()

    /// Creates the namespace, the veth pair and both addresses, with loopback up inside.
    public init() async throws {
        await Self.removeLeftovers()
        // One number per namespace of this process (a random one collided: two tests of one run
        // drew the same tag, and the second's failure deleted the first's namespace).
        let tag = "\(getpid() % 10_000)\(Self.names.next())"
        // The namespace's name carries the whole pid, so a later run can tell it is stale.
        name = "swpj-\(getpid())-\(tag)"
        interface = "swpjn\(tag)"
        hostInterface = "swpjh\(tag)"
        // Other test processes (a second shard, another checkout's run) pick subnets too: the
        // choice and the address that marks it taken are made under a lock file all of them share.
        let machineLock = try await MachineLock.acquire("netns")
        let prefix: String
        do {
            prefix = try await Self.freePrefix()
        } catch {
            machineLock.release()
            throw error
        }
        self.prefix = prefix
        hostAddress = prefix + ".1"
        do {
            defer { machineLock.release() }
            try await Self.ip(["netns", "add", name])
            try await Self.ip(["link", "add", hostInterface, "type", "veth", "peer", "name", interface])
            try await Self.ip(["link", "set", interface, "netns", name])
            try await Self.ip(["addr", "add", hostAddress + "/24", "dev", hostInterface])
        } catch {
            remove()
            throw error
        }
        do {
            try await Self.ip(["link", "set", hostInterface, "up"])
            try await inside(["ip", "link", "set", "lo", "up"])
            try await inside(["ip", "link", "set", interface, "up"])
            try await addAddress(hostNumber: 2)
        } catch {
            remove()
            throw error
        }
    }

    deinit { remove() }

    /// The address `10.<a>.<b>.<hostNumber>` of this namespace's subnet.
    public func address(_ hostNumber: Int) -> String { "\(prefix).\(hostNumber)" }

    /// Adds `address(hostNumber)` to the interface inside the namespace.
    public func addAddress(hostNumber: Int) async throws {
        try await inside(["ip", "addr", "add", address(hostNumber) + "/24", "dev", interface])
    }

    /// Removes `address(hostNumber)` from the interface inside the namespace.
    public func removeAddress(hostNumber: Int) async throws {
        try await inside(["ip", "addr", "del", address(hostNumber) + "/24", "dev", interface])
    }

    /// The arguments that run `command` inside the namespace: `ip netns exec <name> command...`
    /// (`ip` execs the command, so the process keeps its pid and takes signals).
    public func command(_ command: [String]) -> [String] { ["netns", "exec", name] + command }

    /// Runs `command` inside the namespace and waits for it.
    public func inside(_ command: [String]) async throws {
        try await Self.ip(self.command(command))
    }

    /// Deletes the veth pair and the namespace (idempotent), on a thread of its own so that it
    /// never blocks the caller; a namespace left by a run that exits first is deleted by the
    /// next one (``removeLeftovers()``).
    public func remove() {
        let first = removed.withLock { removed in
            defer { removed = true }
            return !removed
        }
        guard first else { return }
        let prefix = self.prefix
        let commands = [["link", "del", hostInterface], ["netns", "del", name]]
        let thread = Thread {
            for arguments in commands { try? Self.ipBlocking(arguments) }
            Self.names.release(prefix)
        }
        thread.name = "remove \(name)"
        thread.start()
    }

    /// A 10.213.X prefix no interface here uses: namespaces of tests running at the same time (or
    /// left by a crashed run) must not share a subnet, or routes collide.
    static func freePrefix() async throws -> String {
        let used = try await Self.output(["-o", "-4", "addr", "show"])
        let candidates = (1...254).shuffled().map { "10.213.\($0)" }.filter { !used.contains(" \($0).") }
        guard let free = names.reserve(candidates) else {
            throw ChildProcessError("no free 10.213.X.0/24 subnet for a test namespace")
        }
        return free
    }

    /// Deletes test namespaces whose creating process is gone (a crashed or killed test run);
    /// their veth pairs go with them.
    static func removeLeftovers() async {
        guard let list = try? await Self.output(["netns", "list"]) else { return }
        for line in list.split(separator: "\n") {
            let name = String(line.split(separator: " ").first ?? "")
            let parts = name.split(separator: "-")
            guard parts.count == 3, parts[0] == "swpj", let pid = pid_t(parts[1]) else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { try? await Self.ip(["netns", "del", name]) }
        }
    }

    /// What `ip` printed.
    static func output(_ arguments: [String]) async throws -> String {
        let process = try ChildProcess("ip", arguments, name: "ip")
        try check(process, arguments, status: await exitStatus(of: process))
        return process.output
    }

    /// Runs `ip` with `arguments`, bounded to 10 s; throws with its output when it fails.
    static func ip(_ arguments: [String]) async throws {
        let process = try ChildProcess("ip", arguments, name: "ip")
        try check(process, arguments, status: await exitStatus(of: process))
    }

    /// ``ip(_:)`` for a thread of its own (``remove()``): it blocks while `ip` runs.
    static func ipBlocking(_ arguments: [String]) throws {
        let process = try ChildProcess("ip", arguments, name: "ip")
        let deadline = ContinuousClock.now.advanced(by: .seconds(10))
        while process.exited == nil && ContinuousClock.now < deadline { usleep(5_000) }
        try check(process, arguments, status: process.exited)
    }

    /// `ip`'s exit status, or nil if it has not finished within 10 s.
    private static func exitStatus(of process: ChildProcess) async -> Int32? {
        let deadline = ContinuousClock.now.advanced(by: .seconds(10))
        while process.exited == nil && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        return process.exited
    }

    private static func check(_ process: ChildProcess, _ arguments: [String], status: Int32?) throws {
        guard let status else {
            process.stop()
            throw ChildProcessError("ip \(arguments.joined(separator: " ")) did not finish within 10 s")
        }
        guard status == 0 else {
            throw ChildProcessError("ip \(arguments.joined(separator: " ")) failed (\(status)): \(process.output)")
        }
    }
}
