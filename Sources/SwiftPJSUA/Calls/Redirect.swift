extension PJSUA {
    /// One target of a redirected outgoing call (`on_call_redirected`): the payload of
    /// ``Event/redirected(_:)``.
    public struct Redirect: Sendable, Hashable, CustomStringConvertible {
        /// The outgoing call that was redirected.
        public let call: Call
        /// The target: a `Contact` of the 3xx response, as a URI.
        public let target: String
        /// The response that named the target (the 3xx), or the failure of a target being tried.
        public let status: SIPStatus
        /// Whether the engine re-sends the INVITE to ``target`` (``RedirectPolicy/follow``). With
        /// ``RedirectPolicy/ask`` it is false and the call waits for
        /// ``PJSUA/decideRedirect(_:follow:)``.
        public let isFollowed: Bool

        /// Creates a redirect (the engine makes these; public for testing event handlers).
        public init(call: Call, target: String, status: SIPStatus, isFollowed: Bool) {
            self.call = call
            self.target = target
            self.status = status
            self.isFollowed = isFollowed
        }

        public var description: String { "\(call) redirected to \(target) (\(status))\(isFollowed ? ", followed" : "")" }
    }
}
