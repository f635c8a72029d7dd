import SwiftPJSUA

// Presence, busy-lamp and voicemail events as softphone prints them.
extension Output {
    func emit(presence update: PJSUA.PresenceUpdate) {
        let presence = update.presence
        emit("presence", ["buddy": update.buddy.description, "uri": update.uri.description, "basic": presence.basic.rawValue,
                          "activity": presence.activity.rawValue, "note": presence.note],
             human: "\(update.uri) is \(presence)")
    }

    func emit(line: PJSUA.LineState) {
        emit("lineState", ["buddy": line.buddy.description, "uri": line.uri.description, "state": line.state.rawValue,
                           "dialogState": line.dialogState, "direction": line.direction, "remote": line.remote,
                           "sipCallID": line.sipCallID],
             human: "line \(line)")
    }

    func emit(subscription state: PJSUA.SubscriptionState) {
        let subject = switch state.subject {
        case let .buddy(buddy): buddy.description
        case let .messageSummary(account): account.description
        }
        emit("subscription", ["subject": subject, "package": state.eventPackage, "state": state.state.rawValue,
                              "code": state.status?.code.rawValue ?? 0, "reason": state.reason,
                              "retryAfterSeconds": state.retryAfter.map { Int($0.components.seconds) } ?? -1],
             human: "\(subject) \(state)")
    }

    func emit(incoming subscription: PJSUA.IncomingSubscription) {
        let decision = switch subscription.decision {
        case .accepted: "accepted"
        case let .refused(code): "refused \(code)"
        case .awaiting: "awaiting"
        }
        emit("incomingSubscription", ["account": subscription.account.description, "subscriber": subscription.subscriber,
                                      "decision": decision],
             human: "watcher \(subscription.subscriber): \(decision)")
    }

    func emit(messageWaiting summary: PJSUA.MessageWaiting) {
        emit("messageWaiting", ["account": summary.account?.description ?? "", "solicited": summary.isSolicited,
                                "waiting": summary.isWaiting, "new": summary.newMessages, "old": summary.oldMessages,
                                "urgentNew": summary.urgentNew, "urgentOld": summary.urgentOld,
                                "voicemail": summary.voicemailURI],
             human: "voicemail: \(summary)")
    }
}
