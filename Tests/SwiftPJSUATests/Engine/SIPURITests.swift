import PJSUATestSupport
import SwiftPJSUA
import Testing

@Suite("SIP URI")
struct SIPURITests {
    @Test(arguments: [
        "sip:bob@example.com", "sips:bob@example.com:5061", "SIP:Bob@Example.com", "sip:example.com",
        "sip:bob@127.0.0.1:5070;transport=tcp", "sip:bob@[2001:db8::1]:5060", "\"Bob\" <sip:bob@example.com>",
        "<sips:alice@example.com>;tag=1", "sip:+15551234;phone-context=example.com@example.com;user=phone",
    ])
    func wellFormedURIsAreAcceptedAndKeptAsWritten(text: String) throws {
        let uri = try PJSUA.SIPURI(text)
        #expect(uri.description == text)
        #expect("\(uri)" == text)
    }

    @Test(arguments: [
        ("", "empty"), ("bob@example.com", "scheme"), ("tel:+15551234", "scheme"), ("mailto:bob@example.com", "scheme"),
        ("sip:", "no host"), ("sip:@example.com", "no host"), ("sip:bob@exa mple.com", "spaces"),
        ("<sip:bob@example.com", "angle brackets"), ("sip:bob@example.com\0", "control characters"),
        ("sip:" + String(repeating: "b", count: 300) + "@example.com", "longer than 255 bytes"),
    ])
    func malformedURIsThrowInvalidURINamingTheProblem(text: String, problem: String) {
        do {
            let uri = try PJSUA.SIPURI(text)
            Issue.record("accepted \(uri)")
        } catch {
            #expect(error.code == .invalidURI)
            #expect(error.message.contains(problem), "\(error.message)")
            #expect(!error.message.contains("\0"))
        }
    }

    /// A CR or LF would end the header PJSIP writes the URI into and start one of the sender's
    /// choosing.
    @Test(arguments: ["sip:bob@example.com\r\nX-Evil: 1", "sip:bob@example.com\nContact: <sip:evil@x>", "sip:bob\r@x"])
    func lineBreaksAreRefusedAtConstruction(text: String) {
        #expect(throws: PJSUAError.self) { try PJSUA.SIPURI(text) }
    }

    /// A literal cannot throw: a bad one is kept as written, never traps, and the call it is
    /// given to throws the typed error before anything is sent.
    @Test func aLiteralIsKeptAsWrittenAndCheckedWhereItIsUsed() async throws {
        let good: PJSUA.SIPURI = "sip:bob@example.com"
        let checked = try PJSUA.SIPURI(String("sip:bob@example.com"))
        #expect(good == checked)
        let bad: PJSUA.SIPURI = "bob at example"
        #expect(bad.description == "bob at example")
        #expect(bad.scheme == nil && bad.host == nil)
        let injected = PJSUA.SIPURI(stringLiteral: "sip:bob@127.0.0.1\r\nX-Evil: 1")
        try await withStartedEngine { phone, _ in
            for uri in [bad, injected] {
                do {
                    _ = try await phone.makeCall(to: uri)
                    Issue.record("called \(uri)")
                } catch PJSUAError.invalidURI {
                }
                #expect(await thrownCode { try await phone.sendMessage("x", to: uri) } == .invalidURI)
                #expect(await thrownCode { try await phone.addBuddy(uri) } == .invalidURI)
                #expect(await thrownCode { try await phone.addAccount(id: uri) } == .invalidURI)
                #expect(await thrownCode { try await phone.addAccount(id: "sip:alice@127.0.0.1", registrar: uri) } == .invalidURI)
            }
            #expect(try await phone.activeCalls().isEmpty)
        }
    }

    @Test func partsAreReadFromTheURIInsideAnyDisplayName() throws {
        let plain = PJSUA.SIPURI("sip:bob@example.com")
        #expect(plain.scheme == "sip" && plain.user == "bob" && plain.host == "example.com" && plain.port == nil)
        let full = PJSUA.SIPURI("\"Bob\" <SIPS:bob:secret@192.0.2.1:5061;transport=tls?Subject=hi>;tag=9")
        #expect(full.scheme == "sips" && full.user == "bob" && full.host == "192.0.2.1" && full.port == 5061)
        let hostOnly = PJSUA.SIPURI("sip:example.com;lr")
        #expect(hostOnly.user == nil && hostOnly.host == "example.com")
        let ipv6 = PJSUA.SIPURI("sip:alice@[2001:db8::1]:5070")
        #expect(ipv6.host == "[2001:db8::1]" && ipv6.port == 5070)
        // The user part may hold ; and ? (RFC 3261 25.1): the @ is found first.
        let telephone = PJSUA.SIPURI("sip:+1555;phone-context=x@gw.example.com;user=phone")
        #expect(telephone.user == "+1555;phone-context=x" && telephone.host == "gw.example.com")
    }

    @Test func equalityAndHashingUseTheTextAsWritten() {
        let lower = PJSUA.SIPURI("sip:bob@example.com")
        #expect(lower == "sip:bob@example.com")
        #expect(lower != (PJSUA.SIPURI("sip:bob@Example.com")))
        #expect(Set([lower, "sip:bob@example.com"]).count == 1)
    }

    @Test func aTransportsURIIsOneTheCheckAccepts() async throws {
        try await withStartedEngine { _, transport in
            let uri = transport.uri(user: "bob")
            let checked = try PJSUA.SIPURI(uri.description)
            #expect(uri == checked)
            #expect(uri.user == "bob" && uri.host == transport.host && uri.port == transport.port)
        }
    }
}
