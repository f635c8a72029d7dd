extension PJSUA {
    /// What the engine does when an outgoing call is redirected (a 3xx response with Contact
    /// targets). Every target tried is reported as ``Event/redirected(_:)``.
    public enum RedirectPolicy: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// Re-sends the INVITE to each target in turn until one answers (the default, what a
        /// phone does). The corresponding C constant is `PJSIP_REDIRECT_ACCEPT`.
        case follow
        /// Does not follow: every target is reported, then the call ends with the 3xx as its
        /// last status. The corresponding C constant is `PJSIP_REDIRECT_REJECT` (for each
        /// target; `PJSIP_REDIRECT_STOP` would end the call with 487 instead).
        case report
        /// Holds the call until the app decides with ``PJSUA/decideRedirect(_:follow:)`` (a user
        /// confirming "call this other number?"). The corresponding C constant is
        /// `PJSIP_REDIRECT_PENDING`.
        case ask

        public var description: String { rawValue }
    }
}
