import Foundation
import PJSUATestSupport
import SwiftPJSUA
import Testing

/// Presence, busy-lamp field and message-waiting indication against real peers: the pjsua app
/// as buddy and as watcher, sipp as a voicemail server, a raw UDP peer as a presence server
/// that refuses or drops subscriptions.
@Suite(.serialized) struct PresenceTests {
    @Test func theEngineSeesThePjsuaAppOnlineAndStopsWatchingWhenAsked() async throws {
        let app = try await PjsuaApp(name: "pjsua-presentity")
        try await app.waitForLog("STARTING --> RUNNING", timeout: .seconds(15))
        try await withEngine { phone, _, log in
            let buddy = try await phone.addBuddy(PJSUA.SIPURI(app.uri()))
            let update = try await log.first("the app's presence") { event -> PJSUA.PresenceUpdate? in
                if case let .presence(update) = event, update.buddy == buddy, update.presence.basic != .unknown { return update }
                return nil
            }
            #expect(update.presence.basic == .open, "\(update.presence)")
            #expect(update.presence.pidf?.contains("<basic>open</basic>") == true, "\(update.presence.pidf ?? "no PIDF")")
            #expect(try await phone.presence(of: buddy).basic == .open)
            #expect(await phone.buddies == [buddy])

            try await phone.unsubscribe(buddy)
            let ended = try await log.first("the unsubscription") { event -> PJSUA.SubscriptionState? in
                if case let .subscriptionState(state) = event, state.subject == .buddy(buddy), state.state == .terminated { return state }
                return nil
            }
            #expect(ended.retryAfter == nil, "an unsubscribed buddy is not renewed: \(ended)")
            try await phone.removeBuddy(buddy)
            await #expect(throws: PJSUAError.self) { try await phone.presence(of: buddy) }
            await #expect(throws: PJSUAError.self) { try await phone.addBuddy("not a uri") }
        }
        app.stop()
    }

    @Test func thePjsuaAppWatchingTheEngineSeesEachStatusItIsGiven() async throws {
        try await withEngine { phone, transport, log in
            try await phone.setPresence(PJSUA.OwnPresence(isOnline: true, activity: .busy, note: "In a meeting"))
            let engine = "sip:engine@127.0.0.1:\(transport.port)"
            let app = try await PjsuaApp(name: "pjsua-watcher", arguments: ["--add-buddy", engine],
                                   console: [.init(after: 1.0, "s"), .init(after: 0.2, "1")], linger: 15)
            defer { app.stop() }
            try await app.waitForLog("status is In a meeting", timeout: .seconds(10))
            let incoming = try await log.first("the watcher's SUBSCRIBE") { event -> PJSUA.IncomingSubscription? in
                if case let .incomingSubscription(subscription) = event { return subscription }
                return nil
            }
            #expect(incoming.decision == .accepted)
            #expect(incoming.subscriber.contains("sip:127.0.0.1"), "\(incoming.subscriber)")

            try await phone.setPresence(.offline)
            try await app.waitForLog("status is Offline", timeout: .seconds(10))
        }
    }

    @Test func aWatcherTheAppRefusesGetsTheChosenStatus() async throws {
        try await withEngine { phone, transport, log in
            try await phone.setSubscriptionPolicy(.refuse(.forbidden))
            await #expect(throws: PJSUAError.self) { try await phone.setSubscriptionPolicy(.refuse(.ok)) }
            let app = try await PjsuaApp(name: "pjsua-refused-watcher", arguments: ["--add-buddy", "sip:engine@127.0.0.1:\(transport.port)"],
                                   console: [.init(after: 1.0, "s"), .init(after: 0.2, "1")], linger: 15)
            defer { app.stop() }
            try await app.waitForLog("code=403", timeout: .seconds(10))
            let incoming = try await log.first("the refused SUBSCRIBE") { event -> PJSUA.IncomingSubscription? in
                if case let .incomingSubscription(subscription) = event { return subscription }
                return nil
            }
            #expect(incoming.decision == .refused(.forbidden))
        }
    }

