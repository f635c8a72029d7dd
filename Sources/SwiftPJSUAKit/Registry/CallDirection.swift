/// Which side placed a call.
enum CallDirection: String, Sendable, Hashable {
    /// The remote party called us (announced by a push, an INVITE, or both).
    case incoming
    /// We placed the call.
    case outgoing
}
