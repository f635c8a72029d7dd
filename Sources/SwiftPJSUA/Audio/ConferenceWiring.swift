import Foundation
import PJSIP

/// The local conference's members and their links on the bridge. Linking runs only on the
/// engine's executor thread (from the actor, or from ``AudioWiring/rewire(_:)`` when a member's
/// media changed), like all bridge wiring. The members are the run's
/// (``EngineRun/State/conference``).
enum ConferenceWiring {
    static var members: Set<PJSUA.Call> { EngineRun.current?.withState { $0.conference } ?? [] }

    static func add(_ new: [PJSUA.Call]) {
        EngineRun.current?.withState { $0.conference.formUnion(new) }
    }

    /// Forgets members that have ended; a conference left with one member is dissolved.
    static func prune() {
        let ended = members.filter { !isLive($0) }
        EngineRun.current?.withState { state in
            state.conference.subtract(ended)
            if state.conference.count == 1 { state.conference = [] }
        }
    }

    /// Removes `call` and disconnects it from every other member, both ways.
    static func remove(_ call: PJSUA.Call) {
        let others: Set<PJSUA.Call> = EngineRun.current?.withState { state in
            state.conference.remove(call)
            return state.conference
        } ?? []
        forEachPair(call, others) { mine, theirs in
            pjsua_conf_disconnect(mine, theirs)
            pjsua_conf_disconnect(theirs, mine)
        }
    }

    /// Connects `call` to every other live member, both ways, if it is a member. Executor
    /// thread only.
    static func link(_ call: PJSUA.Call) {
        let others: Set<PJSUA.Call> = EngineRun.current?.withState { state in
            state.conference.contains(call) ? state.conference.subtracting([call]) : []
        } ?? []
        forEachPair(call, others) { mine, theirs in
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
