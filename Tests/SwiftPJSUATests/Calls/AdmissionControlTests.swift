import Foundation
import PJSUATestSupport
import SwiftPJSUA
import Testing

/// New INVITEs past the admission limits get 503 with Retry-After, before any call exists.
@Suite("Admission control")
struct AdmissionControlTests {
    @Test func aDrainingEngineRefusesEveryNewCallWith503AndRetryAfter() async throws {
        let configuration = PJSUA.Configuration(port: 0, bindAddress: "127.0.0.1", audioDevice: .null,
                                                admission: .init(maxCallsInProgress: 0, retryAfter: .seconds(30)))
        try await withEngine(configuration) { phone, transport, log in
            let refusedBefore = phone.refusedCallCount
            let peer = try await sipp(["-sf", scenario("uac-expect-503.xml"), "-s", "drain", "127.0.0.1:\(transport.port)"], name: "sipp-503")
            #expect(try await peer.waitForExit() == 0, "no 503 with Retry-After: \(peer.output.suffix(2000))")
            #expect(phone.refusedCallCount == refusedBefore + 1)
            #expect(try await phone.activeCalls().isEmpty)
            #expect(!log.all.contains { if case .incomingCall = $0 { true } else { false } })
        }
    }

    @Test func callsPastTheInProgressLimitAreRefusedUntilOneEnds() async throws {
        try await withEngineHoldingTwoCalls { phone, transport, log, caller, callee in
            let refused = try await sipp(["-sf", scenario("uac-expect-503.xml"), "-s", "full", "127.0.0.1:\(transport.port)"], name: "sipp-full")
            #expect(try await refused.waitForExit() == 0, "\(refused.output.suffix(2000))")
            try await phone.hangUp(caller)
            try await log.state(callee, .disconnected)
            try await waitUntil("both legs gone") { try await phone.activeCalls().isEmpty }
            let admitted = try await sipp(["-sn", "uac", "-d", "200", "127.0.0.1:\(transport.port)"], name: "sipp-admitted")
            let incoming = try await log.first("the admitted call") { event -> PJSUA.Call? in
                if case let .incomingCall(_, call, _, _, _) = event, call != callee { return call }
                return nil
            }
            try await phone.answer(incoming)
            #expect(try await admitted.waitForExit() == 0, "\(admitted.output.suffix(2000))")
        }
    }

    /// A refused INVITE's retransmission gets the same 503, even once a call slot is free: the
    /// refusal is stateless (no transaction absorbs the retransmission), so the engine remembers
    /// what it refused. Without that, a retransmitted INVITE that outran its 503 could start a
    /// call its caller already saw refused. The test sends the INVITE itself, twice, byte for byte
    /// (sipp takes a second identical 503 for a retransmitted response and loops).
    @Test func aRetransmissionOfARefusedInviteIsRefusedAgainAfterASlotFreesUp() async throws {
        try await withEngineHoldingTwoCalls { phone, transport, log, caller, callee in
            let socket = try LoopbackSocket(udp: true)
            let sdp = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 6000 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n"
            let invite = [
                "INVITE sip:again@127.0.0.1:\(transport.port) SIP/2.0",
                "Via: SIP/2.0/UDP 127.0.0.1:\(socket.port);branch=z9hG4bK-resend-\(socket.port)",
                "From: <sip:resend@127.0.0.1:\(socket.port)>;tag=resend",
                "To: <sip:again@127.0.0.1:\(transport.port)>",
                "Call-ID: resend-\(socket.port)@127.0.0.1",
                "CSeq: 1 INVITE",
                "Contact: <sip:resend@127.0.0.1:\(socket.port)>",
                "Max-Forwards: 70",
                "Content-Type: application/sdp",
                "Content-Length: \(sdp.utf8.count)",
                "", sdp,
            ].joined(separator: "\r\n")
            #expect(socket.send(invite, toPort: transport.port))
            let first = await socket.receive(timeout: .seconds(5))
            #expect(first?.hasPrefix("SIP/2.0 503") == true, "\(first ?? "no answer")")

            try await phone.hangUp(caller)
            try await log.state(callee, .disconnected)
            try await waitUntil("both legs gone") { try await phone.activeCalls().isEmpty }

            #expect(socket.send(invite, toPort: transport.port))
            let second = await socket.receive(timeout: .seconds(5))
            #expect(second?.hasPrefix("SIP/2.0 503") == true, "the same INVITE again got: \(second ?? "no answer")")
            try await Task.sleep(for: .milliseconds(200))
            #expect(!log.all.contains { if case let .incomingCall(_, call, _, _, _) = $0 { call != callee } else { false } })
        }
    }

