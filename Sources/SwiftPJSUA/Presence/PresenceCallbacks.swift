import Foundation
import PJSIP

// pjsua's presence, BLF and MWI callbacks. Like the others (Engine/Callbacks.swift), file-private
// free functions that hold no reference to the actor, never re-enter it and never block: they
// read pjsua's state, update the run's ``PresenceState`` under its lock, publish and return.
// Anything that calls back into pjsua (stopping pjsua's own re-subscription, a retry) is handed
// to the executor thread: these run under the subscription's dialog lock.

extension PJSUA {
    /// Installs the presence, BLF and MWI callbacks into a pjsua configuration.
    static func installPresenceCallbacks(into config: inout pjsua_config) {
        config.cb.on_buddy_state = onBuddyState
        config.cb.on_buddy_dlg_event_state = onBuddyLineState
        config.cb.on_buddy_evsub_state = onBuddyPresenceSubscription
        config.cb.on_buddy_evsub_dlg_event_state = onBuddyDialogSubscription
        config.cb.on_incoming_subscribe = onIncomingSubscribe
        config.cb.on_srv_subscribe_state = onServerSubscriptionState
        config.cb.on_mwi_info = onMessageWaitingInfo
        config.cb.on_mwi_state = onMessageWaitingSubscription
    }
}

private func buddyHandle(_ slot: pjsua_buddy_id, _ record: BuddyRecord) -> PJSUA.Buddy {
    PJSUA.Buddy(slot: slot, token: record.token)
}

/// The record of the buddy in `slot`, if it belongs to this run (its token matches).
private func record(_ run: EngineRun, _ slot: pjsua_buddy_id) -> BuddyRecord? {
    let token = HandleToken.token(pjsua_buddy_get_user_data(slot))
    return run.withState { state in
        state.presence.buddies[slot].flatMap { $0.token == token ? $0 : nil }
    }
}

private func onBuddyState(_ slot: pjsua_buddy_id) {
    guard let run = EngineRun.current, let buddy = record(run, slot) else { return }
    var info = pjsua_buddy_info()
    guard pjsua_buddy_get_info(slot, &info) == pjSuccess else { return }
    var presence = PJSUA.Presence(info)
    presence.pidf = buddy.lastBody
    let changed = run.withState { state -> Bool in
        guard state.presence.buddies[slot]?.lastPresence != presence else { return false }
        state.presence.buddies[slot]?.lastPresence = presence
        return true
    }
    if changed {
        run.publish(.presence(PJSUA.PresenceUpdate(buddy: buddyHandle(slot, buddy), uri: buddy.uri, presence: presence)))
    }
}

private func onBuddyLineState(_ slot: pjsua_buddy_id) {
    guard let run = EngineRun.current, let buddy = record(run, slot) else { return }
    var info = pjsua_buddy_dlg_event_info()
    guard pjsua_buddy_get_dlg_event_info(slot, &info) == pjSuccess else { return }
    // Before the first NOTIFY (and after the subscription ends) pjsua's status is empty: no
    // lamp to show yet.
    guard info.sub_state == PJSIP_EVSUB_STATE_ACTIVE || info.sub_state == PJSIP_EVSUB_STATE_PENDING,
          info.dialog_info_state.slen > 0 else { return }
    let dialogState = String(pj: info.dialog_state)
    let state: PJSUA.LineState.State = switch dialogState.lowercased() {
    case "": .idle
    case "trying", "proceeding", "early": .early
    case "confirmed": .confirmed
    default: .terminated
    }
    let display = String(pj: info.remote_identity_display)
    let identity = String(pj: info.remote_identity)
    let remote = display.isEmpty || identity.isEmpty ? identity : "\"\(display)\" <\(identity)>"
    let line = PJSUA.LineState(buddy: buddyHandle(slot, buddy), uri: buddy.uri, state: state, dialogState: dialogState,
                               direction: String(pj: info.dialog_direction), remote: remote,
                               sipCallID: String(pj: info.dialog_call_id))
    let changed = run.withState { state -> Bool in
        guard state.presence.buddies[slot]?.lastLine != line else { return false }
        state.presence.buddies[slot]?.lastLine = line
        return true
    }
    if changed { run.publish(.lineState(line)) }
}

