@_spi(MediaHooks) @_spi(Locking) import SwiftPJSUA

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

        /// OpenAI Realtime (its GA interface) on the same WebSocket client as Twilio streams,
        /// `ws://` or `wss://`: `session.update` from ``Options/realtimeSession`` on open, the
        /// caller's audio as one `input_audio_buffer.append` (PCM16 24 kHz) per 20 ms, the
        /// answer's audio deltas played through the queue, barge-in when the caller speaks, the
        /// service's events as ``SwiftPJSUA/PJSUA/MediaStream/Event/realtime(_:)``. Needs
        /// ``Options/authorizationToken`` (the API key). No DTMF: the protocol has no message for it.
        public static let openAIRealtime = StreamProtocol(rawValue: "openai-realtime")

        public var description: String { rawValue }
    }

    /// The settings of an OpenAI Realtime session that the stream sends in `session.update`, on
    /// top of what it always sets: a `realtime` session, audio out, PCM16 24 kHz both ways and the
    /// service's voice detection (`server_vad`) ending the caller's turns. The model is chosen by
    /// the URL (`wss://api.openai.com/v1/realtime?model=...`).
    public struct RealtimeSession: Sendable, Hashable {
        /// The system instructions for the model; nil: the service's default.
        public var instructions: String?
        /// The voice the model answers with (`alloy`, `marin`...); nil: the service's default.
        public var voice: String?
        /// How long the caller must be silent before the service takes the turn as ended
        /// (`silence_duration_ms`), up to 10 s; nil: the service's default.
        public var silenceDuration: Duration?

        /// Session settings; by default the service's own.
        public init(instructions: String? = nil, voice: String? = nil, silenceDuration: Duration? = nil) {
            self.instructions = instructions
            self.voice = voice
            self.silenceDuration = silenceDuration
        }
    }

    /// What happens to the call when the agent leaves (closes the WebSocket, or the connection
    /// breaks) while the call goes on.
    public enum AgentLossPolicy: Sendable, Hashable {
        /// Hangs the call up (`pjsua_call_hangup()`, 200 OK's BYE).
        case hangUp
        /// Keeps the call up without the agent.
        case keepCall
        /// Keeps the call and plays a WAV file into it (`PJSUA.play(_:into:loop:)`), once.
        case play(path: String)
        /// Transfers the call (`PJSUA.transfer(_:to:hangUpWhenDone:)`, a REFER).
        case transfer(to: PJSUA.SIPURI)
    }

    /// How a stream connects and behaves.
    public struct Options: Sendable, Hashable {
        /// Extra HTTP headers on the WebSocket handshake (an `Authorization` token), at most 16.
        public var headers: [String: String]
        /// Key-value pairs given to the agent in `start` (Twilio's `customParameters`).
        public var customParameters: [String: String]
        /// How long the host's lookup, the TCP connection (every address tried), TLS and the
        /// WebSocket handshake may take, together.
        public var connectTimeout: Duration
        /// The most agent audio queued for playing (agents often send faster than real time);
        /// beyond it the oldest queued audio is dropped (the frames API's drop-oldest policy).
        /// 20 ms to 10 minutes.
        public var playbackCapacity: Duration
        /// Whether the playback queue is trimmed after stalls: when the agent's audio came late
        /// (the queue ran dry and silence played), then caught up and kept arriving at the
        /// real-time rate, the queue stays that much deeper and every later sample plays that
        /// much later. With this on, once the queue has held one depth for 200 ms, whole 20 ms
        /// frames are skipped down to one frame of slack, never more than the silence the
        /// stalls inserted, and never while a burst (audio sent faster than real time) is
        /// draining. Off by default: it drops audio the agent sent (the start of what came after
        /// the stall), which Twilio never does; it suits agents that send continuously at the
        /// real-time rate (an echo, an always-on pipeline), where the added delay would
        /// otherwise last the whole call. Trimmed audio is counted in
        /// ``Statistics/trimmedMilliseconds``; marks behind it come back when it would have
        /// played. Twilio Media Streams only: an OpenAI Realtime stream refuses it
        /// (`PJSUAError.Code.invalidArgument`), since its barge-in tells the service how much of
        /// the answer was heard.
        public var trimsStandingQueue: Bool
        /// Whether the caller's audio goes to the agent as its packets arrive (on by default):
        /// for a PCMU or PCMA call, each RTP packet is sent on in 20 ms `media` messages the
        /// moment it is received (after SRTP), without waiting for the jitter buffer and the
        /// conference bridge's next tick, which adds 0-20 ms and at a few hundred calls more.
        /// Lost audio is sent as silence (the `timestamp`s stay on the caller's clock), a packet
        /// arriving after a later one is dropped, and while the caller sends nothing (hold,
        /// silence suppression) the stream goes on with silence after 40-60 ms. Off, or for
        /// another codec (the stream follows re-INVITEs), the bridge's frames are sent: the
        /// caller's audio after the jitter buffer, 20 ms per tick of the bridge's clock.
        /// ``Statistics/passesCallerAudioThrough`` says which is in use. Twilio Media Streams
        /// only: OpenAI Realtime takes 24 kHz PCM16, which the bridge makes.
        public var passesCallerAudioThrough: Bool
        /// Whether the agent's audio goes into the call as it arrives (on by default): when the
        /// call's codec takes the agent's 8 kHz 20 ms frames as they are (PCMU, PCMA, G.729 at
        /// 20 ms), each frame of `media` is encoded and sent as RTP the moment it arrives,
        /// rather than at the conference bridge's next tick (0-20 ms later, and a whole frame
        /// more whenever the agent's timing drifts across the tick), and without the bridge's
        /// resampling. The call still sends one packet per 20 ms over time: the agent's audio may
        /// run up to 40 ms ahead of the call's real-time position (its jitter, passed on to the
        /// far end's jitter buffer), a burst plays at the real-time rate from there, and silence
        /// is sent once the agent's next frame is 10 ms late. Marks, `clear`, the playback queue
        /// and its trim behave the same; other audio connected to the call is mixed in. Off, or
        /// for another codec (the stream follows re-INVITEs), the bridge plays the queue at its
        /// ticks. ``Statistics/sendsAgentAudioOnArrival`` says which is in use. Twilio Media
        /// Streams only: OpenAI Realtime's 24 kHz audio goes through the bridge.
        public var sendsAgentAudioOnArrival: Bool
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
        /// How a `wss://` agent's certificate is verified: its authorities (`PJSUA.TLSConfiguration.caFile`,
        /// `PJSUA.TLSConfiguration.caDirectory`) and `PJSUA.TLSConfiguration.verifyServer` (the
        /// chain and the URL's host name); the other fields are not used. nil: the engine's
        /// `PJSUA.Configuration.tls` when it names authorities, else the system's trust store
        /// (`/etc/ssl/certs`). Not used for `ws://`.
        public var tls: PJSUA.TLSConfiguration?
        /// The OpenAI Realtime session's settings, sent in `session.update` when the stream
        /// opens (``StreamProtocol/openAIRealtime`` only).
        public var realtimeSession: RealtimeSession

        /// Options; by default no headers or parameters, 5 s to connect, 60 s of playback queue
        /// that is never trimmed, the caller's audio passed through and the agent's sent as it
        /// arrives, hang up when the agent leaves.
        public init(headers: [String: String] = [:], customParameters: [String: String] = [:],
                    connectTimeout: Duration = .seconds(5), playbackCapacity: Duration = .seconds(60),
                    trimsStandingQueue: Bool = false, passesCallerAudioThrough: Bool = true, sendsAgentAudioOnArrival: Bool = true,
                    whenAgentLeaves: AgentLossPolicy = .hangUp, maximumMessageSize: Int = 256 * 1024,
                    streamSID: String? = nil, callSID: String? = nil, accountSID: String = "", authorizationToken: String? = nil,
                    tls: PJSUA.TLSConfiguration? = nil, realtimeSession: RealtimeSession = RealtimeSession()) {
            self.headers = headers
            self.customParameters = customParameters
            self.connectTimeout = connectTimeout
            self.playbackCapacity = playbackCapacity
            self.trimsStandingQueue = trimsStandingQueue
            self.passesCallerAudioThrough = passesCallerAudioThrough
            self.sendsAgentAudioOnArrival = sendsAgentAudioOnArrival
            self.whenAgentLeaves = whenAgentLeaves
            self.maximumMessageSize = maximumMessageSize
            self.streamSID = streamSID
            self.callSID = callSID
            self.accountSID = accountSID
            self.authorizationToken = authorizationToken
            self.tls = tls
            self.realtimeSession = realtimeSession
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
            if let silence = realtimeSession.silenceDuration {
                try Validation.duration(silence, in: .milliseconds(0) ... .seconds(10), what: "the realtime session's silence duration")
            }
            for text in [streamSID, callSID, accountSID].compactMap({ $0 }) where text.utf8.count > 256 || text.contains("\0") {
                throw PJSUAError(.invalidArgument, "stream, call and account identifiers are at most 256 bytes, without NUL")
            }
        }
    }
}
