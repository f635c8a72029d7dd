import Foundation
import PJSUATestSupport
import SwiftPJSUA
import Testing

/// The address a registrar's answer says it saw us at (docs/SECURITY.md, KL-57.17): the top Via's
/// `received=` of a response to REGISTER. pjsua rewrites the account's Contact to it (contact
/// rewrite, on in the engine), and PJSIP 2.17 built that Contact from whatever the Via parser took
/// there, a token (`a!b`), `x:y` or a quoted string, or an IPv6 address left without brackets on
/// an IPv4 transport: a Contact that does not parse, and the next check of it asserted (the 200
/// after a 401 at once, a 200 at the next refresh). RFC 3261 18.2.1 and 25.1 (via-received) and
/// RFC 3581 make received= an IPv4 or IPv6 address: anything else is no address the account can
/// use, so the patched pjsua ignores it (the registration stands) and rewrites the Contact to a
/// real one, bracketed when it is IPv6. Each flow answers every REGISTER with the Via under test,
/// through two refreshes, then checks that the engine still answers a MESSAGE.
@Suite("Security: a registrar's Via received= (KL-57.17)")
struct RegistrarViaReceivedTests {
    /// A received= value, and the Contact host the engine must register with after it (nil: the
    /// value is no address and the Contact stays the account's own).
    struct Received: Sendable, CustomTestStringConvertible {
        let value: String
        let contactHost: String?
        var testDescription: String { value }
    }

    /// Values the Via parser accepts that are no IP address.
    static let unusable: [Received] = [
        .init(value: "a!b", contactHost: nil),              // token characters, not a host's
        .init(value: "x:y", contactHost: nil),              // the [:] Via parameters may carry
        .init(value: "\"q r\"", contactHost: nil),          // a quoted string
        .init(value: "[a!b]", contactHost: nil),            // brackets around no IPv6 address
        .init(value: "nat.example.invalid", contactHost: nil),  // a host name: no address (RFC 3261 25.1)
    ]

    /// Addresses, which the Contact is rewritten to (documentation ranges: nothing answers there).
    static let usable: [Received] = [
        .init(value: "192.0.2.10", contactHost: "192.0.2.10"),
        .init(value: "2001:db8::10", contactHost: "[2001:db8::10]"),  // on our IPv4 transport
    ]

    // MARK: The fake registrar

    /// `register`'s top Via as a hostile registrar writes it: `received=` and `rport=` set
    /// (RFC 3261 18.2.1, RFC 3581), the request's own dropped, and the sent-by the UA's own
    /// address (127.0.0.1:`rport`). pjsip matches a response by its branch and does not read the
    /// sent-by, so a registrar writes what it likes there; an echo of a sent-by 2.17 had already
    /// rewritten to the received= (its Via rewrite) would not parse, and the answer would be
    /// dropped instead of reaching the Contact.
    static func via(of register: RawSIPMessage, received: String, rport: Int) -> String {
        let parts = (register.header("via") ?? "").components(separatedBy: ";")
        let kept = parts.dropFirst().filter { !$0.hasPrefix("rport") && !$0.hasPrefix("received") }
        return (["SIP/2.0/UDP 127.0.0.1:\(rport)", "received=\(received)", "rport=\(rport)"] + kept).joined(separator: ";")
    }