private func onBuddyPresenceSubscription(_ slot: pjsua_buddy_id, _ sub: OpaquePointer?, _ event: UnsafeMutablePointer<pjsip_event>?) {
    subscriptionChanged(slot, sub, event)
}

private func onBuddyDialogSubscription(_ slot: pjsua_buddy_id, _ sub: OpaquePointer?, _ event: UnsafeMutablePointer<pjsip_event>?) {
    subscriptionChanged(slot, sub, event)
}

/// What ended a subscription, read from the event that ended it.
private struct Ending {
    var status: PJSUA.SIPStatus
    var reason: String
    var isRefusal: Bool
    var retryAfter: Duration?
}

/// The received message of a transaction event, if the event is one.
private func receivedMessage(_ event: UnsafeMutablePointer<pjsip_event>?) -> UnsafeMutablePointer<pjsip_rx_data>? {
    guard let event, event.pointee.type == PJSIP_EVENT_TSX_STATE,
          event.pointee.body.tsx_state.type == PJSIP_EVENT_RX_MSG else { return nil }
    return event.pointee.body.tsx_state.src.rdata
}

/// The body of a received message as text.
private func bodyText(_ rdata: UnsafeMutablePointer<pjsip_rx_data>) -> String? {
    guard let body = rdata.pointee.msg_info.msg?.pointee.body, let data = body.pointee.data, body.pointee.len > 0 else {
        return nil
    }
    return String(decoding: UnsafeRawBufferPointer(start: data, count: Int(body.pointee.len)), as: UTF8.self)
}

private func ending(_ sub: OpaquePointer, _ event: UnsafeMutablePointer<pjsip_event>?, in run: EngineRun) -> Ending {
    let termination = pjsip_evsub_get_termination_reason(sub).map { String(pj: $0.pointee) } ?? ""
    var ending = Ending(status: PJSUA.SIPStatus(code: .ok, reason: ""), reason: termination, isRefusal: false, retryAfter: nil)
    if let event, event.pointee.type == PJSIP_EVENT_TSX_STATE, let tsx = event.pointee.body.tsx_state.tsx {
        if pjsip_method_cmp(&tsx.pointee.method, pjsip_get_subscribe_method()) == 0 {
            let code = Int(tsx.pointee.status_code)
            ending.status = PJSUA.SIPStatus(code: .init(rawValue: code), reason: String(pj: tsx.pointee.status_text), in: run)
            if ending.reason.isEmpty { ending.reason = ending.status.reason }
            // 408 (or no answer), 481 and 5xx may pass soon; any other refusal will not.
            ending.isRefusal = (400...699).contains(code) && code != 408 && code != 481 && !(500...599).contains(code)
        } else if pjsip_method_cmp(&tsx.pointee.method, pjsip_get_notify_method()) == 0 {
            ending.isRefusal = ["rejected", "noresource"].contains(termination.lowercased())
            if let rdata = receivedMessage(event), let message = rdata.pointee.msg_info.msg {
                let header = "Subscription-State".withCString { text in
                    var name = pj_str(UnsafeMutablePointer(mutating: text))
                    return pjsip_msg_find_hdr_by_name(message, &name, nil)
                }
                if let header {
                    let state = UnsafeRawPointer(header).assumingMemoryBound(to: pjsip_sub_state_hdr.self)
                    if state.pointee.retry_after > 0 { ending.retryAfter = .seconds(Int(state.pointee.retry_after)) }
                }
            }
        }
    }
    return ending
}