    @Test func aWatcherTheAppAsksAboutWaitsPendingUntilAccepted() async throws {
        try await withEngine { phone, transport, log in
            try await phone.setSubscriptionPolicy(.ask)
            try await phone.setPresence(.online)
            let app = try await PjsuaApp(name: "pjsua-pending-watcher", arguments: ["--add-buddy", "sip:engine@127.0.0.1:\(transport.port)"],
                                   console: [.init(after: 1.0, "s"), .init(after: 0.2, "1")], linger: 15)
            defer { app.stop() }
            let incoming = try await log.first("the SUBSCRIBE to decide") { event -> PJSUA.IncomingSubscription? in
                if case let .incomingSubscription(subscription) = event { return subscription }
                return nil
            }
            #expect(incoming.decision == .awaiting)
            try await app.waitForLog("subscription state is PENDING", timeout: .seconds(10))
            try await phone.decideSubscription(incoming, accept: true)
            try await app.waitForLog("status is Online, subscription state is ACTIVE", timeout: .seconds(10))
            await #expect(throws: PJSUAError.self, "decided once") { try await phone.decideSubscription(incoming, accept: false) }
        }
    }

    @Test(arguments: [false, true])
    func voicemailCountsArriveFromTheSubscriptionAndFromAnUnsolicitedNotify(setInTheAccountsConfiguration: Bool) async throws {
        // sipp does not answer the REGISTER that unregisters at shutdown (its registration "call" is over).
        var configuration = PJSUA.Configuration(port: 0, transport: .udp, bindAddress: "127.0.0.1", audioDevice: .null)
        configuration.unregisterTimeout = .milliseconds(100)
        try await withEngine(configuration) { phone, _, log in
            let server = try await sipp(["-sf", scenario("uas-mwi.xml"), "-m", "2"], name: "sipp-mwi")
            defer { server.stop() }
            let port = server.sippPort
            var accountConfiguration = PJSUA.Account.Configuration(id: try PJSUA.SIPURI("sip:alice@127.0.0.1:\(port)"), registrar: try PJSUA.SIPURI("sip:127.0.0.1:\(port)"))
            accountConfiguration.messageWaitingIndication = setInTheAccountsConfiguration
            let account = try await phone.addAccount(accountConfiguration)
            try await log.first("registration") { event -> Void? in
                if case let .registration(a, state) = event, a == account, state.isRegistered { return () }
                return nil
            }
            if !setInTheAccountsConfiguration { try await phone.setMessageWaitingIndication(enabled: true, for: account) }
            let summaries = try await log.first("both summaries") { _ -> [PJSUA.MessageWaiting]? in
                let all = log.all.compactMap { event -> PJSUA.MessageWaiting? in
                    if case let .messageWaiting(summary) = event { return summary }
                    return nil
                }
                return all.count >= 2 ? all : nil
            }
            let solicited = try #require(summaries.first { $0.isSolicited })
            #expect(solicited.account == account)
            #expect(solicited.isWaiting)
            #expect((solicited.newMessages, solicited.oldMessages, solicited.urgentNew, solicited.urgentOld) == (2, 8, 1, 0), "\(solicited)")
            #expect(solicited.voicemailURI == "sip:voicemail@127.0.0.1")
            let unsolicited = try #require(summaries.first { !$0.isSolicited })
            #expect((unsolicited.newMessages, unsolicited.oldMessages) == (3, 8), "\(unsolicited)")
            #expect(unsolicited.account == account, "matched to the account by its request URI")
            try await log.first("the MWI subscription active") { event -> Void? in
                if case let .subscriptionState(state) = event, state.subject == .messageSummary(account), state.state == .active { return () }
                return nil
            }

            try await phone.setMessageWaitingIndication(enabled: false, for: account)
            try await log.first("the MWI subscription ended") { event -> Void? in
                if case let .subscriptionState(state) = event, state.subject == .messageSummary(account), state.state == .terminated { return () }
                return nil
            }
            #expect(try await server.waitForExit(timeout: .seconds(15)) == 0, "\(server.output.suffix(2000))")
        }
    }

