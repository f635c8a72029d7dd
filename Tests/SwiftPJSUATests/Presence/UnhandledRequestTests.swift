import Foundation
import SwiftPJSUA
import PJSUATestSupport
import Testing

/// Every request gets an answer (RFC 3261 8.2): requests no pjsua module handles are answered
/// by the engine's last module (CPJSUASupport/UnhandledRequests.c) instead of being dropped,
/// which left every sender retransmitting for 32 s. Each test runs against an engine in this
/// process and against a `softphone answer` child, with hand-written UDP datagrams
/// (``RawSIPPeer``), and once with sipp.
@Suite("Unhandled requests: every request gets an answer", .serialized)
struct UnhandledRequestTests {
    @Test(arguments: Responder.allCases)
    func aRegisterOrAPublishIsRefusedWith405ListingWhatIsAllowed(_ responder: Responder) async throws {
        try await withResponder(responder) { peer in
            for method in ["REGISTER", "PUBLISH"] {
                let extra = method == "PUBLISH" ? ["Event: presence", "Expires: 60"] : ["Expires: 60"]
                let response = try #require(try await peer.client.exchange(request(method, headers: extra, from: peer.client)), "\(method) unanswered")
                #expect(response.statusCode == 405, "\(method): \(response)")
                let allowed = response.allowedMethods
                for expected in ["INVITE", "ACK", "BYE", "CANCEL", "OPTIONS", "MESSAGE", "NOTIFY"] {
                    #expect(allowed.contains(expected), "\(method): Allow \(allowed)")
                }
                #expect(!allowed.contains("REGISTER") && !allowed.contains("PUBLISH"), "\(method): Allow \(allowed)")
            }
        }
    }