private func subscriptionChanged(_ slot: pjsua_buddy_id, _ sub: OpaquePointer?, _ event: UnsafeMutablePointer<pjsip_event>?) {
    guard let run = EngineRun.current, let sub, let buddy = record(run, slot) else { return }
    let state = PJSUA.SubscriptionState.State(pjsip_evsub_get_state(sub))
    // The body of a NOTIFY, for the presence the state callback publishes right after.
    if let rdata = receivedMessage(event), let tsx = event?.pointee.body.tsx_state.tsx,
       pjsip_method_cmp(&tsx.pointee.method, pjsip_get_notify_method()) == 0 {
        let body = bodyText(rdata)
        run.withState { $0.presence.buddies[slot]?.lastBody = body }
    }
    let handle = buddyHandle(slot, buddy)
    guard state == .terminated else {
        let changed = run.withState { presence -> Bool in
            if state == .active { presence.presence.buddies[slot]?.failures = 0 }
            guard presence.presence.buddies[slot]?.lastState != state else { return false }
            presence.presence.buddies[slot]?.lastState = state
            return true
        }
        if changed {
            run.publish(.subscriptionState(PJSUA.SubscriptionState(subject: .buddy(handle), eventPackage: buddy.eventPackage, state: state,
                                                                   status: nil, reason: "", retryAfter: nil)))
        }
        return
    }
    let end = ending(sub, event, in: run)
    let delay = run.withState { state -> Duration? in
        guard var record = state.presence.buddies[slot], record.wanted else { return nil }
        let schedule = state.presence.retry
        var delay: Duration?
        if end.isRefusal {
            delay = schedule.afterRefusal
        } else {
            delay = record.failures == 0 ? schedule.firstAfter : schedule.interval
        }
        if let wait = end.retryAfter, let planned = delay { delay = max(wait, planned) }
        record.failures += 1
        record.lastState = .terminated
        state.presence.buddies[slot] = record
        return delay
    }
    // Scheduled before the event is published: an app that subscribes again on seeing it is
    // served after the executor turned pjsua's own re-subscription off (the executor runs in order).
    scheduleRetry(run, slot, token: buddy.token, presence: buddy.watchesPresence, after: delay)
    run.publish(.subscriptionState(PJSUA.SubscriptionState(subject: .buddy(handle), eventPackage: buddy.eventPackage, state: .terminated,
                                                           status: end.status, reason: end.reason, retryAfter: delay)))
}

/// Replaces pjsua's own re-subscription with the run's schedule: pjsua armed its timer before
/// this callback; turning the buddy's monitoring off disarms what that timer would do (it
/// finds monitoring off and does nothing), and the retry turns it on again.
private func scheduleRetry(_ run: EngineRun, _ slot: pjsua_buddy_id, token: UInt, presence: Bool, after delay: Duration?) {
    run.onEngineThread {
        guard run.withState({ $0.presence.buddies[slot]?.token == token }) else { return }
        _ = presence ? pjsua_buddy_subscribe_pres(slot, 0) : pjsua_buddy_subscribe_dlg_event(slot, 0)
    }
    guard let delay else { return }
    let task = Task {
        try? await Task.sleep(for: delay)
        guard !Task.isCancelled else { return }
        run.onEngineThread {
            let wanted = run.withState { state -> Bool in
                guard let record = state.presence.buddies[slot], record.token == token, record.wanted else { return false }
                state.presence.buddies[slot]?.retry = nil
                return true
            }
            if wanted { PJSUA.startSubscription(slot, presence: presence) }
        }
    }
    let previous = run.withState { state -> Task<Void, Never>? in
        guard state.presence.buddies[slot]?.token == token else { return task }
        defer { state.presence.buddies[slot]?.retry = task }
        return state.presence.buddies[slot]?.retry
    }
    previous?.cancel()
}

