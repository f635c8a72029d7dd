import Foundation

extension PJSUA {
    /// Voicemail waiting for an account (RFC 3842 `message-summary`): ``Event/messageWaiting(_:)``,
    /// from a NOTIFY of the account's subscription (``PJSUA/setMessageWaitingIndication(enabled:for:)``,
    /// `on_mwi_info`) or an unsolicited one.
    public struct MessageWaiting: Sendable, Hashable, CustomStringConvertible {
        /// The account the NOTIFY was for (nil for an unsolicited NOTIFY pjsua matched to none).
        public let account: Account?
        /// Whether it came on our subscription (false: an unsolicited NOTIFY).
        public let isSolicited: Bool
        /// `Messages-Waiting: yes`.
        public let isWaiting: Bool
        /// `Message-Account`: where to call or subscribe for the mailbox; empty when not given.
        public let voicemailURI: String
        /// New voice messages (`Voice-Message: new/old`), 0 when the body does not say.
        public let newMessages: Int
        /// Old (heard) voice messages.
        public let oldMessages: Int
        /// Urgent new voice messages (the `(urgent-new/urgent-old)` part), 0 when not given.
        public let urgentNew: Int
        /// Urgent old voice messages.
        public let urgentOld: Int
        /// The body as received.
        public let body: String

        /// Reads a `application/simple-message-summary` body.
        public init(account: Account?, isSolicited: Bool, body: String) {
            self.account = account
            self.isSolicited = isSolicited
            self.body = body
            var waiting = false
            var uri = ""
            var counts = (0, 0, 0, 0)
            for line in body.split(whereSeparator: \.isNewline) {
                guard let colon = line.firstIndex(of: ":") else { continue }
                let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
                let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                switch name {
                case "messages-waiting": waiting = value.lowercased() == "yes"
                case "message-account": uri = value
                case "voice-message": counts = Self.counts(value)
                default: break
                }
            }
            isWaiting = waiting
            voicemailURI = uri
            (newMessages, oldMessages, urgentNew, urgentOld) = counts
        }

        /// `new/old` with an optional ` (urgent-new/urgent-old)`.
        private static func counts(_ value: String) -> (Int, Int, Int, Int) {
            let numbers = value.split { !$0.isNumber }.compactMap { Int($0) }
            guard numbers.count >= 2 else { return (0, 0, 0, 0) }
            return (numbers[0], numbers[1], numbers.count >= 4 ? numbers[2] : 0, numbers.count >= 4 ? numbers[3] : 0)
        }

        public var description: String {
            "\(isWaiting ? "waiting" : "none") \(newMessages)/\(oldMessages) (\(urgentNew)/\(urgentOld))"
                + (voicemailURI.isEmpty ? "" : " \(voicemailURI)")
        }
    }
}
