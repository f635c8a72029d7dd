import Foundation
import PJSIP

/// Connects calls' audio to the conference bridge's slot 0 (the sound device, or nothing until
/// the app activates one: the engine never opens a device on its own), both ways, or only
/// speaker-wards while the call is muted.
///
/// Wiring runs only on the engine's executor thread. pjsua's media callback does not wire the
/// call itself: it schedules ``rewire(_:in:)`` on the executor, where ``PJSUA/setMuted(_:to:)`` also
/// runs. A mute and a media update (a re-INVITE replacing the call's conference slot) therefore
/// never interleave, and each wiring reads the call's media and its mute flag fresh, in one step:
/// the microphone is never live while ``PJSUA/isMuted(_:)`` says true.
enum AudioWiring {
    /// Rewires `call` from its current media if it is still the call in its slot. Executor
    /// thread only.
    static func rewire(_ call: PJSUA.Call, in run: EngineRun) {
        guard isLive(call) else { return }
        let wiresCallsToSlotZero = run.wiresCallsToSlotZero
        let muted = run.record(of: call) { $0.isMuted } ?? false
        let attachments = run.attachments(of: call)
        _ = withCallInfo(call.slot) { info in
            for slot in activeAudioSlots(info) {
                if wiresCallsToSlotZero {
                    pjsua_conf_connect(slot, 0)
                    if muted {
                        pjsua_conf_disconnect(0, slot)
                    } else {
                        pjsua_conf_connect(0, slot)
                    }
                }
                FrameTaps.wire(call, callSlot: slot, in: run)
                for attachment in attachments { attachment.callAudioWired(slot: slot) }
            }
        }
        // A member of the local conference gets its links to the other members back.
        run.conferenceWiring.link(call)
    }

    /// Rewires every call pjsua holds (after the sound device changed). Executor thread only.
    static func rewireAll(_ slots: [pjsua_call_id], in run: EngineRun) {
        for slot in slots { rewire(callHandle(slot), in: run) }
    }
}
