extension PJSUA.MediaStream {
    /// A protocol a media stream speaks with its agent. A struct rather than an enum so that
    /// protocols added later (Asterisk's chan_websocket, raw PCM16) break no app's `switch`.
    public struct StreamProtocol: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The protocol's name.
        public let rawValue: String

        /// Creates a protocol value from its name; only the static members are implemented.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// Twilio Media Streams: JSON text messages, the caller's audio as base64 mu-law 8 kHz in
        /// 20 ms `media` messages; from the agent `media`, `mark` and `clear`.
        public static let twilioMediaStreams = StreamProtocol(rawValue: "twilio-media-streams")

        /// OpenAI Realtime over pjproject's experimental AI media port (`pjmedia_ai_port` with
        /// `pjmedia_ai_openai_backend_create`): PCM16 24 kHz both ways, the service's events as
        /// ``PJSUA/MediaStream/Event/realtime(_:)``. Needs ``Options/authorizationToken``.
        public static let openAIRealtime = StreamProtocol(rawValue: "openai-realtime")

        public var description: String { rawValue }
    }

    /// What happens to the call when the agent leaves (closes the WebSocket, or the connection
    /// breaks) while the call goes on.
    public enum AgentLossPolicy: Sendable, Hashable {
        /// Hangs the call up (`pjsua_call_hangup()`, 200 OK's BYE).
        case hangUp
        /// Keeps the call up without the agent.
        case keepCall
        /// Keeps the call and plays a WAV file into it (``PJSUA/play(_:into:loop:)``), once.
        case play(path: String)
        /// Transfers the call (``PJSUA/transfer(_:to:hangUpWhenDone:)``, a REFER).
        case transfer(to: String)
    }

    /// How a stream connects and behaves.
    public struct Options: Sendable, Hashable {
        /// Extra HTTP headers on the WebSocket handshake (an `Authorization` token), at most 16.
        public var headers: [String: String]
        /// Key-value pairs given to the agent in `start` (Twilio's `customParameters`).
        public var customParameters: [String: String]
        /// How long the TCP connection and the WebSocket handshake may take.
        public var connectTimeout: Duration
        /// The most agent audio queued for playing (agents often send faster than real time);
        /// beyond it the oldest queued audio is dropped (the frames API's drop-oldest policy).
        /// 20 ms to 10 minutes.
        public var playbackCapacity: Duration
        /// What happens to the call when the agent leaves.
        public var whenAgentLeaves: AgentLossPolicy
        /// The largest message accepted from the agent, in bytes (1 KiB to 16 MiB); a larger one
        /// is skipped unread and counted as an ``InvalidMessage`` (``InvalidMessage/Reason/tooLarge``),
        /// and the stream goes on.
        public var maximumMessageSize: Int
        /// The stream's identifier; nil: a new `MZ` + 32 hex digits.
        public var streamSID: String?
        /// The call's identifier for the agent; nil: the call's SIP Call-ID.
        public var callSID: String?
        /// The account identifier in `start` and `stop` (Twilio's `accountSid`).
        public var accountSID: String
        /// A bearer token: sent as `Authorization: Bearer <token>` on the handshake (unless
        /// ``headers`` has an `Authorization`); OpenAI Realtime requires it (its API key).
        public var authorizationToken: String?
        /// How a `wss://` agent's certificate is verified: its authorities (``PJSUA/TLSConfiguration/caFile``,
        /// ``PJSUA/TLSConfiguration/caDirectory``) and ``PJSUA/TLSConfiguration/verifyServer`` (the
        /// chain and the URL's host name); the other fields are not used. nil: the engine's
        /// ``PJSUA/Configuration/tls`` when it names authorities, else the system's trust store
        /// (`/etc/ssl/certs`). Not used for `ws://` or OpenAI Realtime streams.
        public var tls: PJSUA.TLSConfiguration?

        /// Options; by default no headers or parameters, 5 s to connect, 60 s of playback queue,
        /// hang up when the agent leaves.
        public init(headers: [String: String] = [:], customParameters: [String: String] = [:],
                    connectTimeout: Duration = .seconds(5), playbackCapacity: Duration = .seconds(60),
                    whenAgentLeaves: AgentLossPolicy = .hangUp, maximumMessageSize: Int = 256 * 1024,
                    streamSID: String? = nil, callSID: String? = nil, accountSID: String = "", authorizationToken: String? = nil,
                    tls: PJSUA.TLSConfiguration? = nil) {
            self.headers = headers
            self.customParameters = customParameters
            self.connectTimeout = connectTimeout
            self.playbackCapacity = playbackCapacity
            self.whenAgentLeaves = whenAgentLeaves
            self.maximumMessageSize = maximumMessageSize
            self.streamSID = streamSID
            self.callSID = callSID
            self.accountSID = accountSID
            self.authorizationToken = authorizationToken
            self.tls = tls
        }

        func validate() throws(PJSUAError) {
            guard headers.count <= 16 else {
                throw PJSUAError(.invalidArgument, "at most 16 handshake headers, not \(headers.count)")
            }
            for (name, value) in headers {
                try Validation.headerValue(name, what: "a handshake header's name")
                try Validation.headerValue(value, what: "the handshake header \(name)")
                guard !name.isEmpty, !name.contains(":"), !name.contains(" ") else {
                    throw PJSUAError(.invalidHeader, "\"\(name)\" is not an HTTP header name")
                }
            }
            try Validation.duration(connectTimeout, in: .milliseconds(10) ... .seconds(600), what: "the connect timeout")
            try Validation.duration(playbackCapacity, in: .milliseconds(20) ... .seconds(600), what: "the playback capacity")
            guard (1024...16 * 1024 * 1024).contains(maximumMessageSize) else {
                throw PJSUAError(.invalidArgument, "maximumMessageSize must be 1 KiB...16 MiB, not \(maximumMessageSize)")
            }
            if let authorizationToken { try Validation.headerValue(authorizationToken, what: "the authorization token") }
            for path in [tls?.caFile, tls?.caDirectory].compactMap({ $0 }) where path.isEmpty || path.contains("\0") {
                throw PJSUAError(.invalidArgument, "the stream's TLS authority path \(Validation.quoted(path)) is empty or has a NUL")
            }
            for text in [streamSID, callSID, accountSID].compactMap({ $0 }) where text.utf8.count > 256 || text.contains("\0") {
                throw PJSUAError(.invalidArgument, "stream, call and account identifiers are at most 256 bytes, without NUL")
            }
        }
    }
}
