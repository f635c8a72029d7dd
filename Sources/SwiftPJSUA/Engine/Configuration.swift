import CPJSUASupport
import PJSIP

extension PJSUA {
    /// A SIP transport protocol.
    public enum TransportKind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// SIP over UDP.
        case udp
        /// SIP over TCP.
        case tcp
        /// SIP over TLS, configured by ``Configuration/tls``; its URIs are `sips:`.
        case tls

        public var description: String { rawValue }
    }

    /// How verbose PJSIP's log is (PJSIP's levels 1-6).
    public enum LogLevel: Int, Sendable, Comparable, CustomStringConvertible {
        /// No log at all (the default).
        case off = 0
        /// Errors.
        case error = 1
        /// Warnings.
        case warning = 2
        /// Informational messages.
        case info = 3
        /// Debugging details.
        case debug = 4
        /// Detailed tracing, including SIP messages when ``Configuration/logSIPMessages`` is on.
        case trace = 5
        /// Everything PJSIP can say.
        case verbose = 6

        public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
        public var description: String {
            switch self {
            case .off: "off"
            case .error: "error"
            case .warning: "warning"
            case .info: "info"
            case .debug: "debug"
            case .trace: "trace"
            case .verbose: "verbose"
            }
        }
    }

    /// Receives PJSIP's log lines. Called on PJSIP's threads: forward to your logger and return;
    /// never block and never call back into the engine from it.
    public typealias LogHandler = @Sendable (LogLevel, String) -> Void

    /// What the conference bridge uses as its sound device when the engine starts.
    public enum AudioDeviceMode: Sendable, Hashable {
        /// No device: nothing is opened until ``PJSUA/activateAudioDevice()`` (the default; what
        /// an iOS app wants until CallKit activates the audio session). Audio does not flow.
        case none
        /// A clocked null device with no hardware: audio flows between calls, players and
        /// recorders. For servers, bots and tests.
        case null
    }

    /// Engine configuration for ``PJSUA/start(_:)``.
    public struct Configuration: Sendable {
        /// The SIP port to listen on; 0 picks a free port (read it from the returned transport).
        public var port: Int
        /// The SIP transport protocol.
        public var transport: TransportKind
        /// The local address to bind to; nil binds to all addresses of the family.
        public var bindAddress: String?
        /// Whether the transport is IPv6.
        public var ipv6: Bool
        /// The `User-Agent` header.
        public var userAgent: String
        /// The number of simultaneous calls, at most ``PJSUA/maxCallsLimit`` (`PJSUA_MAX_CALLS`
        /// of the PJSIP build).
        ///
        /// A call that was hung up keeps its slot after its `.disconnected` event until pjsua's
        /// BYE is answered (a round trip; up to 32 s if the far end never answers): a new call
        /// placed in that window counts it, and with every slot taken it is refused with
        /// ``PJSUAError/Code/tooMany``. Leave room for that when a new call follows a hang-up.
        public var maxCalls: Int
        /// The sound device in use once started.
        public var audioDevice: AudioDeviceMode
        /// The lowest local RTP port media binds (RTP on an even port, RTCP on the one above).
        /// With ``rtpPortCount`` set, media starts at this port; without it, at a random even
        /// port between this one and 65534 (see ``rtpPortCount``).
        public var rtpPort: Int
        /// How many ports from ``rtpPort`` media may take (RTP and RTCP: two per audio or video
        /// stream). Media starts at ``rtpPort``, takes the next free pair for each new stream,
        /// and past the last one wraps back to ``rtpPort``: the range to open in a firewall.
        /// Processes on one host given ranges of their own never take each other's ports.
        ///
        /// nil (the default): the range runs from ``rtpPort`` to 65535 and the first stream
        /// starts at a random even port in it, then upwards and wrapping likewise; a pair that
        /// is taken (by another process) sends the stream to a new random pair. A stream fails
        /// only when 100 pairs it tried were all taken ("Address already in use", KL-46).
        ///
        /// At least 4; the range must end at 65535 or below.
        public var rtpPortCount: Int?
        /// PJSIP's log verbosity; `.off` by default.
        public var logLevel: LogLevel
        /// Whether full SIP messages are logged (at ``LogLevel/trace``).
        public var logSIPMessages: Bool
        /// Receives PJSIP's log lines; nil discards them.
        public var logHandler: LogHandler?
        /// How long ``PJSUA/shutdown()`` waits for accounts to unregister (0...600 s; also
        /// `pjsua_acc_config.unreg_timeout` of every account).
        public var unregisterTimeout: Duration
        /// Whether RTP gets its own ioqueue and worker thread (`pjsua_media_config.has_ioqueue`,
        /// `thread_cnt`). Off by default: media then shares pjsua's SIP worker, which halves the
        /// idle wake-ups (pjmedia's worker polls every 10 ms). Turn it on for many simultaneous
        /// calls with media.
        public var dedicatedMediaThread: Bool
        /// When new incoming calls are refused with 503 and Retry-After; by default, once
        /// ``maxCalls`` calls are in progress.
        public var admission: AdmissionControl
        /// Answers every incoming call with this status code right inside pjsua's callback, with
        /// no round trip to Swift before the response: ``SIPResponseCode/ringing`` or
        /// ``SIPResponseCode/sessionProgress`` ring, ``SIPResponseCode/ok`` answers, 300...699
        /// rejects (checked at ``PJSUA/start(_:)``, ``canAutoAnswer(with:)``). The ``Event/incomingCall(account:call:sipCallID:from:offeredVideo:)`` event is
        /// still published, first. nil (the default): the app answers. For servers and bots that
        /// answer everything: under load it saves a thread hop per call.
        public var autoAnswerCode: SIPResponseCode?
        /// How incoming REFERs (call transfer requests) are answered; ``TransferPolicy/accept``
        /// by default. Can be changed while running with ``PJSUA/setTransferPolicy(_:)``.
        public var transferPolicy: TransferPolicy = .accept
        /// Whether an INVITE with `Replaces` (RFC 3891) may take over one of our calls: the other
        /// half of an attended transfer. True by default; false refuses it with 603 Decline.
        public var acceptsReplaces: Bool = true
        /// The conference bridge's clock rate and resampler (see ``MediaSettings``); pjsua's
        /// defaults for the build (16 kHz; high quality on Linux, medium in the iOS binary). ``MediaSettings/telephony`` for PCMU/PCMA servers and bots.
        public var media = MediaSettings()
        /// STUN, ICE and TURN for every account (each can override ICE and TURN). Off by default.
        public var nat = NATTraversal()

        /// Chooses the response to each incoming MESSAGE outside a call (`pjsua_acc_send_response`
        /// from `on_pager2`); nil (the default): pjsua accepts every message with 200 before the
        /// ``Event/message(_:)`` event. A MESSAGE inside a call is always accepted (pjsua answers
        /// in-dialog requests itself).
        public var messageResponder: MessageResponder? = nil
        /// The event packages whose NOTIFYs outside any subscription the app takes, e.g.
        /// `["message-summary", "check-sync"]`: each is answered 200 OK and published as
        /// ``Event/unsolicitedNotify(_:)``. Others are answered 489 Bad Event. Empty by default
        /// (pjsua's own `enable_unsolicited_mwi` is off: the engine answers these itself).
        /// `message-summary` is also accepted while an account has message-waiting indication on
        /// (``PJSUA/setMessageWaitingIndication(enabled:for:)``), and every accepted one is
        /// published as ``Event/messageWaiting(_:)`` too.
        public var unsolicitedNotifyEvents: Set<String> = []
        /// Certificates, authorities and verification of every TLS transport; by default servers
        /// are verified against no authority (set ``TLSConfiguration/caFile``).
        public var tls: TLSConfiguration
        /// SRTP of the local account and of accounts without their own
        /// (``Account/Configuration/srtp``); off by default.
        public var srtp: SRTPConfiguration

        /// Codecs offered first, in this order, where the build has them (ids or prefixes as
        /// in ``PJSUA/setCodecPriority(_:to:)``, at most 64); the others keep pjmedia's
        /// priorities behind them.
        /// By default the best the build has: Opus, then G.722, then PCMU and PCMA
        /// (``defaultPreferredCodecs``). Without it pjmedia offers in its registration order:
        /// speex/16000 first on the Linux build (which some peers render distorted), and iLBC
        /// first in the iOS binary, which has no Opus, so two iPhones talked narrowband iLBC
        /// although both had G.722. iLBC and G.729 come first only when named here.
        public var preferredCodecs: [String] = Configuration.defaultPreferredCodecs
        /// The default ``preferredCodecs``: Opus, G.722 (`G722/16000`, not G.722.1), PCMU, PCMA;
        /// each only where the build has it.
        public static let defaultPreferredCodecs = ["opus", "G722/16000", "PCMU", "PCMA"]
        /// What happens when an outgoing call is redirected (3xx); followed by default.
        public var redirectPolicy: RedirectPolicy = .follow
        /// Whether DTMF tones in the received audio are recognised and published as
        /// ``Event/dtmf(call:digit:)`` with ``DTMFMethod/inband`` (a detector of our own per
        /// call: pjmedia has none). Off by default: speech and music can imitate a digit
        /// ("talk-off"), and peers normally send RFC 4733. Needs a running bridge clock (a sound
        /// device or ``AudioDeviceMode/null``).
        public var detectsInbandDTMF = false
        /// How often a ``Event/stats(call:quality:)`` event is published for each call with
        /// active audio; nil (the default) publishes none. See ``PJSUA/setStatisticsInterval(_:)``.
        public var statisticsInterval: Duration?
        /// What packages built on the engine install into pjsua when it starts (SwiftPJSUAStreams'
        /// ``PJSUA/MediaHooks``, set by its `enablesMediaStreams`); empty by default, so that no
        /// call's media passes through code the app did not ask for.
        @_spi(MediaHooks) public var mediaHooks: [MediaHooks] = []

        /// Whether `code` can be an ``autoAnswerCode``: 180, 183, 200, or a final error status.
        public static func canAutoAnswer(with code: SIPResponseCode) -> Bool {
            code == .ringing || code == .sessionProgress || code == .ok || code.isError
        }

        /// Creates a configuration; every parameter has a sensible default.
        public init(
            port: Int = 5060, transport: TransportKind = .udp, bindAddress: String? = nil,
            ipv6: Bool = false, userAgent: String = "swift-pjsua", maxCalls: Int = PJSUA.maxCallsLimit,
            audioDevice: AudioDeviceMode = .none, rtpPort: Int = 4000, logLevel: LogLevel = .off,
            logSIPMessages: Bool = false, logHandler: LogHandler? = nil,
            unregisterTimeout: Duration = .seconds(2), dedicatedMediaThread: Bool = false,
            admission: AdmissionControl = AdmissionControl(), autoAnswerCode: SIPResponseCode? = nil,
            tls: TLSConfiguration = TLSConfiguration(), srtp: SRTPConfiguration = .off
        ) {
            self.port = port
            self.transport = transport
            self.bindAddress = bindAddress
            self.ipv6 = ipv6
            self.userAgent = userAgent
            self.maxCalls = maxCalls
            self.audioDevice = audioDevice
            self.rtpPort = rtpPort
            self.logLevel = logLevel
            self.logSIPMessages = logSIPMessages
            self.logHandler = logHandler
            self.unregisterTimeout = unregisterTimeout
            self.dedicatedMediaThread = dedicatedMediaThread
            self.admission = admission
            self.autoAnswerCode = autoAnswerCode
            self.tls = tls
            self.srtp = srtp
        }
    }

    /// A SIP transport the engine listens on.
    public struct Transport: Sendable, Hashable, CustomStringConvertible {
        /// pjsua's transport id (`pjsua_transport_id`).
        public let id: Int32
        /// The protocol.
        public let kind: TransportKind
        /// Whether it is IPv6.
        public let ipv6: Bool
        /// The address it is reachable at (as put in Via and Contact).
        public let host: String
        /// The port it is bound to (the real one when 0 was asked for).
        public let port: Int

        /// A SIP URI that reaches this transport, e.g. `sip:127.0.0.1:5060;transport=tcp`, with
        /// `user` as its user part when given (checked where the URI is used).
        public func uri(user: String? = nil) -> SIPURI {
            let hostPart = ipv6 && !host.hasPrefix("[") ? "[\(host)]" : host
            let userPart = user.map { "\($0)@" } ?? ""
            let scheme = kind == .tls ? "sips" : "sip"
            let parameter = kind == .udp ? "" : ";transport=\(kind == .tls ? "tls" : "tcp")"
            return SIPURI(unchecked: "\(scheme):\(userPart)\(hostPart):\(port)\(parameter)")
        }

        public var description: String { "\(kind)\(ipv6 ? "6" : "") \(host):\(port)" }
    }

    /// The most simultaneous calls this PJSIP build supports (`PJSUA_MAX_CALLS`).
    public static let maxCallsLimit = Int(cpjsua_max_calls)
    /// The most accounts this PJSIP build supports (`PJSUA_MAX_ACC`).
    public static let maxAccountsLimit = Int(cpjsua_max_acc)
}
