/// The newest call state and registration outcome the engine published for each call and account
/// slot, so that a focused subscription (``PJSUA/stateChanges(of:)``,
/// ``PJSUA/registrationStates(of:)``) starts from the present instead of from whatever happens
/// next: a call's first state is published inside `makeCall` itself, before its caller holds the
/// handle, and a loopback call may be confirmed before anyone subscribed.
///
/// Kept by ``EventHub`` and read and written only while it holds its publishing lock, so that a
/// new subscription sees exactly the events published before it and receives every one after.
/// One entry per slot (pjsua's call and account limits bound it); handles' tokens grow for the
/// life of the process, which tells a slot's newer occupant from an older one.
struct LatestEvents {
    private struct CallEntry {
        let token: UInt
        /// The newest `callState` of this call; nil while it only announced itself.
        var state: PJSUA.Event?
    }
    private var calls: [Int32: CallEntry] = [:]
    private var registrations: [Int32: (token: UInt, event: PJSUA.Event)] = [:]

    /// Where a subscription to one call or account starts.
    enum Start {
        /// The handle belongs to the past: its slot has a newer occupant.
        case ended
        /// From now, after these events (the newest published one, when there is one).
        case after([PJSUA.Event])
    }

    mutating func record(_ event: PJSUA.Event) {
        switch event {
        case let .callState(call, _, _, _):
            calls[call.slot] = CallEntry(token: call.token, state: event)
        case let .incomingCall(_, call, _, _, _),
             let .callReplaced(_, call),
             let .transferCallPlaced(_, call):
            // A call announced before its first state (an incoming call's first state follows
            // its announcement; a replacing call is answered with none); keeps a state it has.
            if (calls[call.slot]?.token ?? 0) < call.token {
                calls[call.slot] = CallEntry(token: call.token, state: nil)
            }
        case let .registration(account, _):
            registrations[account.slot] = (account.token, event)
        default:
            break
        }
    }

    func start(of call: PJSUA.Call) -> Start {
        guard let entry = calls[call.slot], entry.token >= call.token else { return .after([]) }
        guard entry.token == call.token else { return .ended }
        return .after(entry.state.map { [$0] } ?? [])
    }

    /// Whether `call` is over: disconnected, or its slot taken by a newer call.
    func hasEnded(_ call: PJSUA.Call) -> Bool {
        switch start(of: call) {
        case .ended: true
        case let .after(events):
            if case .callState(_, .disconnected, _, _)? = events.last { true } else { false }
        }
    }

    func start(of account: PJSUA.Account) -> Start {
        guard let entry = registrations[account.slot], entry.token >= account.token else { return .after([]) }
        guard entry.token == account.token else { return .ended }
        return .after([entry.event])
    }
}
