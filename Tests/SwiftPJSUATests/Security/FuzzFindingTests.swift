import Foundation
import PJSUATestSupport
import SwiftPJSUA
import Testing

/// KL-53: the remote aborts the SIP fuzzer found (their reproducers are the seeds
/// Fuzz/corpus/*/kl53-*), each sent as a datagram. On the
/// PJSIP without our patches (/opt/pjproject-unpatched, the state of the iOS binary) the library's
/// own pjsua app aborts on it; the softphone on that same library, its engine screening
/// (InputScreen.c), answers it as the RFC asks and lives on. On the PJSIP of this build (our
/// patches, scripts/pjproject-patches/fix-kl53-*.sh) its pjsua app answers and lives on too.
@Suite("Security: the SIP fuzzer's remote aborts (KL-53)")
struct FuzzFindingTests {
    /// A reproducer, one of the fuzz seeds (Fuzz/corpus/TARGET/kl53-*).
    static func finding(_ name: String) throws -> String {
        var url = URL(fileURLWithPath: #filePath)
        while url.lastPathComponent != "Tests" { url.deleteLastPathComponent() }
        let file = url.deletingLastPathComponent().appendingPathComponent("Fuzz/corpus/\(name)")
        return try String(contentsOf: file, encoding: .utf8)
    }

    /// The offers: the sdp target's reproducers, with our loopback address in them.
    static func offer(_ name: String) throws -> String {
        try finding(name).replacingOccurrences(of: "192.0.2.10", with: "127.0.0.1")
    }

    /// A seed's name without its target's folder (a process name).
    static func short(_ finding: String) -> String { String(finding.split(separator: "/").last ?? "") }

    static let port0WithoutConnection = "sdp/kl53-port0-no-connection"
    static let longConnectionAddress = "sdp/kl53-connection-address-254"
    static let spropSets = "sdp/kl53-h264-sprop-empty-sets"

    /// The pjsua app of `prefix` (nil: of this build), auto-answering (video too when `video`).
    static func answeringApp(_ name: String, prefix: String?, video: Bool = false) async throws -> PjsuaApp {
        try await PjsuaApp(name: name, arguments: ["--auto-answer=200"] + (video ? ["--video"] : []),
                           ofThisBuild: prefix == nil, prefix: prefix)
    }

    /// Whether the app stopped on an assertion: its handler of SIGABRT prints "signal 6" after
    /// the assertion (the app driven by a console is a shell's child: the shell outlives it).
    static func expectAborted(_ app: PjsuaApp, _ what: String) async throws {
        try await app.waitForLog("Error: signal 6", timeout: .seconds(15))
        #expect(app.process.output.contains("Assertion"),
                "\(what): the unpatched pjsua app stopped without an assertion: \(app.process.output.suffix(2000))")
    }

    // MARK: offers (findings 1, 4, 5)

