import PJSIP

extension PJSUA {
    /// What was wrong with a peer's certificate: pjlib's verification flags
    /// (`pj_ssl_cert_verify_flag_t`), as the TLS backend reported them.
    public struct CertificateProblems: OptionSet, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }

        /// The issuer's certificate was not found (`PJ_SSL_CERT_EISSUER_NOT_FOUND`).
        public static let issuerNotFound = CertificateProblems(rawValue: UInt32(PJ_SSL_CERT_EISSUER_NOT_FOUND.rawValue))
        /// Not signed by a trusted authority, e.g. self-signed (`PJ_SSL_CERT_EUNTRUSTED`).
        public static let untrusted = CertificateProblems(rawValue: UInt32(PJ_SSL_CERT_EUNTRUSTED.rawValue))
        /// Expired or not yet valid (`PJ_SSL_CERT_EVALIDITY_PERIOD`).
        public static let validityPeriod = CertificateProblems(rawValue: UInt32(PJ_SSL_CERT_EVALIDITY_PERIOD.rawValue))
        /// Malformed (`PJ_SSL_CERT_EINVALID_FORMAT`).
        public static let invalidFormat = CertificateProblems(rawValue: UInt32(PJ_SSL_CERT_EINVALID_FORMAT.rawValue))
        /// Not usable for this purpose (`PJ_SSL_CERT_EINVALID_PURPOSE`).
        public static let invalidPurpose = CertificateProblems(rawValue: UInt32(PJ_SSL_CERT_EINVALID_PURPOSE.rawValue))
        /// The issuer does not match the certificate's signature (`PJ_SSL_CERT_EISSUER_MISMATCH`).
        public static let issuerMismatch = CertificateProblems(rawValue: UInt32(PJ_SSL_CERT_EISSUER_MISMATCH.rawValue))
        /// A revocation list could not be used (`PJ_SSL_CERT_ECRL_FAILURE`).
        public static let revocationListFailure = CertificateProblems(rawValue: UInt32(PJ_SSL_CERT_ECRL_FAILURE.rawValue))
        /// Revoked (`PJ_SSL_CERT_EREVOKED`).
        public static let revoked = CertificateProblems(rawValue: UInt32(PJ_SSL_CERT_EREVOKED.rawValue))
        /// The chain is too long (`PJ_SSL_CERT_ECHAIN_TOO_LONG`).
        public static let chainTooLong = CertificateProblems(rawValue: UInt32(PJ_SSL_CERT_ECHAIN_TOO_LONG.rawValue))
        /// Signed with a weak algorithm (`PJ_SSL_CERT_EWEAK_SIGNATURE`).
        public static let weakSignature = CertificateProblems(rawValue: UInt32(PJ_SSL_CERT_EWEAK_SIGNATURE.rawValue))
        /// Names neither the host we connected to in its subjectAltName nor in its common name
        /// (`PJ_SSL_CERT_EIDENTITY_NOT_MATCH`).
        public static let nameMismatch = CertificateProblems(rawValue: UInt32(PJ_SSL_CERT_EIDENTITY_NOT_MATCH.rawValue))
        /// Any other failure (`PJ_SSL_CERT_EUNKNOWN`).
        public static let unknown = CertificateProblems(rawValue: UInt32(bitPattern: Int32(truncatingIfNeeded: Int64(PJ_SSL_CERT_EUNKNOWN.rawValue))))

        private static let names: [(CertificateProblems, String)] = [
            (.issuerNotFound, "issuer not found"), (.untrusted, "untrusted"), (.validityPeriod, "expired or not yet valid"),
            (.invalidFormat, "invalid format"), (.invalidPurpose, "invalid purpose"), (.issuerMismatch, "issuer mismatch"),
            (.revocationListFailure, "revocation list failure"), (.revoked, "revoked"), (.chainTooLong, "chain too long"),
            (.weakSignature, "weak signature"), (.nameMismatch, "name mismatch"), (.unknown, "unknown"),
        ]

        public var description: String {
            let named = Self.names.filter { contains($0.0) }.map(\.1)
            return named.isEmpty ? (rawValue == 0 ? "none" : "0x\(String(rawValue, radix: 16))") : named.joined(separator: ", ")
        }

        /// The error a refused certificate with these problems is reported as: the most
        /// fundamental problem names it (an untrusted certificate is that, whatever its name or
        /// dates say).
        @_spi(MediaHooks) public func error(remote: String) -> PJSUAError {
            let code: PJSUAError.Code
            if !intersection([.untrusted, .issuerNotFound, .issuerMismatch]).isEmpty {
                code = .certificateUntrusted
            } else if contains(.validityPeriod) {
                code = .certificateExpired
            } else if contains(.nameMismatch) {
                code = .certificateNameMismatch
            } else {
                code = .certificateRejected
            }
            return PJSUAError(code, "TLS certificate of \(remote) refused: \(self)", status: PJSUAError.certificateVerificationStatus)
        }
    }

    /// A TLS connection was set up or refused (`on_transport_state` with `pjsip_tls_state_info`).
    public struct TLSConnection: Sendable, Hashable, CustomStringConvertible {
        /// The peer, `host:port`.
        public let remote: String
        /// Whether we connected out (as a TLS client) rather than accepted.
        public let isOutgoing: Bool
        /// Whether the connection is up (false: refused, or closed).
        public let isConnected: Bool
        /// What verification found wrong with the peer's certificate (empty when it verified, or
        /// when the peer presented none).
        public let problems: CertificateProblems
        /// The peer certificate's subject common name, when it presented one.
        public let peerCommonName: String?
        /// Why the connection was refused or failed (nil when it came up, or the peer closed it);
        /// for a refused certificate, a
        /// ``PJSUAError/Code/certificateUntrusted``, ``PJSUAError/Code/certificateExpired``,
        /// ``PJSUAError/Code/certificateNameMismatch`` or ``PJSUAError/Code/certificateRejected``.
        public let error: PJSUAError?

        public var description: String {
            var text = "TLS \(isOutgoing ? "to" : "from") \(remote) \(isConnected ? "connected" : "disconnected")"
            if let peerCommonName { text += " (CN=\(peerCommonName))" }
            if !problems.isEmpty { text += ", certificate: \(problems)" }
            if let error { text += ": \(error)" }
            return text
        }
    }
}

extension PJSUA.SIPStatus {
    /// Why a TLS certificate was refused, when that is why this status came about: pjsip ends a
    /// request whose TLS connection was refused with `503` and the text of
    /// `PJSIP_TLS_ECERTVERIF`. The error is the engine's most recent refusal (reported by
    /// ``PJSUA/Event/tlsConnection(_:)``) when the engine received the status, and stays with
    /// the status. nil otherwise, and for a status the app made.
    public var certificateError: PJSUAError? { certificateRefusal }
}
