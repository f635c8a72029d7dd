import PJSIP

extension PJSUA {
    /// A SIP response status code (RFC 3261 section 21), e.g. ``busyHere`` (486): what the engine
    /// sends when it answers, rings, rejects or refuses, and what it reports in ``SIPStatus``.
    ///
    /// Any integer converts (a literal too: `code: 183`); each call that sends one checks once that
    /// the code is one it can send (``PJSUA/answer(_:code:headers:)`` a provisional or success
    /// response, ``PJSUA/reject(_:code:headers:)`` a final error, ...) and throws
    /// ``PJSUAError/Code/invalidArgument`` otherwise. The named constants are the codes PJSIP
    /// names (`pjsip_status_code`).
    public struct SIPResponseCode: RawRepresentable, Hashable, Sendable, ExpressibleByIntegerLiteral, CustomStringConvertible {
        /// The number, e.g. 486.
        public let rawValue: Int

        /// A code from its number.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// A code from its number, written as a literal.
        public init(integerLiteral value: Int) { self.rawValue = value }

        init(_ code: pjsip_status_code) { self.rawValue = Int(code.rawValue) }

        public var description: String { "\(rawValue)" }

        /// Whether this is a provisional response (1xx).
        public var isProvisional: Bool { (100...199).contains(rawValue) }
        /// Whether this is a success response (2xx).
        public var isSuccess: Bool { (200...299).contains(rawValue) }
        /// Whether this is a final response that does not accept the request: a redirection or
        /// failure (300...699).
        public var isError: Bool { (300...699).contains(rawValue) }

        /// Throws ``PJSUAError/Code/invalidArgument`` unless the code is in `valid`, naming what
        /// the code was for and what it must be: the one check of each call that sends a code.
        func require(_ valid: ClosedRange<Int>, for use: String, _ expectation: String) throws(PJSUAError) {
            guard valid.contains(rawValue) else {
                throw PJSUAError(.invalidArgument, "\(use) code \(rawValue) is not \(expectation) (\(valid.lowerBound)...\(valid.upperBound))")
            }
        }

