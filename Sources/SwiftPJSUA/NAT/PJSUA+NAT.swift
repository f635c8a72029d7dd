import CPJSUASupport
import PJSIP

extension PJSUA {
    /// The kind of an ICE candidate (RFC 8445 section 5.1.1.1).
    public enum CandidateType: String, Sendable, Hashable {
        /// An address of a local interface.
        case host
        /// The public address a STUN server saw (server-reflexive).
        case serverReflexive
        /// An address the peer saw during the checks (peer-reflexive).
        case peerReflexive
        /// An address on a TURN relay.
        case relayed
    }

    /// Where a call's audio flows: the addresses in use and, with ICE, the candidate pair chosen.
    public struct MediaPath: Sendable, Hashable, CustomStringConvertible {
        /// Whether the media transport is ICE.
        public let usesICE: Bool
        /// Whether ICE finished its checks with a working pair (always true without ICE).
        public let isEstablished: Bool
        /// The kind of the local candidate of the chosen pair (RTP), with ICE.
        public let localCandidate: CandidateType?
        /// The kind of the remote candidate of the chosen pair (RTP), with ICE.
        public let remoteCandidate: CandidateType?
        /// The local address audio is sent from, e.g. `127.0.0.1:4000` (with ICE, the chosen
        /// local candidate: a relayed one is the TURN server's allocation).
        public let localAddress: String
        /// The remote address audio is sent to.
        public let remoteAddress: String

        public var description: String {
            let pair = usesICE ? " ICE \(localCandidate?.rawValue ?? "?") -> \(remoteCandidate?.rawValue ?? "?")\(isEstablished ? "" : " (checking)")" : ""
            return "\(localAddress) -> \(remoteAddress)\(pair)"
        }
    }

    /// Where a call's audio flows now.
    ///
    /// Drives `pjsua_call_get_med_transport_info()`.
    public func mediaPath(_ call: Call) throws -> MediaPath {
        guard let index = try withLiveCallInfo(call, { info in audioMedia(info).first.map { UInt32($0.index) } }) else {
            throw PJSUAError(.mediaNotActive, "\(call) has no audio stream")
        }
        var info = pjmedia_transport_info()
        pjmedia_transport_info_init(&info)
        try check(pjsua_call_get_med_transport_info(call.slot, index, &info), "pjsua_call_get_med_transport_info")
        let local = Self.print(&info.sock_info.rtp_addr_name)
        guard let raw = pjmedia_transport_info_get_spc_info(&info, PJMEDIA_TRANSPORT_TYPE_ICE) else {
            return MediaPath(usesICE: false, isEstablished: true, localCandidate: nil, remoteCandidate: nil,
                             localAddress: local, remoteAddress: Self.print(&info.src_rtp_name))
        }
        var localType: Int32 = 0, remoteType: Int32 = 0
        var localAddress = [CChar](repeating: 0, count: 64), remoteAddress = [CChar](repeating: 0, count: 64)
        let established = cpjsua_ice_chosen_pair(raw, &localType, &remoteType, &localAddress, &remoteAddress, 64) == 1
        guard established else {
            return MediaPath(usesICE: true, isEstablished: false, localCandidate: nil, remoteCandidate: nil,
                             localAddress: local, remoteAddress: Self.print(&info.src_rtp_name))
        }
        return MediaPath(usesICE: true, isEstablished: true,
                         localCandidate: CandidateType(pj_ice_cand_type(UInt32(localType))),
                         remoteCandidate: CandidateType(pj_ice_cand_type(UInt32(remoteType))),
                         localAddress: Self.string(localAddress), remoteAddress: Self.string(remoteAddress))
    }

    private static func string(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `address:port` (IPv6 in brackets), or "" for an unset address.
    private static func print(_ address: inout pj_sockaddr) -> String {
        guard pj_sockaddr_has_addr(&address) != 0 else { return "" }
        var buffer = [CChar](repeating: 0, count: 64)
        let length = buffer.withUnsafeMutableBufferPointer { out in
            pj_sockaddr_print(&address, out.baseAddress, Int32(out.count), 3)
        }
        return length == nil ? "" : string(buffer)
    }
}

extension PJSUA.CandidateType {
    init?(_ type: pj_ice_cand_type) {
        switch type {
        case PJ_ICE_CAND_TYPE_HOST: self = .host
        case PJ_ICE_CAND_TYPE_SRFLX: self = .serverReflexive
        case PJ_ICE_CAND_TYPE_PRFLX: self = .peerReflexive
        case PJ_ICE_CAND_TYPE_RELAYED: self = .relayed
        default: return nil
        }
    }
}
