import Foundation
import SwiftPJSUA

/// Prints what happens: one JSON object per line (`--json`), or one human-readable line.
struct Output: Sendable {
    let json: Bool

    /// Prints one record. A field is a string, number, boolean or an array of them; any other
    /// value is printed as its description (``jsonValue(_:)``).
    func emit(_ event: String, _ fields: KeyValuePairs<String, any Sendable> = [:], human: String) {
        emit(event, fields: fields.map { ($0.key, $0.value) }, human: human)
    }

    /// Prints one record from a list of fields built at run time.
    func emit(_ event: String, fields: [(String, any Sendable)], human: String) {
        if json {
            var object: [String: Any] = ["event": event]
            for (key, value) in fields { object[key] = Self.jsonValue(value) }
            do {
                let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
                Self.write(String(decoding: data, as: UTF8.self))
            } catch {
                // Not silent: a record a script waits for that never comes is a hang, not an error.
                FileHandle.standardError.write(Data("softphone: cannot print the \(event) record as JSON: \(error)\n".utf8))
            }
        } else {
            Self.write(human)
        }
    }

    /// A field as JSONSerialization takes it: itself when it is JSON already (a string, number,
    /// boolean, or an array or object of them), else its description. A value of our own types
    /// (a SIPURI, a handle) was once passed as is and the whole record vanished: JSONSerialization
    /// refused it, and the refusal went unseen.
    static func jsonValue(_ value: any Sendable) -> Any {
        JSONSerialization.isValidJSONObject([value]) ? value : String(describing: value)
    }

    /// Prints an event of `phone` (an incoming call's record carries its INVITE's headers).
    func emit(_ event: PJSUA.Event, of phone: PJSUA?) {
        switch event {
        case let .incomingCall(account, call, sipCallID, from, offeredVideo):
            let headers = phone?.incomingCallHeaders(call) ?? []
            emit("incomingCall", ["call": call.description, "account": account.description, "sipCallID": sipCallID,
                                  "from": from, "offeredVideo": offeredVideo, "headers": headers.map(\.description)],
                 human: "incoming call \(call) from \(from)")
        case let .callState(call, state, sipCallID, lastStatus):
            emit("callState", ["call": call.description, "state": state.rawValue, "sipCallID": sipCallID,
                               "code": lastStatus.code.rawValue, "reason": lastStatus.reason],
                 human: "\(call) \(state) (\(lastStatus))")
        case let .callMedia(call, state, _):
            emit("media", ["call": call.description, "state": state.rawValue], human: "\(call) media \(state)")
        case let .registration(account, state):
            emit("registration", ["account": account.description, "code": state.status.code.rawValue, "reason": state.status.reason,
                                  "expires": Int(state.expires.components.seconds), "registered": state.isRegistered,
                                  "unregistration": state.isUnregistration],
                 human: "\(account) \(state)")
        case let .dtmf(call, digit):
            emit("dtmf", ["call": call.description, "digit": String(digit.digit), "method": digit.method.rawValue,
                          "durationMs": Self.wholeMilliseconds(digit.duration)],
                 human: "\(call) DTMF \(digit)")
        case let .transferStatus(progress):
            emit("transfer", ["kind": "status", "call": progress.call.description, "code": progress.status.code.rawValue,
                              "reason": progress.status.reason, "final": progress.isFinal],
                 human: progress.description)
        case let .transferRequested(decision):
            let request = decision.request
            emit("transfer", ["kind": "requested", "call": request.call.description, "to": request.target, "by": request.requester,
                              "accepted": decision.isAccepted],
                 human: "\(request.call) transfer to \(request.target) requested by \(request.requester): \(decision.isAccepted ? "accepted" : "refused")")
        case let .transferCallPlaced(call, newCall):
            emit("transfer", ["kind": "placed", "call": call.description, "newCall": newCall.description],
                 human: "\(call) transferred: new \(newCall)")
        case let .callReplaced(call, newCall):
            emit("transfer", ["kind": "replaced", "call": call.description, "newCall": newCall.description],
                 human: "\(call) replaced by \(newCall)")
        case let .ipChange(step, error):
            emit(ipChange: step, error: error)
        case let .message(message):
            emit(message: message)
        case let .unsolicitedNotify(notify):
            let body: (key: String, value: String) = notify.text.map { ("body", $0) } ?? ("bodyBase64", notify.body.base64EncodedString())
            emit("notify", ["package": notify.eventPackage, "account": notify.account?.description ?? "", "from": notify.from,
                            "to": notify.to, "contentType": notify.contentType, body.key: body.value,
                            "headers": notify.headers.map(\.description)],
                 human: "notify \(notify.eventPackage) from \(notify.from)\(notify.body.isEmpty ? "" : ": \(body.value)")")
        case let .messageStatus(status):
            // Humans get the outcome once, from the command that sent the message.
            guard json else { return }
            emit("messageStatus", ["id": status.id.description, "call": status.call?.description ?? "", "to": status.to,
                                   "code": status.status.code.rawValue, "reason": status.status.reason],
                 human: "\(status)")
        case let .tlsConnection(connection):
            emit("tls", ["remote": connection.remote, "connected": connection.isConnected, "problems": connection.problems.description,
                         "error": connection.error.map { "\($0.code)" } ?? "", "message": connection.error?.message ?? ""],
                 human: connection.description)
        case let .stats(call, quality):
            emit(quality: quality, of: call)
        case let .videoMedia(call, streams):
            emit(video: streams, of: call)
        case let .redirected(redirect):
            emit("redirected", ["call": redirect.call.description, "target": redirect.target, "code": redirect.status.code.rawValue,
                                "reason": redirect.status.reason, "followed": redirect.isFollowed],
                 human: "\(redirect.call) redirected (\(redirect.status)) to \(redirect.target)\(redirect.isFollowed ? ", following" : "")")
        case let .presence(update):
            emit(presence: update)
        case let .lineState(line):
            emit(line: line)
        case let .subscriptionState(state):
            emit(subscription: state)
        case let .incomingSubscription(subscription):
            emit(incoming: subscription)
        case let .messageWaiting(summary):
            emit(messageWaiting: summary)
        }
    }

