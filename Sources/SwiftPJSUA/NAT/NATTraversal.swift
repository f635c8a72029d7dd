import PJSIP

extension PJSUA {
    /// How calls get through NAT: STUN servers, ICE and TURN for media (RFC 8489, 8445, 8656).
    ///
    /// Set for the whole engine in ``Configuration/nat``; an account can override ICE and TURN
    /// (``Account/Configuration/ice``, ``Account/Configuration/turn``) or leave STUN out
    /// (``Account/Configuration/usesSTUN``). All off by default: on a LAN or with a SIP server
    /// that anchors media they only add set-up time.
    ///
    /// ```swift
    /// var configuration = PJSUA.Configuration()
    /// configuration.nat.stunServers = ["stun.example.com:3478"]
    /// configuration.nat.ice = PJSUA.ICEConfiguration()
    /// configuration.nat.turn = PJSUA.TURNConfiguration(server: "turn.example.com:3478", username: "alice",
    ///                                                    password: turnPassword)
    /// ```
    public struct NATTraversal: Sendable, Hashable {
        /// STUN servers as `host` or `host:port` (3478 by default), tried in order to learn the
        /// public address of SIP and media sockets (`pjsua_config.stun_srv`); at most 8.
        public var stunServers: [String] = []
        /// ICE for call media; nil turns it off.
        public var ice: ICEConfiguration?
        /// A TURN relay for call media (needs ``ice``); nil for none.
        public var turn: TURNConfiguration?

        /// No STUN, ICE or TURN.
        public init(stunServers: [String] = [], ice: ICEConfiguration? = nil, turn: TURNConfiguration? = nil) {
            self.stunServers = stunServers
            self.ice = ice
            self.turn = turn
        }

        /// Puts the engine-wide settings into pjsua's configuration: STUN in `pjsua_config`,
        /// ICE and TURN in `pjsua_media_config` (which accounts follow unless they override).
        func apply(to config: inout pjsua_config, media: inout pjsua_media_config, _ arena: CStringArena) {
            withUnsafeMutableBytes(of: &config.stun_srv) { raw in
                let servers = raw.bindMemory(to: pj_str_t.self)
                for (index, server) in stunServers.enumerated() where index < servers.count {
                    servers[index] = arena.pj(server)
                }
            }
            config.stun_srv_cnt = UInt32(stunServers.count)
            if let ice {
                var settings = pjsua_ice_config()
                pjsua_ice_config_from_media_config(nil, &settings, &media)
                ice.apply(to: &settings)
                media.enable_ice = settings.enable_ice
                media.ice_max_host_cands = settings.ice_max_host_cands
                media.ice_opt = settings.ice_opt
                media.ice_no_rtcp = settings.ice_no_rtcp
            }
            if let turn {
                var settings = pjsua_turn_config()
                pjsua_turn_config_from_media_config(nil, &settings, &media)
                turn.apply(to: &settings, arena)
                media.enable_turn = settings.enable_turn
                media.turn_server = settings.turn_server
                media.turn_conn_type = settings.turn_conn_type
                media.turn_auth_cred = settings.turn_auth_cred
            }
        }

        func validate() throws(PJSUAError) {
            guard stunServers.count <= 8 else {
                throw PJSUAError(.invalidArgument, "at most 8 STUN servers are supported, got \(stunServers.count)")
            }
            for server in stunServers { try Validation.serverAddress(server, what: "STUN server") }
            try ice?.validate()
            try turn?.validate()
            if turn != nil && ice == nil {
                throw PJSUAError(.invalidArgument, "a TURN server is used through ICE: set ice too")
            }
        }
    }

    /// ICE (RFC 8445) for call media: candidates are gathered and checked, and the call's media
    /// takes the best pair that works.
    public struct ICEConfiguration: Sendable, Hashable {
        /// Trickle ICE (RFC 8838): send candidates as they are found instead of all at once.
        public enum Trickle: Sendable, Hashable {
            /// All candidates in the offer and answer (the default).
            case off
            /// Candidates trickled when the peer supports it; the offer still waits for them.
            case half
            /// Candidates trickled when the peer supports it; the offer goes at once.
            case full
        }

