import Foundation

extension PJSUA {
    /// A NOTIFY that arrived outside any subscription, for an event package the app accepts
    /// (``Configuration/unsolicitedNotifyEvents``): a voicemail server's unsolicited
    /// `message-summary` (RFC 3842), a PBX's `check-sync` asking the phone to re-read its
    /// configuration.
    ///
    /// It has been answered with 200 OK before the ``Event/unsolicitedNotify(_:)`` event is
    /// published; a retransmission of it is absorbed and not published again.
    public struct UnsolicitedNotify: Sendable, Hashable {
        /// The event package the `Event` header names, e.g. `message-summary` or `check-sync`
        /// (its parameters, like check-sync's `reboot=false`, are in ``headers``).
        public let eventPackage: String
        /// The account pjsua matched the request to (by its request URI); nil when none did.
        public let account: Account?
        /// The sender: the From header's URI, with its display name if any.
        public let from: String
        /// The To header's URI.
        public let to: String
        /// The MIME type of the body with its parameters (e.g.
        /// `application/simple-message-summary`); empty when the request had no Content-Type.
        public let contentType: String
        /// The body, as received (empty for none).
        public let body: Data
        /// Every header of the NOTIFY request, in order.
        public let headers: [SIPHeader]

        /// Creates a description of a NOTIFY (the engine creates them for received ones).
        public init(eventPackage: String, account: Account?, from: String, to: String, contentType: String, body: Data,
                    headers: [SIPHeader]) {
            self.eventPackage = eventPackage
            self.account = account
            self.from = from
            self.to = to
            self.contentType = contentType
            self.body = body
            self.headers = headers
        }

        /// The body as UTF-8 text, or nil when it is not valid UTF-8.
        public var text: String? {
            String(data: body, encoding: .utf8)
        }
    }
}
