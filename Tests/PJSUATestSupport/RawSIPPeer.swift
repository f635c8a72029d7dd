import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A SIP peer that is nothing but a UDP socket on 127.0.0.1: it sends datagrams written by hand
/// (messages no SIP stack would send, such as a request whose CSeq method is not its method) to
/// one target port and reads whatever comes back. For tests of what a stack under test does with
/// packets anyone on the network could send.
///
/// Waits are bounded and never block a Swift concurrency thread for long (the socket is polled
/// without waiting, then the task sleeps).
public final class RawSIPPeer: @unchecked Sendable {
    // @unchecked Sendable: `socket`, a LoopbackSocket (not Sendable), is immutable after init and
    // used by one test task at a time.
    private let socket: LoopbackSocket
    private let counter = Mutex(0)
    /// The UDP port this peer sends from and listens on.
    public let port: Int
    /// The port of the stack under test (on 127.0.0.1).
    public let target: Int

    /// A peer on a free loopback port that talks to 127.0.0.1:`target`.
    public init(target: Int) throws {
        socket = try LoopbackSocket(udp: true)
        port = socket.port
        self.target = target
    }

    /// A token unique within this peer (for branches, tags and Call-IDs).
    public func unique(_ prefix: String) -> String {
        let count = counter.withLock { count in
            count += 1
            return count
        }
        return "\(prefix)\(port)x\(count)"
    }

    /// A fresh RFC 3261 branch (it starts with the magic cookie `z9hG4bK`).
    public func newBranch() -> String { unique("z9hG4bK-raw-") }

    /// The target as a SIP URI.
    public func targetURI(user: String = "raw") -> String { "sip:\(user)@127.0.0.1:\(target)" }

    /// This peer as a SIP URI (its Contact).
    public var uri: String { "sip:raw@127.0.0.1:\(port)" }

    /// Sends `text` as one datagram, exactly as given.
    @discardableResult
    public func send(_ text: String) -> Bool {
        socket.send(text, toPort: target)
    }

    /// Sends `text` as one datagram to another port of 127.0.0.1 than the target: for a peer that
    /// learns its target from a request (a registrar answering the port in the REGISTER's Via).
    @discardableResult
    public func send(_ text: String, toPort port: Int) -> Bool {
        socket.send(text, toPort: port)
    }

    /// Sends `request` as one datagram.
    @discardableResult
    public func send(_ request: RawSIPRequest) -> Bool {
        send(request.text(via: port))
    }

