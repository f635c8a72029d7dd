extension PJSUA {
    /// How the engine's TLS transports authenticate: the certificate authorities it trusts, its
    /// own certificate and key (presented as a server, and as a client when a server asks), and
    /// whether peers' certificates are verified.
    ///
    /// Applies to every TLS transport the engine opens (``Configuration/transport`` `.tls` and
    /// ``PJSUA/addTransport(_:ipv6:port:bindAddress:)``), through `pjsua_transport_config.tls_setting`.
    /// Server verification is on by default: a server whose certificate is not signed by a trusted
    /// authority, has expired or does not name the host in the request URI (the `sips:` or
    /// `;transport=tls` URI's host, checked against the certificate's subjectAltName entries and
    /// then its common name, RFC 5922) is refused, and the refusal arrives as
    /// ``Event/tlsConnection(_:)`` with a ``PJSUAError`` naming the reason.
    ///
    /// The private key's password is a secret: it never appears in a `description`, a mirror
    /// (`dump`) or an error. The key file's path is not a secret and is shown.
    ///
    /// On Apple platforms the iOS binary uses pjproject's Network.framework backend, which
    /// differs: see <doc:SecureCalls>.
    public struct TLSConfiguration: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
        /// A PEM file of trusted certificate authorities (`tls_setting.ca_list_file`); nil uses
        /// none (then, with verification on, every server is untrusted unless ``caDirectory``
        /// is set).
        public var caFile: String?
        /// A directory of trusted authorities in OpenSSL's hashed layout (`c_rehash`,
        /// `tls_setting.ca_list_path`), e.g. `/etc/ssl/certs`.
        public var caDirectory: String?
        /// Our certificate (PEM), presented by TLS listeners and to servers that ask for a client
        /// certificate (`tls_setting.cert_file`). Without one a TLS transport still connects out,
        /// but every incoming TLS connection fails its handshake (OpenSSL: "no shared cipher").
        public var certificateFile: String?
        /// The private key of ``certificateFile`` (PEM, `tls_setting.privkey_file`).
        public var privateKeyFile: String?
        /// The password of an encrypted ``privateKeyFile`` (`tls_setting.password`). Secret.
        public var privateKeyPassword: String?
        /// Whether servers' certificates are verified, the name included (`verify_server`). On by
        /// default; turning it off accepts any server, which defeats TLS against an active
        /// attacker: for tests and lab setups only.
        public var verifyServer: Bool
        /// Whether clients connecting to our TLS listener must present a certificate that our
        /// authorities trust (`verify_client` and `require_client_cert`). Off by default, as SIP
        /// clients usually authenticate with digest.
        public var verifyClient: Bool
        /// How long a TLS handshake may take (`tls_setting.timeout`; 1 ms to 600 s); nil leaves
        /// PJSIP's default.
        public var handshakeTimeout: Duration?

        /// Creates a TLS configuration; with no arguments it trusts nothing, presents nothing and
        /// verifies servers.
        public init(caFile: String? = nil, caDirectory: String? = nil, certificateFile: String? = nil,
                    privateKeyFile: String? = nil, privateKeyPassword: String? = nil, verifyServer: Bool = true,
                    verifyClient: Bool = false, handshakeTimeout: Duration? = nil) {
            self.caFile = caFile
            self.caDirectory = caDirectory
            self.certificateFile = certificateFile
            self.privateKeyFile = privateKeyFile
            self.privateKeyPassword = privateKeyPassword
            self.verifyServer = verifyServer
            self.verifyClient = verifyClient
            self.handshakeTimeout = handshakeTimeout
        }

        private var redactedPassword: String { privateKeyPassword == nil ? "none" : "<redacted>" }

        public var description: String {
            "TLSConfiguration(caFile: \(caFile ?? "none"), caDirectory: \(caDirectory ?? "none"), "
                + "certificateFile: \(certificateFile ?? "none"), privateKeyFile: \(privateKeyFile ?? "none"), "
                + "privateKeyPassword: \(redactedPassword), verifyServer: \(verifyServer), verifyClient: \(verifyClient))"
        }

        public var debugDescription: String { description }

        /// Mirrors the configuration with the key password redacted (for `dump` and debuggers).
        public var customMirror: Mirror {
            Mirror(self, children: [
                "caFile": caFile as Any, "caDirectory": caDirectory as Any, "certificateFile": certificateFile as Any,
                "privateKeyFile": privateKeyFile as Any, "privateKeyPassword": redactedPassword,
                "verifyServer": verifyServer, "verifyClient": verifyClient,
                "handshakeTimeout": handshakeTimeout as Any,
            ])
        }
    }
}
