import Foundation

extension PJSUA {
    /// What a buddy's last presence NOTIFY said (RFC 3863 PIDF with RFC 4480 RPID), as pjsua
    /// parsed it (`pjsua_buddy_info`).
    public struct Presence: Sendable, Hashable, CustomStringConvertible {
        /// The PIDF `<basic>` status of the first tuple.
        public enum Basic: String, Sendable, Hashable {
            /// No NOTIFY with a status yet (no subscription, or it is not active).
            case unknown
            /// `<basic>open</basic>`: the buddy can be reached.
            case open
            /// `<basic>closed</basic>`.
            case closed
        }

        /// The RPID activity pjsua recognises (`pjrpid_activity`).
        public enum Activity: String, Sendable, Hashable {
            /// None given, or one pjsua does not map (`PJRPID_ACTIVITY_UNKNOWN`).
            case unknown
            /// `<rpid:away/>` (`PJRPID_ACTIVITY_AWAY`).
            case away
            /// `<rpid:busy/>`, e.g. on the phone (`PJRPID_ACTIVITY_BUSY`).
            case busy
        }

        /// Open, closed or not known.
        public var basic: Basic
        /// The RPID activity.
        public var activity: Activity
        /// The status text: the RPID or PIDF note when there is one, otherwise pjsua's
        /// "Online"/"Offline" (empty while unknown).
        public var note: String
        /// The buddy's Contact from the subscription's 2xx, when known.
        public var contact: String
        /// The PIDF document of the last NOTIFY, as received (nil when it had no body).
        public var pidf: String?

        /// Creates a presence value.
        public init(basic: Basic = .unknown, activity: Activity = .unknown, note: String = "", contact: String = "",
                    pidf: String? = nil) {
            self.basic = basic
            self.activity = activity
            self.note = note
            self.contact = contact
            self.pidf = pidf
        }

        public var description: String {
            var text = basic.rawValue
            if activity != .unknown { text += " (\(activity.rawValue))" }
            if !note.isEmpty { text += " \"\(note)\"" }
            return text
        }
    }

    /// Our own status, as sent to watchers (NOTIFY) and to a presence server (PUBLISH):
    /// ``PJSUA/setPresence(_:for:)``.
    public struct OwnPresence: Sendable, Hashable {
        /// Whether we are reachable (`<basic>open</basic>` or `closed`).
        public var isOnline: Bool
        /// The RPID activity to advertise.
        public var activity: Presence.Activity
        /// A free-text note (RPID `<note>`), e.g. "In a meeting"; empty for none.
        public var note: String

        /// Creates a status.
        public init(isOnline: Bool, activity: Presence.Activity = .unknown, note: String = "") {
            self.isOnline = isOnline
            self.activity = activity
            self.note = note
        }

        /// Online, no activity, no note.
        public static let online = OwnPresence(isOnline: true)
        /// Offline.
        public static let offline = OwnPresence(isOnline: false)
        /// Online and busy (RPID `busy`), e.g. while on a call.
        public static let busy = OwnPresence(isOnline: true, activity: .busy, note: "Busy")
        /// Online and away.
        public static let away = OwnPresence(isOnline: true, activity: .away, note: "Away")
    }

    /// A change of a buddy's presence: ``Event/presence(_:)``.
    public struct PresenceUpdate: Sendable, Hashable {
        /// The buddy.
        public let buddy: Buddy
        /// The buddy's URI, as added.
        public let uri: SIPURI
        /// What its last NOTIFY said.
        public let presence: Presence
    }
}
