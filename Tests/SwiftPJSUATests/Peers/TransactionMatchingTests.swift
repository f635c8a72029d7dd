import Foundation
import PJSUATestSupport
import SwiftPJSUA
import Testing

/// Hand-written UDP datagrams aimed at PJSIP's transaction and dialog matching (by Via branch,
/// CSeq number and CSeq method), sent to a `softphone answer` child and to an engine in this
/// process: packets anyone who can reach the SIP port can send. Each test names what must come
/// back, and then checks that the target survived and still serves a plain call.
///
/// The child is where a crash shows safely (its exit and PJSIP's assertion text are in its
/// output); the in-process engine shows the same build is safe inside an app.
@Suite("Raw datagrams against PJSIP's transaction and dialog matching", .serialized)
struct TransactionMatchingTests {
    /// Methods that, with `CSeq: 1 INVITE` and the branch of a Confirmed INVITE transaction, used
    /// to abort the process (KL-31). The last is RFC 4475's unknown method (a valid token).
    static let forgedMethods = ["OPTIONS", "BYE", "CANCEL", "INFO", "!interesting-Method0123456789_*+`.%indeed'~"]

    @Test func aRequestCarryingTheCSeqMethodAndBranchOfAConfirmedInviteIsAnswered400AndTheAnswererLivesOn() async throws {
        let (child, port) = try await answeringSoftphone(name: "softphone-cseq-mismatch")
        defer { child.stop() }
        let peer = try RawSIPPeer(target: port)
        for method in Self.forgedMethods {
            let invite = try await confirmedInviteTransaction(peer)
            let reply = try await peer.exchange(forged(method, after: invite))
            #expect(reply?.statusCode == 400, "\(method): \(reply?.text ?? "no answer")")
            #expect(child.isRunning, "\(method) stopped the answerer: \(child.output.suffix(2000))")
            guard child.isRunning else { return }
        }
        // The same with an RFC 2543 transaction (no branch cookie: PJSIP keys it by CSeq, From tag,
        // Call-ID and Via), and an ACK whose CSeq method is INVITE (dropped: an ACK is never answered).
        let old = try await confirmedInviteTransaction(peer, branch: "rfc2543-\(peer.unique("b"))")
        #expect(try await peer.exchange(forged("OPTIONS", after: old))?.statusCode == 400)
        let invite = try await confirmedInviteTransaction(peer)
        peer.send(forged("ACK", after: invite))
        #expect(try await peer.collect(for: .milliseconds(300)).isEmpty)
        #expect(child.isRunning, "\(child.output.suffix(2000))")
        let call = try await peer.plainCall()
        #expect(call.invite == 200 && call.bye == 200, "\(call)")
    }

    @Test func anEngineInThisProcessAnswersTheSameForgeries400AndServesACallAfterwards() async throws {
        let configuration = PJSUA.Configuration(port: 0, bindAddress: "127.0.0.1", audioDevice: .null, autoAnswerCode: 200)
        try await withEngine(configuration) { _, transport, log in
            let peer = try RawSIPPeer(target: transport.port)
            for method in Self.forgedMethods {
                let invite = try await confirmedInviteTransaction(peer)
                let reply = try await peer.exchange(forged(method, after: invite))
                #expect(reply?.statusCode == 400, "\(method): \(reply?.text ?? "no answer")")
            }
            let call = try await peer.plainCall()
            #expect(call.invite == 200 && call.bye == 200, "\(call)")
            // The refused INVITEs never became calls: only the plain one did.
            let incoming = log.all.filter { if case .incomingCall = $0 { true } else { false } }
            #expect(incoming.count == 1)
        }
    }
}

/// An INVITE transaction left in the Confirmed state (RFC 3261 17.2.1: after a non-2xx final
/// response and its ACK, for Timer I, 5 s on UDP): an INVITE whose body PJSIP cannot take is
/// answered 415 by the transaction layer, and the ACK goes in the same transaction.
func confirmedInviteTransaction(_ peer: RawSIPPeer, branch: String? = nil) async throws -> RawSIPRequest {
    var invite = RawSIPRequest(peer: peer, method: "INVITE")
    if let branch { invite.branch = branch }
    invite.contentType = "text/x-unknown"
    invite.body = "not SDP\r\n"
    let answer = try #require(try await peer.exchange(invite), "no answer to the INVITE")
    #expect(answer.statusCode == 415, "\(answer.text)")
    peer.send(invite.ack(for: answer))
    // Whatever the target still retransmits before it saw the ACK is not an answer to what follows.
    _ = try await peer.collect(for: .milliseconds(100))
    return invite
}

/// `method` dressed as part of `invite`'s transaction: its branch, Call-ID, tags and CSeq (number
/// and method INVITE), which no valid request can carry (RFC 3261 8.1.1.5).
func forged(_ method: String, after invite: RawSIPRequest) -> RawSIPRequest {
    var request = invite
    request.method = method
    request.contentType = nil
    request.body = ""
    return request
}
