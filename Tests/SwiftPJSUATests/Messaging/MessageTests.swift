import Foundation
import PJSUATestSupport
import SwiftPJSUA
import Testing

extension EventLog {
    /// Waits for the delivery status of the message sent as `id`.
    func messageStatus(_ id: PJSUA.MessageID, timeout: Duration = .seconds(10)) async throws -> PJSUA.MessageStatus {
        try await first("the status of \(id)", timeout: timeout) { event in
            if case let .messageStatus(status) = event, status.id == id { return status }
            return nil
        }
    }

    /// Waits for a received message that satisfies `condition`.
    func message(timeout: Duration = .seconds(10), where condition: (PJSUA.Message) -> Bool = { _ in true }) async throws -> PJSUA.Message {
        try await first("a message", timeout: timeout) { event in
            if case let .message(message) = event, condition(message) { return message }
            return nil
        }
    }

    /// Every message status seen so far.
    var messageStatuses: [PJSUA.MessageStatus] {
        all.compactMap { event in
            if case let .messageStatus(status) = event { return status }
            return nil
        }
    }
}

/// The code of the ``PJSUAError`` that `body` throws; nil when it throws nothing or another error.
func thrownCode<T>(_ body: () async throws -> T) async -> PJSUAError.Code? {
    do {
        _ = try await body()
        return nil
    } catch {
        return (error as? PJSUAError)?.code
    }
}

/// The same, for synchronous code.
func thrownCode<T>(_ body: () throws -> T) -> PJSUAError.Code? {
    do {
        _ = try body()
        return nil
    } catch {
        return (error as? PJSUAError)?.code
    }
}

/// The `message` events a softphone child printed.
func printedMessages(_ output: String) -> [[String: Any]] {
    jsonLines(output).filter { $0["event"] as? String == "message" }
}

@Suite("Instant messages (SIP MESSAGE) against sipp and a second engine")
struct MessageTests {
    @Test func aMessageToSippCarriesItsTypeAndHeadersAndIsReportedDelivered() async throws {
        try await withEngine { phone, _, log in
            let peer = try await sipp(["-sf", scenario("uas-message.xml")], name: "sipp-message")
            let id = try await phone.sendMessage("hello sipp", to: PJSUA.SIPURI("sip:inbox@127.0.0.1:\(peer.sippPort)"),
                                                 contentType: "text/plain;charset=UTF-8", headers: [.init("X-Trace", "abc-123")])
            let status = try await log.messageStatus(id)
            #expect(status.status.code == 200)
            #expect(status.isDelivered)
            #expect(status.call == nil)
            #expect(status.to.contains("inbox@127.0.0.1:\(peer.sippPort)"))
            #expect(try await peer.waitForExit() == 0, "\(peer.output.suffix(2000))")
        }
    }

    @Test func sippFailsAMessageWithoutTheExpectedTypeOrHeader() async throws {
        // The scenario's checks are real: the same text as plain text without X-Trace makes sipp exit 1.
        try await withEngine { phone, _, log in
            let peer = try await sipp(["-sf", scenario("uas-message.xml")], name: "sipp-message-unchecked")
            let id = try await phone.sendMessage("hello sipp", to: PJSUA.SIPURI("sip:inbox@127.0.0.1:\(peer.sippPort)"))
            _ = try await log.messageStatus(id)
            #expect(try await peer.waitForExit() != 0, "\(peer.output.suffix(2000))")
        }
    }

    @Test func aMessageRefusedWith488IsReportedWithThatStatus() async throws {
        try await withEngine { phone, _, log in
            let peer = try await sipp(["-sf", scenario("uas-message-488.xml")], name: "sipp-message-488")
            let id = try await phone.sendMessage("refuse me", to: PJSUA.SIPURI("sip:inbox@127.0.0.1:\(peer.sippPort)"))
            let status = try await log.messageStatus(id)
            #expect(status.status.code == 488)
            #expect(status.status.reason == "Not Acceptable Here")
            #expect(!status.isDelivered)
            #expect(try await peer.waitForExit() == 0, "\(peer.output.suffix(2000))")
        }
    }

