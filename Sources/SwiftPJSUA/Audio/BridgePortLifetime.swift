import CPJSUASupport
import PJSIP

/// The lifetime of a media port of ours on the conference bridge (a tone generator, an in-band
/// DTMF detector): the port and the pool it lives in go when the bridge has let go of them, not
/// when we remove it.
///
/// Since pjproject 2.14 the bridge applies `pjsua_conf_remove_port` at its next tick, so its
/// clock thread may still be inside the port's `get_frame` or `put_frame` after the call
/// returns. A port with a group lock (`pjmedia_port_init_grp_lock`) is kept by the bridge (it
/// adds a reference when the port is added and drops it once the removal is done), and
/// `pjmedia_port_destroy` only drops ours: the port's `on_destroy` runs after the last reference
/// goes, on whichever thread dropped it, and then the handler added here releases the pool. (The
/// group lock has a pool of its own.)
enum BridgePortLifetime {
    /// Gives `port`, allocated from `pool`, a group lock whose last reference destroys it and
    /// then releases `pool`. Call before `pjsua_conf_add_port`. On failure (memory) the port has
    /// been destroyed (its `on_destroy` ran) and the pool released.
    static func attach(_ port: UnsafeMutablePointer<pjmedia_port>, pool: UnsafeMutablePointer<pj_pool_t>) -> pj_status_t {
        var status = pjmedia_port_init_grp_lock(port, pool, nil)
        if status == pjSuccess, let lock = port.pointee.grp_lock {
            // Handlers run in the order they were added: the port's on_destroy (added by
            // pjmedia_port_init_grp_lock) first, then this.
            status = pj_grp_lock_add_handler(lock, nil, UnsafeMutableRawPointer(pool), releasePool)
            if status == pjSuccess { return pjSuccess }
        }
        pjmedia_port_destroy(port)  // with a group lock: its one reference, so on_destroy now
        pj_pool_release(pool)
        return status == pjSuccess ? cpjsua_status_einval : status  // (a group lock without its lock: never)
    }
}

/// The group lock's last handler: the pool the port lived in.
private func releasePool(_ pool: UnsafeMutableRawPointer?) {
    guard let pool else { return }
    pj_pool_release(pool.assumingMemoryBound(to: pj_pool_t.self))
}
