import Foundation

/// Tokens that make handles unique for the life of the process.
///
/// pjsua reuses call, account and media slots; a handle pairs the slot with a token stored in
/// the slot's user data (or in the engine's tables), so a stale handle is detected instead of
/// acting on whatever now occupies the slot.
enum HandleToken {
    /// The last token handed out.
    private static let last = LockedValueBox<UInt>(0)

    static func next() -> UInt {
        last.withLockedValue { last in
            last += 1
            return last
        }
    }

    static func pointer(_ token: UInt) -> UnsafeMutableRawPointer? {
        UnsafeMutableRawPointer(bitPattern: token)
    }

    static func token(_ pointer: UnsafeMutableRawPointer?) -> UInt {
        UInt(bitPattern: pointer)
    }
}
