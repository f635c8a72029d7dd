import Foundation
import PJSUATestSupport
import SwiftPJSUA
import Testing

/// The engine's input screen (InputScreen.c) against a PJSIP without any of our patches: the same
/// 2.17 tree and configuration as /usr/local's, built with PJPROJECT_PATCHES=none into
/// /opt/pjproject-unpatched (`make deps-unpatched`), the state of a PJSIP an app cannot patch,
/// such as the iOS binary (docs/SECURITY.md). The library's own pjsua app shows each message
/// aborts it there; the plain softphone (no rpath: LD_LIBRARY_PATH puts the unpatched library in
/// place of /usr/local's) on the same library, its engine screening, answers it and lives on.
@Suite("Security: the input screen on a PJSIP without our patches")
struct InputScreenTests {
    static var prefix: String {
        ProcessInfo.processInfo.environment["SWIFT_PJSUA_UNPATCHED_PREFIX"] ?? "/opt/pjproject-unpatched"
    }
    static var environment: [String: String] { ["LD_LIBRARY_PATH": prefix + "/lib"] }

    /// The softphone of the plain debug build, whatever SWIFT_PJSUA_SOFTPHONE says (the ASan
    /// pass's has an rpath to the instrumented library, which LD_LIBRARY_PATH cannot override).
    static func plainSoftphone() throws -> String {
        var url = URL(fileURLWithPath: #filePath)
        while url.lastPathComponent != "Tests" { url.deleteLastPathComponent() }
        let path = url.deletingLastPathComponent().appendingPathComponent(".build/debug/softphone").path
        guard FileManager.default.isExecutableFile(atPath: path) else { throw ChildProcessError("\(path) is missing (make test builds it)") }
        return path
    }

    /// The unpatched library's pjsua app answering on a port it bound itself.
    static func unpatchedPjsuaApp(_ name: String) async throws -> (process: ChildProcess, port: Int) {
        // stdbuf: the app's log is line-buffered, as on a terminal (a pipe gets it in blocks).
        let app = try ChildProcess(try ChildProcess.locate("stdbuf"), ["-oL", prefix + "/bin/pjsua",
            "--null-audio", "--local-port=0", "--rtp-port=0", "--bound-addr=127.0.0.1", "--ip-addr=127.0.0.1", "--no-tcp", "--log-level=4",
            "--use-cli", "--no-cli-console", "--cli-telnet-port=0",
        ], name: name, environment: environment)
        let marker = "SIP UDP socket reachable at 127.0.0.1:"
        try await app.waitUntilStarted(printing: marker)
        let tail = app.output.components(separatedBy: marker).dropFirst().first ?? ""
        guard let port = Int(tail.prefix { $0.isNumber }) else {
            app.stop()
            throw ChildProcessError("\(name) printed no port: \(app.output.suffix(2000))")
        }
        return (app, port)
    }

    /// The softphone on the unpatched library, answering on a port it bound itself.
    static func screeningSoftphone(_ extra: [String] = [], listen: String = "udp:127.0.0.1:0", name: String) async throws -> (process: ChildProcess, port: Int) {
        let child = try ChildProcess(try plainSoftphone(), ["answer", "--listen", listen, "--json"] + extra,
                                     name: name, environment: environment)
        try await child.waitUntilStarted(printing: "\"event\":\"listening\"")
        guard let port = jsonLines(child.output).first(where: { $0["event"] as? String == "listening" })?["port"] as? Int else {
            child.stop()
            throw ChildProcessError("\(name) printed no port: \(child.output)")
        }
        return (child, port)
    }

    @Test func theLibraryUnderTestIsUnpatchedAndTheSoftphoneLoadsIt() async throws {
        let stamp = try String(contentsOfFile: Self.prefix + "/share/swift-pjsua/pjproject.stamp", encoding: .utf8)
        #expect(stamp.contains("ours=none"), "\(Self.prefix) is not a build without our patches: \(stamp)")
        let ldd = try ChildProcess("/usr/bin/ldd", [try Self.plainSoftphone()], name: "ldd-softphone", environment: Self.environment)
        #expect(try await ldd.waitForExit(timeout: .seconds(10)) == 0)
        #expect(ldd.output.contains(Self.prefix + "/lib/libpjsip.so"), "\(ldd.output)")
    }

    /// KL-31's forgery (a request with the branch and `CSeq: n INVITE` of a confirmed INVITE
    /// transaction): the unpatched pjsua app aborts on tsx_on_state_confirmed's assertion; the
    /// screening engine on the same library answers 400 and takes a call afterwards.
    @Test func aRequestWithAnotherCSeqMethodAbortsTheUnpatchedLibraryAndTheScreenAnswersIt400() async throws {
        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        let (app, appPort) = try await Self.unpatchedPjsuaApp("pjsua-unpatched-cseq")
        defer { app.stop() }
        let appPeer = try RawSIPPeer(target: appPort)
        let appInvite = try await confirmedInviteTransaction(appPeer)
        appPeer.send(forged("OPTIONS", after: appInvite))
        let status = try await app.waitForExit(timeout: .seconds(10))
        // The app's own handler of SIGABRT prints a backtrace and exits 1.
        #expect(status != 0 && app.output.contains("tsx_on_state_confirmed: Assertion"),
                "the unpatched pjsua app did not abort (exit \(status)): \(app.output.suffix(2000))")

        let (child, port) = try await Self.screeningSoftphone(name: "softphone-unpatched-cseq")
        defer { child.stop() }
        let peer = try RawSIPPeer(target: port)
        guard try await expectEachForgeryAnswered400(peer, by: child) else { return }
        let call = try await peer.plainCall()
        #expect(call.invite == 200 && call.bye == 200, "\(call)")
    }