    @Test(arguments: Responder.allCases)
    func anUnknownMethodIsAnsweredWith501(_ responder: Responder) async throws {
        try await withResponder(responder) { peer in
            let foo = try #require(try await peer.client.exchange(request("FOO", from: peer.client)), "FOO unanswered")
            #expect(foo.statusCode == 501, "\(foo)")
            // RFC 4475 3.1.1.2 (a wide range of valid characters): an extension method made of
            // every token character. Its Via names our socket (the RFC's is TCP to host1).
            let torture = rfc4475WideRangeOfValidCharacters(from: peer.client.port)
            peer.client.send(torture.text)
            let response = try #require(try await peer.client.first { $0.branch == torture.branch && ($0.statusCode ?? 0) >= 200 },
                                        "RFC 4475 3.1.1.2 unanswered")
            #expect(response.statusCode == 501, "\(response)")
            #expect(response.header("CSeq") == "139122385 !interesting-Method0123456789_*+`.%indeed'~", "\(response.text)")
        }
    }

    @Test(arguments: Responder.allCases)
    func requestsForADialogOrTransactionThatDoesNotExistAreAnsweredWith481(_ responder: Responder) async throws {
        try await withResponder(responder) { peer in
            // In a dialog (a To tag) that does not exist: pjsip's UA layer answers these.
            for method in ["BYE", "INFO"] {
                let response = try #require(try await peer.client.exchange(request(method, toTag: "no-such-dialog", from: peer.client)), "\(method) unanswered")
                #expect(response.statusCode == 481, "in-dialog \(method): \(response)")
            }
            // Outside any dialog: methods that only mean something inside a call.
            for method in ["BYE", "INFO", "UPDATE", "PRACK", "REFER"] {
                let extra = method == "REFER" ? ["Refer-To: <sip:elsewhere@127.0.0.1>"] : []
                let response = try #require(try await peer.client.exchange(request(method, headers: extra, from: peer.client)), "\(method) unanswered")
                #expect(response.statusCode == 481, "out-of-dialog \(method): \(response)")
            }
        }
    }

    @Test(arguments: Responder.allCases)
    func anOutOfDialogNotifyIsRefusedWith489UnlessTheAppListensForItsEventPackage(_ responder: Responder) async throws {
        try await withResponder(responder) { peer in
            for package in ["message-summary", "check-sync", "foo"] {
                let response = try #require(try await peer.client.exchange(notify(package, from: peer.client)), "NOTIFY \(package) unanswered")
                #expect(response.statusCode == 489, "NOTIFY \(package): \(response)")
            }
            let noEvent = try #require(try await peer.client.exchange(request("NOTIFY", from: peer.client)), "NOTIFY without Event unanswered")
            #expect(noEvent.statusCode == 400, "\(noEvent)")
            try await Task.sleep(for: .milliseconds(200))
            #expect(peer.notifies().isEmpty)
        }
    }

    @Test(arguments: Responder.allCases)
    func anOutOfDialogNotifyTheAppListensForIsAcceptedOnceAndReachesTheAppWithItsBody(_ responder: Responder) async throws {
        try await withResponder(responder, accepting: ["message-summary", "check-sync"]) { peer in
            let summary = "Messages-Waiting: yes\r\nMessage-Account: sip:voicemail@127.0.0.1\r\nVoice-Message: 2/8 (0/2)\r\n"
            let mwi = notify("message-summary", from: peer.client, contentType: "application/simple-message-summary", body: summary)
            let accepted = try #require(try await peer.client.exchange(mwi), "NOTIFY message-summary unanswered")
            #expect(accepted.statusCode == 200, "\(accepted)")
            // A retransmission (same branch) is answered again by the transaction and not
            // delivered twice.
            let again = try #require(try await peer.client.exchange(mwi), "retransmitted NOTIFY unanswered")
            #expect(again.statusCode == 200, "\(again)")

            let sync = notify("check-sync", parameters: ";reboot=false", from: peer.client)
            let synced = try #require(try await peer.client.exchange(sync), "NOTIFY check-sync unanswered")
            #expect(synced.statusCode == 200, "\(synced)")
            let other = try #require(try await peer.client.exchange(notify("foo", from: peer.client)), "NOTIFY foo unanswered")
            #expect(other.statusCode == 489, "\(other)")

            try await waitUntil("both NOTIFYs reached the app") { peer.notifies().count >= 2 }
            try await Task.sleep(for: .milliseconds(200))
            let seen = peer.notifies()
            #expect(seen.map(\.package) == ["message-summary", "check-sync"], "\(seen)")
            let first = try #require(seen.first)
            #expect(first.body == summary)
            #expect(first.contentType == "application/simple-message-summary")
            #expect(first.from.contains("sip:raw@127.0.0.1"), "\(first.from)")
            #expect(first.hasAccount, "the local account takes requests to our address")
            #expect(seen.last?.event.contains("reboot=false") == true, "\(seen)")
        }
    }

    @Test func messageSummariesAreAcceptedWhileAnAccountConfiguredForVoicemailCountsIsAddedAndRefusedOnceItIsRemoved() async throws {
        let configuration = PJSUA.Configuration(port: 0, transport: .udp, bindAddress: "127.0.0.1", audioDevice: .null)
        try await withEngine(configuration) { phone, transport, _ in
            let client = try RawSIPPeer(target: transport.port)
            // No registrar, so no subscription (pjsua subscribes only for an account that
            // registers): the unsolicited NOTIFYs below are what this test is about.
            var accountConfiguration = PJSUA.Account.Configuration(id: try PJSUA.SIPURI("sip:voicemail-owner@127.0.0.1:\(transport.port)"))
            accountConfiguration.messageWaitingIndication = true
            let account = try await phone.addAccount(accountConfiguration)
            let summary = "Messages-Waiting: yes\r\nVoice-Message: 1/0\r\n"
            let first = notify("message-summary", from: client, contentType: "application/simple-message-summary", body: summary)
            let accepted = try #require(try await client.exchange(first), "NOTIFY message-summary unanswered")
            #expect(accepted.statusCode == 200, "\(accepted)")
            try await phone.removeAccount(account)
            let second = notify("message-summary", from: client, contentType: "application/simple-message-summary", body: summary)
            let refused = try #require(try await client.exchange(second), "NOTIFY message-summary unanswered")
            #expect(refused.statusCode == 489, "no account asks for voicemail counts any more: \(refused)")
        }
    }

    @Test(arguments: Responder.allCases)
    func optionsIsStillAnsweredByPjsuaAndAnACKGetsNothing(_ responder: Responder) async throws {
        try await withResponder(responder) { peer in
            let options = try #require(try await peer.client.exchange(request("OPTIONS", from: peer.client)), "OPTIONS unanswered")
            #expect(options.statusCode == 200, "\(options)")
            #expect(options.header("Allow-Events") != nil, "pjsua's OPTIONS answer, not ours: \(options.text)")
            // An ACK is never answered, whether it matches anything or not.
            peer.client.send(request("ACK", toTag: "no-such-dialog", from: peer.client))
            peer.client.send(request("ACK", from: peer.client))
            let received = try await peer.client.collect(for: .milliseconds(500))
            #expect(received.isEmpty, "\(received.map(\.text))")
        }
    }

    @Test func sippSeesARegisterRefusedWith405WithAllowAndAnUnknownMethodWith501() async throws {
        try await withEngine { _, transport, _ in
            let peer = try await sipp(["-sf", scenario("uac-unhandled-requests.xml"), "127.0.0.1:\(transport.port)"], name: "sipp-unhandled")
            #expect(try await peer.waitForExit(timeout: .seconds(20)) == 0, "\(peer.output.suffix(2000))")
        }
    }

    @Test func anEventPackageThatIsNotAnEventNameIsRefusedAtStart() async throws {
        for bad in ["", "message summary", "check-sync,foo", "dialog;sla", ".x", "x..y"] {
            var configuration = PJSUA.Configuration(port: 0, transport: .udp, bindAddress: "127.0.0.1")
            configuration.unsolicitedNotifyEvents = [bad]
            let error = await startError(PJSUA(), configuration)
            #expect(error?.code == .invalidArgument, "'\(bad)': \(String(describing: error))")
        }
    }
}

/// Where the datagrams go: an engine in this process, or a `softphone answer` child.
enum Responder: String, Sendable, CaseIterable, CustomStringConvertible {
    case engine, softphone
    var description: String { rawValue }
}

