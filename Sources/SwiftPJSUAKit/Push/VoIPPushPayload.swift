import Foundation

/// The VoIP push payload a SIP push server sends to wake the app for an incoming call, schema
/// version 1.
///
/// ```json
/// {"v": 1, "call-id": "a84b4c76e66710@pc33.example.com",
///  "uuid": "2ed6657d-e927-568b-95e1-2665a8aea6a2", "caller": "sip:alice@example.com",
///  "display-name": "Alice", "video": false, "cancelled": false}
/// ```
///
/// | Key | Type | Required | Meaning |
/// |---|---|---|---|
/// | `v` | integer | yes | Schema version; only `1` is accepted. |
/// | `call-id` | string, 1...256 bytes of visible ASCII | yes | The SIP Call-ID of the INVITE that follows. |
/// | `uuid` | string, RFC 4122 text form | no | The call's UUID; wins over the Call-ID's UUID (see ``CallIdentity``). |
/// | `caller` | string, at most 256 bytes | no | The caller's handle (SIP URI or number). |
/// | `display-name` | string, at most 256 bytes | no | The caller's name as shown. |
/// | `video` | boolean (`0`/`1` also read) | no | Whether video is offered; `false` when absent. |
/// | `cancelled` | boolean (`0`/`1` also read) | no | The caller already hung up; `false` when absent. |
///
/// Unknown keys are ignored, so servers may add fields without a version change; a change that
/// breaks version-1 readers must use a new `v`. The parser never traps: every malformed input
/// (missing fields, wrong types, oversized strings, garbage bytes) is a ``PushPayloadError``.
public struct VoIPPushPayload: Sendable, Hashable {
    /// The schema version this parser reads.
    public static let version = 1
    /// The largest payload accepted, in bytes (APNs caps VoIP payloads at 5 KiB).
    public static let maximumPayloadBytes = 8192
    /// The deepest JSON nesting accepted (version 1 needs 1).
    public static let maximumNestingDepth = 8
    /// The longest `call-id` accepted, in UTF-8 bytes.
    public static let maximumCallIDBytes = 256
    /// The longest `caller` or `display-name` accepted, in UTF-8 bytes.
    public static let maximumTextBytes = 256

    /// The SIP Call-ID of the call being announced.
    public let sipCallID: String
    /// The server-supplied call UUID, when the payload carried one.
    public let uuid: UUID?
    /// The caller's handle (SIP URI or number), when given.
    public let caller: String?
    /// The caller's display name, when given.
    public let displayName: String?
    /// Whether the call offers video.
    public let hasVideo: Bool
    /// Whether the caller already hung up before the push was delivered.
    public let isCancelled: Bool

    /// Creates a payload from already-validated values (for tests and for apps that build one).
    public init(sipCallID: String, uuid: UUID? = nil, caller: String? = nil, displayName: String? = nil,
                hasVideo: Bool = false, isCancelled: Bool = false) {
        self.sipCallID = sipCallID
        self.uuid = uuid
        self.caller = caller
        self.displayName = displayName
        self.hasVideo = hasVideo
        self.isCancelled = isCancelled
    }

    /// Parses a payload from JSON bytes.
    public init(jsonData data: Data) throws(PushPayloadError) {
        guard data.count <= Self.maximumPayloadBytes else {
            throw .payloadTooLarge(bytes: data.count, limit: Self.maximumPayloadBytes)
        }
        guard Self.nestingDepth(of: data) <= Self.maximumNestingDepth else { throw .malformedJSON }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            throw .malformedJSON
        }
        guard let dictionary = object as? [String: Any] else { throw .notAnObject }
        try self.init(fields: dictionary)
    }

    /// Parses a payload from PushKit's `PKPushPayload.dictionaryPayload`.
    public init(dictionaryPayload: [AnyHashable: Any]) throws(PushPayloadError) {
        var fields: [String: Any] = [:]
        for (key, value) in dictionaryPayload {
            if let name = key.base as? String { fields[name] = value }
        }
        try self.init(fields: fields)
    }

    private init(fields: [String: Any]) throws(PushPayloadError) {
        guard let rawVersion = fields["v"] else { throw .missingField("v") }
        guard !(rawVersion is String), let version = rawVersion as? Int else {
            throw .wrongType(field: "v", expected: "an integer")
        }
        guard version == Self.version else { throw .unsupportedVersion(version) }

        guard let callID = try Self.string(fields, "call-id", limit: Self.maximumCallIDBytes) else {
            throw .missingField("call-id")
        }
        guard !callID.isEmpty else { throw .invalidValue(field: "call-id", reason: "it is empty") }
        guard callID.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw .invalidValue(field: "call-id", reason: "it must be visible ASCII with no spaces")
        }
        var uuid: UUID?
        if let text = try Self.string(fields, "uuid", limit: 64) {
            guard let parsed = UUID(uuidString: text) else {
                throw .invalidValue(field: "uuid", reason: "it is not a UUID")
            }
            uuid = parsed
        }
        let caller = try Self.string(fields, "caller", limit: Self.maximumTextBytes)
        let displayName = try Self.string(fields, "display-name", limit: Self.maximumTextBytes)
        for (field, text) in [("caller", caller), ("display-name", displayName)] {
            if let text, text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                throw .invalidValue(field: field, reason: "it contains control characters")
            }
        }
        self.init(sipCallID: callID, uuid: uuid, caller: caller, displayName: displayName,
                  hasVideo: try Self.flag(fields, "video"), isCancelled: try Self.flag(fields, "cancelled"))
    }

    private static func string(_ fields: [String: Any], _ name: String, limit: Int) throws(PushPayloadError) -> String? {
        guard let raw = fields[name] else { return nil }
        guard let text = raw as? String else { throw .wrongType(field: name, expected: "a string") }
        guard text.utf8.count <= limit else { throw .fieldTooLong(field: name, limit: limit) }
        return text
    }

    private static func flag(_ fields: [String: Any], _ name: String) throws(PushPayloadError) -> Bool {
        guard let raw = fields[name] else { return false }
        guard !(raw is String), let value = raw as? Bool else { throw .wrongType(field: name, expected: "a boolean") }
        return value
    }

    /// The deepest bracket nesting outside strings; a cheap guard against recursion-depth attacks
    /// on the JSON parser.
    private static func nestingDepth(of data: Data) -> Int {
        var depth = 0
        var deepest = 0
        var inString = false
        var escaped = false
        for byte in data {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                deepest = max(deepest, depth)
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return deepest
    }
}