    /// SEC-2's offer (68 a=crypto lines) to an SRTP answerer: the screen answers 488 before SDES
    /// sees it (on the unpatched library the write past `int tags[64]` is silent without a
    /// sanitizer; the instrumented one shows it, SDPOfferTests). The same lines in a body no offer
    /// is taken from (a MESSAGE's text) reach no SDES and are not the screen's business: the
    /// MESSAGE is answered 200.
    @Test func anOfferWithMoreCryptoLinesThanSDESHoldsIsAnswered488ByTheScreen() async throws {
        let (child, port) = try await Self.screeningSoftphone(["--srtp", "optional"], name: "softphone-unpatched-crypto")
        defer { child.stop() }
        let peer = try RawSIPPeer(target: port)
        let crypto = (1...68).map { "a=crypto:\($0) X inline:AAAA" }
        let answer = try await SDPOfferTests.offering(SDPOfferTests.offer(["m=audio 9 RTP/SAVP 0"] + crypto), to: peer)
        #expect(answer?.statusCode == 488 && answer?.startLine.contains("Too Many Crypto Attributes") == true,
                "\(answer?.startLine ?? "no answer")")

        var message = RawSIPRequest(peer: peer, method: "MESSAGE")
        message.contentType = "text/plain"
        message.body = SDPOfferTests.offer(["m=audio 9 RTP/SAVP 0"] + crypto)
        peer.send(message.text(via: peer.port))
        let delivered = try await peer.finalResponse(to: message)
        #expect(delivered?.statusCode == 200, "a MESSAGE's text was screened as an offer: \(delivered?.startLine ?? "no answer")")
        #expect(child.isRunning, "\(child.output.suffix(3000))")
    }

    /// KL-3: an INVITE datagram longer than the library's receive buffer (recvfrom cuts it at
    /// PJSIP_MAX_PKT_LEN, 4000 in this library), and one whose body is shorter than its
    /// Content-Length: PJSIP takes each for an INVITE with what arrived of its SDP. The screen
    /// answers 513 and 400, and a call afterwards works.
    @Test func aCutDatagramIsAnswered513AndABodyShorterThanItsContentLength400ByTheScreen() async throws {
        let (child, port) = try await Self.screeningSoftphone(name: "softphone-unpatched-cut")
        defer { child.stop() }
        let peer = try RawSIPPeer(target: port)
        // 17.6 kB of SDP: past both builds' buffer, the cut in the body (the headers arrive whole).
        let padding = "a=x-padding:" + String(repeating: "0123456789abcdef", count: 1100)
        let cut = try await SDPOfferTests.offering(SDPOfferTests.offer(["m=audio 9 RTP/AVP 0", padding, "a=rtpmap:0 PCMU/8000"]), to: peer)
        #expect(cut?.statusCode == 513, "\(cut?.startLine ?? "no answer")")

        var invite = RawSIPRequest(peer: peer, method: "INVITE")
        invite.contentType = "application/sdp"
        invite.body = SDPOfferTests.offer(["m=audio 9 RTP/AVP 0", "a=rtpmap:0 PCMU/8000"])
        let length = invite.body.utf8.count
        peer.send(invite.text(via: peer.port).replacingOccurrences(of: "Content-Length: \(length)\r\n",
                                                                   with: "Content-Length: \(length + 500)\r\n"))
        let short = try await peer.finalResponse(to: invite)
        #expect(short?.statusCode == 400, "\(short?.startLine ?? "no answer")")
        if let short { peer.send(invite.ack(for: short)) }

        #expect(child.isRunning, "\(child.output.suffix(3000))")
        let call = try await peer.plainCall()
        #expect(call.invite == 200 && call.bye == 200, "\(call)")
        // The softphone prints the call's event from its event stream, which may come after the
        // answer the peer already has: wait for the line, then count.
        try await child.waitForOutput("\"event\":\"incomingCall\"", timeout: .seconds(10))
        #expect(jsonLines(child.output).filter { $0["event"] as? String == "incomingCall" }.count == 1,
                "only the plain call rang: \(child.output.suffix(3000))")
    }

    /// SEC-1's answer (40 Service-Route headers) to a REGISTER: the unpatched library's softphone
    /// would write past its array of 8; the screen takes the headers out, and the account
    /// registers and unregisters.
    @Test func aRegistrarAnswerWithFortyServiceRoutesRegistersThroughTheScreen() async throws {
        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        let registrar = try RawSIPPeer(target: 0)
        let child = try ChildProcess(try Self.plainSoftphone(), [
            "register", "--account", "sip:alice@127.0.0.1", "--registrar", "sip:127.0.0.1:\(registrar.port)", "--timeout", "20", "--json",
        ], name: "softphone-unpatched-service-route", environment: Self.environment)
        defer { child.stop() }
        let register = try #require(try await registrar.request("REGISTER", timeout: ChildProcess.startTimeout), "\(child.output)")
        let port = try #require(RegistrarAnswerTests.viaPort(register))
        registrar.send(RegistrarAnswerTests.okWithServiceRoutes(40, to: register, from: registrar), toPort: port)
        if let unregister = try await registrar.first(timeout: .seconds(15), where: {
            $0.method == "REGISTER" && $0.cseq?.number != register.cseq?.number
        }) {
            registrar.send(registrar.response(to: unregister, 200, reason: "OK", toTag: registrar.unique("reg")), toPort: port)
        }
        let status = try await child.waitForExit(timeout: .seconds(20))
        #expect(status == 0, "exit \(status): \(child.output.suffix(3000))")
        #expect(jsonLines(child.output).contains { $0["registered"] as? Bool == true }, "\(child.output.suffix(3000))")
    }
}
