import SwiftPJSUA

/// `--listen <udp|tcp|tls>:<host>:<port>`, e.g. `udp:127.0.0.1:5060`, `tcp:[::1]:0` or `tls:127.0.0.1:5061`.
struct ListenAddress: Equatable {
    var transport: PJSUA.TransportKind
    var host: String
    var port: Int

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

    var isIPv6: Bool { host.contains(":") }

    /// The engine configuration for this address.
    func configuration(audio: PJSUA.AudioDeviceMode = .null) -> PJSUA.Configuration {
        PJSUA.Configuration(port: port, transport: transport, bindAddress: host, ipv6: isIPv6, userAgent: "swift-pjsua softphone",
                            audioDevice: audio)
    }
}
