import CPJSUASupport
import PJSIP

extension PJSUA.Buddy {
    /// What a buddy's subscription watches.
    public enum Watch: String, Sendable, Hashable {
        /// The `presence` package (RFC 3856): ``PJSUA/Event/presence(_:)``.
        case presence
        /// The `dialog` package (RFC 4235), for a busy-lamp field: ``PJSUA/Event/lineState(_:)``.
        case lineState
    }
}

extension PJSUA {
    /// Adds a buddy and subscribes to its presence or its line state (BLF).
    ///
    /// Drives `pjsua_buddy_add()` then `pjsua_buddy_subscribe_pres()` or
    /// `pjsua_buddy_subscribe_dlg_event()`. The subscription's progress arrives as
    /// ``Event/subscriptionState(_:)``, what its NOTIFYs say as ``Event/presence(_:)`` or
    /// ``Event/lineState(_:)``. A subscription that ends is renewed per ``SubscriptionRetry``.
    /// - Parameters:
    ///   - uri: the buddy, a `sip:` or `sips:` URI.
    ///   - account: the account that subscribes (its From, route set and credentials); nil uses
    ///     ``localAccount``. Remove the buddy before the account: pjsua keeps the account's slot
    ///     for the buddy's lifetime (`pjsua_buddy_config.acc_id`).
    ///   - watching: presence, or the dialog package for a busy-lamp field.
    /// - Throws: ``PJSUAError/Code/invalidURI``, ``PJSUAError/Code/tooMany`` past
    ///   ``BuildLimits/maxBuddies`` (32 in the iOS binary), ``PJSUAError/Code/staleHandle``.
    public func addBuddy(_ uri: SIPURI, account: Account? = nil, watching: Buddy.Watch = .presence) throws -> Buddy {
        let run = try requireRunning()
        try Validation.sipURI(uri, what: "buddy URI")
        let accountSlot = try resolve(account ?? defaultAccount)
        guard Int(pjsua_get_buddy_count()) < PJSUA.buildLimits.maxBuddies else {
            throw PJSUAError(.tooMany, "the buddy list is full (\(PJSUA.buildLimits.maxBuddies), PJSUA_MAX_BUDDIES)")
        }
        let token = HandleToken.next()
        var slot: pjsua_buddy_id = -1
        try withCStringArena { arena throws(PJSUAError) in
            var config = pjsua_buddy_config()
            pjsua_buddy_config_default(&config)
            config.uri = arena.pj(uri.text)
            config.acc_id = accountSlot
            config.user_data = HandleToken.pointer(token)
            // Subscribed below, once the record exists: the first state callback may come
            // before pjsua_buddy_subscribe_* returns.
            try check(pjsua_buddy_add(&config, &slot), "cannot add buddy \(Validation.quoted(uri.text))")
        }
        let watchesPresence = watching == .presence
        run.withState { $0.presence.buddies[slot] = BuddyRecord(token: token, uri: uri, watchesPresence: watchesPresence, wanted: true) }
        Self.startSubscription(slot, presence: watchesPresence)
        return Buddy(slot: slot, token: token)
    }

    /// Unsubscribes (if subscribed) and removes a buddy; its handle is stale afterwards.
    ///
    /// Drives `pjsua_buddy_del()`.
    public func removeBuddy(_ buddy: Buddy) throws {
        let slot = try resolve(buddy)
        let record = try requireRunning().withState { $0.presence.buddies.removeValue(forKey: slot) }
        record?.retry?.cancel()
        try check(pjsua_buddy_del(slot), "cannot remove \(buddy)")
    }

    /// Subscribes again to a buddy after ``unsubscribe(_:)`` (or at once, ahead of a scheduled
    /// retry).
    ///
    /// Drives `pjsua_buddy_subscribe_pres()` or `pjsua_buddy_subscribe_dlg_event()`.
    public func subscribe(_ buddy: Buddy) throws {
        let slot = try resolve(buddy)
        let presence = try requireRunning().withState { state -> Bool in
            state.presence.buddies[slot]?.wanted = true
            state.presence.buddies[slot]?.retry?.cancel()
            state.presence.buddies[slot]?.retry = nil
            return state.presence.buddies[slot]?.watchesPresence ?? true
        }
        Self.startSubscription(slot, presence: presence)
    }