    @Test func aSubscriptionRefusedWith403IsReportedAndNotRetriedInATightLoop() async throws {
        try await withEngine { phone, transport, log in
            let server = try RawSIPPeer(target: transport.port)
            try await phone.setSubscriptionRetry(.init(firstAfter: .seconds(1), interval: .seconds(30), afterRefusal: .seconds(30)))
            let buddy = try await phone.addBuddy(PJSUA.SIPURI(server.uri))
            let subscribe = try #require(try await server.request("SUBSCRIBE"), "no SUBSCRIBE")
            server.send(server.response(to: subscribe, 403, reason: "Forbidden", toTag: server.unique("tag")))
            let ended = try await log.first("the refusal") { event -> PJSUA.SubscriptionState? in
                if case let .subscriptionState(state) = event, state.subject == .buddy(buddy), state.state == .terminated { return state }
                return nil
            }
            #expect(ended.status?.code == .forbidden, "\(ended)")
            #expect(ended.retryAfter == .seconds(30), "\(ended)")
            let again = try await server.collect(for: .seconds(2.5)).filter { $0.method == "SUBSCRIBE" }
            #expect(again.isEmpty, "SUBSCRIBE sent again within 2.5 s of a 403: \(again.count)")
        }
    }

    @Test func oneBuddyPastTheBuildsLimitIsRefusedWithTooMany() async throws {
        try await withEngine { phone, transport, _ in
            let server = try RawSIPPeer(target: transport.port)
            try await phone.setSubscriptionRetry(.init(firstAfter: .seconds(1), interval: .seconds(60), afterRefusal: nil))
            let limit = PJSUA.buildLimits.maxBuddies
            // The server refuses every SUBSCRIBE at once, so that nothing stays pending.
            let refusing = Task {
                var answered = 0
                while answered < limit, let subscribe = try? await server.request("SUBSCRIBE", timeout: .seconds(5)) {
                    server.send(server.response(to: subscribe, 403, reason: "Forbidden", toTag: server.unique("tag")))
                    answered += 1
                }
            }
            defer { refusing.cancel() }
            for index in 0..<limit {
                _ = try await phone.addBuddy(PJSUA.SIPURI("sip:user\(index)@127.0.0.1:\(server.port)"))
            }
            do {
                _ = try await phone.addBuddy(PJSUA.SIPURI("sip:one-more@127.0.0.1:\(server.port)"))
                Issue.record("buddy \(limit + 1) was accepted")
            } catch let error as PJSUAError {
                #expect(error.code == .tooMany, "\(error)")
            }
            #expect(await phone.buddies.count == limit)
        }
    }

    @Test func aSubscriptionTheServerDropsIsReportedAndRenewedOnTheSchedule() async throws {
        let (log, server) = try await withEngine { phone, transport, log in
            let server = try RawSIPPeer(target: transport.port)
            try await phone.setSubscriptionRetry(.init(firstAfter: .seconds(2), interval: .seconds(30), afterRefusal: nil))
            let buddy = try await phone.addBuddy(PJSUA.SIPURI(server.uri))
            let subscribe = try #require(try await server.request("SUBSCRIBE"), "no SUBSCRIBE")
            let tag = try await acceptOpen(subscribe, by: server, of: buddy, log)
            // The server drops the subscription (RFC 6665 "deactivated": retry at once, pjsua
            // would after 500 ms); the engine waits firstAfter.
            let dropped = ContinuousClock.now
            server.send(notify(for: subscribe, by: server, tag: tag, cseq: 2, state: "terminated;reason=deactivated", basic: "closed"))
            let ended = try await log.first("the drop") { event -> PJSUA.SubscriptionState? in
                if case let .subscriptionState(state) = event, state.subject == .buddy(buddy), state.state == .terminated { return state }
                return nil
            }
            #expect(ended.reason == "deactivated", "\(ended)")
            #expect(ended.retryAfter == .seconds(2), "\(ended)")
            let renewed = try #require(try await server.request("SUBSCRIBE", timeout: .seconds(6)), "not renewed")
            let waited = ContinuousClock.now - dropped
            #expect(waited >= .milliseconds(1800), "renewed after \(waited)")
            // The renewal fails (503): the next attempt waits `interval`, not a tight loop.
            server.send(server.response(to: renewed, 503, reason: "Service Unavailable", toTag: server.unique("tag")))
            let failed = try await log.first("the failed renewal") { event -> PJSUA.SubscriptionState? in
                if case let .subscriptionState(state) = event, state.subject == .buddy(buddy), state.status?.code.rawValue == 503 { return state }
                return nil
            }
            #expect(failed.retryAfter == .seconds(30), "\(failed)")
            let again = try await server.collect(for: .seconds(2)).filter { $0.method == "SUBSCRIBE" }
            #expect(again.isEmpty, "SUBSCRIBE sent again within 2 s of a 503: \(again.count)")
            return (log, server)
        }
        // Shutdown ended the events, and the retry still scheduled went with the run.
        try await waitUntil("the events finished") { log.isFinished }
        _ = try await server.collect(for: .milliseconds(300))
        #expect(try await server.collect(for: .seconds(1)).filter { $0.method == "SUBSCRIBE" }.isEmpty)
    }

