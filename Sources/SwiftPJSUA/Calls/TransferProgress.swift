extension PJSUA {
    /// How a transfer we asked for is going (`on_call_transfer_status`): the payload of
    /// ``Event/transferStatus(_:)``.
    ///
    /// The first one is the REFER's own answer (100 or 202 once accepted, or its failure), the
    /// next ones the transferee's new call as it reports it in NOTIFYs (180, 200 OK, or the
    /// failure).
    public struct TransferProgress: Sendable, Hashable, CustomStringConvertible {
        /// The call being transferred (the one the REFER was sent on).
        public let call: Call
        /// The status reported: the REFER's answer, then the status line of each NOTIFY's
        /// `message/sipfrag` body.
        public let status: SIPStatus
        /// Whether this is the last report: the subscription ended. After a 2xx status the
        /// engine hangs up ``call`` unless the transfer was asked not to.
        public let isFinal: Bool

        /// Creates a progress report (the engine makes these; public for testing event handlers).
        public init(call: Call, status: SIPStatus, isFinal: Bool) {
            self.call = call
            self.status = status
            self.isFinal = isFinal
        }

        public var description: String { "\(call) transfer \(status)\(isFinal ? " (final)" : "")" }
    }
}
