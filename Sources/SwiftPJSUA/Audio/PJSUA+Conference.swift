import Foundation
import PJSIP

extension PJSUA {
    /// Joins calls into the local conference: every party hears every other party (N-way mixing
    /// on the conference bridge), and the sound device hears and feeds all of them as it does any
    /// call. Calls already in the conference stay in it, so adding one call to a running
    /// conference is `conference([existing, new])`.
    ///
    /// Membership survives media updates (hold and resume, re-INVITEs that replace a call's
    /// bridge port): the engine re-links a member whenever its audio is rewired. A call on local
    /// hold keeps its membership but is out of the mix until it is resumed: pjsua gives a held
    /// call a new bridge port with no connections (measured), so the held party hears nothing. A
    /// member leaves with ``split(_:)`` or when it ends. A held call can join (it is mixed in once
    /// resumed), so CallKit's merge of an active and a held call is `conference` then `resume`.
    /// This is what CallKit's group action
    /// (`CXSetGroupCallAction`) maps to: group = `conference`, ungroup = `split`.
    ///
    /// Drives `pjsua_conf_connect()` between the calls' conference ports.
    /// - Throws: ``PJSUAError/Code/invalidArgument`` for fewer than two distinct calls,
    ///   ``PJSUAError/Code/staleHandle`` for an ended call, ``PJSUAError/Code/mediaNotActive``
    ///   for a call with no audio yet (not answered, or media negotiation failed).
    public func conference(_ calls: [Call]) throws {
        let wiring = try requireRunning().conferenceWiring
        wiring.prune()
        let distinct = Array(Set(calls))
        guard wiring.members.union(distinct).count >= 2 else {
            throw PJSUAError(.invalidArgument, "a conference needs at least two distinct calls, got \(distinct.count)")
        }
        for call in distinct { try requireConferenceAudio(call) }
        wiring.add(distinct)
        for call in wiring.members { wiring.link(call) }
    }

    /// Checks that a call has audio that can join: flowing, or on hold (held members join the
    /// mix when resumed).
    private func requireConferenceAudio(_ call: Call) throws(PJSUAError) {
        let hasAudio = try withLiveCallInfo(call) { info in
            audioMedia(info).contains { item in
                [PJSUA_CALL_MEDIA_ACTIVE, PJSUA_CALL_MEDIA_REMOTE_HOLD, PJSUA_CALL_MEDIA_LOCAL_HOLD].contains(item.media.status)
            }
        }
        guard hasAudio else { throw PJSUAError(.mediaNotActive, "\(call) has no audio to join a conference with yet") }
    }

    /// Takes a call out of the local conference: it no longer hears or is heard by the other
    /// members; it stays connected to the sound device, like any call. A conference left with a
    /// single member is dissolved. Splitting a call that is not in the conference does nothing.
    ///
    /// Drives `pjsua_conf_disconnect()` between the call's port and the other members' ports.
    public func split(_ call: Call) throws {
        _ = try resolve(call)
        let wiring = try requireRunning().conferenceWiring
        guard wiring.members.contains(call) else { return }
        wiring.remove(call)
        if wiring.members.count == 1, let last = wiring.members.first {
            wiring.remove(last)
        }
    }

    /// The calls in the local conference now (empty when there is none, or when all but one
    /// member ended).
    public var conferenceCalls: Set<Call> {
        guard phase == .running, let wiring = run?.conferenceWiring else { return [] }
        wiring.prune()
        return wiring.members
    }

    /// Whether the audio of `listener` receives the audio of `speaker` on the bridge now
    /// (`pjsua_conf_get_port_info`): what ``conference(_:)`` and ``split(_:)`` change.
    func hears(_ listener: Call, _ speaker: Call) throws(PJSUAError) -> Bool {
        let from = try audioPort(of: speaker)
        let to = try audioPort(of: listener)
        return try listeners(of: from).contains(to)
    }
}
