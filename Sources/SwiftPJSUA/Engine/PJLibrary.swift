import CPJSUASupport
import Foundation
import PJSIP

/// Process-wide PJLIB initialisation.
///
/// PJLIB counts `pj_init()` / `pj_shutdown()` calls in a plain, non-atomic counter, and these are
/// called by every executor thread (to register itself) and by `pjsua_create()` /
/// `pjsua_destroy2()` inside. Every one of those calls goes through this lock, so an engine
/// created or dropped while another starts or stops cannot shut PJLIB down early.
enum PJLibrary {
    /// How many PJLIB initialisations this process holds (executors plus a created pjsua), and
    /// the lock every PJLIB initialisation and shutdown goes through.
    private static let holders = LockedValueBox(0)

    /// OpenSSL's clean-up at exit off, once, before any engine starts OpenSSL (KL-44): an
    /// executor thread that ends on its own runs OpenSSL's thread-exit destructor, which must not
    /// overlap OpenSSL freeing its global state in `exit()`.
    private static let openSSLKeptAtExit: Void = { _ = cpjsua_openssl_keep_at_exit() }()

    /// Initialises PJLIB for an executor thread.
    static func acquire() {
        openSSLKeptAtExit
        holders.withLockedValue { holders in
            // PJLIB logs to stdout from its first pj_init() until a pjsua_init() installs the
            // engine's log configuration: keep that first one quiet. Later calls leave the level
            // alone, or they would silence the log of an engine that is running.
            if holders == 0 { pj_log_set_level(0) }
            let status = pj_init()
            precondition(status == pjSuccess, "pj_init failed: \(status)")
            holders += 1
        }
    }

    /// Releases an executor thread's PJLIB initialisation.
    static func release() {
        holders.withLockedValue { holders in
            pj_shutdown()
            holders -= 1
        }
    }

    /// Runs `body` under the lock: no engine initialises or shuts PJLIB down meanwhile.
    static func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        try holders.withLockedValueUnchecked { (_) throws(E) -> T in try body() }
    }

    /// `pjsua_create()` under the lock (it calls `pj_init()`).
    static func createPJSUA() -> pj_status_t {
        openSSLKeptAtExit
        return holders.withLockedValue { holders in
            if holders == 0 { pj_log_set_level(0) }
            let status = pjsua_create()
            if status == pjSuccess { holders += 1 }
            return status
        }
    }

    /// `pjsua_destroy2()` under the lock (it calls `pj_shutdown()`). Callers pass flags that do
    /// not wait for responses, so the lock is held briefly.
    static func destroyPJSUA(flags: pjsua_destroy_flag) {
        holders.withLockedValue { holders in
            // Our null device clocks pjsua's bridge: it stops before the bridge is destroyed.
            cpjsua_null_clock_stop()
            pjsua_destroy2(UInt32(flags.rawValue))
            holders -= 1
        }
    }
}
