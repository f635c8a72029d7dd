import PJSIP

extension PJSUA {
    /// Turns message-waiting indication (voicemail counts, RFC 3842) on or off for an account
    /// while it runs.
    ///
    /// On: the account subscribes to its own `message-summary` at its registrar's domain
    /// (pjsua subscribes after each successful registration, so the account needs a
    /// registrar), and unsolicited `message-summary` NOTIFYs are accepted too. Each NOTIFY
    /// arrives as ``Event/messageWaiting(_:)``; the subscription's progress as
    /// ``Event/subscriptionState(_:)``. pjsua renews a subscription that ended on its
    /// presence timer (PJSUA_PRES_TIMER, 300 s) and at every re-registration. Off
    /// unsubscribes.
    ///
    /// Drives `pjsua_acc_modify()` with `pjsua_acc_config.mwi_enabled`.
    public func setMessageWaitingIndication(enabled: Bool, for account: Account) throws {
        let run = try requireRunning()
        let slot = try resolve(account)
        try modifyAccount(slot) { $0.mwi_enabled = enabled ? 1 : 0 }
        let wasEnabled = try recordMessageWaiting(enabled, slot: slot, in: run)
        // pjsua detaches the subscription from the account before it unsubscribes, so
        // on_mwi_state reports nothing more: the end is reported here.
        if !enabled && wasEnabled {
            run.publish(.subscriptionState(SubscriptionState(subject: .messageSummary(account), eventPackage: "message-summary",
                                                             state: .terminated, status: nil, reason: "unsubscribed", retryAfter: nil)))
        }
    }
}

extension PJSUA {
    /// Records whether the account in `slot` has message-waiting indication on, and installs
    /// the out-of-dialog NOTIFY packages that follow from it (`message-summary` while any
    /// account has it on). Returns whether the slot had it on before.
    @discardableResult
    func recordMessageWaiting(_ enabled: Bool, slot: pjsua_acc_id, in run: EngineRun) throws(PJSUAError) -> Bool {
        let (packages, wasEnabled) = run.withState { state in
            let wasEnabled = enabled
                ? state.presence.messageWaitingAccounts.insert(slot).inserted == false
                : state.presence.messageWaitingAccounts.remove(slot) != nil
            return (state.presence.acceptedNotifyEvents, wasEnabled)
        }
        try installUnhandledRequests(accepting: packages)
        return wasEnabled
    }
}

extension PresenceState {
    /// The event packages whose out-of-dialog NOTIFYs are answered 200: the app's
    /// (``PJSUA/Configuration/unsolicitedNotifyEvents``), and `message-summary` while an
    /// account has message-waiting indication on.
    var acceptedNotifyEvents: Set<String> {
        messageWaitingAccounts.isEmpty ? configuredNotifyEvents : configuredNotifyEvents.union(["message-summary"])
    }
}
