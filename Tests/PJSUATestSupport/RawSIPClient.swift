import Foundation

/// A SIP client that writes its requests by hand and sends each as one UDP datagram to a peer on
/// 127.0.0.1: for tests that need a request exactly as written (an unknown method, RFC 4475's
/// torture messages, a NOTIFY no subscription asked for), which no SIP stack would build.
///
/// Every request it builds carries a fresh Via branch, and its Via names this client's own
/// socket with `rport`, so responses come back here; ``response(to:timeout:)`` picks the one
/// for a given branch.
public final class RawSIPClient: @unchecked Sendable {
    // @unchecked Sendable: `pending` is guarded by `lock`; the socket is only read under it.
    private let socket: LoopbackSocket
    private let lock = NSLock()
    private var pending: [RawSIPResponse] = []
    /// The peer's UDP port on 127.0.0.1.
    public let targetPort: Int
    /// This client's own UDP port on 127.0.0.1.
    public var localPort: Int { socket.port }

    /// A client on a free loopback port, talking to 127.0.0.1:`targetPort`.
    public init(targetPort: Int) throws {
        socket = try LoopbackSocket(udp: true)
        self.targetPort = targetPort
    }

    /// A request with every mandatory header filled in: Via (this client, `rport`, a fresh
    /// branch), From (with a tag), To (with `toTag`, if any), Call-ID, CSeq (`cseqMethod`, by
    /// default the method), Max-Forwards, then `headers` (whole lines without CRLF), then
    /// Content-Length and `body`.
    public func request(_ method: String, uri: String? = nil, headers: [String] = [], body: String = "",
                        toTag: String? = nil, cseqMethod: String? = nil, callID: String? = nil) -> RawSIPRequest {
        let branch = "z9hG4bK-raw-" + UUID().uuidString.lowercased()
        let target = uri ?? "sip:peer@127.0.0.1:\(targetPort)"
        var lines = [
            "\(method) \(target) SIP/2.0",
            "Via: SIP/2.0/UDP 127.0.0.1:\(localPort);rport;branch=\(branch)",
            "From: <sip:raw@127.0.0.1:\(localPort)>;tag=raw-\(UUID().uuidString.prefix(8).lowercased())",
            "To: <sip:peer@127.0.0.1:\(targetPort)>" + (toTag.map { ";tag=\($0)" } ?? ""),
            "Call-ID: " + (callID ?? "raw-\(UUID().uuidString.lowercased())@127.0.0.1"),
            "CSeq: 1 \(cseqMethod ?? method)",
            "Max-Forwards: 70",
        ]
        lines += headers
        lines.append("Content-Length: \(body.utf8.count)")
        return RawSIPRequest(text: lines.joined(separator: "\r\n") + "\r\n\r\n" + body, branch: branch)
    }

    /// Sends `request` as one datagram; returns whether it went out whole.
    @discardableResult
    public func send(_ request: RawSIPRequest) -> Bool {
        socket.send(request.text, toPort: targetPort)
    }

    /// Sends `request` and waits for its final response (1xx skipped); nil if none came.
    public func exchange(_ request: RawSIPRequest, timeout: Duration = .seconds(3)) async -> RawSIPResponse? {
        guard send(request) else { return nil }
        return await response(to: request.branch, timeout: timeout)
    }

    /// The next final response whose top Via carries `branch`; nil if none came within `timeout`.
    /// Responses to other branches stay queued for their own callers.
    public func response(to branch: String, timeout: Duration = .seconds(3)) async -> RawSIPResponse? {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            if let found = take(where: { $0.branch == branch && $0.statusCode >= 200 }) { return found }
            if ContinuousClock.now >= deadline { return nil }
            drainSocket()
            if let found = take(where: { $0.branch == branch && $0.statusCode >= 200 }) { return found }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Every datagram that arrives within `period`, as text (responses or not): for checking
    /// that a request gets no answer at all.
    public func anythingReceived(within period: Duration) async -> [String] {
        var seen = lock.withLock { pending.map(\.text) }
        let deadline = ContinuousClock.now.advanced(by: period)
        while ContinuousClock.now < deadline {
            lock.withLock {
                while let text = socket.receive(timeout: .zero) { seen.append(text) }
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return seen
    }

    private func drainSocket() {
        lock.withLock {
            while let text = socket.receive(timeout: .zero) {
                if let response = RawSIPResponse(parsing: text) { pending.append(response) }
            }
        }
    }

    private func take(where match: (RawSIPResponse) -> Bool) -> RawSIPResponse? {
        lock.withLock {
            guard let index = pending.firstIndex(where: match) else { return nil }
            return pending.remove(at: index)
        }
    }
}

/// A request written by ``RawSIPClient/request(_:uri:headers:body:toTag:cseqMethod:callID:)``,
/// or by hand (then `branch` must be its top Via's branch).
public struct RawSIPRequest: Sendable {
    /// The whole datagram.
    public let text: String
    /// The branch parameter of its top Via.
    public let branch: String

    public init(text: String, branch: String) {
        self.text = text
        self.branch = branch
    }
}

/// A SIP response as received.
public struct RawSIPResponse: Sendable, CustomStringConvertible {
    public let statusCode: Int
    public let reason: String
    /// Header lines in order, as (name, value).
    public let headers: [(name: String, value: String)]
    public let body: String
    /// The whole datagram.
    public let text: String

    /// Parses a response; nil for anything else (a request, garbage).
    public init?(parsing text: String) {
        let normalised = text.replacingOccurrences(of: "\r\n", with: "\n")
        let parts = normalised.components(separatedBy: "\n\n")
        var lines = parts[0].split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard !lines.isEmpty else { return nil }
        let status = lines.removeFirst().split(separator: " ", maxSplits: 2).map(String.init)
        guard status.count >= 2, status[0] == "SIP/2.0", let code = Int(status[1]) else { return nil }
        statusCode = code
        reason = status.count > 2 ? status[2] : ""
        headers = lines.compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]).trimmingCharacters(in: .whitespaces),
                    String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces))
        }
        body = parts.dropFirst().joined(separator: "\n\n")
        self.text = text
    }

    /// The value of the first header named `name` (case-insensitive; `Via` also matches `v`).
    public func header(_ name: String) -> String? {
        let compact = ["via": "v", "from": "f", "to": "t", "call-id": "i", "content-type": "c", "content-length": "l"]
        let names = [name.lowercased(), compact[name.lowercased()]].compactMap { $0 }
        return headers.first { names.contains($0.name.lowercased()) }?.value
    }

    /// The methods an `Allow` header lists (empty without one).
    public var allowedMethods: [String] {
        header("Allow")?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } ?? []
    }

    /// The branch of the top Via.
    public var branch: String? {
        guard let via = header("Via"), let range = via.range(of: "branch=") else { return nil }
        return String(via[range.upperBound...].prefix { $0 != ";" && $0 != "," && $0 != " " })
    }

    public var description: String { "\(statusCode) \(reason)" }
}
