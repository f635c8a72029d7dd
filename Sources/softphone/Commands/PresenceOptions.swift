import SwiftPJSUA

/// `--presence online|busy|away|offline[:NOTE]` (our status for watchers) and `--publish` (also
/// PUBLISH it to the account's presence server, its registrar).
struct PresenceOptions {
    static let valued: Set<String> = ["presence"]
    static let flags: Set<String> = ["publish"]
    static let usage = """
      --presence online|busy|away|offline[:NOTE] is the status watchers of the account see (SUBSCRIBE is
      answered with it, and every watcher gets a NOTIFY when it is set); --publish also sends it in a
      PUBLISH to the account's registrar (a presence server), which needs --account with --registrar.
    """

    var status: PJSUA.OwnPresence?
    var publishes = false

    init(_ arguments: Arguments) throws(UsageError) {
        publishes = arguments.has("publish")
        guard let value = arguments.string("presence") else {
            if publishes { throw UsageError("--publish needs --presence") }
            return
        }
        let parts = value.split(separator: ":", maxSplits: 1).map(String.init)
        let note = parts.count > 1 ? parts[1] : ""
        switch parts.first {
        case "online": status = PJSUA.OwnPresence(isOnline: true, note: note)
        case "busy": status = PJSUA.OwnPresence(isOnline: true, activity: .busy, note: note.isEmpty ? "Busy" : note)
        case "away": status = PJSUA.OwnPresence(isOnline: true, activity: .away, note: note.isEmpty ? "Away" : note)
        case "offline": status = PJSUA.OwnPresence(isOnline: false, note: note)
        default: throw UsageError("--presence must be online, busy, away or offline (with an optional :NOTE), got '\(value)'")
        }
        if publishes && arguments.string("registrar") == nil {
            throw UsageError("--publish needs --account and --registrar (the presence server)")
        }
    }

    /// Sets the status on `account` (nil: the local account) and turns publication on.
    func apply(to phone: PJSUA, account: PJSUA.Account?) async throws {
        guard let status else { return }
        if publishes, let account { try await phone.setPresencePublication(enabled: true, for: account) }
        try await phone.setPresence(status, for: account)
    }
}