    /// Shutdown ends every subscription (pjsua's destroy un-SUBSCRIBEs an active one; the
    /// transaction layer's stop ends a request still unanswered, with 503): each ending is
    /// reported with no retry planned, since none can come (it said "retry in 5 s" after a 503).
    @Test(arguments: [false, true])
    func aSubscriptionShutdownEndsIsReportedWithNoRetryPlanned(answered: Bool) async throws {
        let (log, buddy) = try await withEngine { phone, transport, log in
            let server = try RawSIPPeer(target: transport.port)
            let buddy = try await phone.addBuddy(PJSUA.SIPURI(server.uri))
            let subscribe = try #require(try await server.request("SUBSCRIBE"), "no SUBSCRIBE")
            if answered { _ = try await acceptOpen(subscribe, by: server, of: buddy, log) }
            return (log, buddy)  // the server answers nothing more: shutdown's un-SUBSCRIBE stays unanswered
        }
        try await waitUntil("the events finished") { log.isFinished }
        let endings = log.all.compactMap { event -> PJSUA.SubscriptionState? in
            if case let .subscriptionState(state) = event, state.subject == .buddy(buddy), state.state == .terminated { return state }
            return nil
        }
        #expect(!endings.isEmpty, "shutdown reported no ending: \(log.all)")
        #expect(endings.allSatisfy { $0.retryAfter == nil }, "\(endings)")
    }
}

/// Accepts `subscribe` (200, then a NOTIFY of an open, active subscription) and waits until the
/// engine reports `buddy` open; returns the To tag.
private func acceptOpen(_ subscribe: RawSIPMessage, by server: RawSIPPeer, of buddy: PJSUA.Buddy, _ log: EventLog) async throws -> String {
    let tag = server.unique("tag")
    server.send(accepted(subscribe, by: server, tag: tag))
    server.send(notify(for: subscribe, by: server, tag: tag, cseq: 1, state: "active;expires=60", basic: "open"))
    try await log.first("the buddy open") { event -> Void? in
        if case let .presence(update) = event, update.buddy == buddy, update.presence.basic == .open { return () }
        return nil
    }
    return tag
}

/// A 200 to a SUBSCRIBE, with its To tag and Expires.
private func accepted(_ subscribe: RawSIPMessage, by server: RawSIPPeer, tag: String) -> String {
    server.response(to: subscribe, 200, reason: "OK", toTag: tag).replacingOccurrences(of: "Content-Length: 0", with: "Expires: 60\r\nContent-Length: 0")
}

/// A NOTIFY of the presence subscription `subscribe` opened, from the notifier's side.
private func notify(for subscribe: RawSIPMessage, by server: RawSIPPeer, tag: String, cseq: Int, state: String, basic: String) -> String {
    let body = """
    <?xml version="1.0" encoding="UTF-8"?>
    <presence xmlns="urn:ietf:params:xml:ns:pidf" entity="\(server.uri)">
     <tuple id="t1"><status><basic>\(basic)</basic></status></tuple>
    </presence>

    """.replacingOccurrences(of: "\n", with: "\r\n")
    return server.presenceNotify(in: subscribe, tag: tag, cseq: cseq, state: state, pidf: body)
}

