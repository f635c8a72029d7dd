import Foundation
import PJSUATestSupport
import Testing

/// A network namespace with its own name resolution: `ip netns exec` mounts the files written to
/// /etc/netns/<name>/ over /etc's for the process it runs, so the engine under test runs there as
/// a `softphone answer` child (an engine's lookups read this process's /etc otherwise), with the
/// agent and the SIP callers beside it on the namespace's loopback.
private final class ResolverNamespace: Sendable {
    let net: NetworkNamespace
    private let directory: String

    /// `hosts` is the namespace's /etc/hosts (with localhost and this host's name, which pjsua
    /// looks up as it starts); `dns` false resolves from it alone (nsswitch `hosts: files`); true
    /// asks a nameserver on the namespace's 127.0.0.1:53 after it, with `resolverTimeout` seconds
    /// and one attempt (resolv.conf).
    init(hosts: String, dns: Bool = false, resolverTimeout: Int = 1) async throws {
        net = try await NetworkNamespace()
        directory = "/etc/netns/\(net.name)"
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let base = "127.0.0.1 localhost \(ProcessInfo.processInfo.hostName)\n"
            try (base + hosts).write(toFile: directory + "/hosts", atomically: true, encoding: .utf8)
            try "hosts: files\(dns ? " dns" : "")\n".write(toFile: directory + "/nsswitch.conf", atomically: true, encoding: .utf8)
            try "nameserver 127.0.0.1\noptions timeout:\(resolverTimeout) attempts:1\n"
                .write(toFile: directory + "/resolv.conf", atomically: true, encoding: .utf8)
        } catch {
            remove()
            throw error
        }
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: directory)
        net.remove()
    }

    /// A nameserver that never answers: a UDP socket on the namespace's 127.0.0.1:53 that takes
    /// every query and sends nothing back (with no socket there, the query would be refused at
    /// once and the lookup fail fast).
    func silentNameserver() async throws -> ChildProcess {
        let script = """
            import socket, time
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.bind(("127.0.0.1", 53))
            print("LISTENING", flush=True)
            while True:
                s.recv(4096)
            """
        let process = try ChildProcess("ip", net.command([StreamAgent.python, "-c", script]), name: "silent-nameserver")
        try await process.waitUntilStarted(printing: "LISTENING")
        return process
    }

    /// `softphone call` from inside the namespace to a softphone there, hanging up after `seconds`.
    func caller(port: Int, seconds: Int, rtpPorts: String, name: String) throws -> ChildProcess {
        try ChildProcess("ip", net.command([try softphone(), "call", "sip:agent@127.0.0.1:\(port)", "--seconds", "\(seconds)",
                                            "--rtp-ports", rtpPorts, "--json"]), name: name)
    }

    /// Answers one 2 s call from inside the namespace with `softphone answer --stream url`
    /// (`extra` flags too) and returns the stream's first line (connected or failed), and how
    /// long after the call's audio came up it came; both children must exit 0 after the call.
    func streamOneCall(to url: String, _ extra: [String] = [], name: String) async throws -> (outcome: [String: Any]?, after: Duration) {
        let (answerer, port) = try await answeringSoftphone(["--stream", url, "--stream-timeout", "5", "--rtp-ports", "4000-4099",
                                                             "--exit-after", "1"] + extra,
                                                            name: "softphone-stream-\(name)", namespace: net)
        defer { answerer.stop() }
        let caller = try self.caller(port: port, seconds: 2, rtpPorts: "4100-4199", name: "softphone-caller-\(name)")
        defer { caller.stop() }
        let started = try await firstMediaActive(answerer)
        let ended = try await firstTime(answerer, "the stream's outcome") { !streamLines($0).isEmpty }
        let outcome = streamLines(jsonLines(answerer.output)).first
        #expect(try await caller.waitForExit() == 0, "\(caller.output)")
        #expect(try await answerer.waitForExit() == 0, "\(answerer.output)")
        return (outcome, ended - started)
    }

    /// The addresses getaddrinfo gives for `name` inside the namespace, in its order.
    func addresses(of name: String) async throws -> [String] {
        let lookup = try ChildProcess("ip", net.command(["getent", "ahosts", name]), name: "getent")
        _ = try await lookup.waitForExit(timeout: .seconds(10))
        return lookup.output.split(separator: "\n").filter { $0.contains("STREAM") }.compactMap { $0.split(separator: " ").first.map(String.init) }
    }
}

