import CPJSUASupport

extension PJSUA {
    /// The fixed limits of the linked PJSIP build, as its `config_site.h` set them: what pjsua
    /// refuses past (with ``PJSUAError/Code/tooMany``) differs between this project's Linux build
    /// and swift-pjsip's iOS binary, so code that sizes anything by them reads them here.
    ///
    /// Read from the headers the library was built with (through the `CPJSUASupport` C target),
    /// never hard-coded: 256 calls and 64 players on the Linux build, 8 calls and 4 players in
    /// the iOS binary.
    public struct BuildLimits: Sendable, Hashable {
        /// The most calls at once, both directions (`PJSUA_MAX_CALLS`).
        public let maxCalls: Int
        /// The most accounts (`PJSUA_MAX_ACC`).
        public let maxAccounts: Int
        /// The conference bridge's ports: calls, players, recorders, frame ports (`PJSUA_MAX_CONF_PORTS`).
        public let maxConferencePorts: Int
        /// The most WAV players open at once (`PJSUA_MAX_PLAYERS`).
        public let maxPlayers: Int
        /// The most WAV recorders open at once (`PJSUA_MAX_RECORDERS`).
        public let maxRecorders: Int
        /// The most buddies (presence subscriptions) (`PJSUA_MAX_BUDDIES`).
        public let maxBuddies: Int
        /// The size of PJSIP's transaction table (`PJSIP_MAX_TSX_COUNT`).
        public let maxTransactions: Int
        /// The size of PJSIP's dialog table (`PJSIP_MAX_DIALOG_COUNT`).
        public let maxDialogs: Int
        /// The longest SIP message PJSIP receives or sends, in bytes (`PJSIP_MAX_PKT_LEN`).
        public let maxPacketLength: Int
        /// The sockets PJSIP's ioqueue can watch at once (`PJ_IOQUEUE_MAX_HANDLES`): SIP
        /// connections and each call's RTP and RTCP; a closed socket's slot comes back later.
        public let maxIOQueueHandles: Int
        /// The RTP payload type of RFC 4733 telephone events in offers (`PJMEDIA_RTP_PT_TELEPHONE_EVENTS`).
        public let telephoneEventPayloadType: Int
    }

    /// The linked PJSIP build's limits (its `config_site.h`).
    public static let buildLimits = BuildLimits(
        maxCalls: Int(cpjsua_max_calls), maxAccounts: Int(cpjsua_max_acc),
        maxConferencePorts: Int(cpjsua_max_conf_ports), maxPlayers: Int(cpjsua_max_players),
        maxRecorders: Int(cpjsua_max_recorders), maxBuddies: Int(cpjsua_max_buddies),
        maxTransactions: Int(cpjsua_max_tsx_count), maxDialogs: Int(cpjsua_max_dialog_count),
        maxPacketLength: Int(cpjsua_max_pkt_len), maxIOQueueHandles: Int(cpjsua_ioqueue_max_handles),
        telephoneEventPayloadType: Int(cpjsua_rtp_pt_telephone_events)
    )
}
