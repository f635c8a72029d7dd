import PJSIP

extension PJSUA {
    /// The INVITE session state of a call (`pjsip_inv_state`).
    public enum CallState: String, Sendable, Hashable, CustomStringConvertible {
        /// Before the INVITE is sent or received (`PJSIP_INV_STATE_NULL`).
        case null = "NULL"
        /// The INVITE was sent (`PJSIP_INV_STATE_CALLING`).
        case calling = "CALLING"
        /// An INVITE was received (`PJSIP_INV_STATE_INCOMING`).
        case incoming = "INCOMING"
        /// A provisional response with a to-tag was sent or received (`PJSIP_INV_STATE_EARLY`).
        case early = "EARLY"
        /// 2xx sent or received, waiting for ACK (`PJSIP_INV_STATE_CONNECTING`).
        case connecting = "CONNECTING"
        /// The call is established (`PJSIP_INV_STATE_CONFIRMED`).
        case confirmed = "CONFIRMED"
        /// The call has ended (`PJSIP_INV_STATE_DISCONNECTED`).
        case disconnected = "DISCONNECTED"

        init(_ state: pjsip_inv_state) {
            switch state {
            case PJSIP_INV_STATE_CALLING: self = .calling
            case PJSIP_INV_STATE_INCOMING: self = .incoming
            case PJSIP_INV_STATE_EARLY: self = .early
            case PJSIP_INV_STATE_CONNECTING: self = .connecting
            case PJSIP_INV_STATE_CONFIRMED: self = .confirmed
            case PJSIP_INV_STATE_DISCONNECTED: self = .disconnected
            default: self = .null
            }
        }

        public var description: String { rawValue }
    }

    /// The state of a call's audio (`pjsua_call_media_status`).
    public enum MediaState: String, Sendable, Hashable, CustomStringConvertible {
        /// No audio (`PJSUA_CALL_MEDIA_NONE`).
        case none
        /// Audio flows both ways (`PJSUA_CALL_MEDIA_ACTIVE`).
        case active
        /// We put the call on hold (`PJSUA_CALL_MEDIA_LOCAL_HOLD`).
        case localHold
        /// The peer put the call on hold (`PJSUA_CALL_MEDIA_REMOTE_HOLD`).
        case remoteHold
        /// Media negotiation failed (`PJSUA_CALL_MEDIA_ERROR`).
        case error

        init(_ status: pjsua_call_media_status) {
            switch status {
            case PJSUA_CALL_MEDIA_ACTIVE: self = .active
            case PJSUA_CALL_MEDIA_LOCAL_HOLD: self = .localHold
            case PJSUA_CALL_MEDIA_REMOTE_HOLD: self = .remoteHold
            case PJSUA_CALL_MEDIA_ERROR: self = .error
            default: self = .none
            }
        }

        public var description: String { rawValue }
    }

    /// A SIP status code and reason phrase, e.g. `486 Busy Here`.
    public struct SIPStatus: Hashable, Sendable, CustomStringConvertible {
        /// The status code (0 when no response was involved yet).
        public let code: SIPResponseCode
        /// The reason phrase.
        public let reason: String

        /// The refused certificate behind the status, found when the engine made it (see
        /// ``certificateError``). Not part of the status's value: equality and hashing ignore it.
        let certificateRefusal: PJSUAError?

        /// Creates a status.
        public init(code: SIPResponseCode, reason: String) {
            self.init(code: code, reason: reason, certificateRefusal: nil)
        }

        /// A status the engine received in `run`: it carries the run's certificate refusal when
        /// a refused certificate is why it came about (``CertificateRefusals``).
        init(code: SIPResponseCode, reason: String, in run: EngineRun?) {
            let refusal = code == .serviceUnavailable ? CertificateRefusals.error(status: 0, code: code, reason: reason, in: run) : nil
            self.init(code: code, reason: reason, certificateRefusal: refusal)
        }

        private init(code: SIPResponseCode, reason: String, certificateRefusal: PJSUAError?) {
            self.code = code
            self.reason = reason
            self.certificateRefusal = certificateRefusal
        }

        public var description: String { reason.isEmpty ? "\(code)" : "\(code) \(reason)" }

        /// Whether two statuses have the same code and reason (a certificate refusal the engine
        /// found for one is not part of its value).
        public static func == (lhs: SIPStatus, rhs: SIPStatus) -> Bool {
            lhs.code == rhs.code && lhs.reason == rhs.reason
        }

        /// Hashes the code and the reason, as ``==(_:_:)`` compares them.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(code)
            hasher.combine(reason)
        }
    }

    /// The outcome of a REGISTER (or un-REGISTER) transaction (`on_reg_state2`).
    public struct RegistrationState: Hashable, Sendable, CustomStringConvertible {
        /// The SIP status of the response (e.g. 200, 401, 403, 408 on timeout).
        public let status: SIPStatus
        /// The registration's expiry as granted by the registrar (zero when unregistered).
        public let expires: Duration
        /// Whether this was an unregistration.
        public let isUnregistration: Bool
        /// The transport-level `pj_status_t` (0 when a response arrived).
        public let transportStatus: Int32
        /// Why the registrar's TLS certificate was refused, when that is why this registration
        /// failed (the status is then 503 with `PJSIP_TLS_ECERTVERIF`'s text).
        public var certificateError: PJSUAError? = nil

        /// Whether the account is now registered.
        public var isRegistered: Bool {
            !isUnregistration && status.code.isSuccess && expires > .zero
        }

        public var description: String {
            "\(isUnregistration ? "unregister" : "register") \(status) expires=\(expires.wholeSeconds)s"
        }
    }
}
