import Foundation
import PJSIP

/// The frame ports attached to the bridge, so that a call's end and the engine's shutdown can
/// take them off it.
enum FrameTaps {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var attached: [ObjectIdentifier: (channel: FrameChannel, slot: Int32)] = [:]  // guarded by `lock`

    /// Records an attached channel. Executor thread.
    static func register(_ channel: FrameChannel, slot: Int32) {
        lock.withLock { attached[ObjectIdentifier(channel)] = (channel, slot) }
    }

    /// Takes `channel` off the bridge if it is still on it. Executor thread only.
    static func detach(_ channel: FrameChannel) {
        let wasAttached = lock.withLock { attached.removeValue(forKey: ObjectIdentifier(channel)) != nil }
        channel.close()
        if wasAttached { channel.detach() }
    }

    /// Closes the channels of a call that ended (any thread: pjsua's worker, in the call-state
    /// callback) and schedules their removal from the bridge on the engine's executor thread.
    static func callEnded(_ call: PJSUA.Call) {
        let channels = lock.withLock { attached.values.filter { $0.channel.call == call }.map(\.channel) }
        for channel in channels {
            channel.close()
            channel.executor.execute { detach(channel) }
        }
    }

    /// Takes every frame port off the bridge (before pjsua is destroyed). Executor thread only.
    static func detachAll() {
        let all = lock.withLock {
            let all = attached.values.map(\.channel)
            attached = [:]
            return all
        }
        for channel in all {
            channel.close()
            channel.detach()
        }
    }

    /// The bridge slots of `call`'s frame ports, for wiring.
    static func slots(of call: PJSUA.Call) -> [(direction: FrameChannel.Direction, slot: Int32)] {
        lock.withLock { attached.values.filter { $0.channel.call == call }.map { ($0.channel.direction, $0.slot) } }
    }

    /// Connects `call`'s frame ports to the call's conference slot (after a re-INVITE gave the
    /// call a new one). Executor thread only.
    static func wire(_ call: PJSUA.Call, callSlot: Int32) {
        for (direction, slot) in slots(of: call) {
            switch direction {
            case .receive: pjsua_conf_connect(callSlot, slot)
            case .send: pjsua_conf_connect(slot, callSlot)
            }
        }
    }
}
