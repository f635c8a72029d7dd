import SwiftPJSUA

/// `--listen <udp|tcp|tls>:<host>:<port>`, e.g. `udp:127.0.0.1:5060`, `tcp:[::1]:0` or `tls:127.0.0.1:5061`.
struct ListenAddress: Equatable {
    var transport: PJSUA.TransportKind
    var host: String
    var port: Int

    /// UDP on a free loopback port: `answer`'s and `demo`'s listener without `--listen` (a server
    /// is exposed beyond this host only when asked).
    static let loopback = ListenAddress(transport: .udp, host: "127.0.0.1", port: 0)

    init(transport: PJSUA.TransportKind, host: String, port: Int) {
        self.transport = transport
        self.host = host
        self.port = port
    }

    init(parsing text: String) throws(UsageError) {
        let bad = UsageError("--listen must look like udp:127.0.0.1:5060, tcp:[::1]:0 or tls:127.0.0.1:5061, got '\(text)'")
        guard let firstColon = text.firstIndex(of: ":"), let lastColon = text.lastIndex(of: ":"), firstColon < lastColon else { throw bad }
        guard let transport = PJSUA.TransportKind(rawValue: String(text[..<firstColon]).lowercased()) else { throw bad }
        var host = String(text[text.index(after: firstColon)..<lastColon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, let port = Int(text[text.index(after: lastColon)...]), (0...65535).contains(port) else { throw bad }
        self.init(transport: transport, host: host, port: port)
    }

    /// The `--listen` address of a command that sends requests to `targets` (its destination, its
    /// registrar). Without `--listen`: TLS when a target needs it (``needsTLS(_:)``), so a `sips:`
    /// call needs no listener invented for it, UDP otherwise, on a free port of the address
    /// ``bindHost(reaching:)`` picks: loopback when every target is on this host, every interface
    /// when one is not (a loopback socket cannot reach another host). A `--listen` that is not TLS
    /// cannot reach a TLS target: a usage error rather than a call that fails.
    init(_ arguments: Arguments, reaching targets: [String?]) throws(UsageError) {
        let targets = targets.compactMap { $0 }
        let tlsTarget = targets.first(where: Self.needsTLS)
        guard let text = arguments.string("listen") else {
            self.init(transport: tlsTarget == nil ? .udp : .tls, host: Self.bindHost(reaching: targets), port: 0)
            return
        }
        try self.init(parsing: text)
        if let tlsTarget, transport != .tls {
            throw UsageError("\(tlsTarget) needs TLS, which --listen \(text) cannot carry: leave out --listen (a TLS transport on a free port is opened) or use --listen tls:<host>:<port>")
        }
    }

    /// Whether `uri` is reached only over TLS: a `sips:` URI, or a `sip:` URI with the parameter
    /// `transport=tls` (RFC 3261 section 19.1.1). Also accepts a name-addr (`"Bob" <sips:bob@host>`).
    static func needsTLS(_ uri: String) -> Bool {
        let (scheme, hostPart) = split(uri)
        if scheme == "sips" { return true }
        return scheme == "sip" && hostPart.split(separator: ";").dropFirst().contains("transport=tls")
    }

    /// The address a command without `--listen` binds to reach `targets`: `127.0.0.1` (`::1` when a
    /// target is an IPv6 literal) when every target's host is this host's loopback (`localhost`,
    /// `127.0.0.0/8`, `::1`) or there is no target; `0.0.0.0` (`::`) otherwise, where PJSIP puts the
    /// interface's address in Via and Contact.
    static func bindHost(reaching targets: [String]) -> String {
        let hosts = targets.map(Self.host(of:))
        let ipv6 = hosts.contains { $0.contains(":") }
        let local = hosts.allSatisfy { host in
            host == "localhost" || host == "::1" || host.split(separator: ".").first == "127"
        }
        switch (ipv6, local) {
        case (false, true): return "127.0.0.1"
        case (true, true): return "::1"
        case (false, false): return "0.0.0.0"
        case (true, false): return "::"
        }
    }

    /// The host part of a SIP URI or name-addr (`"Bob" <sip:bob@[::1]:5060;lr>` gives `::1`),
    /// lowercased; the text after the scheme when it has no recognisable host.
    static func host(of uri: String) -> String {
        var text = split(uri).hostPart
        if let semicolon = text.firstIndex(of: ";") { text = text[..<semicolon] }
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            return String(text[text.index(after: text.startIndex)..<close])
        }
        if let colon = text.firstIndex(of: ":") { text = text[..<colon] }
        return String(text)
    }

    /// A SIP URI or name-addr (the URI between `<` and `>`), lowercased, split where
    /// ``needsTLS(_:)`` and ``host(of:)`` read it: the scheme, and what follows any `user@` up to
    /// the `?headers` (host, port, then the URI parameters, RFC 3261 section 19.1.1). No scheme
    /// gives an empty one and the whole text.
    private static func split(_ uri: String) -> (scheme: Substring, hostPart: Substring) {
        var text = Substring(uri.lowercased())
        if let open = text.firstIndex(of: "<"), let close = text[open...].firstIndex(of: ">") {
            text = text[text.index(after: open)..<close]
        }
        guard let colon = text.firstIndex(of: ":") else { return ("", text) }
        let scheme = text[..<colon]
        text = text[text.index(after: colon)...]
        if let question = text.firstIndex(of: "?") { text = text[..<question] }
        if let at = text.lastIndex(of: "@") { text = text[text.index(after: at)...] }
        return (scheme, text)
    }

    var isIPv6: Bool { host.contains(":") }

    /// The engine configuration for this address.
    func configuration(audio: PJSUA.AudioDeviceMode = .null) -> PJSUA.Configuration {
        PJSUA.Configuration(port: port, transport: transport, bindAddress: host, ipv6: isIPv6, userAgent: "swift-pjsua softphone",
                            audioDevice: audio)
    }
}
