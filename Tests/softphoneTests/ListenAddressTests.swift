@testable import softphone
import Testing

@Suite("softphone's --listen address and the TLS a destination needs")
struct ListenAddressTests {
    let spec = OptionSpec(valued: ["listen"], flags: [])

    func listen(_ arguments: [String], reaching targets: [String?]) throws(UsageError) -> ListenAddress {
        try ListenAddress(try Arguments(arguments, spec: spec), reaching: targets)
    }

    @Test(arguments: [
        "sips:bob@example.com", "SIPS:bob@127.0.0.1:5061", "sip:bob@127.0.0.1:5061;transport=tls", "sip:bob@host;lr;Transport=TLS",
        "\"Bob\" <sips:bob@example.com>", "<sip:bob@host;transport=tls>", "sip:127.0.0.1;transport=tls?subject=hi",
    ])
    func uRIsReachedOnlyOverTLS(uri: String) {
        #expect(ListenAddress.needsTLS(uri))
    }

    @Test(arguments: [
        "sip:bob@example.com", "sip:bob@127.0.0.1:5060;transport=tcp", "sip:bob;transport=tls@host", "sip:bob@host?x=;transport=tls",
        "tel:+15551234", "sip:bob@host;transport=tlsx", "not-a-uri",
    ])
    func uRIsThatDoNotNeedTLS(uri: String) {
        #expect(!ListenAddress.needsTLS(uri))
    }

    @Test func withoutListenATLSTargetGetsATLSTransportOnAFreeLoopbackPort() throws {
        #expect(try listen([], reaching: ["sips:bob@127.0.0.1:5061"]) == ListenAddress(transport: .tls, host: "127.0.0.1", port: 0))
        #expect(try listen([], reaching: ["sip:bob@127.0.0.1", "sips:127.0.0.1:5061"]).transport == .tls)
        #expect(try listen([], reaching: ["sip:bob@127.0.0.1", nil]) == .loopback)
        #expect(try listen([], reaching: []) == .loopback)
    }

    @Test func withoutListenACommandBindsLoopbackOnlyWhenEveryTargetIsOnThisHost() throws {
        #expect(try listen([], reaching: ["sip:bob@192.0.2.7"]) == ListenAddress(transport: .udp, host: "0.0.0.0", port: 0))
        #expect(try listen([], reaching: ["sip:bob@127.0.0.1", "sip:registrar.example.com"]).host == "0.0.0.0")
        #expect(try listen([], reaching: ["sips:bob@example.com"]) == ListenAddress(transport: .tls, host: "0.0.0.0", port: 0))
        #expect(try listen([], reaching: ["\"Bob\" <sip:bob@[2001:db8::1]:5070;transport=udp>"]).host == "::")
        #expect(try listen([], reaching: ["sip:bob@[::1]:5070"]) == ListenAddress(transport: .udp, host: "::1", port: 0))
        #expect(try listen([], reaching: ["sip:bob@localhost:5070", "sip:127.0.0.2"]).host == "127.0.0.1")
    }

    @Test(arguments: [
        ("sip:bob@example.com", "example.com"), ("SIP:Bob@Example.COM:5060;transport=tcp", "example.com"),
        ("\"Bob\" <sips:bob@[::1]:5061>", "::1"), ("sip:127.0.0.1;lr", "127.0.0.1"),
        ("sip:bob@host?to=x@y", "host"), ("sip:a;b@host;lr", "host"), ("sip:[2001:db8::1]", "2001:db8::1"),
    ])
    func theHostOfATarget(uri: String, host: String) {
        #expect(ListenAddress.host(of: uri) == host)
    }

    @Test func anExplicitListenStandsAndMustCarryTLSForATLSTarget() throws {
        #expect(try listen(["--listen", "tls:[::1]:5061"], reaching: ["sips:bob@[::1]"])
            == ListenAddress(transport: .tls, host: "::1", port: 5061))
        #expect(try listen(["--listen", "tcp:127.0.0.1:0"], reaching: ["sip:bob@127.0.0.1"]).transport == .tcp)
        do {
            _ = try listen(["--listen", "udp:127.0.0.1:0"], reaching: ["sips:bob@127.0.0.1"])
            Issue.record("a UDP listener was accepted for a sips: destination")
        } catch {
            #expect(error.description.hasPrefix("sips:bob@127.0.0.1 needs TLS"), "\(error.description)")
            #expect(!error.description.contains("\n"))
        }
    }
}
