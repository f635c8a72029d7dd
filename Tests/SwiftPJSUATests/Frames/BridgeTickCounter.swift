import PJSIP
@_spi(MediaHooks) @testable import SwiftPJSUA
import Synchronization

/// The conference bridge's ticks, counted by a port of the test's own on the bridge: the bridge
/// hands every port a frame each tick (`write_port` in conference.c sends a null frame when
/// nothing is connected to it), so its `put_frame` runs once per tick. A test compares what a
/// port of the engine received with what the bridge did, not with the wall clock: a bridge whose
/// clock thread a loaded machine holds back ticks late, and the ticks it makes up for (pjmedia's
/// clock catches up to 500 ms) count for both.
final class BridgeTickCounter: Sendable {
    private let count = Atomic<Int>(0)
    /// The port (its address) and its slot once ``PJSUA/addTickCounter()`` has added it; 0 and
    /// -1 before that and after ``PJSUA/removeTickCounter(_:)``. Engine thread only.
    fileprivate let port = Atomic<UInt>(0)
    fileprivate let slot = Atomic<Int32>(-1)

    /// The ticks counted so far (any thread).
    var ticks: Int { count.load(ordering: .relaxed) }

    fileprivate func tick() { _ = count.add(1, ordering: .relaxed) }
}

extension PJSUA {
    /// Adds a tick counter to the bridge, at the bridge's clock rate and frame size.
    func addTickCounter() throws -> BridgeTickCounter {
        var bridge = pjsua_conf_port_info()
        try check(pjsua_conf_get_port_info(0, &bridge), "pjsua_conf_get_port_info")
        guard let pool = pjsua_pool_create("tick-counter", 512, 512) else { throw PJSUAError(.pjsip, "no pool for the tick counter") }
        guard let raw = pj_pool_zalloc(pool, MemoryLayout<pjmedia_port>.size) else {
            pj_pool_release(pool)
            throw PJSUAError(.pjsip, "no memory for the tick counter")
        }
        let port = raw.bindMemory(to: pjmedia_port.self, capacity: 1)
        var name = pj_str_t()
        _ = "tick-counter".withCString { text in pj_strdup2_with_null(pool, &name, text) }
        pjmedia_port_info_init(&port.pointee.info, &name, 0x5449_434B, bridge.clock_rate, 1, 16,
                               bridge.samples_per_frame / max(bridge.channel_count, 1))
        let counter = BridgeTickCounter()
        port.pointee.port_data.pdata = Unmanaged.passRetained(counter).toOpaque()
        port.pointee.put_frame = tickCounterPutFrame
        port.pointee.get_frame = tickCounterGetFrame
        port.pointee.on_destroy = tickCounterDestroy
        let kept = BridgePortLifetime.attach(port, pool: pool)
        guard kept == pjSuccess else { throw PJSUAError(status: kept, operation: "the tick counter's group lock") }
        var slot: pjsua_conf_port_id = -1
        let status = pjsua_conf_add_port(pool, port, &slot)
        guard status == pjSuccess else {
            pjmedia_port_destroy(port)
            throw PJSUAError(status: status, operation: "pjsua_conf_add_port (the tick counter)")
        }
        counter.port.store(UInt(bitPattern: port), ordering: .relaxed)
        counter.slot.store(slot, ordering: .relaxed)
        return counter
    }

    /// Takes a tick counter off the bridge (it stops counting at the bridge's next tick).
    func removeTickCounter(_ counter: BridgeTickCounter) {
        let slot = counter.slot.exchange(-1, ordering: .relaxed)
        guard slot >= 0, let port = UnsafeMutablePointer<pjmedia_port>(bitPattern: counter.port.exchange(0, ordering: .relaxed)) else { return }
        pjsua_conf_remove_port(slot)
        pjmedia_port_destroy(port)
    }
}

private func tickCounterPutFrame(_ port: UnsafeMutablePointer<pjmedia_port>?, _ frame: UnsafeMutablePointer<pjmedia_frame>?) -> pj_status_t {
    guard let data = port?.pointee.port_data.pdata else { return pjSuccess }
    Unmanaged<BridgeTickCounter>.fromOpaque(data).takeUnretainedValue().tick()
    return pjSuccess
}

private func tickCounterGetFrame(_ port: UnsafeMutablePointer<pjmedia_port>?, _ frame: UnsafeMutablePointer<pjmedia_frame>?) -> pj_status_t {
    frame?.pointee.type = PJMEDIA_FRAME_TYPE_NONE
    frame?.pointee.size = 0
    return pjSuccess
}

private func tickCounterDestroy(_ port: UnsafeMutablePointer<pjmedia_port>?) -> pj_status_t {
    guard let port, let data = port.pointee.port_data.pdata else { return pjSuccess }
    port.pointee.port_data.pdata = nil
    Unmanaged<BridgeTickCounter>.fromOpaque(data).release()
    return pjSuccess
}
