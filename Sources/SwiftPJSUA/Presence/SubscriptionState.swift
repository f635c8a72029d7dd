extension PJSUA {
    /// A change in one of our outgoing subscriptions (SUBSCRIBE, RFC 6665): a buddy's presence
    /// or dialog package, or an account's message summary: ``Event/subscriptionState(_:)``
    /// (`on_buddy_evsub_state`, `on_buddy_evsub_dlg_event_state`, `on_mwi_state`).
    public struct SubscriptionState: Sendable, Hashable, CustomStringConvertible {
        /// Whose subscription it is.
        public enum Subject: Sendable, Hashable {
            /// A buddy's `presence` or `dialog` subscription.
            case buddy(Buddy)
            /// An account's `message-summary` subscription (MWI).
            case messageSummary(Account)
        }

        /// The subscription's state (`pjsip_evsub_state`).
        public enum State: String, Sendable, Hashable {
            /// SUBSCRIBE sent, no answer yet.
            case sent
            /// 2xx received, no NOTIFY yet.
            case accepted
            /// The notifier has not authorised us yet (`Subscription-State: pending`).
            case pending
            /// NOTIFYs flow.
            case active
            /// Ended: refused, dropped by the notifier, timed out, or unsubscribed.
            case terminated
            /// A state pjsua could not name.
            case unknown
        }

        /// Whose subscription.
        public let subject: Subject
        /// The event package: `presence`, `dialog` or `message-summary`.
        public let eventPackage: String
        /// The new state.
        public let state: State
        /// For a terminated subscription: the final response to the SUBSCRIBE that ended it
        /// (403, 404, 408...), or 200 when a NOTIFY ended it; nil otherwise.
        public let status: SIPStatus?
        /// The termination reason (`Subscription-State` `reason`, e.g. `deactivated`, `timeout`,
        /// `rejected`, `noresource`), or pjsua's text for the failure; empty otherwise.
        public let reason: String
        /// When the engine subscribes again by itself (``SubscriptionRetry``), for a buddy's
        /// terminated subscription; nil when it will not (refused, unsubscribed, or not a buddy).
        public let retryAfter: Duration?

        public var description: String {
            var text = "\(eventPackage) \(state.rawValue)"
            if let status { text += " \(status)" }
            if !reason.isEmpty { text += " (\(reason))" }
            if let retryAfter { text += ", retry in \(retryAfter)" }
            return text
        }
    }

    /// When a buddy's subscription that ended is renewed by itself.
    ///
    /// A subscription the notifier drops (a NOTIFY with `Subscription-State: terminated`,
    /// reason `deactivated`, `timeout`, `probation` or none), one that times out (408, no
    /// answer) or fails on the server side (5xx, 481 on a refresh) is subscribed again
    /// ``firstAfter`` after it ended, then every ``interval`` while it keeps failing; a
    /// `retry-after` in the NOTIFY is honoured when longer. A refusal (403, 404, 489, 603,
    /// any other 4xx or 6xx to the SUBSCRIBE, or reason `rejected` / `noresource`) waits
    /// ``afterRefusal``. Each attempt's outcome is a ``Event/subscriptionState(_:)`` event
    /// with ``SubscriptionState/retryAfter``, so a failing server shows as one event per
    /// attempt, never as a tight loop. An active subscription starts the count again.
    ///
    /// pjsua's own rule (500 ms after a `deactivated` or `timeout`, PJSUA_PRES_TIMER 300 s
    /// after anything else) is replaced by this one.
    public struct SubscriptionRetry: Sendable, Hashable, CustomStringConvertible {
        /// From a drop or transient failure to the first new SUBSCRIBE.
        public var firstAfter: Duration
        /// Between later attempts while they keep failing.
        public var interval: Duration
        /// After a refusal; nil to leave a refused subscription ended until the app subscribes again.
        public var afterRefusal: Duration?

        /// Creates a schedule (each 100 ms...86400 s).
        public init(firstAfter: Duration, interval: Duration, afterRefusal: Duration?) {
            self.firstAfter = firstAfter
            self.interval = interval
            self.afterRefusal = afterRefusal
        }

        /// First retry after 5 s, then every 60 s; a refusal waits 300 s (pjsua's
        /// PJSUA_PRES_TIMER), so that a presence server that starts authorising us is tried again.
        public static let `default` = SubscriptionRetry(firstAfter: .seconds(5), interval: .seconds(60), afterRefusal: .seconds(300))

        public var description: String {
            "first after \(firstAfter), then every \(interval), after a refusal \(afterRefusal.map { "\($0)" } ?? "never")"
        }

        func validate() throws(PJSUAError) {
            let range = Duration.milliseconds(100) ... Duration.seconds(86_400)
            try Validation.duration(firstAfter, in: range, what: "subscription retry firstAfter")
            try Validation.duration(interval, in: range, what: "subscription retry interval")
            if let afterRefusal { try Validation.duration(afterRefusal, in: range, what: "subscription retry afterRefusal") }
        }
    }

    /// How incoming presence SUBSCRIBE requests (watchers of our accounts) are answered:
    /// ``PJSUA/setSubscriptionPolicy(_:)`` (`on_incoming_subscribe`).
    public enum SubscriptionPolicy: Sendable, Hashable {
        /// 200 OK and a NOTIFY with our status (pjsua's default).
        case accept
        /// Refused with this final status (e.g. `.forbidden`, `.decline`).
        case refuse(SIPResponseCode)
        /// 202 Accepted with a `pending` NOTIFY; the app decides later with
        /// ``PJSUA/decideSubscription(_:accept:)``.
        case ask
    }

    /// A watcher asked for our presence: ``Event/incomingSubscription(_:)``.
    public struct IncomingSubscription: Sendable, Hashable, CustomStringConvertible {
        /// What the ``SubscriptionPolicy`` did.
        public enum Decision: Sendable, Hashable {
            /// Accepted: the watcher gets our status now and on every change.
            case accepted
            /// Refused with this status.
            case refused(SIPResponseCode)
            /// Pending: answer with ``PJSUA/decideSubscription(_:accept:)``.
            case awaiting
        }

        /// Identifies the subscription for ``PJSUA/decideSubscription(_:accept:)``.
        public let id: UInt
        /// The account the SUBSCRIBE was for.
        public let account: Account
        /// The watcher: the From of the SUBSCRIBE, with its display name.
        public let subscriber: String
        /// The buddy with the watcher's URI, when we watch them too.
        public let buddy: Buddy?
        /// What was done with it.
        public let decision: Decision

        public var description: String { "\(subscriber) → \(decision)" }
    }
}
