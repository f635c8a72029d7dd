import Foundation
import PJSIP

/// The local conference's members and their links on the bridge, for the run that owns them
/// (``EngineRun/State/conference``; ``EngineRun/conferenceWiring``). Linking runs only on the
/// engine's executor thread (from the actor, or from ``AudioWiring/rewire(_:in:)`` when a member's
/// media changed), like all bridge wiring.
struct ConferenceWiring {
    let run: EngineRun

    var members: Set<PJSUA.Call> { run.withState { $0.conference } }

    func add(_ new: [PJSUA.Call]) {
        run.withState { $0.conference.formUnion(new) }
    }

    /// Forgets members that have ended; a conference left with one member is dissolved.
    func prune() {
        let ended = members.filter { !isLive($0) }
        run.withState { state in
            state.conference.subtract(ended)
            if state.conference.count == 1 { state.conference = [] }
        }
    }

    /// Removes `call` and disconnects it from every other member, both ways.
    func remove(_ call: PJSUA.Call) {
        let others: Set<PJSUA.Call> = run.withState { state in
            state.conference.remove(call)
            return state.conference
        }
        Self.forEachPair(call, others) { mine, theirs in
            pjsua_conf_disconnect(mine, theirs)
            pjsua_conf_disconnect(theirs, mine)
        }
    }

    /// Connects `call` to every other live member, both ways, if it is a member. Executor
    /// thread only.
    func link(_ call: PJSUA.Call) {
        let others: Set<PJSUA.Call> = run.withState { state in
            state.conference.contains(call) ? state.conference.subtracting([call]) : []
        }
        Self.forEachPair(call, others) { mine, theirs in
            pjsua_conf_connect(mine, theirs)
            pjsua_conf_connect(theirs, mine)
        }
    }

    /// Runs `body` with each pair of flowing bridge ports: one of `call`'s, one of another's.
    private static func forEachPair(_ call: PJSUA.Call, _ others: Set<PJSUA.Call>,
                                    _ body: (pjsua_conf_port_id, pjsua_conf_port_id) -> Void) {
        let mine = flowingSlots(of: call)
        guard !mine.isEmpty else { return }
        for other in others {
            for theirs in flowingSlots(of: other) {
                for slot in mine { body(slot, theirs) }
            }
        }
    }

    private static func flowingSlots(of call: PJSUA.Call) -> [pjsua_conf_port_id] {
        guard isLive(call) else { return [] }
        return withCallInfo(call.slot) { info in activeAudioSlots(info) } ?? []
    }
}

extension EngineRun {
    /// The run's local conference.
    var conferenceWiring: ConferenceWiring { ConferenceWiring(run: self) }
}
