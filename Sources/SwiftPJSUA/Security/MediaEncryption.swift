extension PJSUA {
    /// Whether a call's audio is encrypted, and how: part of ``CallInfo``.
    public struct MediaEncryption: Sendable, Hashable, CustomStringConvertible {
        /// Whether SRTP protects the audio both ways (the SRTP transport is active).
        public let isEncrypted: Bool
        /// How the keys were agreed; nil when unencrypted or when pjmedia does not tell (in a
        /// build with DTLS-SRTP, such as the Linux build, an account offering both methods: KL-16).
        public let keying: SRTPConfiguration.Keying?
        /// The crypto suite used to send, e.g. `AES_CM_128_HMAC_SHA1_80`; nil when unencrypted.
        public let cryptoSuite: String?

        /// Plain RTP.
        public static let none = MediaEncryption(isEncrypted: false, keying: nil, cryptoSuite: nil)

        public var description: String {
            guard isEncrypted else { return "unencrypted" }
            return "SRTP \(cryptoSuite ?? "?") via \(keying?.rawValue ?? "?")"
        }
    }
}
