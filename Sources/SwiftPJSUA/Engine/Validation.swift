import Foundation
import PJSIP

/// Checks on user input made before any of it reaches PJSIP, so that errors name the bad input.
/// The checks SwiftPJSUAStreams shares are SPI (MediaHooks).
@_spi(MediaHooks)
public enum Validation {
    /// The longest URI accepted (PJSIP's `PJSIP_MAX_URL_SIZE` buffers are 256 bytes).
    static let maxURILength = 255

    /// Rejects a malformed SIP URI: ``sipURISyntax(_:what:)``, then PJSIP's own parser
    /// (`pjsua_verify_sip_url`) has the last word. Only on the engine's executor with the engine
    /// running (PJSIP parses it).
    static func sipURI(_ uri: String, what: String) throws(PJSUAError) {
        try sipURISyntax(uri, what: what)
        guard uri.withCString({ pjsua_verify_sip_url($0) }) == pjSuccess else {
            throw PJSUAError(.invalidURI, "invalid \(what) \(quoted(uri)): PJSIP cannot parse it")
        }
    }

    /// Rejects what a user can get wrong in a SIP URI, in Swift alone (no PJSIP, so any thread,
    /// with or without a running engine: ``PJSUA/SIPURI/init(_:)`` checks with it). The scheme
    /// must be `sip` or `sips`; no control character (CR, LF, NUL: header injection), no space,
    /// at most ``maxURILength`` bytes.
    static func sipURISyntax(_ uri: String, what: String) throws(PJSUAError) {
        func fail(_ why: String) -> PJSUAError {
            PJSUAError(.invalidURI, "invalid \(what) \(quoted(uri)): \(why)")
        }
        guard !uri.isEmpty else { throw fail("it is empty") }
        guard uri.utf8.count <= maxURILength else { throw fail("longer than \(maxURILength) bytes") }
        guard !uri.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw fail("it contains control characters")
        }
        // A display-name form such as `"Bob" <sip:bob@host>` is accepted; the scheme check
        // applies to the URI inside the angle brackets.
        guard let bare = bareURI(uri) else { throw fail("unbalanced angle brackets") }
        let lower = bare.lowercased()
        let schemes = ["sip:", "sips:"]
        guard schemes.contains(where: { lower.hasPrefix($0) }) else {
            throw fail("the scheme must be \(schemes.map { String($0.dropLast()) }.joined(separator: " or "))")
        }
        let rest = lower.drop(while: { $0 != ":" }).dropFirst()
        guard !rest.isEmpty, !rest.hasPrefix("@") else { throw fail("it has no host") }
        guard !bare.contains(" ") else { throw fail("it contains spaces") }
    }

    /// The URI itself: the text between the first `<` and the last `>` of a display-name form,
    /// else the whole text; nil when the angle brackets do not pair.
    static func bareURI(_ uri: String) -> Substring? {
        guard let open = uri.firstIndex(of: "<") else { return Substring(uri) }
        guard let close = uri.lastIndex(of: ">"), close > open else { return nil }
        return uri[uri.index(after: open)..<close]
    }

    /// Rejects anything that is not a numeric IPv4 or IPv6 address of the right family.
    static func ipAddress(_ address: String, ipv6: Bool, what: String) throws(PJSUAError) {
        var buffer = [UInt8](repeating: 0, count: 16)
        let family = ipv6 ? AF_INET6 : AF_INET
        guard inet_pton(family, address, &buffer) == 1 else {
            throw PJSUAError(.invalidArgument, "invalid \(what) \(quoted(address)): not a numeric IPv\(ipv6 ? 6 : 4) address")
        }
    }

    /// Rejects a server address that is not `host`, `host:port` or `[ipv6]:port`.
    static func serverAddress(_ address: String, what: String) throws(PJSUAError) {
        func fail(_ why: String) -> PJSUAError {
            PJSUAError(.invalidArgument, "invalid \(what) \(quoted(address)): \(why)")
        }
        guard !address.isEmpty, address.utf8.count <= 255 else { throw fail("it must be 1 to 255 bytes") }
        guard !address.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F || "/@;<>\"".unicodeScalars.contains($0) }) else {
            throw fail("it must be host or host:port, with no spaces, control characters or URI parts")
        }
        var host = Substring(address)
        var port: Substring?
        if address.hasPrefix("[") {
            guard let close = address.firstIndex(of: "]") else { throw fail("unbalanced brackets") }
            host = address[address.index(after: address.startIndex)..<close]
            let rest = address[address.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { throw fail("expected :port after the brackets") }
                port = rest.dropFirst()
            }
        } else if let colon = address.firstIndex(of: ":") {
            guard address[address.index(after: colon)...].firstIndex(of: ":") == nil else {
                throw fail("an IPv6 address needs brackets, e.g. [::1]:3478")
            }
            host = address[..<colon]
            port = address[address.index(after: colon)...]
        }
        guard !host.isEmpty else { throw fail("it has no host") }
        if let port { guard let number = Int(port), (1...65535).contains(number) else { throw fail("the port must be 1...65535") } }
    }

    /// Rejects values that would break a SIP header (line breaks, NUL) or are absurdly long.
    public static func headerValue(_ value: String, what: String, maxLength: Int = 1024) throws(PJSUAError) {
        guard value.utf8.count <= maxLength else {
            throw PJSUAError(.invalidArgument, "\(what) is longer than \(maxLength) bytes")
        }
        guard !value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0.value == 0 }) else {
            throw PJSUAError(.invalidArgument, "\(what) \(quoted(value)) contains a line break or NUL")
        }
    }

    /// The value in quotes, shortened and with control characters escaped, for error messages.
    public static func quoted(_ value: String) -> String {
        let clipped = value.count > 80 ? String(value.prefix(77)) + "..." : value
        var out = ""
        for scalar in clipped.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F {
                out += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return "\"\(out)\""
    }
}

