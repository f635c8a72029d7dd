/// Everything the engine keeps for one buddy while it runs: one record per buddy slot, in
/// ``EngineRun/State/presence``, removed by ``PJSUA/removeBuddy(_:)`` or with the run.
struct BuddyRecord {
    /// The token of the buddy's handle (pjsua reuses slots).
    let token: UInt
    /// The URI as added.
    let uri: PJSUA.SIPURI
    /// Whether the buddy watches `presence` (false: `dialog`, BLF).
    let watchesPresence: Bool
    /// Whether the app wants the subscription (``PJSUA/subscribe(_:)``): false after
    /// ``PJSUA/unsubscribe(_:)``, and then nothing is retried.
    var wanted: Bool
    /// Attempts that ended without becoming active since the last active state.
    var failures = 0
    /// The last subscription state published, so that a NOTIFY that changes nothing publishes
    /// no second ``PJSUA/Event/subscriptionState(_:)``.
    var lastState: PJSUA.SubscriptionState.State?
    /// The body of the NOTIFY being handled, read in the subscription callback and used by the
    /// state callback pjsua calls right after it.
    var lastBody: String?
    /// The last presence published.
    var lastPresence: PJSUA.Presence?
    /// The last line state published (state and raw dialog state).
    var lastLine: PJSUA.LineState?
    /// The scheduled re-subscription, cancelled when the buddy goes or the run ends.
    var retry: Task<Void, Never>?

    var eventPackage: String { watchesPresence ? "presence" : "dialog" }
}
