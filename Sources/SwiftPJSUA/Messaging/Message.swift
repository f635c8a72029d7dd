import Foundation

extension PJSUA {
    /// An instant message (SIP MESSAGE, RFC 3428) that arrived, in or outside a call.
    ///
    /// It has been answered (200 OK, or what ``Configuration/messageResponder`` chose) before
    /// the ``Event/message(_:)`` event is published.
    public struct Message: Sendable, Hashable {
        /// The call whose dialog carried the message; nil for a message outside any call.
        public let call: Call?
        /// The account pjsua matched the message to (by its request URI).
        public let account: Account?
        /// The sender: the From header's URI, with its display name if any.
        public let from: String
        /// The To header's URI.
        public let to: String
        /// The sender's Contact URI, when the request had one.
        public let contact: String?
        /// The MIME type of the body, e.g. `text/plain` (`text/plain;charset=UTF-8` keeps its
        /// parameters).
        public let contentType: String
        /// The body, as received.
        public let body: Data
        /// Every header of the MESSAGE request, in order.
        public let headers: [SIPHeader]

        /// Creates a message description (the engine creates them for received messages).
        public init(call: Call?, account: Account?, from: String, to: String, contact: String?, contentType: String,
                    body: Data, headers: [SIPHeader]) {
            self.call = call
            self.account = account
            self.from = from
            self.to = to
            self.contact = contact
            self.contentType = contentType
            self.body = body
            self.headers = headers
        }

        /// The body as UTF-8 text, or nil when it is not valid UTF-8.
        public var text: String? {
            String(data: body, encoding: .utf8)
        }
    }

    /// Chooses the status an incoming MESSAGE outside a call is answered with: 200...299 accepts
    /// it, 300...699 refuses it (e.g. ``SIPResponseCode/unsupportedMediaType`` or
    /// ``SIPResponseCode/notAcceptableHere`` for a content type the app does not handle,
    /// ``SIPResponseCode/busyHere`` when busy); anything else is answered 500. Set as ``Configuration/messageResponder``.
    ///
    /// Called on pjsua's thread, inside its callback, before the ``Event/message(_:)`` event:
    /// decide from the message and return. Never block and never call the engine from it.
    public typealias MessageResponder = @Sendable (Message) -> SIPResponseCode
}
