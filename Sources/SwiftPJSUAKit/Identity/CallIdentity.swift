import Foundation

/// The rule that gives each logical call one UUID, computed the same way on the push path and on
/// the SIP (INVITE) path.
///
/// A UUID supplied by the server in the VoIP push payload wins; otherwise the UUID is the RFC 4122
/// version 5 UUID of the SIP Call-ID in ``namespace``. A server that wants its pushes and the
/// INVITE to agree whatever arrives first should either omit `uuid` or compute it with the same
/// rule.
public enum CallIdentity {
    /// The fixed namespace of SwiftPJSUAKit's Call-ID UUIDs: `9b7a3f4e-2c1d-4e8b-a6f0-5d3c2b1a0e9f`.
    ///
    /// Never change it: servers that compute call UUIDs themselves depend on it.
    public static let namespace = UUID(uuid: (0x9B, 0x7A, 0x3F, 0x4E, 0x2C, 0x1D, 0x4E, 0x8B,
                                              0xA6, 0xF0, 0x5D, 0x3C, 0x2B, 0x1A, 0x0E, 0x9F))

    /// The UUID of the call with this SIP Call-ID, when no server-supplied UUID is known.
    public static func uuid(forSIPCallID sipCallID: String) -> UUID {
        UUID(version5Namespace: namespace, name: sipCallID)
    }

    /// The UUID of a call: `serverUUID` when the push carried one, else the Call-ID's UUID.
    public static func uuid(forSIPCallID sipCallID: String, serverUUID: UUID?) -> UUID {
        serverUUID ?? uuid(forSIPCallID: sipCallID)
    }
}
