extension PJSUA {
    /// The state of a buddy's line from its dialog event package (RFC 4235), for a busy-lamp
    /// field: ``Event/lineState(_:)``. pjsua reports the first dialog of a NOTIFY
    /// (`pjsua_buddy_dlg_event_info`).
    public struct LineState: Sendable, Hashable, CustomStringConvertible {
        /// The dialog's state, folded into what a lamp shows.
        public enum State: String, Sendable, Hashable {
            /// No dialog (a NOTIFY listing none): the line is free.
            case idle
            /// `trying`, `proceeding` or `early`: a call is being set up, ringing.
            case early
            /// `confirmed`: a call is up.
            case confirmed
            /// `terminated`: the call ended.
            case terminated
        }

        /// The buddy.
        public let buddy: Buddy
        /// The buddy's URI, as added.
        public let uri: SIPURI
        /// The lamp's state.
        public let state: State
        /// The `<state>` as received (e.g. `proceeding`); empty with no dialog.
        public let dialogState: String
        /// `initiator` (the buddy called) or `recipient` (the buddy is called), when given.
        public let direction: String
        /// The other party (the caller when the buddy is the recipient): its identity with the
        /// display name when the NOTIFY carries one; empty when it does not.
        public let remote: String
        /// The dialog's `call-id` attribute, when given.
        public let sipCallID: String

        public var description: String {
            remote.isEmpty ? "\(uri) \(state.rawValue)" : "\(uri) \(state.rawValue) (\(direction) \(remote))"
        }
    }
}
