/// Why a VoIP push payload was refused by ``VoIPPushPayload``'s parser.
public enum PushPayloadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The payload is larger than ``VoIPPushPayload/maximumPayloadBytes``.
    case payloadTooLarge(bytes: Int, limit: Int)
    /// The bytes are not JSON, or nest deeper than ``VoIPPushPayload/maximumNestingDepth``.
    case malformedJSON
    /// The JSON is valid but its top level is not an object.
    case notAnObject
    /// A required field is absent.
    case missingField(String)
    /// A field has the wrong JSON type; `expected` names the type wanted.
    case wrongType(field: String, expected: String)
    /// The schema version `v` is not one this parser understands.
    case unsupportedVersion(Int)
    /// A string field is longer than its limit, in UTF-8 bytes.
    case fieldTooLong(field: String, limit: Int)
    /// A field has the right type but an unusable value; `reason` says why.
    case invalidValue(field: String, reason: String)

    /// A one-line explanation naming the offending field.
    public var description: String {
        switch self {
        case let .payloadTooLarge(bytes, limit): "push payload is \(bytes) bytes, more than the \(limit)-byte limit"
        case .malformedJSON: "push payload is not well-formed JSON (or nests too deeply)"
        case .notAnObject: "push payload is not a JSON object"
        case let .missingField(field): "push payload has no \"\(field)\""
        case let .wrongType(field, expected): "push payload field \"\(field)\" is not \(expected)"
        case let .unsupportedVersion(version): "push payload version \(version) is not supported (this build reads version 1)"
        case let .fieldTooLong(field, limit): "push payload field \"\(field)\" is longer than \(limit) bytes"
        case let .invalidValue(field, reason): "push payload field \"\(field)\" is invalid: \(reason)"
        }
    }
}
