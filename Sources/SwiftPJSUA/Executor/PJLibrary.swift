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
        // Quiet by default: PJLIB logs to stdout until pjsua_init installs our log config.
        pj_log_set_level(0)
        let status = pj_init()
        precondition(status == pjSuccess, "pj_init failed: \(status)")
        pj_log_set_level(0)
    }

    static func release() {
        lock.lock()
        defer { lock.unlock() }
        pj_shutdown()
    }
}