/// Two engines through kamailio as presence server: a `softphone answer` child (bob) publishes
/// its status and takes calls; the engine in this process (alice) watches it.
@Suite(.serialized) struct PresenceServerTests {
    @Test func aStatusOneEnginePublishesReachesTheOtherThroughThePresenceServer() async throws {
        let server = try await Kamailio(presenceServer: ())
        defer { server.stop() }
        let bob = try await registeredBob(at: server, ["--presence", "busy:On a call", "--publish"])
        defer { bob.stop() }
        try await withEngine { phone, _, log in
            let alice = try await registeredAlice(phone, at: server, log)
            let buddy = try await phone.addBuddy(PJSUA.SIPURI("sip:bob@127.0.0.1:\(server.port)"), account: alice)
            let update = try await log.first("bob's published status", timeout: .seconds(10)) { event -> PJSUA.Presence? in
                if case let .presence(update) = event, update.buddy == buddy, update.presence.note == "On a call" { return update.presence }
                return nil
            }
            #expect(update.basic == .open, "\(update)")
            #expect(update.activity == .busy, "\(update)")
        }
    }

    @Test func anAccountConfiguredToPublishIsSeenByAWatcherOfTheSameServer() async throws {
        let server = try await Kamailio(presenceServer: ())
        defer { server.stop() }
        try await withEngine { phone, _, log in
            // carol publishes from the start (no setPresencePublication); alice, in the same
            // engine, watches her through the server.
            var configuration = PJSUA.Account.Configuration(id: try PJSUA.SIPURI("sip:carol@127.0.0.1:\(server.port)"), registrar: try PJSUA.SIPURI(server.uri))
            configuration.publishesPresence = true
            let carol = try await registeredAccount(configuration, phone, log)
            try await phone.setPresence(PJSUA.OwnPresence(isOnline: true, activity: .away, note: "In the lab"), for: carol)
            let alice = try await registeredAlice(phone, at: server, log)
            let buddy = try await phone.addBuddy(PJSUA.SIPURI("sip:carol@127.0.0.1:\(server.port)"), account: alice)
            let update = try await log.first("carol's published status", timeout: .seconds(10)) { event -> PJSUA.Presence? in
                if case let .presence(update) = event, update.buddy == buddy, update.presence.note == "In the lab" { return update.presence }
                return nil
            }
            #expect(update.basic == .open, "\(update)")
            #expect(update.activity == .away, "\(update)")
        }
    }

    @Test func aCallThroughTheServerShowsOnTheCalleesLampAsEarlyThenConfirmedThenTerminated() async throws {
        let server = try await Kamailio(presenceServer: ())
        defer { server.stop() }
        let bob = try await registeredBob(at: server, ["--answer-after", "800", "--hangup-after", "1"])
        defer { bob.stop() }
        try await withEngine { phone, _, log in
            let alice = try await registeredAlice(phone, at: server, log)
            let buddy = try await phone.addBuddy(PJSUA.SIPURI("sip:bob@127.0.0.1:\(server.port)"), account: alice, watching: .lineState)
            try await log.first("the dialog subscription active") { event -> Void? in
                if case let .subscriptionState(state) = event, state.subject == .buddy(buddy), state.state == .active { return () }
                return nil
            }
            let call = try await phone.makeCall(to: PJSUA.SIPURI("sip:bob@127.0.0.1:\(server.port)"), from: alice)
            try await log.state(call, .disconnected, timeout: .seconds(10))
            let states = try await log.first("bob's lamp back to terminated", timeout: .seconds(5)) { _ -> [PJSUA.LineState.State]? in
                let lamp = log.all.compactMap { event -> PJSUA.LineState? in
                    if case let .lineState(line) = event, line.buddy == buddy { return line }
                    return nil
                }
                return lamp.last?.state == .terminated ? lamp.map(\.state) : nil
            }
            let transitions = states.reduce(into: [PJSUA.LineState.State]()) { if $0.last != $1 { $0.append($1) } }
            #expect(transitions.drop { $0 == .idle } == [.early, .confirmed, .terminated], "\(states)")
            let early = log.all.compactMap { event -> PJSUA.LineState? in
                if case let .lineState(line) = event, line.state == .early { return line }
                return nil
            }.first
            #expect(early?.direction == "recipient", "\(String(describing: early))")
            #expect(early?.remote.contains("alice") == true, "the caller: \(String(describing: early))")
        }
    }
}

