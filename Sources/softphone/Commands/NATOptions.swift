import Foundation
import SwiftPJSUA

/// `--stun HOST[:PORT][,HOST[:PORT]...]`, `--ice`, `--turn HOST[:PORT] --turn-user U
/// --turn-password-env VAR [--turn-transport udp|tcp|tls]`: NAT traversal for the engine (every
/// account). The TURN password, like the SIP one, never comes from argv.
struct NATOptions {
    static let valued: Set<String> = ["stun", "turn", "turn-user", "turn-password-env", "turn-transport"]
    static let flags: Set<String> = ["ice"]
    static let usage = "[--stun HOST[:PORT],...] [--ice] [--turn HOST[:PORT] --turn-user U --turn-password-env VAR [--turn-transport udp|tcp|tls]]"

    var nat = PJSUA.NATTraversal()

    init(_ arguments: Arguments) throws(UsageError) {
        if let servers = arguments.string("stun") {
            nat.stunServers = servers.split(separator: ",").map { String($0) }
            guard !nat.stunServers.isEmpty else { throw UsageError("--stun needs at least one server") }
        }
        if arguments.has("ice") { nat.ice = PJSUA.ICEConfiguration() }
        guard let server = arguments.string("turn") else {
            for name in ["turn-user", "turn-password-env", "turn-transport"] where arguments.string(name) != nil {
                throw UsageError("--\(name) needs --turn")
            }
            return
        }
        guard nat.ice != nil else { throw UsageError("--turn relays ICE candidates: add --ice") }
        guard let user = arguments.string("turn-user") else { throw UsageError("--turn needs --turn-user") }
        guard let variable = arguments.string("turn-password-env") else { throw UsageError("--turn needs --turn-password-env VAR") }
        guard let password = ProcessInfo.processInfo.environment[variable] else {
            throw UsageError("environment variable \(variable) (from --turn-password-env) is not set")
        }
        let transportName = arguments.string("turn-transport") ?? "udp"
        guard let transport = PJSUA.TURNConfiguration.Transport(rawValue: transportName) else {
            throw UsageError("--turn-transport must be udp, tcp or tls, got '\(transportName)'")
        }
        nat.turn = PJSUA.TURNConfiguration(server: server, transport: transport, username: user, password: password)
    }
}