/// When `condition` first held of a child's JSON lines, polled every 5 ms, at most `timeout`.
private func firstTime(_ child: ChildProcess, _ what: String, timeout: Duration = .seconds(15),
                       _ condition: ([[String: Any]]) -> Bool) async throws -> ContinuousClock.Instant {
    let deadline = ContinuousClock.now.advanced(by: timeout)
    while !condition(jsonLines(child.output)) {
        if ContinuousClock.now >= deadline { throw TimedOut(what: "\(what); \(child.name) printed:\n\(child.output)") }
        try await Task.sleep(for: .milliseconds(5))
    }
    return .now
}

/// When the answering softphone first reported a call's audio up: its stream starts then.
private func firstMediaActive(_ answerer: ChildProcess) async throws -> ContinuousClock.Instant {
    try await firstTime(answerer, "a call's media") { lines in
        lines.contains { $0["event"] as? String == "media" && $0["state"] as? String == "active" }
    }
}

private func streamLines(_ lines: [[String: Any]]) -> [[String: Any]] { lines.filter { $0["event"] as? String == "stream" } }

private func confirmedCalls(_ lines: [[String: Any]]) -> Int {
    lines.filter { $0["event"] as? String == "callState" && $0["state"] as? String == "CONFIRMED" }.count
}

@Suite("Media streams: the agent's host is resolved off the engine's thread and every address is tried", .serialized)
struct MediaStreamHostResolutionTests {
    /// The name lists ::1 and 127.0.0.1 (nothing listens there: refused) before 127.0.0.2,
    /// where the agent is: the stream connects through the third. (The engine tried only the
    /// first IPv4 address, 127.0.0.1, and failed.)
    @Test func aStreamConnectsThroughTheNextAddressWhenTheFirstOnesRefuse() async throws {
        let lab = try await ResolverNamespace(hosts: "::1 agent.multi.test\n127.0.0.1 agent.multi.test\n127.0.0.2 agent.multi.test\n")
        defer { lab.remove() }
        let order = try await lab.addresses(of: "agent.multi.test")
        try #require(order.count == 3 && order.last == "127.0.0.2", "getaddrinfo's order here: \(order)")
        let agent = try await StreamAgent(name: "stream-agent-next-address", host: "127.0.0.2", namespace: lab.net)
        defer { agent.stop() }
        let (outcome, _) = try await lab.streamOneCall(to: agent.url(host: "agent.multi.test"), name: "next-address")
        #expect(outcome?["state"] as? String == "connected", "\(outcome ?? [:])")
        try await agent.waitFor("\"handshake\"")
    }

    /// wss:// the same way, to `localhost` (::1, 127.0.0.1, then 127.0.0.2 where the agent is):
    /// the certificate names DNS:localhost and IP:127.0.0.1, not 127.0.0.2, so it verifies only
    /// against the URL's name, which SNI carries too. (The engine tried only 127.0.0.1.)
    @Test func aWssStreamConnectsThroughTheNextAddressAndVerifiesTheCertificateAgainstTheName() async throws {
        let lab = try await ResolverNamespace(hosts: "::1 localhost\n127.0.0.2 localhost\n")
        defer { lab.remove() }
        let order = try await lab.addresses(of: "localhost")
        try #require(order.count == 3 && order.last == "127.0.0.2", "getaddrinfo's order here: \(order)")
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let agent = try await StreamAgent(name: "stream-agent-wss-next-address", tls: (certificates.server.certificate, certificates.server.key),
                                          host: "127.0.0.2", namespace: lab.net)
        defer { agent.stop() }
        let (outcome, _) = try await lab.streamOneCall(to: agent.url(host: "localhost"), ["--stream-ca-file", certificates.caFile],
                                                       name: "wss-next-address")
        #expect(outcome?["state"] as? String == "connected", "\(outcome ?? [:])")
        try await agent.waitFor("\"handshake\"")
        #expect(agent.records.contains { $0["sni"] as? String == "localhost" }, "SNI named the URL's host")
    }

