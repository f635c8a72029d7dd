import PJSIP

extension PJSUA {
    /// How DTMF digits travel on a call.
    public enum DTMFMethod: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// RTP telephone events in the audio stream (RFC 4733, formerly RFC 2833): the default,
        /// and what nearly every SIP peer expects. The corresponding C constant is
        /// `PJSUA_DTMF_METHOD_RFC2833`.
        case rfc4733
        /// SIP INFO requests with an `application/dtmf-relay` body, one per digit. The
        /// corresponding C constant is `PJSUA_DTMF_METHOD_SIP_INFO`.
        case sipInfo = "info"
        /// Dual tones mixed into the call's audio (pjmedia's tone generator): survives any peer
        /// that passes audio, but only a clean codec (G.711, Opus) keeps it recognisable.
        case inband

        public var description: String { rawValue }
    }

    /// The digits DTMF can carry: 0-9, `*`, `#` and A-D (lower-case a-d are accepted on input).
    public static let dtmfDigits: Set<Character> = Set("0123456789*#ABCD")

    /// A DTMF digit received on a call.
    public struct DTMFDigit: Sendable, Hashable, CustomStringConvertible {
        /// The digit: 0-9, `*`, `#` or A-D.
        public let digit: Character
        /// How it arrived.
        public let method: DTMFMethod
        /// How long the sender held it, when the method says (RFC 4733 end of event, the
        /// `Duration` line of a SIP INFO); nil when unknown.
        public let duration: Duration?

        /// Creates a received digit.
        public init(digit: Character, method: DTMFMethod, duration: Duration?) {
            self.digit = digit
            self.method = method
            self.duration = duration
        }

        public var description: String {
            let length = duration.map { " \($0.wholeMilliseconds) ms" } ?? ""
            return "\(digit) (\(method)\(length))"
        }
    }
}
