extension PJSUA {
    /// Identifies one MESSAGE the app sent, so that its ``MessageStatus`` can be matched to it.
    /// Unique for the life of the process.
    public struct MessageID: Hashable, Sendable, CustomStringConvertible {
        /// The identifier's number (increasing in sending order).
        public let rawValue: UInt

        init(rawValue: UInt) {
            self.rawValue = rawValue
        }

        public var description: String { "message#\(rawValue)" }
    }

    /// The outcome of a MESSAGE the app sent (`on_pager_status2`): the far end's final response,
    /// or a local failure such as a timeout (408) or a transport error (503).
    public struct MessageStatus: Sendable, Hashable, CustomStringConvertible {
        /// What ``PJSUA/sendMessage(_:to:from:contentType:headers:)-(String,_,_,_,_)`` (or a variant)
        /// returned for this message.
        public let id: MessageID
        /// The call whose dialog carried it; nil for a message sent outside a call.
        public let call: Call?
        /// The destination URI.
        public let to: String
        /// The final status: 2xx when the far end accepted the message.
        public let status: SIPStatus

        /// Creates a delivery status (the engine creates them).
        public init(id: MessageID, call: Call?, to: String, status: SIPStatus) {
            self.id = id
            self.call = call
            self.to = to
            self.status = status
        }

        /// Whether the far end accepted the message (a 2xx response).
        public var isDelivered: Bool { status.code.isSuccess }

        public var description: String { "\(id) to \(to): \(status)" }
    }
}