    /// Rate limit: with a burst of 2 and a rate of one call every 100 s, four calls placed one
    /// after the other: two are admitted, two are refused (our own outgoing legs end with 503).
    /// The rate is that slow so that no token comes back while the four are placed, however
    /// loaded the machine (at 1 call/s, four calls placed under ASan at load average 6 took over
    /// a second, and fewer than two were refused).
    @Test func callsArrivingFasterThanTheRateAreRefused() async throws {
        let configuration = PJSUA.Configuration(port: 0, bindAddress: "127.0.0.1", audioDevice: .null,
                                                admission: .init(maxNewCallsPerSecond: 0.01, burst: 2))
        try await withEngine(configuration) { phone, transport, log in
            var callers: [PJSUA.Call] = []
            for index in 0..<4 { callers.append(try await phone.makeCall(to: transport.uri(user: "rate-\(index)"))) }
            func refusedCount() -> Int {
                callers.filter { caller in
                    log.all.contains { event in
                        if case let .callState(c, .disconnected, _, status) = event, c == caller, status.code == 503 { return true }
                        return false
                    }
                }.count
            }
            try await waitUntil("two calls refused with 503") { refusedCount() == 2 }
            try await waitUntil("two incoming calls") {
                log.all.filter { if case .incomingCall = $0 { true } else { false } }.count == 2
            }
            // And no more: the refused ones never became calls here.
            try await Task.sleep(for: .milliseconds(200))
            #expect(log.all.filter { if case .incomingCall = $0 { true } else { false } }.count == 2)
            #expect(refusedCount() == 2)
        }
    }

    @Test func badPoliciesAreRejectedWithTypedErrors() async throws {
        let policies: [(PJSUA.AdmissionControl, String)] = [
            (.init(maxCallsInProgress: -1), "maxCallsInProgress"),
            (.init(maxCallsInProgress: PJSUA.maxCallsLimit + 1), "maxCallsInProgress"),
            (.init(maxNewCallsPerSecond: 0), "maxNewCallsPerSecond"),
            (.init(maxNewCallsPerSecond: .nan), "maxNewCallsPerSecond"),
            (.init(maxNewCallsPerSecond: 5, burst: 0.5), "burst"),
            (.init(retryAfter: .zero), "retryAfter"),
            (.init(retryAfter: .seconds(86_401)), "retryAfter"),
        ]
        try await withEngine { phone, _, _ in
            for (policy, mention) in policies {
                do {
                    try await phone.setAdmissionControl(policy)
                    Issue.record("accepted \(policy)")
                } catch let error as PJSUAError {
                    #expect(error.code == .invalidArgument)
                    #expect(error.message.contains(mention), "\(error.message)")
                }
            }
        }
    }
}

/// An engine whose admission allows two calls in progress, holding both with a self-call (our
/// outgoing leg and the incoming one, answered and confirmed).
func withEngineHoldingTwoCalls(
    _ body: (PJSUA, PJSUA.Transport, EventLog, _ caller: PJSUA.Call, _ callee: PJSUA.Call) async throws -> Void
) async throws {
    let configuration = PJSUA.Configuration(port: 0, bindAddress: "127.0.0.1", audioDevice: .null,
                                            admission: .init(maxCallsInProgress: 2))
    try await withEngine(configuration) { phone, transport, log in
        let caller = try await phone.makeCall(to: transport.uri(user: "first"))
        let callee = try await log.incomingCall().call
        try await phone.answer(callee)
        try await log.state(caller, .confirmed)
        try await body(phone, transport, log, caller, callee)
    }
}