    /// The next message that arrives within `timeout`, or nil.
    public func receive(timeout: Duration) async throws -> RawSIPMessage? {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            if let text = socket.receiveNow() { return RawSIPMessage(text) }
            if ContinuousClock.now >= deadline { return nil }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Every message that arrives within `duration` (for "nothing comes back" checks).
    public func collect(for duration: Duration) async throws -> [RawSIPMessage] {
        let deadline = ContinuousClock.now.advanced(by: duration)
        var messages: [RawSIPMessage] = []
        while ContinuousClock.now < deadline {
            if let message = try await receive(timeout: deadline - ContinuousClock.now) { messages.append(message) }
        }
        return messages
    }

    /// Waits for the first message that satisfies `match`, skipping others (provisional responses,
    /// retransmissions); nil if none came within `timeout`.
    public func first(timeout: Duration = .seconds(5), where match: (RawSIPMessage) -> Bool) async throws -> RawSIPMessage? {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while ContinuousClock.now < deadline {
            if let message = try await receive(timeout: deadline - ContinuousClock.now), match(message) { return message }
        }
        return nil
    }

    /// Waits for the final response (>= 200) to `request` (same Call-ID, CSeq number and method).
    public func finalResponse(to request: RawSIPRequest, timeout: Duration = .seconds(5)) async throws -> RawSIPMessage? {
        try await first(timeout: timeout) { message in
            guard let code = message.statusCode, code >= 200 else { return false }
            return message.callID == request.callID && message.cseq?.number == request.cseq
                && message.cseq?.method == request.cseqMethod
        }
    }

    /// Sends `request` and waits for its final response.
    public func exchange(_ request: RawSIPRequest, timeout: Duration = .seconds(5)) async throws -> RawSIPMessage? {
        send(request)
        return try await finalResponse(to: request, timeout: timeout)
    }

    /// Sends `request` as a UDP client transaction does (RFC 3261 17.1.2.2: again after T1 = 500 ms,
    /// then at doubling intervals capped at T2 = 4 s) until its final response comes or `timeout`
    /// (Timer F, 64*T1) passes. For a target whose receive buffer may be full (after a flood, the
    /// kernel drops what arrives until the engine has read its backlog), where one datagram sent
    /// once proves nothing.
    public func exchangeRetransmitting(_ request: RawSIPRequest, timeout: Duration = .seconds(32)) async throws -> RawSIPMessage? {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        var interval = Duration.milliseconds(500)
        while ContinuousClock.now < deadline {
            send(request)
            let wait = min(interval, ContinuousClock.now.duration(to: deadline))
            if let response = try await finalResponse(to: request, timeout: wait) { return response }
            interval = min(interval * 2, .seconds(4))
        }
        return nil
    }

    /// Waits for a request of `method` from the target, skipping everything else.
    public func request(_ method: String, timeout: Duration = .seconds(5)) async throws -> RawSIPMessage? {
        try await first(timeout: timeout) { $0.method == method }
    }

    /// A NOTIFY of the presence subscription `subscribe` (received from the target) opened, from
    /// the notifier's side: to its Contact, in its dialog (`tag` is the notifier's, the one its
    /// 200 gave), carrying `pidf` as `application/pidf+xml`.
    public func presenceNotify(in subscribe: RawSIPMessage, tag: String, cseq: Int,
                               state: String = "active;expires=60", pidf: String) -> String {
        let target = subscribe.header("contact").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "<>")) } ?? ""
        return [
            "NOTIFY \(target) SIP/2.0",
            "Via: SIP/2.0/UDP 127.0.0.1:\(port);branch=\(newBranch())",
            "From: \(subscribe.header("to") ?? "");tag=\(tag)",
            "To: \(subscribe.header("from") ?? "")",
            "Call-ID: \(subscribe.callID ?? "")",
            "CSeq: \(cseq) NOTIFY",
            "Contact: <\(uri)>",
            "Max-Forwards: 70",
            "Event: presence",
            "Subscription-State: \(state)",
            "Content-Type: application/pidf+xml",
            "Content-Length: \(pidf.utf8.count)",
        ].joined(separator: "\r\n") + "\r\n\r\n" + pidf
    }

    /// A response to `request` (received from the target), carrying its Via headers, From, To,
    /// Call-ID and CSeq. `toTag` is added to a To without one; `cseqMethod` and `branch` replace
    /// the request's, for responses that do not fit the request they answer. `sdp` adds
    /// ``audioOffer(rtpPort:)``, `sdpBody` an SDP of the caller's.
    public func response(to request: RawSIPMessage, _ code: Int, reason: String = "Raw", toTag: String? = nil, sdp: Bool = false,
                         sdpBody: String? = nil, cseqMethod: String? = nil, branch: String? = nil) -> String {
        var lines = ["SIP/2.0 \(code) \(reason)"]
        for (name, value) in request.headers where ["via", "from", "to", "call-id", "cseq"].contains(name) {
            switch name {
            case "via" where branch != nil && lines.count == 1:
                let kept = value.components(separatedBy: ";").filter { !$0.hasPrefix("branch=") }
                lines.append("Via: " + (kept + ["branch=" + (branch ?? "")]).joined(separator: ";"))
            case "to" where toTag != nil && RawSIPMessage.tag(in: value) == nil:
                lines.append("To: \(value);tag=\(toTag ?? "")")
            case "cseq" where cseqMethod != nil:
                lines.append("CSeq: \(request.cseq?.number ?? 1) \(cseqMethod ?? "")")
            default:
                lines.append("\(RawSIPMessage.displayNames[name] ?? name): \(value)")
            }
        }
        lines.append("Contact: <\(uri)>")
        let body = sdpBody ?? (sdp ? Self.audioOffer() : "")
        if !body.isEmpty { lines.append("Content-Type: application/sdp") }
        lines.append("Content-Length: \(body.utf8.count)")
        return lines.joined(separator: "\r\n") + "\r\n\r\n" + body
    }

    /// A response to a request this peer's target never received: fresh branch, tags and Call-ID.
    public func strayResponse(_ code: Int, cseqMethod: String) -> String {
        [
            "SIP/2.0 \(code) Stray",
            "Via: SIP/2.0/UDP 127.0.0.1:\(target);branch=\(newBranch())",
            "From: <\(targetURI())>;tag=\(unique("tag"))",
            "To: <\(uri)>;tag=\(unique("tag"))",
            "Call-ID: \(unique("stray-"))",
            "CSeq: 1 \(cseqMethod)",
            "Contact: <\(uri)>",
            "Content-Length: 0",
        ].joined(separator: "\r\n") + "\r\n\r\n"
    }

    /// An SDP offer of PCMU audio to a port of this host where nothing listens.
    public static func audioOffer(rtpPort: Int = 9) -> String {
        """
        v=0\r
        o=raw 1 1 IN IP4 127.0.0.1\r
        s=-\r
        c=IN IP4 127.0.0.1\r
        t=0 0\r
        m=audio \(rtpPort) RTP/AVP 0\r
        a=rtpmap:0 PCMU/8000\r

        """
    }

    /// Sends an INVITE with a PCMU offer (``audioOffer(rtpPort:)``), waits for its final response
    /// and ACKs it. Returns the INVITE, for the dialog's next requests, and its answer (nil: none
    /// came within `timeout`).
    public func invite(timeout: Duration = .seconds(5)) async throws -> (request: RawSIPRequest, answer: RawSIPMessage?) {
        var invite = RawSIPRequest(peer: self, method: "INVITE")
        invite.contentType = "application/sdp"
        invite.body = Self.audioOffer()
        let answer = try await exchange(invite, timeout: timeout)
        if let answer { send(invite.ack(for: answer)) }
        return (invite, answer)
    }

    /// A whole call with no surprises (INVITE with a PCMU offer, 200, ACK, BYE, 200): the proof
    /// that the target still serves calls. Returns the INVITE's and the BYE's final status codes.
    /// The wait is for a call's setup by the target, which may be the instrumented pjsua app
    /// (AddressSanitizer and coverage) inside make test's ASan pass, beside every other test's
    /// children: that app was seen taking 1.7 and 8 s to create a call's media there
    /// (DNSForgeryTests' logs, 2026-12-06), and answering in 1.5 s alone; 5 s missed it twice.
    public func plainCall(timeout: Duration = .seconds(15)) async throws -> (invite: Int?, bye: Int?) {
        let (invite, reply) = try await invite(timeout: timeout)
        guard let answer = reply, let code = answer.statusCode else { return (nil, nil) }
        guard code / 100 == 2 else { return (code, nil) }
        let bye = invite.inDialog("BYE", cseq: invite.cseq + 1, toTag: answer.toTag)
        return (code, try await exchange(bye, timeout: timeout)?.statusCode)
    }
}