    @Test func eachMessageGetsItsOwnIdentifierAndStatus() async throws {
        try await withEngine { phone, _, log in
            let accepting = try await sipp(["-sf", scenario("uas-message.xml")], name: "sipp-message-a")
            let refusing = try await sipp(["-sf", scenario("uas-message-488.xml")], name: "sipp-message-b")
            let refused = try await phone.sendMessage("no", to: PJSUA.SIPURI("sip:inbox@127.0.0.1:\(refusing.sippPort)"))
            let accepted = try await phone.sendMessage("hello sipp", to: PJSUA.SIPURI("sip:inbox@127.0.0.1:\(accepting.sippPort)"),
                                                       contentType: "text/plain;charset=UTF-8", headers: [.init("X-Trace", "abc-123")])
            #expect(refused != accepted)
            #expect(try await log.messageStatus(accepted).status.code == 200)
            #expect(try await log.messageStatus(refused).status.code == 488)
            #expect(log.messageStatuses.count == 2)
            #expect(try await accepting.waitForExit() == 0)
            #expect(try await refusing.waitForExit() == 0)
        }
    }

    @Test func aMessageFromSippArrivesWithSenderTypeBodyAndHeaders() async throws {
        try await withEngine { phone, transport, log in
            let peer = try await sipp(["-sf", scenario("uac-message.xml"), "-s", "inbox", "127.0.0.1:\(transport.port)"], name: "sipp-uac-message")
            let message = try await log.message()
            #expect(message.from.contains("sip:sipp@127.0.0.1"))
            #expect(message.from.contains("\"sipp\""))
            #expect(message.to.contains("inbox@127.0.0.1"))
            #expect(message.contact?.contains("sipp@127.0.0.1") == true)
            #expect(message.contentType == "text/plain;charset=UTF-8")
            #expect(message.text?.hasPrefix("hi from sipp") == true, "\(message.text ?? "")")
            #expect(message.headers.value(named: "x-trace") == "sipp-42")
            #expect(message.call == nil)
            let local = await phone.localAccount
            #expect(message.account == local)
            #expect(try await peer.waitForExit() == 0, "\(peer.output.suffix(2000))")
        }
    }

    @Test func aMessageInsideACallTravelsInItsDialog() async throws {
        try await withEngine { phone, _, log in
            let peer = try await sipp(["-sf", scenario("uas-message-in-dialog.xml")], name: "sipp-message-dialog")
            let call = try await phone.makeCall(to: PJSUA.SIPURI("sip:service@127.0.0.1:\(peer.sippPort)"))
            try await log.state(call, .confirmed)
            let id = try await phone.sendMessage("in the call", on: call)
            let status = try await log.messageStatus(id)
            #expect(status.status.code == 200)
            #expect(status.call == call)
            try await phone.hangUp(call)
            try await log.state(call, .disconnected)
            #expect(try await peer.waitForExit() == 0, "\(peer.output.suffix(2000))")
        }
    }

    @Test func aMessageInsideAnIncomingCallNamesThatCall() async throws {
        try await withEngine { phone, transport, log in
            let peer = try await sipp(["-sf", scenario("uac-message-in-dialog.xml"), "-s", "bob", "127.0.0.1:\(transport.port)"],
                                name: "sipp-uac-message-dialog")
            let call = try await log.incomingCall().call
            try await phone.answer(call)
            let message = try await log.message()
            #expect(message.call == call)
            #expect(message.text?.hasPrefix("inside sipp's call") == true)
            #expect(message.contentType == "text/plain")
            try await log.state(call, .disconnected)
            #expect(try await peer.waitForExit() == 0, "\(peer.output.suffix(2000))")
        }
    }

