import Foundation
import PJSUATestSupport
import SwiftPJSUA
import Testing

@Suite("Custom SIP headers, checked by sipp and a second engine")
struct CustomHeaderTests {
    @Test func headersGivenToMakeCallAndHangupArriveOnTheInviteAndTheBye() async throws {
        try await withEngine { phone, _, log in
            let peer = try await sipp(["-sf", scenario("uas-header-check.xml")], name: "sipp-header-check")
            let call = try await phone.makeCall(to: PJSUA.SIPURI("sip:service@127.0.0.1:\(peer.sippPort)"), headers: [
                .init("X-Call-UUID", "6f1c0a7e-2b1d-4c55-9d3e-1a2b3c4d5e6f"),
                .init("P-Preferred-Identity", "<sip:alice@example.com>"),
            ])
            try await log.state(call, .confirmed)
            #expect(phone.incomingCallHeaders(call) == nil, "an outgoing call has no INVITE of ours to read")
            try await phone.hangUp(call, headers: [.init("X-Hangup-Reason", "user pressed end")])
            try await log.state(call, .disconnected)
            #expect(try await peer.waitForExit() == 0, "\(peer.output.suffix(2000))")
        }
    }

    @Test func withoutTheHeadersSippFailsTheCall() async throws {
        // The scenario's checks are real: the same call without the headers makes sipp exit 1.
        try await withEngine { phone, _, log in
            let peer = try await sipp(["-sf", scenario("uas-header-check.xml")], name: "sipp-header-missing")
            let call = try await phone.makeCall(to: PJSUA.SIPURI("sip:service@127.0.0.1:\(peer.sippPort)"))
            try await log.state(call, .confirmed)
            try await phone.hangUp(call)
            try await log.state(call, .disconnected)
            #expect(try await peer.waitForExit() != 0, "\(peer.output.suffix(2000))")
        }
    }

