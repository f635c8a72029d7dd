extension PJSUA {
    /// One SIP header line, `Name: value`: an extra header the app adds to a request or response
    /// it sends, or a header of a request it received.
    ///
    /// Headers the app adds are checked before anything is sent (``validate()``): the name must be
    /// a SIP token (RFC 3261 25.1), the value must hold no line break, NUL or other control
    /// character except tab, and headers the SIP stack writes itself (Via, From, To, Call-ID,
    /// CSeq, Contact, Content-Type, Content-Length, and their compact forms) are refused. A bad
    /// header fails with ``PJSUAError/Code/invalidHeader``.
    public struct SIPHeader: Sendable, Hashable, CustomStringConvertible {
        /// The header name as written, e.g. `X-Call-UUID`. SIP header names are case-insensitive.
        public let name: String
        /// The header value, without the name, the colon and the leading whitespace.
        public let value: String

        /// Creates a header. It is validated when it is used.
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }

        /// Parses a `Name: value` line (as typed on a command line), validated.
        public init(parsing line: String) throws {
            guard let colon = line.firstIndex(of: ":") else {
                throw PJSUAError(.invalidHeader, "header \(Validation.quoted(line)) is not of the form 'Name: value'")
            }
            let name = String(line[..<colon]).trimmingSpaces()
            let value = String(line[line.index(after: colon)...]).trimmingSpaces()
            self.init(name, value)
            try validate()
        }

        /// Whether this header has the given name, compared without regard to case.
        public func hasName(_ other: String) -> Bool {
            name.lowercased() == other.lowercased()
        }

        /// Throws ``PJSUAError/Code/invalidHeader`` unless this header can be sent as it is.
        public func validate() throws(PJSUAError) {
            func fail(_ why: String) -> PJSUAError {
                PJSUAError(.invalidHeader, "header \(Validation.quoted(name)): \(why)")
            }
            guard !name.isEmpty else { throw fail("the name is empty") }
            guard name.utf8.count <= Self.maxNameLength else { throw fail("the name is longer than \(Self.maxNameLength) bytes") }
            guard name.unicodeScalars.allSatisfy(Self.isTokenCharacter) else {
                throw fail("the name is not a SIP token (letters, digits and - . ! % * _ + ` ' ~ only)")
            }
            guard !Self.stackOwned.contains(name.lowercased()) else {
                throw fail("the SIP stack writes this header itself")
            }
            guard value.utf8.count <= Self.maxValueLength else { throw fail("the value is longer than \(Self.maxValueLength) bytes") }
            guard !value.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }) else {
                throw fail("the value \(Validation.quoted(value)) contains a line break, NUL or another control character")
            }
        }

        public var description: String { "\(name): \(value)" }

        /// The longest header name accepted.
        public static let maxNameLength = 64
        /// The longest header value accepted (a SIP message over UDP must fit `PJSIP_MAX_PKT_LEN`).
        public static let maxValueLength = 2048

        /// Headers pjsua builds for every request and response; a second copy would make the
        /// message malformed or contradict the dialog (full and compact names, lower case).
        static let stackOwned: Set<String> = [
            "via", "v", "from", "f", "to", "t", "call-id", "i", "cseq", "contact", "m",
            "content-type", "c", "content-length", "l",
        ]

        private static func isTokenCharacter(_ scalar: Unicode.Scalar) -> Bool {
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", "-", ".", "!", "%", "*", "_", "+", "`", "'", "~": true
            default: false
            }
        }
    }
}

extension Sequence where Element == PJSUA.SIPHeader {
    /// The value of the first header named `name` (case-insensitive), or nil.
    public func value(named name: String) -> String? {
        first { $0.hasName(name) }?.value
    }

    /// The values of every header named `name` (case-insensitive), in message order (e.g. each
    /// `Diversion` of a forwarded call).
    public func values(named name: String) -> [String] {
        filter { $0.hasName(name) }.map(\.value)
    }
}

extension String {
    /// The string without leading and trailing spaces and tabs.
    fileprivate func trimmingSpaces() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[start...end])
    }
}