        /// 100 Trying. The corresponding C constant is `PJSIP_SC_TRYING`.
        public static let trying = Self(PJSIP_SC_TRYING)
        /// 180 Ringing. The corresponding C constant is `PJSIP_SC_RINGING`.
        public static let ringing = Self(PJSIP_SC_RINGING)
        /// 181 Call Is Being Forwarded. The corresponding C constant is `PJSIP_SC_CALL_BEING_FORWARDED`.
        public static let callIsBeingForwarded = Self(PJSIP_SC_CALL_BEING_FORWARDED)
        /// 182 Queued. The corresponding C constant is `PJSIP_SC_QUEUED`.
        public static let queued = Self(PJSIP_SC_QUEUED)
        /// 183 Session Progress (early media). The corresponding C constant is `PJSIP_SC_PROGRESS`.
        public static let sessionProgress = Self(PJSIP_SC_PROGRESS)
        /// 200 OK. The corresponding C constant is `PJSIP_SC_OK`.
        public static let ok = Self(PJSIP_SC_OK)
        /// 202 Accepted. The corresponding C constant is `PJSIP_SC_ACCEPTED`.
        public static let accepted = Self(PJSIP_SC_ACCEPTED)
        /// 300 Multiple Choices. The corresponding C constant is `PJSIP_SC_MULTIPLE_CHOICES`.
        public static let multipleChoices = Self(PJSIP_SC_MULTIPLE_CHOICES)
        /// 301 Moved Permanently. The corresponding C constant is `PJSIP_SC_MOVED_PERMANENTLY`.
        public static let movedPermanently = Self(PJSIP_SC_MOVED_PERMANENTLY)
        /// 302 Moved Temporarily. The corresponding C constant is `PJSIP_SC_MOVED_TEMPORARILY`.
        public static let movedTemporarily = Self(PJSIP_SC_MOVED_TEMPORARILY)
        /// 305 Use Proxy. The corresponding C constant is `PJSIP_SC_USE_PROXY`.
        public static let useProxy = Self(PJSIP_SC_USE_PROXY)
        /// 380 Alternative Service. The corresponding C constant is `PJSIP_SC_ALTERNATIVE_SERVICE`.
        public static let alternativeService = Self(PJSIP_SC_ALTERNATIVE_SERVICE)
        /// 400 Bad Request. The corresponding C constant is `PJSIP_SC_BAD_REQUEST`.
        public static let badRequest = Self(PJSIP_SC_BAD_REQUEST)
        /// 401 Unauthorized. The corresponding C constant is `PJSIP_SC_UNAUTHORIZED`.
        public static let unauthorized = Self(PJSIP_SC_UNAUTHORIZED)
        /// 402 Payment Required. The corresponding C constant is `PJSIP_SC_PAYMENT_REQUIRED`.
        public static let paymentRequired = Self(PJSIP_SC_PAYMENT_REQUIRED)
        /// 403 Forbidden. The corresponding C constant is `PJSIP_SC_FORBIDDEN`.
        public static let forbidden = Self(PJSIP_SC_FORBIDDEN)
        /// 404 Not Found. The corresponding C constant is `PJSIP_SC_NOT_FOUND`.
        public static let notFound = Self(PJSIP_SC_NOT_FOUND)
        /// 405 Method Not Allowed. The corresponding C constant is `PJSIP_SC_METHOD_NOT_ALLOWED`.
        public static let methodNotAllowed = Self(PJSIP_SC_METHOD_NOT_ALLOWED)
        /// 406 Not Acceptable. The corresponding C constant is `PJSIP_SC_NOT_ACCEPTABLE`.
        public static let notAcceptable = Self(PJSIP_SC_NOT_ACCEPTABLE)
        /// 407 Proxy Authentication Required. The corresponding C constant is
        /// `PJSIP_SC_PROXY_AUTHENTICATION_REQUIRED`.
        public static let proxyAuthenticationRequired = Self(PJSIP_SC_PROXY_AUTHENTICATION_REQUIRED)
        /// 408 Request Timeout. The corresponding C constant is `PJSIP_SC_REQUEST_TIMEOUT`.
        public static let requestTimeout = Self(PJSIP_SC_REQUEST_TIMEOUT)
        /// 410 Gone. The corresponding C constant is `PJSIP_SC_GONE`.
        public static let gone = Self(PJSIP_SC_GONE)
        /// 413 Request Entity Too Large. The corresponding C constant is `PJSIP_SC_REQUEST_ENTITY_TOO_LARGE`.
        public static let requestEntityTooLarge = Self(PJSIP_SC_REQUEST_ENTITY_TOO_LARGE)
        /// 414 Request-URI Too Long. The corresponding C constant is `PJSIP_SC_REQUEST_URI_TOO_LONG`.
        public static let requestURITooLong = Self(PJSIP_SC_REQUEST_URI_TOO_LONG)
        /// 415 Unsupported Media Type. The corresponding C constant is `PJSIP_SC_UNSUPPORTED_MEDIA_TYPE`.
        public static let unsupportedMediaType = Self(PJSIP_SC_UNSUPPORTED_MEDIA_TYPE)
        /// 416 Unsupported URI Scheme. The corresponding C constant is `PJSIP_SC_UNSUPPORTED_URI_SCHEME`.
        public static let unsupportedURIScheme = Self(PJSIP_SC_UNSUPPORTED_URI_SCHEME)
        /// 420 Bad Extension. The corresponding C constant is `PJSIP_SC_BAD_EXTENSION`.
        public static let badExtension = Self(PJSIP_SC_BAD_EXTENSION)
        /// 421 Extension Required. The corresponding C constant is `PJSIP_SC_EXTENSION_REQUIRED`.
        public static let extensionRequired = Self(PJSIP_SC_EXTENSION_REQUIRED)
        /// 422 Session Interval Too Small. The corresponding C constant is `PJSIP_SC_SESSION_TIMER_TOO_SMALL`.
        public static let sessionIntervalTooSmall = Self(PJSIP_SC_SESSION_TIMER_TOO_SMALL)
        /// 423 Interval Too Brief. The corresponding C constant is `PJSIP_SC_INTERVAL_TOO_BRIEF`.
        public static let intervalTooBrief = Self(PJSIP_SC_INTERVAL_TOO_BRIEF)
        /// 480 Temporarily Unavailable. The corresponding C constant is `PJSIP_SC_TEMPORARILY_UNAVAILABLE`.
        public static let temporarilyUnavailable = Self(PJSIP_SC_TEMPORARILY_UNAVAILABLE)
        /// 481 Call/Transaction Does Not Exist. The corresponding C constant is
        /// `PJSIP_SC_CALL_TSX_DOES_NOT_EXIST`.
        public static let callOrTransactionDoesNotExist = Self(PJSIP_SC_CALL_TSX_DOES_NOT_EXIST)
        /// 482 Loop Detected. The corresponding C constant is `PJSIP_SC_LOOP_DETECTED`.
        public static let loopDetected = Self(PJSIP_SC_LOOP_DETECTED)
        /// 483 Too Many Hops. The corresponding C constant is `PJSIP_SC_TOO_MANY_HOPS`.
        public static let tooManyHops = Self(PJSIP_SC_TOO_MANY_HOPS)
        /// 484 Address Incomplete. The corresponding C constant is `PJSIP_SC_ADDRESS_INCOMPLETE`.
        public static let addressIncomplete = Self(PJSIP_SC_ADDRESS_INCOMPLETE)
        /// 485 Ambiguous. The corresponding C constant is `PJSIP_AC_AMBIGUOUS` (sic).
        public static let ambiguous = Self(PJSIP_AC_AMBIGUOUS)
        /// 486 Busy Here. The corresponding C constant is `PJSIP_SC_BUSY_HERE`.
        public static let busyHere = Self(PJSIP_SC_BUSY_HERE)
        /// 487 Request Terminated. The corresponding C constant is `PJSIP_SC_REQUEST_TERMINATED`.
        public static let requestTerminated = Self(PJSIP_SC_REQUEST_TERMINATED)
        /// 488 Not Acceptable Here. The corresponding C constant is `PJSIP_SC_NOT_ACCEPTABLE_HERE`.
        public static let notAcceptableHere = Self(PJSIP_SC_NOT_ACCEPTABLE_HERE)
        /// 489 Bad Event. The corresponding C constant is `PJSIP_SC_BAD_EVENT`.
        public static let badEvent = Self(PJSIP_SC_BAD_EVENT)
        /// 491 Request Pending. The corresponding C constant is `PJSIP_SC_REQUEST_PENDING`.
        public static let requestPending = Self(PJSIP_SC_REQUEST_PENDING)
        /// 493 Undecipherable. The corresponding C constant is `PJSIP_SC_UNDECIPHERABLE`.
        public static let undecipherable = Self(PJSIP_SC_UNDECIPHERABLE)
        /// 500 Server Internal Error. The corresponding C constant is `PJSIP_SC_INTERNAL_SERVER_ERROR`.
        public static let internalServerError = Self(PJSIP_SC_INTERNAL_SERVER_ERROR)
        /// 501 Not Implemented. The corresponding C constant is `PJSIP_SC_NOT_IMPLEMENTED`.
        public static let notImplemented = Self(PJSIP_SC_NOT_IMPLEMENTED)
        /// 502 Bad Gateway. The corresponding C constant is `PJSIP_SC_BAD_GATEWAY`.
        public static let badGateway = Self(PJSIP_SC_BAD_GATEWAY)
        /// 503 Service Unavailable. The corresponding C constant is `PJSIP_SC_SERVICE_UNAVAILABLE`.
        public static let serviceUnavailable = Self(PJSIP_SC_SERVICE_UNAVAILABLE)
        /// 504 Server Time-out. The corresponding C constant is `PJSIP_SC_SERVER_TIMEOUT`.
        public static let serverTimeout = Self(PJSIP_SC_SERVER_TIMEOUT)
        /// 505 Version Not Supported. The corresponding C constant is `PJSIP_SC_VERSION_NOT_SUPPORTED`.
        public static let versionNotSupported = Self(PJSIP_SC_VERSION_NOT_SUPPORTED)
        /// 513 Message Too Large. The corresponding C constant is `PJSIP_SC_MESSAGE_TOO_LARGE`.
        public static let messageTooLarge = Self(PJSIP_SC_MESSAGE_TOO_LARGE)
        /// 580 Precondition Failure. The corresponding C constant is `PJSIP_SC_PRECONDITION_FAILURE`.
        public static let preconditionFailure = Self(PJSIP_SC_PRECONDITION_FAILURE)
        /// 600 Busy Everywhere. The corresponding C constant is `PJSIP_SC_BUSY_EVERYWHERE`.
        public static let busyEverywhere = Self(PJSIP_SC_BUSY_EVERYWHERE)
        /// 603 Decline. The corresponding C constant is `PJSIP_SC_DECLINE`.
        public static let decline = Self(PJSIP_SC_DECLINE)
        /// 604 Does Not Exist Anywhere. The corresponding C constant is `PJSIP_SC_DOES_NOT_EXIST_ANYWHERE`.
        public static let doesNotExistAnywhere = Self(PJSIP_SC_DOES_NOT_EXIST_ANYWHERE)
        /// 606 Not Acceptable (anywhere). The corresponding C constant is `PJSIP_SC_NOT_ACCEPTABLE_ANYWHERE`.
        public static let notAcceptableAnywhere = Self(PJSIP_SC_NOT_ACCEPTABLE_ANYWHERE)
        /// 607 Unwanted (RFC 8197). The corresponding C constant is `PJSIP_SC_UNWANTED`.
        public static let unwanted = Self(PJSIP_SC_UNWANTED)
    }
}
