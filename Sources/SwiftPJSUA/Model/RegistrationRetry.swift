extension PJSUA.Account {
    /// How an account registers again by itself after a failure: pjsua's automatic
    /// re-registration (`pjsua_acc_config.reg_first_retry_interval`, `reg_retry_interval`,
    /// `reg_retry_random_interval`).
    ///
    /// pjsua retries what is likely to pass soon: 408, 480, 500, 502, 503, 504, 6xx, and a
    /// failed or dropped connection (a TCP or TLS registrar that went away). The first retry
    /// comes ``firstAfter`` seconds after the failure, every later one ``interval`` seconds after
    /// the previous one, each moved by up to ± ``jitter`` seconds so that a registrar that comes
    /// back is not hit by all its clients at once. A success starts the count again. Every
    /// attempt ends in an ``PJSUA/Event/registration(account:state:)`` event, so a failing
    /// registrar shows as one failure event per attempt, never as a tight loop.
    ///
    /// ```swift
    /// var account = PJSUA.Account.Configuration(id: "sip:alice@example.com", registrar: "sip:example.com")
    /// account.registrationRetry = .init(firstAfter: 2, interval: 30, jitter: 2)
    /// ```
    public struct RegistrationRetry: Sendable, Hashable, CustomStringConvertible {
        /// Seconds from a failure to the first retry.
        public var firstAfter: Int
        /// Seconds between later retries; 0 turns automatic retries off.
        public var interval: Int
        /// Up to this many seconds are added to or taken from each delay, at random.
        /// At most ``firstAfter`` and ``interval`` (pjsua draws a shorter delay from 0 to
        /// `jitter` instead).
        public var jitter: Int

        /// Creates a retry schedule. Checked by ``PJSUA/addAccount(_:)``.
        public init(firstAfter: Int, interval: Int, jitter: Int) {
            self.firstAfter = firstAfter
            self.interval = interval
            self.jitter = jitter
        }

        /// First retry after 5 s (± 5), then every 60 s (± 5): a phone is back within seconds
        /// of a registrar restart, and a registrar that stays down gets one REGISTER a minute
        /// per phone. (pjsua's own default is 300 s from the first retry on.)
        public static let `default` = RegistrationRetry(firstAfter: 5, interval: 60, jitter: 5)

        /// No automatic retry: the app calls ``PJSUA/reRegister(_:updatingPush:)`` itself.
        public static let never = RegistrationRetry(firstAfter: 0, interval: 0, jitter: 0)

        public var description: String {
            interval == 0 ? "never" : "first after \(firstAfter) s, then every \(interval) s (± \(jitter) s)"
        }

        func validate() throws(PJSUAError) {
            let day = 86_400
            guard (0...day).contains(firstAfter), (0...day).contains(interval), (0...day).contains(jitter) else {
                throw PJSUAError(.invalidArgument, "registrationRetry delays must be 0...\(day) seconds, got \(self)")
            }
            guard interval == 0 || jitter <= min(firstAfter, interval) else {
                throw PJSUAError(.invalidArgument, "registrationRetry jitter \(jitter) s exceeds firstAfter or interval (\(self))")
            }
        }
    }
}
