extension PJSUA {
    /// When the engine refuses new incoming calls: each INVITE past a limit is answered at once
    /// with `503 Service Unavailable` and `Retry-After`, before pjsua allocates anything for it
    /// (no call slot, no RTP sockets, no event), so that an overloaded engine keeps serving the
    /// calls it has instead of spending itself on calls it would then drop.
    ///
    /// Re-INVITEs and every other request of established calls are never refused. The 503 is
    /// sent statelessly (the cheapest answer under a flood), so the engine remembers each refused
    /// INVITE for 32 s (its Via branch and Call-ID, in a fixed 4,096-entry table): a retransmission
    /// gets the same 503 even if a slot has freed up since, never a call its caller saw refused.
    public struct AdmissionControl: Sendable, Hashable {
        /// The most calls in progress (both directions, ringing included) before new INVITEs are
        /// refused; nil uses ``Configuration/maxCalls``, 0 refuses every new call (draining a
        /// server before maintenance).
        public var maxCallsInProgress: Int?
        /// The most new incoming calls per second (a token bucket); nil for no rate limit.
        public var maxNewCallsPerSecond: Double?
        /// How many calls may arrive at once after a quiet spell; nil uses the rate (one second's
        /// worth).
        public var burst: Double?
        /// The `Retry-After` value of the 503 (whole seconds, 1 s...86400 s).
        public var retryAfter: Duration

        /// Creates a policy; the default refuses only what ``Configuration/maxCalls`` cannot hold.
        public init(maxCallsInProgress: Int? = nil, maxNewCallsPerSecond: Double? = nil, burst: Double? = nil,
                    retryAfter: Duration = .seconds(1)) {
            self.maxCallsInProgress = maxCallsInProgress
            self.maxNewCallsPerSecond = maxNewCallsPerSecond
            self.burst = burst
            self.retryAfter = retryAfter
        }

        /// Rejects values C would misread.
        func validate() throws(PJSUAError) {
            if let limit = maxCallsInProgress, !(0...PJSUA.maxCallsLimit).contains(limit) {
                throw PJSUAError(.invalidArgument, "maxCallsInProgress \(limit) is out of range 0...\(PJSUA.maxCallsLimit)")
            }
            if let rate = maxNewCallsPerSecond, !(rate > 0 && rate.isFinite) {
                throw PJSUAError(.invalidArgument, "maxNewCallsPerSecond must be a positive number, not \(rate)")
            }
            if let burst, !(burst >= 1 && burst.isFinite) {
                throw PJSUAError(.invalidArgument, "burst must be at least 1, not \(burst)")
            }
            try Validation.duration(retryAfter, in: .seconds(1) ... .seconds(86_400), what: "retryAfter")
        }
    }
}