/// A NOTIFY as the app saw it (an ``PJSUA/Event/unsolicitedNotify(_:)`` event, or softphone's
/// `notify` JSON line).
struct SeenNotify: Sendable {
    let package: String
    let contentType: String
    let body: String
    let from: String
    /// The whole Event header value.
    let event: String
    let hasAccount: Bool
}

/// A responder under test: the client that talks to it, and the NOTIFYs its app saw so far.
struct RespondingPeer: Sendable {
    let client: RawSIPPeer
    let notifies: @Sendable () -> [SeenNotify]
}

/// Runs `body` against a fresh responder on loopback UDP that accepts NOTIFYs of `packages`.
func withResponder<T>(_ responder: Responder, accepting packages: Set<String> = [],
                      _ body: (RespondingPeer) async throws -> T) async throws -> T {
    switch responder {
    case .engine:
        var configuration = PJSUA.Configuration(port: 0, transport: .udp, bindAddress: "127.0.0.1", audioDevice: .null)
        configuration.unsolicitedNotifyEvents = packages
        return try await withEngine(configuration) { _, transport, log in
            let client = try RawSIPPeer(target: transport.port)
            return try await body(RespondingPeer(client: client) {
                log.all.compactMap { event in
                    guard case let .unsolicitedNotify(notify) = event else { return nil }
                    return SeenNotify(package: notify.eventPackage, contentType: notify.contentType, body: notify.text ?? "",
                                      from: notify.from, event: notify.headers.value(named: "Event") ?? "",
                                      hasAccount: notify.account != nil)
                }
            })
        }
    case .softphone:
        let extra = packages.isEmpty ? [] : ["--accept-notify", packages.sorted().joined(separator: ",")]
        let (child, port) = try await answeringSoftphone(extra, name: "softphone-unhandled")
        defer { child.stop() }
        let client = try RawSIPPeer(target: port)
        return try await body(RespondingPeer(client: client) {
            jsonLines(child.output).filter { $0["event"] as? String == "notify" }.map { line in
                let headers = line["headers"] as? [String] ?? []
                return SeenNotify(package: line["package"] as? String ?? "", contentType: line["contentType"] as? String ?? "",
                                  body: line["body"] as? String ?? "", from: line["from"] as? String ?? "",
                                  event: headers.first { $0.hasPrefix("Event:") }.map { String($0.dropFirst(6)).trimmingCharacters(in: .whitespaces) } ?? "",
                                  hasAccount: !(line["account"] as? String ?? "").isEmpty)
            }
        })
    }
}

/// An out-of-dialog request from `client` with every mandatory header (``RawSIPRequest``), plus
/// `headers` (whole lines), a To tag and a body.
private func request(_ method: String, headers: [String] = [], toTag: String? = nil, contentType: String? = nil,
                     body: String = "", from client: RawSIPPeer) -> RawSIPRequest {
    var request = RawSIPRequest(peer: client, method: method)
    request.extraHeaders = headers
    request.toTag = toTag
    request.contentType = contentType
    request.body = body
    return request
}

/// An out-of-dialog NOTIFY of `package`, as a voicemail server or PBX sends one.
private func notify(_ package: String, parameters: String = "", from client: RawSIPPeer, contentType: String? = nil,
                    body: String = "") -> RawSIPRequest {
    request("NOTIFY", headers: ["Event: \(package)\(parameters)", "Subscription-State: terminated"], contentType: contentType,
            body: body, from: client)
}

/// RFC 4475 3.1.1.2, "Wide Range of Valid Characters", written out from the RFC's description:
/// the extension method, Request-URI, To display name with escaped BEL, NUL and DEL, From
/// parameters, Call-ID and extension header are the RFC's; the Via is UDP from our socket with
/// `rport` (the RFC's names TCP to host1.example.com), so the answer comes back to us.
private func rfc4475WideRangeOfValidCharacters(from localPort: Int) -> (text: String, branch: String) {
    let method = "!interesting-Method0123456789_*+`.%indeed'~"
    let branch = "z9hG4bK-.!%66*_+`'~"
    let lines = [
        "\(method) sip:1_unusual.URI~(to-be!sure)&isn't+it$/crazy?,/;;*:&it+has=1,weird!*pas$wo~d_too.(doesn't-it)@example.com SIP/2.0",
        "Via: SIP/2.0/UDP 127.0.0.1:\(localPort);rport;branch=\(branch)",
        "To: \"BEL:\\\u{07} NUL:\\\u{00} DEL:\\\u{7F}\" <sip:1_unusual.URI~(to-be!sure)&isn't+it$/crazy?,/;;*@example.com>",
        "From: token1~` token2'+_ token3*%!.- <sip:mundane@example.com>;fromParam''~+*_!.-%=\"работающий\";tag=_token~1'+`*%!-.",
        "Call-ID: intmeth.word%ZK-!.*_+'@word`~)(><:\\/\"][?}{",
        "CSeq: 139122385 \(method)",
        "Max-Forwards: 255",
        "extensionHeader-!.%*+_`'~: \u{FEFF}大停電",
        "Content-Length: 0",
    ]
    return (lines.joined(separator: "\r\n") + "\r\n\r\n", branch)
}
