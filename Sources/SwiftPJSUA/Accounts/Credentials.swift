extension PJSUA.Account {
    /// How an account answers a registrar's or proxy's digest challenge (401/407).
    public enum Credentials: Sendable {
        /// A user name and password the engine keeps and answers with by itself
        /// (`pjsua_acc_config.cred_info`); `realm` `*` answers any realm.
        case password(username: String, password: String, realm: String = "*")
        /// A provider asked for a credential on every challenge (a Keychain item, a token
        /// service); the engine keeps no password. Drives pjsua's `on_auth_challenge` with
        /// `pjsip_auth_clt_async_send_req()` and `pjsip_auth_clt_async_abandon()`.
        case provider(PJSUA.CredentialProvider)
    }
}

extension PJSUA {
    /// Answers an account's digest challenges on demand, so that no password stays in the engine.
    ///
    /// The engine calls the closure once per 401/407 with a ``CredentialChallenge`` and answers
    /// with the ``Credential`` it returns: the credential is used to build that one authenticated
    /// request and is then zeroed and dropped (`pjsip_auth_clt_reinit_req()`,
    /// `pjsip_auth_clt_async_send_req()`). Returning nil, throwing, or not returning within
    /// ``timeout`` gives the request up (`pjsip_auth_clt_async_abandon()`): a REGISTER then
    /// fails with a ``Event/registration(account:state:)`` event carrying 401, an INVITE ends the
    /// call. When the server refuses an answer the provider is asked once more with
    /// ``CredentialChallenge/isRetry`` set; a second refusal in a row gives the request up
    /// without asking.
    ///
    /// The closure runs on the Swift concurrency pool, never on a pjsua thread, and may take as
    /// long as it needs within ``timeout``; a late answer is ignored and its task cancelled.
    ///
    /// ```swift
    /// let credentials = PJSUA.Account.Credentials.provider(.init { challenge in
    ///     try await keychain.credential(for: challenge.realm)
    /// })
    /// ```
    public struct CredentialProvider: Sendable {
        /// How long a challenge waits for the provider before it is given up (default 30 s;
        /// 10 ms...600 s).
        public var timeout: Duration
        /// The closure asked for each challenge.
        public let answer: @Sendable (CredentialChallenge) async throws -> Credential?

        /// Creates a provider that answers challenges with `answer`, waited for at most `timeout`.
        public init(timeout: Duration = .seconds(30),
                    _ answer: @escaping @Sendable (CredentialChallenge) async throws -> Credential?) {
            self.timeout = timeout
            self.answer = answer
        }
    }

    /// One digest challenge put to a ``CredentialProvider``: who is challenged, by whom, for what.
    public struct CredentialChallenge: Sendable, Hashable, CustomStringConvertible {
        /// The account whose request was challenged.
        public var account: Account
        /// The call whose request was challenged (an INVITE, a re-INVITE, a BYE); nil for
        /// requests outside a call (REGISTER, MESSAGE).
        public var call: Call?
        /// The realm the server asks credentials for.
        public var realm: String
        /// The authentication scheme (`Digest`, the only one pjsip answers).
        public var scheme: String
        /// The digest algorithm asked for (`MD5` when the challenge names none, `SHA-256`...).
        public var algorithm: String
        /// The method of the challenged request (`REGISTER`, `INVITE`...).
        public var method: String
        /// Whether a proxy challenged (407, Proxy-Authenticate) rather than the registrar or
        /// the user agent (401, WWW-Authenticate).
        public var isProxyChallenge: Bool
        /// Whether the server refused the credential this provider gave for this realm just
        /// before (the request carried it and the nonce was not stale): a wrong password.
        public var isRetry: Bool

        /// Creates a challenge (the engine makes them; this is for testing a provider).
        public init(account: Account, call: Call? = nil, realm: String, scheme: String = "Digest",
                    algorithm: String = "MD5", method: String, isProxyChallenge: Bool = false, isRetry: Bool = false) {
            self.account = account
            self.call = call
            self.realm = realm
            self.scheme = scheme
            self.algorithm = algorithm
            self.method = method
            self.isProxyChallenge = isProxyChallenge
            self.isRetry = isRetry
        }

        public var description: String {
            "CredentialChallenge(\(method) of \(account)\(call.map { " in \($0)" } ?? ""), \(isProxyChallenge ? 407 : 401) \(scheme) realm \"\(realm)\" \(algorithm)\(isRetry ? ", retry" : ""))"
        }
    }

    /// A digest user name and password given by a ``CredentialProvider`` for one challenge.
    public struct Credential: Sendable, CustomStringConvertible, CustomReflectable {
        /// The digest user name (at most 255 bytes, no line breaks).
        public var username: String
        /// The password (at most 255 bytes, no NUL). Never logged and never part of a `description`.
        public var password: String

        /// Creates a credential.
        public init(username: String, password: String) {
            self.username = username
            self.password = password
        }

        public var description: String { "Credential(username: \(username), password: <redacted>)" }

        /// Mirrors the credential with the password redacted (for `dump` and debuggers).
        public var customMirror: Mirror {
            Mirror(self, children: ["username": username, "password": "<redacted>"])
        }
    }
}
