import Foundation
import PJSUATestSupport
import SwiftPJSUA
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// KL-61 (upstream c111a3042): an INVITE whose Contact names a stream transport
/// (`transport=tcp`) made pjsua, on an account without a Via address of its own (every local
/// account: the one a bot answers on), look up the Contact's host on the thread handling the
/// INVITE and open a TCP connection to the host and port the caller named, before the call was
/// answered, for a Via it never needed. With the patch the answers follow the INVITE's Via over
/// the connection it came on, and nothing is opened toward the Contact.
@Suite("A caller's Contact chooses no connection of ours")
struct CallerContactConnectionTests {
    /// Where the caller's Contact points: a TCP listener of the test's own on a free loopback
    /// port. A connection waiting in its backlog is one the answering engine opened.
    final class ContactListener {
        let socket: LoopbackSocket

        init() throws {
            socket = try LoopbackSocket(udp: false)
            guard listen(socket.descriptor, 8) == 0 else { throw ChildProcessError("listen: errno \(errno)") }
        }

        var port: Int { socket.port }
        /// Whether a connection is waiting to be accepted (a listening socket polls readable then).
        var wasConnected: Bool { socket.hasPendingInput }
        func waitForConnection(timeout: Duration) async -> Bool { await socket.waitForInput(timeout: timeout) }
    }

    /// An INVITE over TCP to the answering softphone on `port`, its Contact naming `listener`.
    static func invite(toPort port: Int, from peer: RawTCPPeer, contactingListener listener: ContactListener) throws -> RawSIPRequest {
        var invite = RawSIPRequest(method: "INVITE", target: port, token: "kl61-\(UUID().uuidString.prefix(8))")
        invite.transport = "TCP"
        invite.contact = "sip:caller@127.0.0.1:\(listener.port);transport=tcp"
        invite.contentType = "application/sdp"
        invite.body = RawSIPPeer.audioOffer()
        try peer.send(invite.text(via: peer.localPort))
        return invite
    }

    /// The first final answer to what `peer` sent, within the bound of a child's start (a loaded
    /// machine, the instrumented softphone of the ASan pass).
    static func finalAnswer(from peer: RawTCPPeer) async throws -> RawTCPPeer.Response? {
        let deadline = ContinuousClock.now + ChildProcess.startTimeout
        while ContinuousClock.now < deadline {
            for response in try await peer.responses(count: 1, within: .seconds(1)) where response.code >= 200 {
                return response
            }
        }
        return nil
    }

    /// The softphone answers the call over the connection it came on, and neither then nor while
    /// the call is up and ended does anything connect to the address the Contact named.
    @Test func anAnsweredCallOpensNoConnectionToTheCallersContact() async throws {
        let listener = try ContactListener()
        let (child, port) = try await answeringSoftphone(transport: "tcp", name: "softphone-tcp-contact")
        defer { child.stop() }
        let peer = try RawTCPPeer(port: port)
        defer { peer.close() }
        let invite = try Self.invite(toPort: port, from: peer, contactingListener: listener)
        let answer = try #require(try await Self.finalAnswer(from: peer), "\(child.explain("did not answer the INVITE"))")
        #expect(answer.code == 200, "\(answer.text)")
        #expect(!listener.wasConnected, "\(child.explain("connected to the caller's Contact while answering"))")
        let response = RawSIPMessage(answer.text)
        try peer.send(invite.ack(for: response).text(via: peer.localPort))
        try peer.send(invite.inDialog("BYE", cseq: invite.cseq + 1, toTag: response.toTag).text(via: peer.localPort))
        let byeAnswer = try await Self.finalAnswer(from: peer)
        #expect(byeAnswer?.code == 200, "\(child.explain("did not answer the BYE"))")
        #expect(!listener.wasConnected, "\(child.explain("connected to the caller's Contact during the call"))")
    }

    /// A watcher's SUBSCRIBE over TCP, its Contact naming the listener, to an engine that refuses
    /// watchers: answered 403, and nothing connects to the Contact (pjsua chose the dialog's Via
    /// before asking the policy, and before the patch connected there: measured on the 2.17 build
    /// without it, in this process).
    @Test func aRefusedWatcherChoosesNoConnectionEither() async throws {
        let listener = try ContactListener()
        let configuration = PJSUA.Configuration(port: 0, transport: .tcp, bindAddress: "127.0.0.1", audioDevice: .null)
        try await withStartedEngine(configuration) { phone, transport in
            try await phone.setSubscriptionPolicy(.refuse(.forbidden))
            let peer = try RawTCPPeer(port: transport.port)
            defer { peer.close() }
            var subscribe = RawSIPRequest(method: "SUBSCRIBE", target: transport.port, token: "kl61-\(UUID().uuidString.prefix(8))")
            subscribe.transport = "TCP"
            subscribe.contact = "sip:watcher@127.0.0.1:\(listener.port);transport=tcp"
            subscribe.extraHeaders = ["Event: presence", "Expires: 60", "Accept: application/pidf+xml"]
            try peer.send(subscribe.text(via: peer.localPort))
            let answer = try await Self.finalAnswer(from: peer)
            #expect(answer?.code == 403, "\(answer?.text ?? "no answer")")
            #expect(!listener.wasConnected, "the engine connected to the watcher's Contact")
        }
    }

    /// The premise, on /opt/pjproject-unpatched (InputScreenTests: the softphone with the
    /// unpatched library in place of ours): the same INVITE has the engine connect to the
    /// Contact's address. (The iOS binary, 288de6142, carries upstream's fix.)
    @Test func theSameInviteConnectsToTheContactOnAPJSIPWithoutThePatch() async throws {
        let listener = try ContactListener()
        let (child, port) = try await answeringSoftphone(transport: "tcp", name: "softphone-unpatched-tcp-contact",
                                                         executable: try InputScreenTests.plainSoftphone(),
                                                         environment: InputScreenTests.environment)
        defer { child.stop() }
        let peer = try RawTCPPeer(port: port)
        defer { peer.close() }
        _ = try Self.invite(toPort: port, from: peer, contactingListener: listener)
        #expect(await listener.waitForConnection(timeout: ChildProcess.startTimeout),
                "\(child.explain("did not connect to the caller's Contact"))")
    }
}