        /// The most host (local interface) candidates per component; nil for all of them,
        /// 0 for none, which leaves only server-reflexive and relayed candidates (forces TURN).
        public var maxHostCandidates: Int?
        /// Trickle ICE.
        public var trickle: Trickle
        /// Aggressive nomination (RFC 5245): the first working pair is used at once.
        public var aggressiveNomination: Bool
        /// Whether RTCP gets its own ICE component.
        public var rtcp: Bool

        /// ICE with pjsua's defaults: every host candidate, no trickle, aggressive nomination, RTCP.
        public init(maxHostCandidates: Int? = nil, trickle: Trickle = .off, aggressiveNomination: Bool = true, rtcp: Bool = true) {
            self.maxHostCandidates = maxHostCandidates
            self.trickle = trickle
            self.aggressiveNomination = aggressiveNomination
            self.rtcp = rtcp
        }

        func validate() throws(PJSUAError) {
            if let count = maxHostCandidates, !(0...16).contains(count) {
                throw PJSUAError(.invalidArgument, "ICE maxHostCandidates \(count) is out of range 0...16")
            }
        }

        func apply(to config: inout pjsua_ice_config) {
            config.enable_ice = 1
            config.ice_max_host_cands = Int32(maxHostCandidates ?? -1)
            config.ice_no_rtcp = rtcp ? 0 : 1
            config.ice_opt.aggressive = aggressiveNomination ? 1 : 0
            config.ice_opt.trickle = switch trickle {
            case .off: PJ_ICE_SESS_TRICKLE_DISABLED
            case .half: PJ_ICE_SESS_TRICKLE_HALF
            case .full: PJ_ICE_SESS_TRICKLE_FULL
            }
        }
    }

    /// A TURN server (RFC 8656) that relays call media, with long-term credentials. The password
    /// never appears in `description`, `dump` or logs.
    public struct TURNConfiguration: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
        /// How the engine talks to the TURN server.
        public enum Transport: String, Sendable, Hashable {
            case udp, tcp, tls
        }

        /// The server as `host` or `host:port` (3478 by default).
        public var server: String
        /// How the engine reaches it.
        public var transport: Transport
        /// The long-term credential's user name.
        public var username: String
        /// The long-term credential's password.
        public var password: String

        /// Creates a TURN configuration.
        public init(server: String, transport: Transport = .udp, username: String, password: String) {
            self.server = server
            self.transport = transport
            self.username = username
            self.password = password
        }

        public var description: String {
            "TURN \(transport.rawValue):\(server) as \(username) (password <redacted>)"
        }

        public var customMirror: Mirror {
            Mirror(self, children: ["server": server, "transport": transport, "username": username, "password": "<redacted>"])
        }

        func validate() throws(PJSUAError) {
            try Validation.serverAddress(server, what: "TURN server")
            try Validation.headerValue(username, what: "TURN username", maxLength: 255)
            guard password.utf8.count <= 255, !password.utf8.contains(0) else {
                throw PJSUAError(.invalidArgument, "TURN password must be at most 255 bytes with no NUL")
            }
        }

        func apply(to config: inout pjsua_turn_config, _ arena: CStringArena) {
            config.enable_turn = 1
            config.turn_server = arena.pj(server)
            config.turn_conn_type = switch transport {
            case .udp: PJ_TURN_TP_UDP
            case .tcp: PJ_TURN_TP_TCP
            case .tls: PJ_TURN_TP_TLS
            }
            config.turn_auth_cred.type = PJ_STUN_AUTH_CRED_STATIC
            config.turn_auth_cred.data.static_cred.realm = arena.pj("*")
            config.turn_auth_cred.data.static_cred.username = arena.pj(username)
            config.turn_auth_cred.data.static_cred.data_type = PJ_STUN_PASSWD_PLAIN
            config.turn_auth_cred.data.static_cred.data = arena.pj(password)
        }
    }

    /// An account's choice for a setting the engine also has: the engine's, none, or its own.
    public enum AccountOverride<Value: Sendable & Hashable>: Sendable, Hashable, CustomStringConvertible {
        /// What the engine's ``Configuration/nat`` says.
        case engineDefault
        /// Off for this account.
        case off
        /// This account's own.
        case custom(Value)

        public var description: String {
            switch self {
            case .engineDefault: "engine default"
            case .off: "off"
            case let .custom(value): "\(value)"
            }
        }
    }
}