    /// A nameserver that never answers: while the stream's lookup waits for it, the engine
    /// answers a second call (through its executor: `--header` makes the agent answer, not the
    /// engine's callback); the stream fails with `timedOut` at its 3 s timeout, not when the
    /// resolver gives up (6 s); the lookup thread that finishes after it changes nothing, and the
    /// engine shuts down cleanly. (The engine's thread sat in the lookup for all 6 s: the second
    /// call waited that long and the stream failed then, with `pjsip`.)
    @Test func aLookupThatHangsLeavesTheEngineAnsweringAndTheStreamTimesOutAtItsConnectTimeout() async throws {
        let lab = try await ResolverNamespace(hosts: "", dns: true, resolverTimeout: 6)
        defer { lab.remove() }
        let nameserver = try await lab.silentNameserver()
        defer { nameserver.stop() }
        let (answerer, port) = try await answeringSoftphone(["--stream", "ws://agent.hanging.test:9/media", "--stream-timeout", "3",
                                                             "--header", "X-Answered-By: agent", "--rtp-ports", "4000-4099",
                                                             "--exit-after", "2"],
                                                            name: "softphone-stream-hanging-lookup", namespace: lab.net)
        defer { answerer.stop() }
        let first = try lab.caller(port: port, seconds: 8, rtpPorts: "4100-4199", name: "softphone-caller-hanging-1")
        defer { first.stop() }
        // The stream starts (and its lookup with it) as the first call's audio comes up.
        let started = try await firstMediaActive(answerer)
        let second = try lab.caller(port: port, seconds: 2, rtpPorts: "4200-4299", name: "softphone-caller-hanging-2")
        defer { second.stop() }
        let answered = try await firstTime(answerer, "the second call confirmed") { confirmedCalls($0) == 2 }
        let failed = try await firstTime(answerer, "the stream's outcome") { !streamLines($0).isEmpty }
        let outcome = streamLines(jsonLines(answerer.output)).first
        #expect(answered < failed, "the second call was answered while the lookup hung")
        #expect(answered - started < .milliseconds(2500), "the second call was answered \(answered - started) after the lookup began")
        #expect(outcome?["state"] as? String == "failed" && outcome?["code"] as? String == "timedOut", "\(outcome ?? [:])")
        #expect((2.7...4.0).contains((failed - started) / .seconds(1)), "the stream failed \(failed - started) after it began")
        #expect(try await first.waitForExit() == 0, "\(first.output)")
        #expect(try await second.waitForExit() == 0, "\(second.output)")
        // Both calls ended after the lookup thread finished (6 s): the agent exits cleanly.
        #expect(try await answerer.waitForExit() == 0, "\(answerer.output)")
    }

    /// A name that neither the hosts file nor a nameserver knows: `invalidArgument`, naming the
    /// host, at once. (It was a `pjsip` error naming only the URL.)
    @Test func aHostThatDoesNotResolveFailsTheStreamWithInvalidArgumentNamingIt() async throws {
        let lab = try await ResolverNamespace(hosts: "")
        defer { lab.remove() }
        let (outcome, after) = try await lab.streamOneCall(to: "ws://nosuch.agent.test:9/media", name: "unknown-host")
        #expect(outcome?["state"] as? String == "failed" && outcome?["code"] as? String == "invalidArgument", "\(outcome ?? [:])")
        let message = outcome?["message"] as? String ?? ""
        #expect(message.contains("\"nosuch.agent.test\"") && message.contains("does not resolve"), "\(message)")
        #expect(after < .seconds(1), "the stream failed \(after) after it began")
    }
}
