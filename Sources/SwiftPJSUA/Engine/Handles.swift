extension PJSUA {
    /// A handle to one SIP call (either direction). Unique for the life of the process: once the
    /// call has ended, the handle stays stale even when pjsua reuses its slot.
    public struct Call: Hashable, Sendable, CustomStringConvertible {
        /// pjsua's call slot (`pjsua_call_id`).
        public let slot: Int32
        let token: UInt

        init(slot: Int32, token: UInt) {
            self.slot = slot
            self.token = token
        }

        public var description: String { "call#\(slot).\(token)" }
    }

    /// A handle to one SIP account (`pjsua_acc_id` plus a unique token).
    public struct Account: Hashable, Sendable, CustomStringConvertible {
        /// pjsua's account slot (`pjsua_acc_id`).
        public let slot: Int32
        let token: UInt

        init(slot: Int32, token: UInt) {
            self.slot = slot
            self.token = token
        }

        public var description: String { "account#\(slot).\(token)" }
    }

    /// A WAV file playing into a call (`pjsua_player_id` plus a unique token).
    public struct Player: Hashable, Sendable, CustomStringConvertible {
        let id: Int32
        let token: UInt
        public var description: String { "player#\(id).\(token)" }
    }

    /// A call being recorded to a WAV file (`pjsua_recorder_id` plus a unique token).
    public struct Recorder: Hashable, Sendable, CustomStringConvertible {
        let id: Int32
        let token: UInt
        public var description: String { "recorder#\(id).\(token)" }
    }
}

extension PJSUA {
    /// A handle to one buddy: a URI whose presence or line state (BLF) the engine watches
    /// (`pjsua_buddy_id` plus a unique token). Stale once removed or after the engine stops.
    public struct Buddy: Hashable, Sendable, CustomStringConvertible {
        /// pjsua's buddy slot (`pjsua_buddy_id`).
        public let slot: Int32
        let token: UInt

        init(slot: Int32, token: UInt) {
            self.slot = slot
            self.token = token
        }

        public var description: String { "buddy#\(slot).\(token)" }
    }
}