    /// The unpatched app aborts on each offer; the screening softphone on the same library answers
    /// 488 with a Warning (399) naming the problem, and takes a plain call afterwards.
    @Test(arguments: [
        (port0WithoutConnection, false, "Disabled media line without connection data"),
        (longConnectionAddress, false, "Connection address too long"),
        (spropSets, true, "H.264 sprop-parameter-sets too long"),
    ])
    func anOfferThatAbortsTheUnpatchedLibraryIsAnswered488ByTheScreen(finding: String, video: Bool, warning: String) async throws {
        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        let sdp = try Self.offer(finding)
        let app = try await Self.answeringApp("pjsua-unpatched-\(Self.short(finding))", prefix: InputScreenTests.prefix, video: video)
        defer { app.stop() }
        let appPeer = try RawSIPPeer(target: app.port)
        var invite = RawSIPRequest(peer: appPeer, method: "INVITE")
        invite.contentType = "application/sdp"
        invite.body = sdp
        appPeer.send(invite)
        try await Self.expectAborted(app, finding)

        let (child, port) = try await InputScreenTests.screeningSoftphone(video ? ["--video"] : [], name: "softphone-unpatched-\(Self.short(finding))")
        defer { child.stop() }
        let peer = try RawSIPPeer(target: port)
        let answer = try await SDPOfferTests.offering(sdp, to: peer)
        #expect(answer?.statusCode == 488 && answer?.header("warning")?.contains(warning) == true,
                "\(finding): \(answer?.description ?? "no answer") \(answer?.header("warning") ?? "")")
        try await SDPOfferTests.expectAnswered(answer, 488...488, by: child, peer: peer, finding)
    }

    /// Our patches: the pjsua app of this build answers each offer (a disabled line without c= is
    /// answered disabled, the long address and the sprop sets are refused) and lives on.
    @Test(arguments: [(port0WithoutConnection, false), (longConnectionAddress, false), (spropSets, true)])
    func anOfferThatAbortedTheLibraryIsAnsweredByThePatchedApp(finding: String, video: Bool) async throws {
        let app = try await Self.answeringApp("pjsua-patched-\(Self.short(finding))", prefix: nil, video: video)
        defer { app.stop() }
        let peer = try RawSIPPeer(target: app.port)
        let answer = try await SDPOfferTests.offering(try Self.offer(finding), to: peer)
        #expect(answer?.statusCode != nil, "\(finding): no final answer: \(app.process.output.suffix(3000))")
        try await Task.sleep(for: .milliseconds(500))
        #expect(app.process.isRunning, "\(finding) stopped the patched app: \(app.process.output.suffix(3000))")
        let call = try await peer.plainCall()
        #expect(call.invite == 200 && call.bye == 200, "a call after \(finding): \(call)")
        print("KL-53 patched app, \(finding): \(answer?.startLine ?? "none")")
    }

    // MARK: a 2xx whose Contact is tel: (finding 2)

    /// A callee answering 200 with `Contact: <tel:...>` to `invite` (received by `callee`).
    static func telContact200(to invite: RawSIPMessage, from callee: RawSIPPeer) -> String {
        callee.response(to: invite, 200, reason: "OK", toTag: callee.unique("tel"), sdp: true)
            .replacingOccurrences(of: "Contact: <\(callee.uri)>", with: "Contact: <tel:+15551234567>")
    }

    /// Answers the first INVITE `callee` receives with a 200 whose Contact is tel:, and returns
    /// the port of the caller (its Via).
    static func answerWithTelContact(_ callee: RawSIPPeer, _ caller: ChildProcess) async throws -> Int {
        let invite = try #require(try await callee.request("INVITE", timeout: ChildProcess.startTimeout), "no INVITE: \(caller.output.suffix(2000))")
        let port = try #require(RegistrarAnswerTests.viaPort(invite))
        callee.send(telContact200(to: invite, from: callee), toPort: port)
        return port
    }

    /// The unpatched app, calling, aborts on the 200 (the ACK cannot be sent); the screening
    /// softphone on that library takes the 200 as a failed call (502), ACKs it and exits 1.
    @Test func a200WithATelContactAbortsTheUnpatchedCallerAndTheScreenFailsTheCall() async throws {
        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        let appCallee = try RawSIPPeer(target: 0)
        let app = try await PjsuaApp(name: "pjsua-unpatched-tel-contact", arguments: [appCallee.uri], prefix: InputScreenTests.prefix)
        defer { app.stop() }
        _ = try await Self.answerWithTelContact(appCallee, app.process)
        try await Self.expectAborted(app, "a 200 with a tel: Contact")

        let callee = try RawSIPPeer(target: 0)
        let child = try ChildProcess(try InputScreenTests.plainSoftphone(), ["call", callee.uri, "--timeout", "10", "--json"],
                                     name: "softphone-unpatched-tel-contact", environment: InputScreenTests.environment)
        defer { child.stop() }
        _ = try await Self.answerWithTelContact(callee, child)
        let ack = try await callee.request("ACK", timeout: .seconds(10))
        #expect(ack != nil, "no ACK for the 200 taken as 502: \(child.output.suffix(2000))")
        let status = try await child.waitForExit(timeout: .seconds(20))
        #expect(status == 1 && child.output.contains("502"), "exit \(status): \(child.output.suffix(3000))")
    }

    /// Our patch: the pjsua app of this build ends the call (cause 502) and lives on (it answers
    /// OPTIONS after the 200). Driven by its console, not its CLI: with the CLI and no console,
    /// the app's log goes to the CLI's front ends once they start, and stdout stops short.
    @Test func a200WithATelContactEndsThePatchedCallersCall() async throws {
        let callee = try RawSIPPeer(target: 0)
        let app = try await PjsuaApp(name: "pjsua-patched-tel-contact", arguments: [callee.uri],
                                     console: [PjsuaApp.Step(after: 20, "")], ofThisBuild: true)
        defer { app.stop() }
        _ = try await Self.answerWithTelContact(callee, app.process)
        try await app.waitForLog("DISCONNECTED [reason=502", timeout: .seconds(10))
        #expect(app.process.output.contains("Unable to send ACK, ending the session"), "\(app.process.output.suffix(3000))")
        let prober = try RawSIPPeer(target: app.port)
        let answer = try await prober.exchange(RawSIPRequest(peer: prober, method: "OPTIONS"), timeout: .seconds(5))
        #expect(answer?.statusCode == 200, "the patched app after the 200: \(answer?.startLine ?? "no answer")")
    }

    // MARK: a PIDF tuple without id (finding 3)

    /// Answers the SUBSCRIBE `server` receives and sends a NOTIFY whose PIDF has a tuple without
    /// id; returns the NOTIFY's answer (nil: none).
    static func notifyTupleWithoutID(_ server: RawSIPPeer, _ watcher: ChildProcess) async throws -> RawSIPMessage? {
        let subscribe = try #require(try await server.request("SUBSCRIBE", timeout: ChildProcess.startTimeout),
                                     "no SUBSCRIBE: \(watcher.output.suffix(2000))")
        let port = try #require(RegistrarAnswerTests.viaPort(subscribe))
        let tag = server.unique("tag")
        server.send(server.response(to: subscribe, 200, reason: "OK", toTag: tag)
            .replacingOccurrences(of: "Content-Length: 0", with: "Expires: 60\r\nContent-Length: 0"), toPort: port)
        let body = try finding("xml_bodies/kl53-pidf-tuple-without-id")
        let notify = server.presenceNotify(in: subscribe, tag: tag, cseq: 1, pidf: body)
        server.send(notify, toPort: port)
        return try await server.first(timeout: .seconds(5)) { $0.statusCode != nil && $0.cseq?.method == "NOTIFY" }
    }

    /// The console steps that make the pjsua app subscribe to its one buddy's presence.
    static let subscribeToTheBuddy: [PjsuaApp.Step] = [PjsuaApp.Step(after: 1, "s"), PjsuaApp.Step(after: 0.3, "1")]

    /// The unpatched app, watching, aborts on the NOTIFY; the screening softphone answers it 400.
    @Test func aPIDFTupleWithoutIdAbortsTheUnpatchedWatcherAndTheScreenAnswersIt400() async throws {
        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        let appServer = try RawSIPPeer(target: 0)
        let app = try await PjsuaApp(name: "pjsua-unpatched-pidf", arguments: ["--add-buddy", appServer.uri],
                                     console: Self.subscribeToTheBuddy, prefix: InputScreenTests.prefix)
        defer { app.stop() }
        _ = try await Self.notifyTupleWithoutID(appServer, app.process)
        try await Self.expectAborted(app, "a PIDF tuple without id")

        let server = try RawSIPPeer(target: 0)
        let child = try ChildProcess(try InputScreenTests.plainSoftphone(), ["watch", server.uri, "--json"],
                                     name: "softphone-unpatched-pidf", environment: InputScreenTests.environment)
        defer { child.stop() }
        let answer = try await Self.notifyTupleWithoutID(server, child)
        #expect(answer?.statusCode == 400 && answer?.header("warning")?.contains("PIDF tuple without id") == true,
                "\(answer?.description ?? "no answer")")
        try await Task.sleep(for: .milliseconds(300))
        #expect(child.isRunning, "\(child.output.suffix(3000))")
    }

    /// Our patch: the pjsua app of this build answers the NOTIFY (the tuple's id read as empty)
    /// and lives on.
    @Test func aPIDFTupleWithoutIdIsReadByThePatchedWatcher() async throws {
        let server = try RawSIPPeer(target: 0)
        let app = try await PjsuaApp(name: "pjsua-patched-pidf", arguments: ["--add-buddy", server.uri],
                                     console: Self.subscribeToTheBuddy, ofThisBuild: true)
        defer { app.stop() }
        let answer = try await Self.notifyTupleWithoutID(server, app.process)
        #expect(answer?.statusCode == 200, "\(answer?.description ?? "no answer"): \(app.process.output.suffix(2000))")
        try await Task.sleep(for: .milliseconds(300))
        #expect(app.process.isRunning, "the patched app stopped: \(app.process.output.suffix(3000))")
    }

    // MARK: a multipart body whose SDP part is only line breaks (finding 11)

    /// An INVITE with a multipart/mixed body whose one part is an application/sdp of nothing
    /// (the sip_endpoint seed `kl53-multipart-sdp-newlines`, rewritten for `peer`): the SDP parser
    /// skipped the part's leading line breaks past its end, into the delimiter, and its scanner
    /// threw outside any PJ_TRY.
    static func emptySDPPartInvite(_ peer: RawSIPPeer) -> RawSIPRequest {
        var invite = RawSIPRequest(peer: peer, method: "INVITE")
        invite.contentType = "multipart/mixed;boundary=b"
        invite.body = "--b\r\nContent-Type: application/sdp\r\n\r\n\r\n\r\n--b--\r\n"
        return invite
    }

    /// Sends `emptySDPPartInvite` and returns its final answer, ACKed (nil: none).
    static func offeringAnEmptySDPPart(to peer: RawSIPPeer) async throws -> RawSIPMessage? {
        let invite = emptySDPPartInvite(peer)
        let answer = try await peer.exchange(invite, timeout: .seconds(10))
        if let answer { peer.send(invite.ack(for: answer)) }
        return answer
    }

    /// The unpatched app aborts on the INVITE; the screening softphone on that library answers it
    /// 400 with a Warning (399) and takes a plain call afterwards.
    @Test func anEmptySDPPartAbortsTheUnpatchedLibraryAndIsAnswered400ByTheScreen() async throws {
        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        let app = try await Self.answeringApp("pjsua-unpatched-empty-sdp-part", prefix: InputScreenTests.prefix)
        defer { app.stop() }
        let appPeer = try RawSIPPeer(target: app.port)
        appPeer.send(Self.emptySDPPartInvite(appPeer))
        try await Self.expectAborted(app, "an empty SDP part")

        let (child, port) = try await InputScreenTests.screeningSoftphone([], name: "softphone-unpatched-empty-sdp-part")
        defer { child.stop() }
        let peer = try RawSIPPeer(target: port)
        let answer = try await Self.offeringAnEmptySDPPart(to: peer)
        #expect(answer?.statusCode == 400 && answer?.header("warning")?.contains("Empty SDP") == true,
                "\(answer?.description ?? "no answer") \(answer?.header("warning") ?? "")")
        try await SDPOfferTests.expectAnswered(answer, 400...400, by: child, peer: peer, "an empty SDP part")
    }

    /// Our patch: the pjsua app of this build refuses the empty SDP as any SDP without its v= line
    /// (400) and lives on.
    @Test func anEmptySDPPartIsAnswered400ByThePatchedApp() async throws {
        let app = try await Self.answeringApp("pjsua-patched-empty-sdp-part", prefix: nil)
        defer { app.stop() }
        let peer = try RawSIPPeer(target: app.port)
        let answer = try await Self.offeringAnEmptySDPPart(to: peer)
        #expect(answer?.statusCode == 400, "\(answer?.startLine ?? "no answer"): \(app.process.output.suffix(3000))")
        try await Task.sleep(for: .milliseconds(500))
        #expect(app.process.isRunning, "the empty SDP part stopped the patched app: \(app.process.output.suffix(3000))")
        let call = try await peer.plainCall()
        #expect(call.invite == 200 && call.bye == 200, "a call after the empty SDP part: \(call)")
    }

    /// The same blank SDP as a whole body on TCP: Content-Length 2, the body one line break, and a
    /// keep-alive's CRLF CRLF after it in the same write. On a stream the body is not
    /// NUL-terminated (the next bytes follow it in the buffer), so the unpatched parser read on
    /// into the keep-alive and threw as it did past a multipart part (this vector needs no
    /// multipart body). The screening softphone on the unpatched library, listening on TCP,
    /// answers it 400 and serves the next request on the same connection.
    @Test func aBlankSDPBodyOnTCPIsAnswered400ByTheScreen() async throws {
        let (child, port) = try await InputScreenTests.screeningSoftphone(listen: "tcp:127.0.0.1:0", name: "softphone-unpatched-blank-sdp-tcp")
        defer { child.stop() }
        let peer = try RawTCPPeer(port: port)
        defer { peer.close() }
        var invite = RawSIPRequest(method: "INVITE", target: port, token: "blank-sdp-invite")
        invite.transport = "TCP"
        invite.contentType = "application/sdp"
        invite.body = "\r\n"
        try peer.send(invite.text(via: peer.localPort) + "\r\n\r\n")
        let answers = try await peer.responses(count: 1, within: .seconds(10))
        let answer = try #require(answers.first, "no answer: \(child.output.suffix(3000))")
        #expect(answer.code == 400 && answer.header("warning")?.contains("Empty SDP") == true, "\(answer.text)")
        try peer.send(invite.ack(for: RawSIPMessage(answer.text)).text(via: peer.localPort))
        var options = RawSIPRequest(method: "OPTIONS", target: port, token: "blank-sdp-options")
        options.transport = "TCP"
        try peer.send(options.text(via: peer.localPort))
        let next = try await peer.responses(count: 1, within: .seconds(10))
        #expect(next.map(\.code) == [200], "after the blank SDP: \(next) \(child.output.suffix(3000))")
        #expect(child.isRunning, "\(child.output.suffix(3000))")
    }
}