extension Validation {
    /// Rejects a MIME type that is not `type/subtype` (tokens) with optional `;parameters`, or
    /// that could break the Content-Type header.
    static func contentType(_ value: String) throws(PJSUAError) {
        let fail = PJSUAError(.invalidArgument, "content type \(quoted(value)) is not a MIME type of the form type/subtype[;parameter=value]")
        try headerValue(value, what: "content type", maxLength: 255)
        let essence = value.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let parts = essence.split(separator: "/", omittingEmptySubsequences: false)
        let token: (Substring) -> Bool = { part in
            !part.isEmpty && part.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) && $0.isASCII || "-.!%*_+`'~".unicodeScalars.contains($0) }
        }
        guard parts.count == 2, token(parts[0]), token(parts[1]) else { throw fail }
    }
}

extension Validation {
    /// Rejects a duration outside `range` (compared as durations, so a huge one cannot overflow
    /// on its way to the check).
    public static func duration(_ value: Duration, in range: ClosedRange<Duration>, what: String) throws(PJSUAError) {
        guard range.contains(value) else {
            throw PJSUAError(.invalidArgument, "\(what) \(value) is out of range \(range.lowerBound)...\(range.upperBound)")
        }
    }
}

extension Duration {
    /// Whole milliseconds, rounded toward zero, saturating at `Int`'s bounds instead of
    /// trapping: what C's millisecond fields get, once ``Validation/duration(_:in:what:)`` has
    /// bounded the value.
    @_spi(MediaHooks) public var wholeMilliseconds: Int {
        let (seconds, attoseconds) = components
        let (milliseconds, overflow) = Int(seconds).multipliedReportingOverflow(by: 1000)
        guard !overflow else { return seconds < 0 ? .min : .max }
        let (total, carry) = milliseconds.addingReportingOverflow(Int(attoseconds / 1_000_000_000_000_000))
        return carry ? (seconds < 0 ? .min : .max) : total
    }

    /// Whole seconds, rounded toward zero: what C's second fields get.
    var wholeSeconds: Int { Int(components.seconds) }
}
