import Foundation
import PJSUATestSupport
import SwiftPJSUA
import Testing

/// SEC-10 (scripts/pjproject-patches/sec-10-xml-depth.sh, upstream 12306eaf9): PJSIP's XML parser
/// called itself once per nesting level with no bound, and a presence document is the notifier's.
/// Without the bound the stack it takes is limited by the packet size alone (16000 bytes in both
/// builds: 5,200 levels, 500 KB, the whole stack of an iOS secondary thread); so what this shows is
/// the bound itself: a document nested deeper
/// than 256 levels is refused (488, PJSIP_PRES_BAD_CONTENT_RESPONSE, and no status taken from
/// it), one nested 50 deep is read.
@Suite("Security: XML bodies nested past the parser's bound")
struct PresenceBodyDepthTests {
    @Test func aPresenceDocumentNestedPastTheParsersBoundIsRefusedAndOneWithinItIsRead() async throws {
        try await withEngine { phone, transport, log in
            let server = try RawSIPPeer(target: transport.port)
            let buddy = try await phone.addBuddy(PJSUA.SIPURI(server.uri))
            let subscribe = try #require(try await server.request("SUBSCRIBE"), "no SUBSCRIBE")
            let tag = server.unique("tag")
            server.send(server.response(to: subscribe, 200, reason: "OK", toTag: tag)
                .replacingOccurrences(of: "Content-Length: 0", with: "Expires: 60\r\nContent-Length: 0"))

            let within = notify(for: subscribe, by: server, tag: tag, cseq: 1, basic: "open", nestedLevels: 50)
            #expect(try await answer(to: within, cseq: 1, from: server) == 200)
            try await log.first("the buddy open") { event -> Void? in
                if case let .presence(update) = event, update.buddy == buddy, update.presence.basic == .open { return () }
                return nil
            }

            let past = notify(for: subscribe, by: server, tag: tag, cseq: 2, basic: "closed", nestedLevels: 300)
            #expect(past.utf8.count < PJSUA.buildLimits.maxPacketLength, "the NOTIFY no longer fits one datagram of this build")
            let refused = try await answer(to: past, cseq: 2, from: server)
            #expect(refused == 488, "a document 300 levels deep was answered \(refused.map(String.init) ?? "nothing")")
            try await Task.sleep(for: .milliseconds(300))
            let closed = log.all.contains { event in
                if case let .presence(update) = event, update.buddy == buddy, update.presence.basic == .closed { return true }
                return false
            }
            #expect(!closed, "the buddy's status was taken from the refused document")
        }
    }

    /// Sends `notify` and returns the status code of its answer (nil: none within 5 s).
    private func answer(to notify: String, cseq: Int, from server: RawSIPPeer) async throws -> Int? {
        server.send(notify)
        let response = try await server.first { $0.statusCode != nil && $0.cseq?.number == cseq && $0.cseq?.method == "NOTIFY" }
        return response?.statusCode
    }

    /// A NOTIFY of the presence subscription `subscribe` opened, whose PIDF tuple carries, after
    /// its status, an element nested `nestedLevels` deep.
    private func notify(for subscribe: RawSIPMessage, by server: RawSIPPeer, tag: String, cseq: Int, basic: String,
                        nestedLevels: Int) -> String {
        let nest = String(repeating: "<e>", count: nestedLevels) + String(repeating: "</e>", count: nestedLevels)
        let body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\r\n"
            + "<presence xmlns=\"urn:ietf:params:xml:ns:pidf\" entity=\"\(server.uri)\">"
            + "<tuple id=\"t1\"><status><basic>\(basic)</basic></status>\(nest)</tuple></presence>\r\n"
        return server.presenceNotify(in: subscribe, tag: tag, cseq: cseq, pidf: body)
    }
}
