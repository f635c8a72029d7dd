extension PJSUA {
    /// A SIP URI the app hands the engine: a call's destination, a buddy, a message's
    /// destination, a transfer target, an account's id, registrar and proxies.
    ///
    /// The text is a `sip:` or `sips:` URI (`sip:bob@example.com`), or the display-name form
    /// (`"Bob" <sip:bob@example.com>`) an account id often takes. ``init(_:)`` checks what a
    /// user can get wrong before PJSIP sees it, in Swift alone (any thread, with or without a
    /// running engine): the scheme, a host, no space, no control character (a CR, LF or NUL
    /// would inject a header), at most 255 bytes (PJSIP's URI buffers). It throws
    /// ``PJSUAError/Code/invalidURI`` naming the text.
    ///
    /// A string literal cannot throw, so a literal (`makeCall(to: "sip:bob@example.com")`) is
    /// kept as written, unchecked, and never traps. Every call that takes a `SIPURI` checks it
    /// again anyway, with the same rules and then PJSIP's own parser
    /// (`pjsua_verify_sip_url`), and throws ``PJSUAError/Code/invalidURI`` before anything is
    /// sent: a mistyped literal fails there. Text built at run time (typed by a user, read from a
    /// received message's `from`) becomes a `SIPURI` through `try SIPURI(text)`, so its error
    /// surfaces where the app built it. (`SIPURI("sip:bob@example.com")` with a literal argument
    /// is the literal form, as Swift reads a literal given to a literal-expressible type.)
    ///
    /// Equality compares the text as written, not the URI equivalence of RFC 3261 19.1.4
    /// (`sip:Bob@Example.com` and `sip:Bob@example.com` differ here).
    public struct SIPURI: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
        /// The text as given: what ``description`` returns and what PJSIP receives.
        let text: String

        /// A URI from text built at run time, checked: throws ``PJSUAError/Code/invalidURI``
        /// naming the text and what is wrong with it.
        public init(_ text: String) throws(PJSUAError) {
            try Validation.sipURISyntax(text, what: "SIP URI")
            self.text = text
        }

        /// A URI written as a literal, kept as written and checked where it is used (a literal
        /// cannot throw).
        public init(stringLiteral value: String) {
            self.text = value
        }

        /// A URI the engine built or received, kept as given (checked where it is used).
        init(unchecked text: String) {
            self.text = text
        }

        /// The text as given, e.g. `sip:bob@example.com` or `"Bob" <sip:bob@example.com>`.
        public var description: String { text }

        /// The scheme in lower case, `sip` or `sips`; nil when the text has none (only a literal
        /// that does not pass the check can lack one).
        public var scheme: String? {
            guard let bare = Validation.bareURI(text), let colon = bare.firstIndex(of: ":"), colon > bare.startIndex else { return nil }
            return bare[..<colon].lowercased()
        }

        /// The user part as written (percent escapes kept), e.g. `bob` in
        /// `sip:bob@example.com`; nil for a URI without one (`sip:example.com`).
        public var user: String? {
            guard let parts else { return nil }
            guard let userInfo = parts.userInfo else { return nil }
            // A password follows the first colon (RFC 3261 19.1.1; neither part may hold one).
            return String(userInfo.prefix { $0 != ":" })
        }

        /// The host as written, e.g. `example.com`, `192.0.2.1` or `[2001:db8::1]` (an IPv6
        /// reference keeps its brackets); nil when the text has none.
        public var host: String? {
            guard let hostPort = parts?.hostPort, !hostPort.isEmpty else { return nil }
            let host: Substring
            if hostPort.hasPrefix("[") {
                guard let close = hostPort.firstIndex(of: "]") else { return nil }
                host = hostPort[...close]
            } else {
                host = hostPort.prefix { $0 != ":" }
            }
            return host.isEmpty ? nil : String(host)
        }

        /// The port, e.g. 5080 in `sip:bob@example.com:5080`; nil when the URI names none (the
        /// transport's default then applies) or the text after the host is not a port.
        public var port: Int? {
            guard let hostPort = parts?.hostPort, let host else { return nil }
            let rest = hostPort.dropFirst(host.count)
            guard rest.hasPrefix(":"), let port = Int(rest.dropFirst()), (1...65535).contains(port) else { return nil }
            return port
        }

        /// The URI after its scheme split in two: the user info before the `@` (nil without one)
        /// and the host and port up to the parameters (`;`) or headers (`?`). An unescaped `@`
        /// appears in a SIP URI only after the user info (RFC 3261 25.1: no parameter or header
        /// character class holds it), and the user part may itself hold `;` and `?`, so the `@`
        /// is found first.
        private var parts: (userInfo: Substring?, hostPort: Substring)? {
            guard let bare = Validation.bareURI(text), let colon = bare.firstIndex(of: ":") else { return nil }
            let afterScheme = bare[bare.index(after: colon)...]
            var userInfo: Substring?
            var hostPart = afterScheme
            if let at = afterScheme.firstIndex(of: "@") {
                userInfo = afterScheme[..<at]
                hostPart = afterScheme[afterScheme.index(after: at)...]
            }
            return (userInfo, hostPart.prefix { $0 != ";" && $0 != "?" })
        }
    }
}

extension Validation {
    /// Rejects a malformed SIP URI the app passed: ``sipURI(_:what:)`` on its text.
    static func sipURI(_ uri: PJSUA.SIPURI, what: String) throws(PJSUAError) {
        try sipURI(uri.text, what: what)
    }
}