/// A SIP request written field by field, any of which can be made wrong on purpose.
public struct RawSIPRequest: Sendable {
    public var method: String
    public var requestURI: String
    public var branch: String
    public var callID: String
    public var fromTag: String
    public var toTag: String?
    public var cseq: Int
    /// The method in the CSeq header (the request's own method unless a test says otherwise).
    public var cseqMethod: String
    /// The Contact URI; nil: this host at the Via's port.
    public var contact: String?
    /// The transport named in the Via (`UDP`, `TCP`).
    public var transport: String
    public var contentType: String?
    public var body: String
    /// More header lines, as written (`Name: value`).
    public var extraHeaders: [String]

    /// A new out-of-dialog request from `peer` to its target (fresh branch, tag and Call-ID).
    public init(peer: RawSIPPeer, method: String, cseq: Int = 1) {
        self.init(method: method, target: peer.target, token: peer.unique(""), cseq: cseq)
        contact = peer.uri
    }

    /// A new out-of-dialog request to 127.0.0.1:`target` whose branch, From tag and Call-ID are
    /// made of `token` (unique per request).
    public init(method: String, target: Int, token: String, cseq: Int = 1) {
        self.method = method
        requestURI = "sip:raw@127.0.0.1:\(target)"
        branch = "z9hG4bK-raw-" + token
        callID = "raw-call-" + token
        fromTag = "tag" + token
        toTag = nil
        self.cseq = cseq
        cseqMethod = method
        contact = nil
        transport = "UDP"
        contentType = nil
        body = ""
        extraHeaders = []
    }

