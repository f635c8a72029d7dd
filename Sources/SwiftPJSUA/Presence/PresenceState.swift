/// The run's presence, BLF and MWI state (``EngineRun/State/presence``).
struct PresenceState {
    /// One record per buddy slot.
    var buddies: [Int32: BuddyRecord] = [:]
    /// How buddies' ended subscriptions are renewed.
    var retry: PJSUA.SubscriptionRetry = .default
    /// How incoming presence SUBSCRIBEs are answered.
    var policy: PJSUA.SubscriptionPolicy = .accept
    /// Incoming subscriptions waiting for the app's decision (``PJSUA/SubscriptionPolicy/ask``),
    /// by id: the account slot and pjsua's server subscription (`pjsua_srv_pres *`, as a
    /// bit pattern: pjsua_pres_notify checks it is still in the account's list before use).
    var awaiting: [UInt: (account: Int32, server: UInt)] = [:]
    /// Accounts whose message-summary NOTIFYs the app wants (their subscription, or
    /// unsolicited ones).
    var messageWaitingAccounts: Set<Int32> = []
    /// ``PJSUA/Configuration/unsolicitedNotifyEvents``, as the run started with them.
    var configuredNotifyEvents: Set<String> = []

    /// At teardown: every scheduled re-subscription, taken, and no subscription wanted any more.
    /// pjsua's destroy ends each one (its un-SUBSCRIBE answered, or the transaction layer's stop,
    /// which ends a request still unanswered with 503), and those endings are reported with no
    /// retry planned: none can come.
    mutating func endForTeardown() -> [Task<Void, Never>] {
        defer {
            for slot in buddies.keys {
                buddies[slot]?.retry = nil
                buddies[slot]?.wanted = false
            }
        }
        return buddies.values.compactMap(\.retry)
    }
}