    @Test func theAppsResponderChoosesTheAnswerToAnIncomingMessage() async throws {
        var configuration = PJSUA.Configuration(port: 0, transport: .udp, bindAddress: "127.0.0.1", audioDevice: .null)
        let seen = LineLog()
        configuration.messageResponder = { message in
            seen.append("\(message.contentType) \(message.text ?? "")")
            return message.contentType.hasPrefix("text/plain") ? 202 : 415
        }
        try await withEngine(configuration) { phone, transport, log in
            let refused = try await runSoftphone(["message", "sip:someone@127.0.0.1:\(transport.port)", "{}", "--content-type", "application/json"])
            #expect(refused.status == 1, "\(refused.output)")
            #expect(refused.output.contains("415 Unsupported Media Type"), "\(refused.output)")
            let accepted = try await runSoftphone(["message", "sip:alice@127.0.0.1:\(transport.port)", "plain words", "--json"])
            #expect(accepted.status == 0, "\(accepted.output)")
            let status = try #require(jsonLines(accepted.output).first { $0["event"] as? String == "messageStatus" })
            #expect(status["code"] as? Int == 202)
            #expect(seen.values == ["application/json {}", "text/plain plain words"])
            // Both still arrive as events, after their answer.
            let local = await phone.localAccount
            #expect(try await log.message { $0.text == "{}" }.account == local)
            _ = try await log.message { $0.text == "plain words" }

            // An account added later answers through the responder too.
            let alice = try await phone.addAccount(id: "sip:alice@127.0.0.1")
            let toAlice = try await runSoftphone(["message", "sip:alice@127.0.0.1:\(transport.port)", "<b/>", "--content-type", "text/html"])
            #expect(toAlice.status == 1, "\(toAlice.output)")
            #expect(toAlice.output.contains("415"), "\(toAlice.output)")
            #expect(try await log.message { $0.text == "<b/>" }.account == alice)
        }
    }

    @Test func twoEnginesExchangeMessagesBothWaysInAndOutsideACall() async throws {
        try await withEngine { phone, transport, log in
            let (bob, bobPort) = try await answeringSoftphone(name: "softphone-bob-messages")
            defer { bob.stop() }
            // Out of dialog, to the second engine: any content type, UTF-8 intact.
            let id = try await phone.sendMessage("{\"ping\":\"✓\"}", to: PJSUA.SIPURI("sip:bob@127.0.0.1:\(bobPort)"), contentType: "application/json")
            #expect(try await log.messageStatus(id).status.code == 200)
            try await waitUntil("bob printed the message") { !printedMessages(bob.output).isEmpty }
            let received = try #require(printedMessages(bob.output).first)
            #expect(received["body"] as? String == "{\"ping\":\"✓\"}")
            #expect(received["contentType"] as? String == "application/json")
            #expect(received["call"] as? String == "")

            // In the dialog of a call to the second engine.
            let call = try await phone.makeCall(to: PJSUA.SIPURI("sip:bob@127.0.0.1:\(bobPort)"))
            try await log.state(call, .confirmed)
            let inCall = try await phone.sendMessage("inside", on: call)
            #expect(try await log.messageStatus(inCall).status.code == 200)
            try await waitUntil("bob printed the in-call message") { printedMessages(bob.output).count == 2 }
            let second = printedMessages(bob.output)[1]
            #expect(second["body"] as? String == "inside")
            #expect((second["call"] as? String)?.hasPrefix("call#") == true)
            try await phone.hangUp(call)
            try await log.state(call, .disconnected)

            // And back: `softphone message` to this engine exits 0 once it got the 200.
            let sent = try await runSoftphone(["message", "sip:alice@127.0.0.1:\(transport.port)", "pong", "--json"])
            #expect(sent.status == 0, "\(sent.output)")
            let pong = try await log.message { $0.text == "pong" }
            #expect(pong.contentType == "text/plain")
            #expect(pong.call == nil)
            let status = try #require(jsonLines(sent.output).first { $0["event"] as? String == "messageStatus" })
            #expect(status["code"] as? Int == 200)
        }
    }

    @Test func softphoneMessageExitsNonZeroNamingTheStatusWhenRefused() async throws {
        let peer = try await sipp(["-sf", scenario("uas-message-488.xml")], name: "sipp-cli-488", lifetime: sippLifetimeForAChildClient)
        let result = try await runSoftphone(["message", "sip:inbox@127.0.0.1:\(peer.sippPort)", "hello"])
        #expect(result.status == 1, "\(result.output)")
        let lines = result.output.split(separator: "\n")
        #expect(lines.count == 1, "\(result.output)")
        #expect(result.output.contains("488 Not Acceptable Here"), "\(result.output)")
        #expect(try await peer.waitForExit() == 0)
    }

