extension PJSUA.Account {
    /// How an account registers again by itself after a failure: pjsua's automatic
    /// re-registration (`pjsua_acc_config.reg_first_retry_interval`, `reg_retry_interval`,
    /// `reg_retry_random_interval`).
    ///
    /// pjsua retries what is likely to pass soon: 408, 480, 500, 502, 503, 504, 6xx, and a
    /// failed or dropped connection (a TCP or TLS registrar that went away). The first retry
    /// comes ``firstAfter`` after the failure, every later one ``interval`` after the previous
    /// one, each moved by up to ± ``jitter`` (pjsua counts whole seconds) so that a registrar that comes
    /// back is not hit by all its clients at once. A success starts the count again. Every
    /// attempt ends in an ``PJSUA/Event/registration(account:state:)`` event, so a failing
    /// registrar shows as one failure event per attempt, never as a tight loop.
    ///
    /// ```swift
    /// var account = PJSUA.Account.Configuration(id: "sip:alice@example.com", registrar: "sip:example.com")
    /// account.registrationRetry = .init(firstAfter: .seconds(2), interval: .seconds(30), jitter: .seconds(2))
    /// ```
    public struct RegistrationRetry: Sendable, Hashable, CustomStringConvertible {
        /// From a failure to the first retry.
        public var firstAfter: Duration
        /// Between later retries; zero turns automatic retries off.
        public var interval: Duration
        /// Up to this much is added to or taken from each delay, at random. At most
        /// ``firstAfter`` and ``interval`` (pjsua draws a shorter delay from 0 to `jitter`
        /// instead).
        public var jitter: Duration

        /// Creates a retry schedule (whole seconds, 0...86400 s each). Checked by
        /// ``PJSUA/addAccount(_:)``.
        public init(firstAfter: Duration, interval: Duration, jitter: Duration) {
            self.firstAfter = firstAfter
            self.interval = interval
            self.jitter = jitter
        }

        /// First retry after 5 s (± 5), then every 60 s (± 5): a phone is back within seconds
        /// of a registrar restart, and a registrar that stays down gets one REGISTER a minute
        /// per phone. (pjsua's own default is 300 s from the first retry on.)
        public static let `default` = RegistrationRetry(firstAfter: .seconds(5), interval: .seconds(60), jitter: .seconds(5))

        /// No automatic retry: the app calls ``PJSUA/reRegister(_:updatingPush:)`` itself.
        public static let never = RegistrationRetry(firstAfter: .zero, interval: .zero, jitter: .zero)

        public var description: String {
            interval == .zero ? "never"
                : "first after \(firstAfter.wholeSeconds) s, then every \(interval.wholeSeconds) s (± \(jitter.wholeSeconds) s)"
        }

        func validate() throws(PJSUAError) {
            let day = Duration.seconds(86_400)
            guard (.zero...day).contains(firstAfter), (.zero...day).contains(interval), (.zero...day).contains(jitter) else {
                throw PJSUAError(.invalidArgument, "registrationRetry delays must be 0...86400 seconds, got \(firstAfter), \(interval), \(jitter)")
            }
            guard interval == .zero || jitter <= min(firstAfter, interval) else {
                throw PJSUAError(.invalidArgument, "registrationRetry jitter \(jitter.wholeSeconds) s exceeds firstAfter or interval (\(self))")
            }
        }
    }
}