    /// Ends a buddy's subscription (SUBSCRIBE with `Expires: 0`) and stops its retries; the
    /// buddy stays in the list.
    ///
    /// Drives `pjsua_buddy_subscribe_pres(…, PJ_FALSE)` or `pjsua_buddy_subscribe_dlg_event(…, PJ_FALSE)`.
    public func unsubscribe(_ buddy: Buddy) throws {
        let slot = try resolve(buddy)
        let (presence, retry) = try requireRunning().withState { state in
            state.presence.buddies[slot]?.wanted = false
            defer { state.presence.buddies[slot]?.retry = nil }
            return (state.presence.buddies[slot]?.watchesPresence ?? true, state.presence.buddies[slot]?.retry)
        }
        retry?.cancel()
        let status = presence ? pjsua_buddy_subscribe_pres(slot, 0) : pjsua_buddy_subscribe_dlg_event(slot, 0)
        try check(status, "cannot unsubscribe \(buddy)")
    }

    /// A buddy's presence as its last NOTIFY said.
    ///
    /// Drives `pjsua_buddy_get_info()`.
    public func presence(of buddy: Buddy) throws -> Presence {
        let slot = try resolve(buddy)
        let body = try requireRunning().withState { $0.presence.buddies[slot]?.lastPresence?.pidf }
        var info = pjsua_buddy_info()
        try check(pjsua_buddy_get_info(slot, &info), "cannot read \(buddy)")
        var presence = Presence(info)
        presence.pidf = body
        return presence
    }

    /// Every buddy added in this run.
    public var buddies: [Buddy] {
        guard let run else { return [] }
        return run.withState { state in
            state.presence.buddies.map { Buddy(slot: $0.key, token: $0.value.token) }
        }.sorted { $0.slot < $1.slot }
    }

    /// Sets our own status: sent in a NOTIFY to every watcher of `account` and, when the
    /// account publishes (``setPresencePublication(enabled:for:)``), in a PUBLISH to its
    /// presence server.
    ///
    /// Drives `pjsua_acc_set_online_status2()`.
    public func setPresence(_ status: OwnPresence, for account: Account? = nil) throws {
        let slot = try resolve(account ?? defaultAccount)
        try Validation.headerValue(status.note, what: "presence note", maxLength: 256)
        try withCStringArena { arena throws(PJSUAError) in
            var element = pjrpid_element()
            element.type = PJRPID_ELEMENT_TYPE_PERSON
            element.activity = switch status.activity {
            case .unknown: PJRPID_ACTIVITY_UNKNOWN
            case .away: PJRPID_ACTIVITY_AWAY
            case .busy: PJRPID_ACTIVITY_BUSY
            }
            element.note = arena.pj(status.note)
            try check(pjsua_acc_set_online_status2(slot, status.isOnline ? 1 : 0, &element), "cannot set the presence of account slot \(slot)")
        }
    }

    /// Turns PUBLISH of our status to the account's presence server (RFC 3903) on or off; the
    /// account needs a registrar (pjsua publishes after each successful registration, and
    /// re-registers when this turns it on). Off sends a PUBLISH with `Expires: 0`.
    ///
    /// Drives `pjsua_acc_modify()` with `pjsua_acc_config.publish_enabled`.
    public func setPresencePublication(enabled: Bool, for account: Account) throws {
        let slot = try resolve(account)
        // Turning publication on re-registers (a new registration client): challenges pending
        // on the old one go first (KL-35).
        if enabled { try currentRun().credentials.registrationRestarts(account.token) }
        let flag: pj_bool_t = enabled ? 1 : 0
        let result: Result<Void, PJSUAError> = Result { () throws(PJSUAError) in try modifyAccount(slot) { $0.publish_enabled = flag } }
        // PJSIP_EBUSY: pjsua_acc_modify took the setting, then could not re-register because a
        // REGISTER is under way; that one's success publishes (pjsua_acc.c, regc_cb).
        if case let .failure(error) = result, !(enabled && error.status == cpjsua_status_sip_ebusy) { throw error }
    }

    /// How incoming presence SUBSCRIBE requests are answered from now on (``SubscriptionPolicy/accept``
    /// at start).
    public func setSubscriptionPolicy(_ policy: SubscriptionPolicy) throws {
        let run = try requireRunning()
        if case let .refuse(code) = policy, !(300...699).contains(code.rawValue) {
            throw PJSUAError(.invalidArgument, "a refused subscription needs a final error status (300...699), got \(code)")
        }
        run.withState { $0.presence.policy = policy }
    }