    @Test func softphoneMessageSendsItsContentTypeAndHeadersAndExits0On200() async throws {
        let peer = try await sipp(["-sf", scenario("uas-message.xml")], name: "sipp-cli-200", lifetime: sippLifetimeForAChildClient)
        let result = try await runSoftphone(["message", "sip:inbox@127.0.0.1:\(peer.sippPort)", "hello sipp",
                                             "--content-type", "text/plain;charset=UTF-8", "--header", "X-Trace: abc-123"])
        #expect(result.status == 0, "\(result.output)")
        #expect(try await peer.waitForExit() == 0, "\(peer.output.suffix(2000))")
    }

    @Test func aMalformedContentTypeOrBodyIsRefusedBeforeAnythingIsSent() async throws {
        try await withEngine { phone, _, log in
            let silent = try LoopbackSocket()
            let to = "sip:inbox@127.0.0.1:\(silent.port)"
            for type in ["text", "text/", "/plain", "", "text/plain\r\nX-Injected: 1", "text plain/x"] {
                #expect(await thrownCode { try await phone.sendMessage("x", to: PJSUA.SIPURI(to), contentType: type) } == .invalidArgument, "\(type)")
            }
            #expect(await thrownCode { try await phone.sendMessage("x", to: "mailto:bob@example.com") } == .invalidURI)
            let tooBig = Data(count: PJSUA.maxMessageBodyLength + 1)
            #expect(await thrownCode { try await phone.sendMessage(tooBig, to: PJSUA.SIPURI(to), contentType: "application/octet-stream") } == .invalidArgument)
            #expect(await !waitForDatagram(on: silent, seconds: 1))
            #expect(log.messageStatuses.isEmpty)
        }
    }
}

@Suite("Instant messages through kamailio")
struct KamailioMessageTests {
    /// alice is this engine, bob a `softphone answer` child; both registered with kamailio.
    @Test func aliceMessagesBobThroughTheProxyOutsideAndInsideACall() async throws {
        let kamailio = try await Kamailio()
        defer { kamailio.stop() }
        try await withEngine { phone, _, log in
            let bob = try ChildProcess(try softphone(), [
                "answer", "--listen", "udp:127.0.0.1:0", "--exit-after", "1", "--json",
                "--account", "sip:bob@127.0.0.1", "--registrar", kamailio.uri, "--username", "bob", "--password-env", "BOB_PASSWORD",
            ], name: "softphone-bob-kamailio-messages", environment: ["BOB_PASSWORD": "bob-secret"])
            defer { bob.stop() }
            try await bob.waitForOutput("\"registered\":true")
            let alice = try await phone.addAccount(id: "sip:alice@127.0.0.1", registrar: PJSUA.SIPURI(kamailio.uri),
                                                   username: "alice", password: "alice-secret")
            try await log.registration(alice, "alice registered", where: \.isRegistered)

            let outside = try await phone.sendMessage("hello bob", to: PJSUA.SIPURI("sip:bob@127.0.0.1:\(kamailio.port)"), from: alice)
            #expect(try await log.messageStatus(outside).status.code == 200)
            try await waitUntil("bob printed the message") { !printedMessages(bob.output).isEmpty }
            let first = try #require(printedMessages(bob.output).first)
            #expect(first["body"] as? String == "hello bob")
            #expect((first["from"] as? String)?.contains("alice@127.0.0.1") == true)

            let call = try await phone.makeCall(to: PJSUA.SIPURI("sip:bob@127.0.0.1:\(kamailio.port)"), from: alice)
            try await log.state(call, .confirmed)
            let inside = try await phone.sendMessage("during the call", on: call)
            let status = try await log.messageStatus(inside)
            #expect(status.status.code == 200)
            #expect(status.call == call)
            try await waitUntil("bob printed the in-call message") { printedMessages(bob.output).count == 2 }
            #expect(printedMessages(bob.output)[1]["body"] as? String == "during the call")
            #expect((printedMessages(bob.output)[1]["call"] as? String)?.hasPrefix("call#") == true)
            try await phone.hangUp(call)
            try await log.state(call, .disconnected)
            #expect(try await bob.waitForExit(timeout: .seconds(10)) == 0, "\(bob.output)")
        }
    }
}