    /// The message, with a Via naming 127.0.0.1:`viaPort`.
    public func text(via viaPort: Int) -> String {
        var lines = [
            "\(method) \(requestURI) SIP/2.0",
            "Via: SIP/2.0/\(transport) 127.0.0.1:\(viaPort);rport;branch=\(branch)",
            "Max-Forwards: 70",
            "From: <sip:raw@127.0.0.1:\(viaPort)>;tag=\(fromTag)",
            "To: <\(requestURI)>" + (toTag.map { ";tag=\($0)" } ?? ""),
            "Call-ID: \(callID)",
            "CSeq: \(cseq) \(cseqMethod)",
            "Contact: <\(contact ?? "sip:raw@127.0.0.1:\(viaPort)")>",
        ] + extraHeaders
        if let contentType { lines.append("Content-Type: \(contentType)") }
        lines.append("Content-Length: \(body.utf8.count)")
        return lines.joined(separator: "\r\n") + "\r\n\r\n" + body
    }

    /// The ACK for `response` to this INVITE: in the INVITE's transaction (same branch) for a
    /// non-2xx answer, a new transaction for a 2xx (RFC 3261 17.1.1.3, 13.2.2.4).
    public func ack(for response: RawSIPMessage) -> RawSIPRequest {
        var ack = self
        ack.method = "ACK"
        ack.cseqMethod = "ACK"
        ack.toTag = response.toTag
        ack.contentType = nil
        ack.body = ""
        ack.extraHeaders = []
        if let code = response.statusCode, code / 100 == 2 { ack.branch = "z9hG4bK-ack-" + branch.dropFirst(7) }
        return ack
    }

    /// A new request in the same dialog (new branch; Call-ID and tags kept).
    public func inDialog(_ method: String, cseq: Int, toTag: String?) -> RawSIPRequest {
        var request = self
        request.method = method
        request.cseqMethod = method
        request.cseq = cseq
        request.toTag = toTag
        request.branch = "z9hG4bK-\(method.lowercased())\(cseq)-" + branch.dropFirst(7)
        request.contentType = nil
        request.body = ""
        request.extraHeaders = []
        return request
    }
}

/// A SIP message as received: its first line and its headers, read just well enough for tests.
public struct RawSIPMessage: Sendable, CustomStringConvertible {
    /// The whole datagram.
    public let text: String
    /// The request line or status line.
    public let startLine: String
    /// Every header in order (lower-case full names; compact forms expanded).
    public let headers: [(name: String, value: String)]

    public init(_ text: String) {
        self.text = text
        let head = text.components(separatedBy: "\r\n\r\n").first ?? text
        let lines = head.components(separatedBy: "\r\n")
        startLine = lines.first ?? ""
        headers = lines.dropFirst().compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            return (Self.compactForms[name] ?? name, line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
    }

    private static let compactForms = ["i": "call-id", "v": "via", "f": "from", "t": "to", "m": "contact",
                                       "l": "content-length", "c": "content-type"]

    static let displayNames = ["via": "Via", "from": "From", "to": "To", "call-id": "Call-ID", "cseq": "CSeq"]

    public var description: String { startLine }

    /// The status code of a response; nil for a request.
    public var statusCode: Int? {
        guard startLine.hasPrefix("SIP/2.0 ") else { return nil }
        return Int(startLine.dropFirst(8).prefix(3))
    }

    /// The method of a request; nil for a response.
    public var method: String? {
        statusCode == nil ? startLine.split(separator: " ").first.map(String.init) : nil
    }

    /// The first value of header `name` (case-insensitive), or nil.
    public func header(_ name: String) -> String? {
        headers.first { $0.name == name.lowercased() }?.value
    }

    public var callID: String? { header("call-id") }

    /// The CSeq number and method.
    public var cseq: (number: Int, method: String)? {
        guard let parts = header("cseq")?.split(separator: " "), parts.count == 2, let number = Int(parts[0]) else { return nil }
        return (number, String(parts[1]))
    }

    /// The methods an `Allow` header lists (empty without one).
    public var allowedMethods: [String] {
        header("allow")?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } ?? []
    }

    /// The tag of the To header, if any.
    public var toTag: String? { Self.tag(in: header("to")) }

    /// The tag of the From header, if any.
    public var fromTag: String? { Self.tag(in: header("from")) }

    /// The branch of the top Via.
    public var branch: String? {
        header("via")?.components(separatedBy: ";").first { $0.hasPrefix("branch=") }.map { String($0.dropFirst(7)) }
    }

    static func tag(in value: String?) -> String? {
        value?.components(separatedBy: ";").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("tag=") }
            .map { String($0.trimmingCharacters(in: .whitespaces).dropFirst(4)) }
    }
}