extension PresenceServerTests {
    @Test func voicemailCountsAVoicemailSystemPublishesReachTheSubscribedAccount() async throws {
        let server = try await Kamailio(presenceServer: ())
        defer { server.stop() }
        try await withEngine { phone, _, log in
            let alice = try await registeredAlice(phone, at: server, log)
            try await phone.setMessageWaitingIndication(enabled: true, for: alice)
            try await log.first("the MWI subscription active") { event -> Void? in
                if case let .subscriptionState(state) = event, state.subject == .messageSummary(alice), state.state == .active { return () }
                return nil
            }
            // The voicemail system: a PUBLISH of alice's message summary (RFC 3903) to the server.
            let voicemail = try RawSIPPeer(target: server.port)
            let body = "Messages-Waiting: yes\r\nMessage-Account: sip:voicemail@127.0.0.1\r\nVoice-Message: 5/1 (1/0)\r\n"
            let callID = voicemail.unique("publish")
            voicemail.send([
                "PUBLISH sip:alice@127.0.0.1:\(server.port) SIP/2.0",
                "Via: SIP/2.0/UDP 127.0.0.1:\(voicemail.port);branch=\(voicemail.newBranch())",
                "From: <sip:voicemail@127.0.0.1>;tag=\(voicemail.unique("tag"))",
                "To: <sip:alice@127.0.0.1:\(server.port)>",
                "Call-ID: \(callID)", "CSeq: 1 PUBLISH", "Max-Forwards: 70", "Event: message-summary", "Expires: 60",
                "Content-Type: application/simple-message-summary", "Content-Length: \(body.utf8.count)",
            ].joined(separator: "\r\n") + "\r\n\r\n" + body)
            let published = try await voicemail.first { $0.callID == callID && ($0.statusCode ?? 0) >= 200 }
            #expect(published?.statusCode == 200, "\(published?.text ?? "no answer")")
            let summary = try await log.first("the published counts") { event -> PJSUA.MessageWaiting? in
                if case let .messageWaiting(summary) = event, summary.newMessages == 5 { return summary }
                return nil
            }
            #expect(summary.isSolicited && summary.account == alice, "\(summary)")
            #expect((summary.oldMessages, summary.urgentNew) == (1, 1), "\(summary)")
        }
    }
}

/// bob: a `softphone answer` child registered with the presence server.
private func registeredBob(at server: Kamailio, _ extra: [String]) async throws -> ChildProcess {
    let (process, _) = try await answeringSoftphone(["--account", "sip:bob@127.0.0.1:\(server.port)", "--registrar", server.uri] + extra,
                                                    name: "softphone-bob")
    try await process.waitForOutput("\"registered\":true", timeout: .seconds(10))
    return process
}

/// alice: an account of the engine in this process, registered with the presence server.
private func registeredAlice(_ phone: PJSUA, at server: Kamailio, _ log: EventLog) async throws -> PJSUA.Account {
    try await registeredAccount(PJSUA.Account.Configuration(id: PJSUA.SIPURI("sip:alice@127.0.0.1:\(server.port)"), registrar: PJSUA.SIPURI(server.uri)), phone, log)
}

/// An account of the engine in this process, added from `configuration` and registered.
private func registeredAccount(_ configuration: PJSUA.Account.Configuration, _ phone: PJSUA, _ log: EventLog) async throws -> PJSUA.Account {
    let added = try await phone.addAccount(configuration)
    try await log.first("\(configuration.id) registered") { event -> Void? in
        if case let .registration(account, state) = event, account == added, state.isRegistered { return () }
        return nil
    }
    return added
}