    private func emit(ipChange step: PJSUA.IPChangeStep, error: PJSUAError?) {
        let (name, account, call): (String, PJSUA.Account?, PJSUA.Call?) = switch step {
        case .transportsShutDown: ("transportsShutDown", nil, nil)
        case .listenerRestarted: ("listenerRestarted", nil, nil)
        case let .accountTransportShutDown(account): ("accountTransportShutDown", account, nil)
        case let .accountContactUpdated(account): ("accountContactUpdated", account, nil)
        case let .callHungUp(account, call): ("callHungUp", account, call)
        case let .callReinvited(account, call): ("callReinvited", account, call)
        case .completed: ("completed", nil, nil)
        }
        emit("ipChange", ["step": name, "account": account?.description ?? "", "call": call?.description ?? "",
                          "error": error?.message ?? ""],
             human: "network change: \(step)\(error.map { " failed: \($0.message)" } ?? "")")
    }

    /// Prints where a call's audio flows (with ICE, the chosen candidate pair).
    func emit(path: PJSUA.MediaPath, of call: PJSUA.Call) {
        emit("mediaPath", ["call": call.description, "ice": path.usesICE, "established": path.isEstablished,
                           "localCandidate": path.localCandidate?.rawValue ?? "", "remoteCandidate": path.remoteCandidate?.rawValue ?? "",
                           "local": path.localAddress, "remote": path.remoteAddress],
             human: "\(call) media \(path)")
    }

    /// Prints the quality figures of a call.
    func emit(quality: PJSUA.CallQuality, of call: PJSUA.Call) {
        let milliseconds: (Duration?) -> Double = { duration in
            guard let duration else { return -1 }
            return (Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15 * 10).rounded() / 10
        }
        let mos = (quality.mos * 100).rounded() / 100
        let fields: KeyValuePairs<String, any Sendable> = [
            "call": call.description, "codec": quality.codec, "packetsSent": quality.sent.packets,
            "packetsReceived": quality.received.packets, "bytesSent": quality.sent.bytes, "bytesReceived": quality.received.bytes,
            "lostSent": quality.sent.packetsLost, "lostReceived": quality.received.packetsLost,
            "jitterMs": milliseconds(quality.received.meanJitter), "rttMs": milliseconds(quality.roundTripTime),
            "rFactor": (quality.rFactor * 10).rounded() / 10, "mos": mos]
        emit("stats", fields: fields.map { ($0.key, $0.value) } + jitterBufferFields(quality.jitterBuffer) + videoFields(quality.video),
             human: "\(call) codec \(quality.codec), RTP sent \(quality.sent.packets) (lost \(quality.sent.packetsLost)), received \(quality.received.packets) (lost \(quality.received.packetsLost)), jitter \(milliseconds(quality.received.meanJitter)) ms, RTT \(quality.roundTripTime == nil ? "n/a" : "\(milliseconds(quality.roundTripTime)) ms"), MOS \(mos)\(videoSummary(quality.video))")
    }

    /// The receiving jitter buffer's figures of a stats line (none when unknown).
    private func jitterBufferFields(_ buffer: PJSUA.JitterBufferStatistics?) -> [(String, any Sendable)] {
        guard let buffer else { return [] }
        return [("jbEmptyReads", buffer.emptyReads), ("jbLostMs", Self.wholeMilliseconds(buffer.lost)),
                ("jbDiscardedMs", Self.wholeMilliseconds(buffer.discarded)),
                ("jbAverageDelayMs", Self.wholeMilliseconds(buffer.averageDelay)), ("jbMaxDelayMs", Self.wholeMilliseconds(buffer.maxDelay))]
    }

    /// A duration in whole milliseconds for a JSON field, -1 when unknown.
    private static func wholeMilliseconds(_ duration: Duration?) -> Int {
        duration.map { Int($0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000) } ?? -1
    }

    private static let lock = NSLock()

    static func write(_ line: String) {
        lock.lock()
        defer { lock.unlock() }
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
