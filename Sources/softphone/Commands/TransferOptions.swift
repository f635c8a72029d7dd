import SwiftPJSUA

/// `--accept-transfer` / `--refuse-transfer`: how the command answers an incoming REFER
/// (accepting is the default; refusing answers 603 Decline).
struct TransferOptions {
    static let flags: Set<String> = ["accept-transfer", "refuse-transfer"]

    var policy: PJSUA.TransferPolicy = .accept

    init(_ arguments: Arguments) throws(UsageError) {
        if arguments.has("accept-transfer") && arguments.has("refuse-transfer") {
            throw UsageError("--accept-transfer and --refuse-transfer exclude each other")
        }
        if arguments.has("refuse-transfer") { policy = .refuse(code: 603) }
    }
}

extension Watcher {
    /// The call the engine placed because `call` was transferred (an accepted REFER), if any.
    func transferredCall(from call: PJSUA.Call) -> PJSUA.Call? {
        all.lazy.compactMap { event -> PJSUA.Call? in
            if case let .transferCallPlaced(c, newCall) = event, c == call { return newCall }
            if case let .callReplaced(c, newCall) = event, c == call { return newCall }
            return nil
        }.first
    }

    /// The final status of the transfer of `call`, within `seconds`: the first 2xx, or the
    /// final one.
    func transferOutcome(of call: PJSUA.Call, within seconds: Double, signals: Signals) async -> PJSUA.SIPStatus? {
        await first(within: seconds, signals: signals) { event in
            if case let .transferStatus(progress) = event, progress.call == call,
               progress.isFinal || progress.status.code.isSuccess {
                return progress.status
            }
            return nil
        }
    }
}