    @Test func anIncomingInvitesHeadersReachTheEventAndAnswerHeadersReachThe200() async throws {
        try await withEngine { phone, transport, log in
            let peer = try await sipp(["-sf", scenario("uac-header-check.xml"), "-s", "bob", "127.0.0.1:\(transport.port)"], name: "sipp-uac-headers")
            let call = try await log.incomingCall().call
            let headers = try #require(phone.incomingCallHeaders(call))
            #expect(headers.value(named: "x-call-uuid") == "0b9d7a52-3f7e-4c1a-8d2e-7f6a5b4c3d2e")
            #expect(headers.values(named: "Diversion") == ["<sip:first@example.com>;reason=no-answer",
                                                           "<sip:second@example.com>;reason=unconditional"])
            #expect(headers.value(named: "P-Asserted-Identity") == "\"Carol\" <sip:carol@example.com>")
            // Every header is there, the ones PJSIP parses itself too, in message order.
            #expect(headers.first?.name == "Via")
            #expect(headers.value(named: "CSeq") == "1 INVITE")
            #expect(headers.value(named: "Content-Type") == "application/sdp")
            try await phone.answer(call, headers: [.init("X-Answered-By", "swift-pjsua-test")])
            try await log.state(call, .confirmed)
            try await log.state(call, .disconnected)
            // Still there after the call's last event, for a subscriber that reads late.
            #expect(phone.incomingCallHeaders(call)?.value(named: "X-Call-UUID") == "0b9d7a52-3f7e-4c1a-8d2e-7f6a5b4c3d2e")
            #expect(try await peer.waitForExit() == 0, "\(peer.output.suffix(2000))")
        }
    }

    @Test func headersGivenToRejectArriveOnTheErrorResponse() async throws {
        try await withEngine { phone, transport, log in
            let peer = try await sipp(["-sf", scenario("uac-reject-header-check.xml"), "-s", "bob", "127.0.0.1:\(transport.port)"],
                                name: "sipp-reject-headers")
            let call = try await log.incomingCall().call
            try await phone.reject(call, code: 486, headers: [.init("X-Reject-Reason", "in a meeting")])
            let end = try await log.state(call, .disconnected)
            #expect(end.status.code == 486)
            #expect(try await peer.waitForExit() == 0, "\(peer.output.suffix(2000))")
        }
    }

    @Test func registrationHeadersArriveOnTheRegister() async throws {
        try await withEngine { phone, _, log in
            let peer = try await sipp(["-sf", scenario("uas-register-header-check.xml")], name: "sipp-register-headers")
            let account = try await phone.addAccount(.init(id: "sip:alice@127.0.0.1", registrar: PJSUA.SIPURI("sip:127.0.0.1:\(peer.sippPort)"),
                                                           registrationHeaders: [.init("X-Device-ID", "handset-7")]))
            let state = try await log.registration(account, "registration")
            #expect(state.status.code == 200)
            #expect(try await peer.waitForExit() == 0, "\(peer.output.suffix(2000))")
            try await phone.removeAccount(account)
        }
    }

    static let badHeaders: [PJSUA.SIPHeader] = [
        .init("X-Injected", "ok\r\nX-Evil: 1"),
        .init("X-Injected", "line\nbreak"),
        .init("X-Injected", "nul\u{0}byte"),
        .init("X-Has Space", "value"),
        .init("X-Colon:", "value"),
        .init("", "value"),
        .init("Call-ID", "forged@example.com"),
        .init("v", "SIP/2.0/UDP 10.0.0.1"),
        .init("X-Long", String(repeating: "a", count: PJSUA.SIPHeader.maxValueLength + 1)),
    ]

    @Test func aBadHeaderIsRefusedWithATypedErrorBeforeAnythingIsSent() async throws {
        try await withEngine { phone, _, log in
            let silent = try LoopbackSocket()
            let uri = "sip:bob@127.0.0.1:\(silent.port)"
            for bad in Self.badHeaders {
                let headers = [PJSUA.SIPHeader("X-Fine", "fine"), bad]
                #expect(await thrownCode { try await phone.makeCall(to: PJSUA.SIPURI(uri), headers: headers) } == .invalidHeader, "\(bad)")
                #expect(await thrownCode { try await phone.sendMessage("x", to: PJSUA.SIPURI(uri), headers: headers) } == .invalidHeader, "\(bad)")
                #expect(await thrownCode {
                    try await phone.addAccount(.init(id: "sip:carol@127.0.0.1", registrar: PJSUA.SIPURI("sip:127.0.0.1:\(silent.port)"), registrationHeaders: headers))
                } == .invalidHeader, "\(bad)")
            }
            #expect(try await phone.activeCalls().isEmpty)
            #expect(await !waitForDatagram(on: silent, seconds: 1))
            #expect(!log.all.contains { if case .callState = $0 { true } else { false } })
            #expect(!log.all.contains { if case .registration = $0 { true } else { false } })
        }
    }

    @Test func aBadHeaderOnAnswerOrHangupLeavesTheCallAsItWas() async throws {
        try await withEngine { phone, transport, log in
            let caller = try await phone.makeCall(to: PJSUA.SIPURI("sip:self@127.0.0.1:\(transport.port)"))
            let callee = try await log.incomingCall().call
            #expect(await thrownCode { try await phone.answer(callee, headers: [.init("X-A", "b\r\n")]) } == .invalidHeader)
            #expect(await thrownCode { try await phone.hangUp(callee, headers: [.init("To", "x")]) } == .invalidHeader)
            #expect(try await phone.info(callee).state == .incoming)
            try await phone.answer(callee)
            try await log.state(caller, .confirmed)
            try await phone.hangUp(caller)
            try await log.state(callee, .disconnected)
        }
    }

    @Test func aHeaderLineParsesAtItsFirstColon() throws {
        let header = try PJSUA.SIPHeader(parsing: "X-Call-UUID:  abc:def ")
        #expect(header == PJSUA.SIPHeader("X-Call-UUID", "abc:def"))
        #expect(header.description == "X-Call-UUID: abc:def")
        for line in ["no colon", ": value", "Content-Length: 0"] {
            #expect(thrownCode { try PJSUA.SIPHeader(parsing: line) } == .invalidHeader, "\(line)")
        }
    }

    @Test func softphoneAnswerAddsItsHeadersAndPrintsTheInvitesHeaders() async throws {
        let (agent, port) = try await answeringSoftphone(["--exit-after", "1", "--header", "X-Answered-By: swift-pjsua-test"],
                                                         name: "softphone-answer-headers")
        defer { agent.stop() }
        let peer = try await sipp(["-sf", scenario("uac-header-check.xml"), "-s", "bob", "127.0.0.1:\(port)"], name: "sipp-uac-cli-headers")
        #expect(try await peer.waitForExit() == 0, "\(peer.output.suffix(2000))")
        #expect(try await agent.waitForExit(timeout: .seconds(10)) == 0, "\(agent.output)")
        let incoming = try #require(jsonLines(agent.output).first { $0["event"] as? String == "incomingCall" })
        let headers = incoming["headers"] as? [String] ?? []
        #expect(headers.contains("X-Call-UUID: 0b9d7a52-3f7e-4c1a-8d2e-7f6a5b4c3d2e"), "\(headers)")
    }

    @Test func softphoneCallSendsItsHeadersToASecondEngine() async throws {
        try await withEngine { phone, transport, log in
            let caller = try ChildProcess(try softphone(), ["call", "sip:alice@127.0.0.1:\(transport.port)", "--seconds", "0", "--timeout", "10",
                                                            "--header", "X-Call-UUID: 1234", "--header", "Subject: a call from the CLI"],
                                          name: "softphone-call-headers")
            let call = try await log.incomingCall(timeout: ChildProcess.startTimeout).call
            let headers = try #require(phone.incomingCallHeaders(call))
            #expect(headers.value(named: "X-Call-UUID") == "1234")
            #expect(headers.value(named: "Subject") == "a call from the CLI")
            try await phone.answer(call)
            #expect(try await caller.waitForExit() == 0, "\(caller.output)")
        }
    }

    @Test(arguments: [
        (["call", "sip:a@127.0.0.1", "--header", "X-Bad Name: v"], "not a SIP token"),
        (["call", "sip:a@127.0.0.1", "--header", "X-Value: a\rb"], "line break"),
        (["answer", "--header", "novalue"], "Name: value"),
        (["message", "sip:a@127.0.0.1", "hi", "--header", "Call-ID: x"], "writes this header itself"),
        (["message", "sip:a@127.0.0.1", "hi", "--content-type", "text"], "content type"),
    ])
    func softphoneRefusesBadHeadersWithOneLine(arguments: [String], mention: String) async throws {
        let result = try await runSoftphone(arguments)
        #expect(result.status == 2, "\(arguments): \(result.output)")
        #expect(result.output.split(separator: "\n").count == 1, "\(result.output)")
        #expect(result.output.contains(mention), "\(result.output)")
    }
}
