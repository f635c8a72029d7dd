import Foundation
import PJSIP

/// Process-wide PJLIB initialisation, reference counted.
///
/// `pj_init()` and `pj_shutdown()` are reference counted by PJLIB but not thread-safe, and every
/// executor thread needs PJLIB initialised before it can register itself; this lock serialises
/// those calls.
enum PJLibrary {
    private static let lock = NSLock()

    static func acquire() {
        lock.lock()
        defer { lock.unlock() }
        let status = pj_init()
        precondition(status == pjSuccess, "pj_init failed: \(status)")
    }

    static func release() {
        lock.lock()
        defer { lock.unlock() }
        pj_shutdown()
    }
}
