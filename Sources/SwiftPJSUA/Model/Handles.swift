import Foundation

/// Tokens that make handles unique for the life of the process.
///
/// pjsua reuses call, account and media slots; a handle pairs the slot with a token stored in
/// the slot's user data (or in the engine's tables), so a stale handle is detected instead of
/// acting on whatever now occupies the slot.
enum HandleToken {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var last: UInt = 0  // guarded by `lock`

    static func next() -> UInt {
        lock.lock()
        defer { lock.unlock() }
        last += 1
        return last
    }

    static func pointer(_ token: UInt) -> UnsafeMutableRawPointer? {
        UnsafeMutableRawPointer(bitPattern: token)
    }

    static func token(_ pointer: UnsafeMutableRawPointer?) -> UInt {
        UInt(bitPattern: pointer)
    }
}

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
