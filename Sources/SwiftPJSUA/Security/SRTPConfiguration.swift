import CPJSUASupport

extension PJSUA {
    /// Whether calls encrypt their media with SRTP (RFC 3711), how keys are exchanged, and what
    /// signalling the keys may travel over.
    ///
    /// Set for the whole engine with ``Configuration/srtp`` (it is what the local account and
    /// every account without its own setting use) or per account with
    /// ``Account/Configuration/srtp``. Drives `pjsua_acc_config.use_srtp`,
    /// `srtp_secure_signaling` and `srtp_opt.keying`.
    public struct SRTPConfiguration: Sendable, Hashable, CustomStringConvertible {
        /// Whether SRTP is used.
        public enum Mode: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
            /// Plain RTP only; an offer that requires SRTP (`RTP/SAVP` only) is refused with 488
            /// (`PJMEDIA_SRTP_DISABLED`).
            case off
            /// SRTP when the peer does it, plain RTP otherwise (`PJMEDIA_SRTP_OPTIONAL`): offers
            /// `RTP/AVP` with crypto attributes.
            case optional
            /// SRTP or no call (`PJMEDIA_SRTP_MANDATORY`): offers `RTP/SAVP`; a peer without
            /// SRTP answers 488 Not Acceptable Here, and a plain offer to us is refused with 488.
            case mandatory

            public var description: String { rawValue }
        }

        /// How SRTP keys are agreed.
        public enum Keying: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
            /// SDES (RFC 4568): keys in `a=crypto` lines of the SDP, readable by whoever reads
            /// the signalling, hence ``SRTPConfiguration/secureSignaling``.
            case sdes
            /// DTLS-SRTP (RFC 5764): keys agreed by a DTLS handshake on the media path. Only when
            /// the PJSIP build has it (``PJSUA/supportsDTLSSRTP``: our Linux build has it; the iOS binary is unverified).
            case dtls

            public var description: String { rawValue }
        }

        /// What signalling SDES keys may be exchanged over (`srtp_secure_signaling`).
        public enum SignalingRequirement: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
            /// Any transport, plain UDP and TCP included: anyone who sees the SIP messages can
            /// decrypt the media (0).
            case any
            /// TLS to the next hop: a `;transport=tls` or `sips:` destination or route (1,
            /// pjsua's default).
            case tls
            /// TLS end to end: `sips:` URIs only (2).
            case sips

            public var description: String { rawValue }

            var level: Int32 {
                switch self {
                case .any: 0
                case .tls: 1
                case .sips: 2
                }
            }
        }

        /// Whether SRTP is used; ``Mode/off`` by default.
        public var mode: Mode
        /// The keying methods offered, in order of preference; SDES by default.
        public var keying: [Keying]
        /// What signalling SDES keys may travel over; TLS by default. With ``Mode/mandatory``, a
        /// call over less is refused (`PJSIP_ESESSIONINSECURE`, 488); with ``Mode/optional`` it
        /// goes unencrypted.
        public var secureSignaling: SignalingRequirement

        /// Creates an SRTP configuration (by default: off, SDES, keys only over TLS).
        public init(mode: Mode = .off, keying: [Keying] = [.sdes], secureSignaling: SignalingRequirement = .tls) {
            self.mode = mode
            self.keying = keying
            self.secureSignaling = secureSignaling
        }

        /// No SRTP.
        public static let off = SRTPConfiguration()

        public var description: String {
            "SRTP(\(mode), keying: \(keying.map(\.rawValue).joined(separator: ",")), signaling: \(secureSignaling))"
        }

        func validate() throws(PJSUAError) {
            guard mode == .off || !keying.isEmpty else {
                throw PJSUAError(.invalidArgument, "SRTP \(mode) needs at least one keying method")
            }
            guard Set(keying).count == keying.count else {
                throw PJSUAError(.invalidArgument, "SRTP keying methods must not repeat: \(keying)")
            }
            if keying.contains(.dtls) && !PJSUA.supportsDTLSSRTP {
                throw PJSUAError(.unsupported, "DTLS-SRTP is not in this PJSIP build (PJMEDIA_SRTP_HAS_DTLS is 0); use SDES")
            }
        }
    }

    /// Whether the linked PJSIP has DTLS-SRTP (`PJMEDIA_SRTP_HAS_DTLS`). Our Linux build: yes.
    public static let supportsDTLSSRTP = cpjsua_srtp_has_dtls != 0
}
