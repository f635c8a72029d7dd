import CPJSUASupport
import PJSIP

/// The one error type of SwiftPJSUA: a ``Code`` naming what went wrong, PJSIP's `pj_status_t`
/// when PJSIP reported it, and a message that names the offending input or operation.
///
/// Match on codes with `catch PJSUAError.invalidURI { ... }` or compare `error.code`.
public struct PJSUAError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong. New codes may be added; switch with a `default` case.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// PJSIP returned an error status not named by a more specific code; see ``PJSUAError/status``.
        public static let pjsip = Code(rawValue: 1)
        /// The engine is not started (or is shutting down).
        public static let notStarted = Code(rawValue: 2)
        /// Another engine is already running in this process (pjsua is a process-wide singleton),
        /// or this one is already started.
        public static let alreadyRunning = Code(rawValue: 3)
        /// A SIP URI was malformed; the message names it.
        public static let invalidURI = Code(rawValue: 4)
        /// A call, account or media handle refers to something that has ended.
        public static let staleHandle = Code(rawValue: 5)
        /// An argument was out of range or malformed; the message names it.
        public static let invalidArgument = Code(rawValue: 6)
        /// No sound device could be opened (for example, a server without a sound card).
        public static let noSoundDevice = Code(rawValue: 7)
        /// The call has no active audio media yet (or any more).
        public static let mediaNotActive = Code(rawValue: 8)
        /// A fixed PJSIP limit (`PJSUA_MAX_CALLS`, `PJSUA_MAX_ACC`, ...) was reached.
        public static let tooMany = Code(rawValue: 9)
        /// A file could not be opened, read or written.
        public static let file = Code(rawValue: 10)
        /// An operation did not finish within its time limit.
        public static let timedOut = Code(rawValue: 11)
        /// A SIP header the app wanted to send was malformed (not a token name, a line break or
        /// NUL in the value) or one the SIP stack writes itself; nothing was sent.
        public static let invalidHeader = Code(rawValue: 12)
        /// The call's INVITE session cannot take this request now: the call is not confirmed yet,
        /// or an offer/answer of its own (a hold, resume, re-INVITE or UPDATE, ours or the far
        /// end's) is still in progress (`PJSIP_ESESSIONSTATE`). Nothing was sent; retry after the
        /// call's next ``PJSUA/Event/callMedia(call:state:hasVideo:)`` event.
        public static let invalidCallState = Code(rawValue: 13)
        /// The PJSIP build lacks the feature asked for (for example DTLS-SRTP).
        public static let unsupported = Code(rawValue: 40)
        /// A TLS peer's certificate is not signed by an authority we trust (self-signed, unknown
        /// issuer): see ``PJSUA/TLSConfiguration/caFile``.
        public static let certificateUntrusted = Code(rawValue: 41)
        /// A TLS peer's certificate has expired (or is not valid yet).
        public static let certificateExpired = Code(rawValue: 42)
        /// A TLS peer's certificate does not name the host we connected to.
        public static let certificateNameMismatch = Code(rawValue: 43)
        /// A TLS peer's certificate was refused for another reason (revoked, malformed, ...).
        public static let certificateRejected = Code(rawValue: 44)
        /// Mandatory SRTP would send its keys (SDES) over signalling less secure than
        /// ``PJSUA/SRTPConfiguration/secureSignaling`` asks (`PJSIP_ESESSIONINSECURE`).
        public static let insecureSignaling = Code(rawValue: 45)
        /// An audio frame did not have the size its format requires (see ``PJSUA/AudioFormat``).
        public static let invalidFrame = Code(rawValue: 20)
        /// The loaded PJSIP library is not the one the engine was compiled against (another
        /// version, or structs of another size): ``PJSUA/start(_:)`` refuses to run on it.
        public static let incompatibleLibrary = Code(rawValue: 14)

        public var description: String {
            switch self {
            case .pjsip: "pjsip"
            case .notStarted: "notStarted"
            case .alreadyRunning: "alreadyRunning"
            case .invalidURI: "invalidURI"
            case .staleHandle: "staleHandle"
            case .invalidArgument: "invalidArgument"
            case .noSoundDevice: "noSoundDevice"
            case .mediaNotActive: "mediaNotActive"
            case .tooMany: "tooMany"
            case .file: "file"
            case .timedOut: "timedOut"
            case .invalidHeader: "invalidHeader"
            case .unsupported: "unsupported"
            case .certificateUntrusted: "certificateUntrusted"
            case .certificateExpired: "certificateExpired"
            case .certificateNameMismatch: "certificateNameMismatch"
            case .certificateRejected: "certificateRejected"
            case .insecureSignaling: "insecureSignaling"
            case .invalidFrame: "invalidFrame"
            case .incompatibleLibrary: "incompatibleLibrary"
            case .invalidCallState: "invalidCallState"
            default: "code(\(rawValue))"
            }
        }
    }

    /// What went wrong.
    public let code: Code
    /// The `pj_status_t` PJSIP returned, when PJSIP reported the error.
    public let status: Int32?
    /// A one-line human-readable explanation; for PJSIP errors it includes `pj_strerror`'s text.
    public let message: String

    /// Creates an error with a code and a message.
    public init(_ code: Code, _ message: String, status: Int32? = nil) {
        self.code = code
        self.message = message
        self.status = status
    }

    /// Wraps a PJSIP status returned by `operation`; `as` overrides the code the status maps to
    /// (a failing file port is a ``Code/file`` error whatever PJSIP's status says).
    @_spi(MediaHooks) public init(status: pj_status_t, operation: String, as override: Code? = nil) {
        var code: Code
        switch status {
        case cpjsua_status_etoomany: code = .tooMany
        case cpjsua_status_etimedout: code = .timedOut
        case cpjsua_status_eaud_nodefdev, cpjsua_status_eaud_invdev, cpjsua_status_eaud_syserr,
             cpjsua_status_eaud_init, cpjsua_status_eaud_nodev:
            code = .noSoundDevice
        case cpjsua_status_einvaliduri, cpjsua_status_einvalidrequri, cpjsua_status_einvalidscheme:
            code = .invalidURI
        case cpjsua_status_esessioninsecure: code = .insecureSignaling
        case cpjsua_status_esessionstate: code = .invalidCallState
        case cpjsua_status_tls_ecertverif: code = .certificateRejected
        default: code = .pjsip
        }
        if let override { code = override }
        self.init(code, "\(operation): \(pjErrorText(status)) (status \(status))", status: status)
    }

    public var description: String { message }

    /// Not started.
    public static var notStarted: Code { .notStarted }
    /// Already running.
    public static var alreadyRunning: Code { .alreadyRunning }
    /// Invalid SIP URI.
    public static var invalidURI: Code { .invalidURI }
    /// Stale handle.
    public static var staleHandle: Code { .staleHandle }
    /// Invalid argument.
    public static var invalidArgument: Code { .invalidArgument }
    /// No sound device.
    public static var noSoundDevice: Code { .noSoundDevice }
    /// Media not active.
    public static var mediaNotActive: Code { .mediaNotActive }
    /// Invalid SIP header.
    public static var invalidHeader: Code { .invalidHeader }
    /// Untrusted TLS certificate.
    public static var certificateUntrusted: Code { .certificateUntrusted }
    /// Expired TLS certificate.
    public static var certificateExpired: Code { .certificateExpired }
    /// TLS certificate naming another host.
    public static var certificateNameMismatch: Code { .certificateNameMismatch }
    /// TLS certificate refused for another reason.
    public static var certificateRejected: Code { .certificateRejected }
    /// SRTP keys would travel over insecure signalling.
    public static var insecureSignaling: Code { .insecureSignaling }

    /// `PJSIP_TLS_ECERTVERIF`: the status of transactions and registrations that failed because
    /// a TLS peer's certificate was refused.
    public static let certificateVerificationStatus = cpjsua_status_tls_ecertverif
    /// Invalid audio frame.
    public static var invalidFrame: Code { .invalidFrame }
    /// The call cannot take this request in its present state.
    public static var invalidCallState: Code { .invalidCallState }
}

/// Lets `catch PJSUAError.invalidURI` match a thrown ``PJSUAError`` by its code.
public func ~= (code: PJSUAError.Code, error: any Error) -> Bool {
    (error as? PJSUAError)?.code == code
}
