import Foundation
import PJSIP

/// The local conference's members and their links on the bridge. Linking runs only on the
/// engine's executor thread (from the actor, or from ``AudioWiring/rewire(_:)`` when a member's
/// media changed), like all bridge wiring.
enum ConferenceWiring {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var calls: Set<PJSUA.Call> = []  // guarded by `lock`

    static var members: Set<PJSUA.Call> { lock.withLock { calls } }

    static func add(_ new: [PJSUA.Call]) {
        lock.withLock { calls.formUnion(new) }
    }

    /// Forgets members that have ended; a conference left with one member is dissolved.
    static func prune() {
        let ended = members.filter { !isLive($0) }
        lock.withLock {
            calls.subtract(ended)
            if calls.count == 1 { calls = [] }
        }
    }

    /// Removes `call` and disconnects it from every other member, both ways.
    static func remove(_ call: PJSUA.Call) {
        let others = lock.withLock {
            calls.remove(call)
            return calls
        }
        forEachPair(call, others) { mine, theirs in
            pjsua_conf_disconnect(mine, theirs)
            pjsua_conf_disconnect(theirs, mine)
        }
    }

    /// Connects `call` to every other live member, both ways, if it is a member. Executor
    /// thread only.
    static func link(_ call: PJSUA.Call) {
        let others = lock.withLock { calls.contains(call) ? calls.subtracting([call]) : [] }
        forEachPair(call, others) { mine, theirs in
            pjsua_conf_connect(mine, theirs)
            pjsua_conf_connect(theirs, mine)
        }
    }

    static func deactivate() {
        lock.withLock { calls = [] }
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