private func onIncomingSubscribe(_ accountSlot: pjsua_acc_id, _ server: OpaquePointer?, _ buddySlot: pjsua_buddy_id,
                                 _ from: UnsafePointer<pj_str_t>?, _ rdata: UnsafeMutablePointer<pjsip_rx_data>?,
                                 _ code: UnsafeMutablePointer<pjsip_status_code>?, _ reason: UnsafeMutablePointer<pj_str_t>?,
                                 _ messageData: UnsafeMutablePointer<pjsua_msg_data>?) {
    guard let run = EngineRun.current else { return }
    let id = HandleToken.next()
    let (policy, buddy) = run.withState { state -> (PJSUA.SubscriptionPolicy, PJSUA.Buddy?) in
        let buddy = state.presence.buddies[buddySlot].map { PJSUA.Buddy(slot: buddySlot, token: $0.token) }
        if case .ask = state.presence.policy, let server {
            state.presence.awaiting[id] = (accountSlot, UInt(bitPattern: server))
        }
        return (state.presence.policy, buddy)
    }
    let decision: PJSUA.IncomingSubscription.Decision
    switch policy {
    case .accept:
        decision = .accepted
    case let .refuse(status):
        code?.pointee = pjsip_status_code(rawValue: UInt32(status.rawValue))
        decision = .refused(status)
    case .ask:
        // 202, then at once a pending NOTIFY (pjsua.h asks for it): sent from the executor
        // thread, which waits for pjsua's lock until this request is answered.
        code?.pointee = PJSIP_SC_ACCEPTED
        decision = .awaiting
        if let server {
            let bits = UInt(bitPattern: server)
            run.onEngineThread {
                _ = pjsua_pres_notify(accountSlot, OpaquePointer(bitPattern: bits), PJSIP_EVSUB_STATE_PENDING, nil, nil, 1, nil)
            }
        }
    }
    let subscriber = from.map { String(pj: $0.pointee) } ?? ""
    run.publish(.incomingSubscription(PJSUA.IncomingSubscription(id: id, account: accountHandle(accountSlot), subscriber: subscriber,
                                                                 buddy: buddy, decision: decision)))
}

private func onServerSubscriptionState(_ accountSlot: pjsua_acc_id, _ server: OpaquePointer?, _ remote: UnsafePointer<pj_str_t>?,
                                       _ state: pjsip_evsub_state, _ event: UnsafeMutablePointer<pjsip_event>?) {
    guard state == PJSIP_EVSUB_STATE_TERMINATED, let server, let run = EngineRun.current else { return }
    // A pending subscription whose watcher went can no longer be decided.
    let bits = UInt(bitPattern: server)
    run.withState { state in
        for (id, pending) in state.presence.awaiting where pending.server == bits {
            state.presence.awaiting[id] = nil
        }
    }
}

private func onMessageWaitingInfo(_ accountSlot: pjsua_acc_id, _ info: UnsafeMutablePointer<pjsua_mwi_info>?) {
    guard let rdata = info?.pointee.rdata else { return }
    let summary = PJSUA.MessageWaiting(account: accountHandle(accountSlot), isSolicited: info?.pointee.evsub != nil,
                                       body: bodyText(rdata) ?? "")
    EngineRun.current?.publish(.messageWaiting(summary))
}

private func onMessageWaitingSubscription(_ accountSlot: pjsua_acc_id, _ sub: OpaquePointer?) {
    guard let sub, let run = EngineRun.current else { return }
    let state = PJSUA.SubscriptionState.State(pjsip_evsub_get_state(sub))
    let reason = state == .terminated ? pjsip_evsub_get_termination_reason(sub).map { String(pj: $0.pointee) } ?? "" : ""
    run.publish(.subscriptionState(PJSUA.SubscriptionState(subject: .messageSummary(accountHandle(accountSlot)),
                                                           eventPackage: "message-summary", state: state,
                                                           status: nil, reason: reason, retryAfter: nil)))
}

extension PJSUA.SubscriptionState.State {
    init(_ state: pjsip_evsub_state) {
        self = switch state {
        case PJSIP_EVSUB_STATE_SENT, PJSIP_EVSUB_STATE_NULL: .sent
        case PJSIP_EVSUB_STATE_ACCEPTED: .accepted
        case PJSIP_EVSUB_STATE_PENDING: .pending
        case PJSIP_EVSUB_STATE_ACTIVE: .active
        case PJSIP_EVSUB_STATE_TERMINATED: .terminated
        default: .unknown
        }
    }
}
