import SwiftPJSUA

/// `--listen <udp|tcp|tls>:<host>:<port>`, e.g. `udp:127.0.0.1:5060`, `tcp:[::1]:0` or `tls:127.0.0.1:5061`.
struct ListenAddress: Equatable {
    var transport: PJSUA.TransportKind
    var host: String
    var port: Int

    static let loopback = ListenAddress(transport: .udp, host: "127.0.0.1", port: 0)
    /// The transport a client opens to reach a TLS destination without `--listen`: TLS on a free
    /// loopback port. It carries the client's connections (and listens, as every PJSIP TLS
    /// transport does, presenting `--cert` if one is given).
    static let tlsClient = ListenAddress(transport: .tls, host: "127.0.0.1", port: 0)

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
    /// registrar). Without `--listen`: ``tlsClient`` when a target needs TLS (``needsTLS(_:)``),
    /// so a `sips:` call needs no listener invented for it, ``loopback`` otherwise. A `--listen`
    /// that is not TLS cannot reach a TLS target: a usage error rather than a call that fails.
    init(_ arguments: Arguments, reaching targets: [String?]) throws(UsageError) {
        let tlsTarget = targets.compactMap { $0 }.first(where: Self.needsTLS)
        guard let text = arguments.string("listen") else {
            self = tlsTarget == nil ? .loopback : .tlsClient
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
        var text = Substring(uri.lowercased())
        if let open = text.firstIndex(of: "<"), let close = text[open...].firstIndex(of: ">") {
            text = text[text.index(after: open)..<close]
        }
        if text.hasPrefix("sips:") { return true }
        guard text.hasPrefix("sip:") else { return false }
        // URI parameters follow the host (after any user@) and come before the ?headers.
        if let at = text.lastIndex(of: "@") { text = text[text.index(after: at)...] }
        if let question = text.firstIndex(of: "?") { text = text[..<question] }
        return text.split(separator: ";").dropFirst().contains("transport=tls")
    }

    var isIPv6: Bool { host.contains(":") }

    /// The engine configuration for this address.
    func configuration(audio: PJSUA.AudioDeviceMode = .null) -> PJSUA.Configuration {
        PJSUA.Configuration(port: port, transport: transport, bindAddress: host, ipv6: isIPv6, userAgent: "swift-pjsua softphone",
                            audioDevice: audio)
    }
}
