import Foundation

/// The media-stream tests' WebSocket agent (Tests/Peers/stream_agent.py, on PyPI `websockets` in
/// the venv scripts/install-peers.sh makes) on a free loopback port, and what it logged.
public final class StreamAgent: @unchecked Sendable {
    // @unchecked Sendable: immutable after init; ChildProcess is Sendable.
    public let port: Int
    public let process: ChildProcess

    /// The venv's Python (SWIFT_PJSUA_PEERS_VENV overrides the venv).
    public static var python: String {
        (ProcessInfo.processInfo.environment["SWIFT_PJSUA_PEERS_VENV"] ?? "/opt/swift-pjsua-peers/venv") + "/bin/python"
    }

    /// The scheme of ``url(path:host:)``: `wss` when the agent serves TLS.
    public let scheme: String
    /// The address it listens on.
    public let host: String

    /// Starts the agent with `script` (a JSON array of actions, see the script's header); with
    /// `tls` (a certificate and its key) it serves `wss://`; `receiveBuffer` shrinks its
    /// sockets' receive buffer (SO_RCVBUF); `answer` (`forbidden`, `bad-accept`) makes it answer
    /// the upgrade with that and nothing else; `host` is the IPv4 address it listens on, and
    /// `namespace` the network namespace it runs in (this one when nil).
    public init(name: String = "stream-agent", script: String = "[]", silent: Bool = false, pipecat: Bool = false,
                echo: Bool = false, realtime: Bool = false, tls: (certificate: String, key: String)? = nil,
                receiveBuffer: Int? = nil, answer: String? = nil, host: String = "127.0.0.1",
                namespace: NetworkNamespace? = nil) async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.python) else {
            throw ChildProcessError("no \(Self.python): run scripts/install-peers.sh")
        }
        var arguments = ["-u", peersDirectory + "/stream_agent.py", "--script", script]
        if silent { arguments.append("--silent") }
        if pipecat { arguments.append("--pipecat") }
        if echo { arguments.append("--echo") }
        if realtime { arguments.append("--realtime") }
        if let tls { arguments += ["--cert", tls.certificate, "--key", tls.key] }
        if let receiveBuffer { arguments += ["--rcvbuf", "\(receiveBuffer)"] }
        if let answer { arguments += ["--answer", answer] }
        arguments += ["--host", host]
        scheme = tls == nil ? "ws" : "wss"
        self.host = host
        if let namespace {
            process = try ChildProcess("ip", namespace.command([Self.python] + arguments), name: name)
        } else {
            process = try ChildProcess(Self.python, arguments, name: name)
        }
        try await process.waitUntilStarted(printing: "LISTENING ")
        let line = process.output.split(separator: "\n").first { $0.hasPrefix("LISTENING ") }
        guard let line, let port = Int(line.dropFirst("LISTENING ".count).trimmingCharacters(in: .whitespaces)) else {
            throw ChildProcessError(process.explain("printed no port"))
        }
        self.port = port
    }

    /// `ws://<the address it listens on>:<port><path>` (`wss://` with TLS); `host` replaces the
    /// address (e.g. `localhost`).
    public func url(path: String = "/media", host: String? = nil) -> String { "\(scheme)://\(host ?? self.host):\(port)\(path)" }

    /// Every JSON line the agent printed.
    public var records: [[String: Any]] { jsonLines(process.output) }

    /// The messages it received (parsed), with when (its monotonic clock, seconds).
    public var received: [(t: Double, message: [String: Any])] {
        records.compactMap { record in
            guard let message = record["received"] as? [String: Any], let t = record["t"] as? Double else { return nil }
            return (t, message)
        }
    }

    /// When it finished an action whose key is `key` (and value `value`, when given).
    public func sentTime(_ key: String, _ value: String? = nil) -> Double? {
        records.first { record in
            guard let sent = record["sent"] as? [String: Any], let got = sent[key] else { return false }
            return value == nil || "\(got)" == value
        }?["t"] as? Double
    }

    /// Waits until the agent logged a line containing `text`.
    public func waitFor(_ text: String, timeout: Duration = .seconds(10)) async throws {
        try await process.waitForOutput(text, timeout: timeout)
    }

    public func stop() { process.stop() }
}
