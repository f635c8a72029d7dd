import Foundation
import PJSIP

/// The frame ports attached to the bridge, kept in their call's record
/// (``CallRecord/frameChannels``) in the run that made them, so that a call's end and the
/// engine's teardown take them off it.
enum FrameTaps {
    /// Records an attached channel. Executor thread.
    static func register(_ channel: FrameChannel, slot: Int32, in run: EngineRun) {
        run.withCall(channel.call) { $0.frameChannels[ObjectIdentifier(channel)] = (channel, slot) }
    }

    /// Takes `channel` off the bridge if it is still on it (in `run`, nil once the run has
    /// ended: the teardown took it off). Executor thread only.
    static func detach(_ channel: FrameChannel, in run: EngineRun?) {
        let wasAttached = run?.withState { state in
            state.calls[channel.call]?.frameChannels.removeValue(forKey: ObjectIdentifier(channel)) != nil
        } ?? false
        channel.close()
        if wasAttached { channel.detach() }
    }

    /// The bridge slots of `call`'s frame ports, for wiring.
    static func slots(of call: PJSUA.Call, in run: EngineRun) -> [(direction: FrameChannel.Direction, slot: Int32)] {
        run.record(of: call) { record in record.frameChannels.values.map { ($0.channel.direction, $0.slot) } } ?? []
    }

    /// Connects `call`'s frame ports to the call's conference slot (after a re-INVITE gave the
    /// call a new one). Executor thread only.
    static func wire(_ call: PJSUA.Call, callSlot: Int32, in run: EngineRun) {
        for (direction, slot) in slots(of: call, in: run) {
            switch direction {
            case .receive: pjsua_conf_connect(callSlot, slot)
            case .send: pjsua_conf_connect(slot, callSlot)
            }
        }
    }
}