    /// When buddies' ended subscriptions are renewed from now on (``SubscriptionRetry/default``
    /// at start). A retry already scheduled keeps its time.
    public func setSubscriptionRetry(_ retry: SubscriptionRetry) throws {
        let run = try requireRunning()
        try retry.validate()
        run.withState { $0.presence.retry = retry }
    }

    /// Answers a subscription the ``SubscriptionPolicy/ask`` policy left pending: accepted, the
    /// watcher gets our status now; refused, the subscription ends (`Subscription-State:
    /// terminated;reason=rejected`).
    ///
    /// Drives `pjsua_pres_notify()`.
    /// - Throws: ``PJSUAError/Code/staleHandle`` when the subscription is no longer pending
    ///   (decided already, or the watcher went).
    public func decideSubscription(_ subscription: IncomingSubscription, accept: Bool) throws {
        let run = try requireRunning()
        guard let pending = run.withState({ $0.presence.awaiting.removeValue(forKey: subscription.id) }) else {
            throw PJSUAError(.staleHandle, "subscription from \(subscription.subscriber) is not pending")
        }
        let server = OpaquePointer(bitPattern: pending.server)
        try withCStringArena { arena throws(PJSUAError) in
            var reason = arena.pj("rejected")
            let status = accept
                ? pjsua_pres_notify(pending.account, server, PJSIP_EVSUB_STATE_ACTIVE, nil, nil, 1, nil)
                : pjsua_pres_notify(pending.account, server, PJSIP_EVSUB_STATE_TERMINATED, nil, &reason, 0, nil)
            try check(status, "cannot answer the subscription from \(Validation.quoted(subscription.subscriber))")
        }
    }

    /// The pjsua slot of a buddy of this run, or a typed error for a stale one.
    func resolve(_ buddy: Buddy) throws(PJSUAError) -> pjsua_buddy_id {
        let run = try requireRunning()
        guard run.withState({ $0.presence.buddies[buddy.slot]?.token == buddy.token }), pjsua_buddy_is_valid(buddy.slot) != 0 else {
            throw PJSUAError(.staleHandle, "\(buddy) is not a buddy (removed, or from an earlier engine run)")
        }
        return buddy.slot
    }

    /// Starts a buddy's subscription (executor thread).
    static func startSubscription(_ slot: pjsua_buddy_id, presence: Bool) {
        _ = presence ? pjsua_buddy_subscribe_pres(slot, 1) : pjsua_buddy_subscribe_dlg_event(slot, 1)
    }

    /// Changes some fields of an account's configuration.
    ///
    /// Drives `pjsua_acc_get_config()` and `pjsua_acc_modify()`.
    func modifyAccount(_ slot: pjsua_acc_id, _ change: (inout pjsua_acc_config) -> Void) throws(PJSUAError) {
        guard let pool = pjsua_pool_create("swiftpjsua-accmod", 1024, 1024) else {
            throw PJSUAError(.pjsip, "cannot allocate a pool for the account's settings")
        }
        defer { pj_pool_release(pool) }
        var config = pjsua_acc_config()
        // One pointer from get to modify: the copied header lists link back to their heads
        // inside the struct.
        try withUnsafeMutablePointer(to: &config) { (config) throws(PJSUAError) in
            try check(pjsua_acc_get_config(slot, pool, config), "pjsua_acc_get_config")
            change(&config.pointee)
            try check(pjsua_acc_modify(slot, config), "pjsua_acc_modify")
        }
    }
}

extension PJSUA.Presence {
    /// Reads pjsua's view of a buddy.
    init(_ info: pjsua_buddy_info) {
        var info = info
        let basic: Basic = switch info.status {
        case PJSUA_BUDDY_STATUS_ONLINE: .open
        case PJSUA_BUDDY_STATUS_OFFLINE: .closed
        default: .unknown
        }
        let activity: Activity = switch info.rpid.activity {
        case PJRPID_ACTIVITY_AWAY: .away
        case PJRPID_ACTIVITY_BUSY: .busy
        default: .unknown
        }
        let note = basic == .unknown ? "" : String(pj: info.status_text)
        let contact = withUnsafePointer(to: &info.contact) { String(pj: $0.pointee) }
        self.init(basic: basic, activity: activity, note: note, contact: contact)
    }
}