    /// A response to `register` whose top Via carries `received`; a 200 echoes the bindings it
    /// adds (not those it removes, expires=0) with a 3-second expiry, so the engine refreshes
    /// about every 2 s; a 401 challenges (any realm: the account's is `*`).
    static func answer(_ register: RawSIPMessage, _ code: Int, received: String, rport: Int, from registrar: RawSIPPeer) -> String {
        let base = registrar.response(to: register, code, reason: code == 200 ? "OK" : "Unauthorized",
                                      toTag: registrar.unique("reg"))
        var lines = base.components(separatedBy: "\r\n").filter { !$0.isEmpty && !$0.hasPrefix("Contact:") && !$0.hasPrefix("Content-Length:") }
        if let top = lines.firstIndex(where: { $0.hasPrefix("Via:") }) {
            lines[top] = "Via: " + via(of: register, received: received, rport: rport)
        }
        if code == 200 {
            let bindings = register.headers.filter { $0.name == "contact" }
                .flatMap { $0.value.components(separatedBy: ",") }
                .map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.contains("expires=0") }
            lines += bindings.map { "Contact: \($0);expires=3" } + ["Expires: 3"]
        } else {
            lines.append("WWW-Authenticate: Digest realm=\"example.invalid\", nonce=\"\(registrar.unique("n"))\", algorithm=MD5")
        }
        return (lines + ["Content-Length: 0"]).joined(separator: "\r\n") + "\r\n\r\n"
    }

    /// The REGISTERs the fake registrar saw, in order, and the UA's port.
    struct Exchange {
        var registers: [RawSIPMessage] = []
        var port: Int?
    }

    /// Plays the registrar: challenges the first REGISTER if `challenged`, then answers `oks`
    /// REGISTERs 200 in turn (the first, the rewritten one if any, the refreshes), every answer's
    /// Via carrying `received`. Stops early when no further REGISTER comes (an engine that died).
    static func register(_ registrar: RawSIPPeer, received: String, challenged: Bool, oks: Int) async throws -> Exchange {
        var exchange = Exchange()
        guard let first = try await registrar.request("REGISTER", timeout: ChildProcess.startTimeout),
              let port = RegistrarAnswerTests.viaPort(first) else { return exchange }
        exchange = Exchange(registers: [first], port: port)
        var register = first
        func next() async throws -> RawSIPMessage? {
            let number = register.cseq?.number
            let request = try await registrar.first(timeout: .seconds(8)) { $0.method == "REGISTER" && $0.cseq?.number != number }
            if let request {
                exchange.registers.append(request)
                register = request
            }
            return request
        }
        if challenged {
            registrar.send(answer(first, 401, received: received, rport: port, from: registrar), toPort: port)
            guard try await next() != nil else { return exchange }
        }
        for answered in 1...oks {
            registrar.send(answer(register, 200, received: received, rport: port, from: registrar), toPort: port)
            if answered < oks { guard try await next() != nil else { return exchange } }
        }
        return exchange
    }

    /// The host:port of a REGISTER's first Contact that is not being removed.
    static func contact(_ register: RawSIPMessage) -> String? {
        register.headers.filter { $0.name == "contact" }.flatMap { $0.value.components(separatedBy: ",") }
            .first { !$0.contains("expires=0") }
            .flatMap { $0.components(separatedBy: "@").dropFirst().first }
            .map { String($0.prefix { $0 != ">" && $0 != ";" }) }
    }

    /// Whether a softphone on UDP `port` answers a MESSAGE 200.
    static func answersMessage(on port: Int) async throws -> Bool {
        let peer = try RawSIPPeer(target: port)
        var message = RawSIPRequest(peer: peer, method: "MESSAGE")
        message.contentType = "text/plain"
        message.body = "still there?"
        return try await peer.exchange(message)?.statusCode == 200
    }

    /// `softphone answer` with an account registering at `registrar` (with credentials when
    /// `challenged`), started with `environment`.
    static func registeringSoftphone(_ executable: String, registrar: RawSIPPeer, challenged: Bool, name: String,
                                     environment: [String: String] = [:]) throws -> ChildProcess {
        let credentials = challenged ? ["--username", "alice", "--password-env", "KL57_17_PASSWORD"] : []
        return try ChildProcess(executable, [
            "answer", "--listen", "udp:127.0.0.1:0", "--json",
            "--account", "sip:alice@127.0.0.1", "--registrar", "sip:127.0.0.1:\(registrar.port)",
        ] + credentials, name: name, environment: environment.merging(["KL57_17_PASSWORD": "secret"]) { $1 })
    }

    // MARK: The engine on our build

    /// Every REGISTER is answered with the Via under test, with and without a 401 first (whose Via
    /// pjsua also reads): the softphone stays up and registered, its Contact stays its own for a
    /// value that is no address and becomes the address for one that is, and it answers a MESSAGE
    /// after two refreshes.
    @Test(arguments: unusable + usable, [false, true])
    func aRegistrarsViaReceivedIsUsedOnlyWhenItIsAnAddress(_ received: Received, challenged: Bool) async throws {
        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        let registrar = try RawSIPPeer(target: 0)
        let child = try Self.registeringSoftphone(try softphone(), registrar: registrar, challenged: challenged,
                                                  name: "softphone-via-received")
        defer { child.stop() }
        // The first REGISTER, the one with the rewritten Contact (after a 200 whose Via names an
        // address; after a 401 the retry carries it), two refreshes.
        let oks = 3 + (received.contactHost != nil && !challenged ? 1 : 0)
        let exchange = try await Self.register(registrar, received: received.value, challenged: challenged, oks: oks)
        let port = try #require(exchange.port, "no REGISTER: \(child.output.suffix(3000))")
        try await Task.sleep(for: .milliseconds(300))
        #expect(child.isRunning, "\(child.explain("died")): \(child.output.suffix(3000))")
        #expect(exchange.registers.count == oks + (challenged ? 1 : 0),
                "REGISTERs' Contacts: \(exchange.registers.map { Self.contact($0) ?? "?" })")
        let own = "127.0.0.1:\(port)"
        #expect(Self.contact(exchange.registers[0]) == own)
        let last = try #require(exchange.registers.last)
        #expect(Self.contact(last) == received.contactHost.map { "\($0):\(port)" } ?? own,
                "\(last.header("contact") ?? "no Contact")")
        #expect(jsonLines(child.output).contains { $0["registered"] as? Bool == true }, "\(child.output.suffix(3000))")
        #expect(!jsonLines(child.output).contains { $0["event"] as? String == "registration" && $0["registered"] as? Bool == false },
                "\(child.output.suffix(3000))")
        #expect(try await Self.answersMessage(on: port), "no 200 to a MESSAGE: \(child.output.suffix(3000))")
        #expect(child.isRunning, "\(child.explain("died")): \(child.output.suffix(3000))")
    }

    /// The engine in this process with push parameters (RFC 8599, `reg_contact_uri_params`):
    /// pjsua rebuilds the REGISTER's Contact with them after each rewrite, by parsing the account's
    /// Contact, which 2.17 asserted on at once for a Contact built of a received= that is no
    /// address. The account stays registered; an address still rewrites the Contact, parameters
    /// kept.
    @Test(arguments: [unusable[0], unusable[2], usable[0], usable[1]])
    func anAccountWithPushParametersKeepsAUsableContact(_ received: Received) async throws {
        let registrar = try RawSIPPeer(target: 0)
        try await withEngine { phone, transport, log in
            let account = try await phone.addAccount(id: "sip:alice@127.0.0.1", registrar: try PJSUA.SIPURI("sip:127.0.0.1:\(registrar.port)"),
                                                     push: .custom("pn-provider=fcm;pn-prid=kl5717"))
            let exchange = try await Self.register(registrar, received: received.value, challenged: false, oks: 2)
            // One outcome per 200 but the one that rewrote the Contact (pjsua registers again
            // before it reports): the last 200 is handled once its outcome is in.
            let outcomes = received.contactHost == nil ? 2 : 1
            _ = try await log.first("\(outcomes) registration outcomes") { _ in log.registrations(of: account).count >= outcomes ? true : nil }
            #expect(log.registrations(of: account).last?.isRegistered == true, "\(log.registrations(of: account))")
            let last = try #require(exchange.registers.last)
            let host = received.contactHost ?? "127.0.0.1"
            #expect(Self.contact(last) == "\(host):\(transport.port)", "\(last.header("contact") ?? "no Contact")")
            #expect(last.header("contact")?.contains(";pn-provider=fcm;pn-prid=kl5717") == true, "\(last.header("contact") ?? "")")
            #expect(!log.registrations(of: account).contains { !$0.isRegistered }, "\(log.registrations(of: account))")
            // Unregistering: the engine's shutdown would otherwise wait for the registrar.
            try await phone.setRegistration(account, enabled: false)
            if let unregister = try await registrar.first(timeout: .seconds(10), where: {
                $0.method == "REGISTER" && $0.cseq?.number != last.cseq?.number
            }), let port = exchange.port {
                registrar.send(Self.answer(unregister, 200, received: received.value, rport: port, from: registrar), toPort: port)
            }
        }
    }

    // MARK: The same answers on a PJSIP without our patches

    /// The premise, on /opt/pjproject-unpatched (InputScreenTests: the softphone with the
    /// unpatched library in place of ours): a received= that is no address (or an IPv6 one on an
    /// IPv4 transport) aborts the engine, on the 200 after a 401 or at the refresh after a 200
    /// (pjsua_acc.c's `pj_assert(contact_hdr != NULL)`). The input screen does not screen this
    /// shape: the iOS binary (288de6142) carries upstream's fix (bd00abb5e).
    @Test(arguments: [unusable[0], unusable[1], unusable[2], usable[1]], [false, true])
    func theSameAnswerAbortsTheEngineOnAPJSIPWithoutThePatch(_ received: Received, challenged: Bool) async throws {
        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        let registrar = try RawSIPPeer(target: 0)
        let child = try Self.registeringSoftphone(try InputScreenTests.plainSoftphone(), registrar: registrar, challenged: challenged,
                                                  name: "softphone-unpatched-via-received", environment: InputScreenTests.environment)
        defer { child.stop() }
        _ = try await Self.register(registrar, received: received.value, challenged: challenged, oks: 3)
        // The assertion's abort; Swift's crash handler then prints a backtrace and the process
        // may end on another signal (SIGSEGV was seen): any signal after the assertion's line.
        let status = try await child.waitForExit(timeout: .seconds(15))
        #expect(status > 128 && child.output.contains("acc_check_nat_addr: Assertion `contact_hdr"),
                "\(child.explain("did not abort")): \(child.output.suffix(3000))")
    }
}
