import CPJSUABaseline
import Foundation
import SwiftPJSUA

/// `pjsua-bench screen`: what the engine's input screen (Sources/CPJSUASupport/InputScreen.c, a
/// PJSIP module ahead of the transaction layer, docs/SECURITY.md) costs per message, against
/// what PJSIP itself spends parsing the same message, in the same run: the messages of an
/// ordinary day (a call's INVITE with SRTP and ICE and its answers, a registration with its
/// challenge and Service-Route, presence, a MESSAGE), each parsed and screened `rounds` times on
/// a thread of its own while a started engine provides the endpoint and the screen (the C side:
/// Benchmarks/CPJSUABaseline/screen.c). The parse is the least PJSIP does with any message (the
/// transaction layer, the dialog and pjsua come after it), so screen / parse bounds the
/// screen's share of a message's processing from above.
enum ScreenBenchmark {
    /// One message: its name, and its text as a datagram carries it (CRLF line ends).
    struct Message {
        let name: String
        let text: String
    }

    static func run(rounds: Int, repetitions: Int) async throws {
        report(try await figures(rounds: rounds, repetitions: repetitions))
    }

    /// Each message's parse and screen time (ns: the median of `repetitions` passes, each the
    /// fastest of 20 alternating blocks of `rounds` / 20, see CPJSUABaseline.h), and `screen_over_parse`: the screen's time over the parse's, summed over
    /// the messages (a call's, a registration's and the rest, one of each).
    static func figures(rounds: Int, repetitions: Int) async throws -> [String: Any] {
        let phone = PJSUA()
        _ = try await phone.start(.init(port: 0, bindAddress: "127.0.0.1", audioDevice: .null))
        let passes: [(parse: [Double], screen: [Double])]
        do {
            var collected: [(parse: [Double], screen: [Double])] = []
            for _ in 0..<repetitions { collected.append(try await pass(rounds: rounds)) }
            passes = collected
        } catch {
            await phone.shutdown()
            throw error
        }
        await phone.shutdown()

        var fields: [String: Any] = ["rounds": rounds, "repetitions": repetitions]
        var parseTotal = 0.0, screenTotal = 0.0
        for (index, message) in messages.enumerated() {
            let parse = median(passes.map { $0.parse[index] }), screen = median(passes.map { $0.screen[index] })
            parseTotal += parse
            screenTotal += screen
            progress("\(message.name.padding(toLength: 26, withPad: " ", startingAt: 0)) \(message.text.utf8.count) B: parse \(LoadBenchmark.format(parse, digits: 0)) ns, screen \(LoadBenchmark.format(screen, digits: 0)) ns (\(LoadBenchmark.format(100 * screen / parse, digits: 1)) %)")
            fields["\(message.name)_parse_ns"] = parse
            fields["\(message.name)_screen_ns"] = screen
        }
        let ratio = screenTotal / parseTotal
        progress("all \(messages.count) messages: parse \(LoadBenchmark.format(parseTotal, digits: 0)) ns, screen \(LoadBenchmark.format(screenTotal, digits: 0)) ns: screen / parse \(LoadBenchmark.format(ratio, digits: 3))")
        fields["parse_ns_total"] = parseTotal
        fields["screen_ns_total"] = screenTotal
        fields["screen_over_parse"] = ratio
        return fields
    }

    /// One pass over every message, on a thread of its own (the C side blocks while it measures).
    private static func pass(rounds: Int) async throws -> (parse: [Double], screen: [Double]) {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                let texts = messages.map { Array($0.text.utf8CString) }
                var parse = [Double](repeating: 0, count: texts.count)
                var screen = [Double](repeating: 0, count: texts.count)
                let lengths = texts.map { UInt32($0.count - 1) }
                let status = withPointers(to: texts) { pointers in
                    cpjsua_baseline_screen_cost(pointers, lengths, UInt32(texts.count), UInt32(rounds), &parse, &screen)
                }
                if status == 0 {
                    continuation.resume(returning: (parse, screen))
                } else {
                    continuation.resume(throwing: BenchError("screen benchmark failed at step \(status) (see CPJSUABaseline.h)"))
                }
            }
            thread.start()
        }
    }

    /// Calls `body` with a C array of pointers to each of `texts`' bytes, valid for the call.
    private static func withPointers<R>(to texts: [[CChar]], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
        var pointers: [UnsafePointer<CChar>?] = []
        func nest(_ index: Int) -> R {
            guard index < texts.count else { return body(pointers) }
            return texts[index].withUnsafeBufferPointer { buffer in
                pointers.append(buffer.baseAddress)
                return nest(index + 1)
            }
        }
        return nest(0)
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
    }

    // MARK: the messages

    private static let alice = "sip:alice@192.0.2.10:5060"
    private static let via = "Via: SIP/2.0/UDP 192.0.2.10:5060;rport;branch=z9hG4bKPj3f6a2c"
    /// The call's From, To (with the callee's tag once it has answered) and Call-ID.
    private static func dialog(answered: Bool = false) -> String {
        """
        From: "Alice" <sip:alice@example.com>;tag=a73kszlfl
        To: <sip:bob@example.com>\(answered ? ";tag=b5kd92" : "")
        Call-ID: 3848276298220188511@192.0.2.10
        """
    }

    private static let offer = """
        v=0
        o=- 3947281127 3947281127 IN IP4 192.0.2.10
        s=pjmedia
        b=AS:117
        t=0 0
        a=X-nat:0
        m=audio 4000 RTP/SAVP 96 0 8 9 101
        c=IN IP4 192.0.2.10
        b=TIAS:96000
        a=rtcp:4000 IN IP4 192.0.2.10
        a=sendrecv
        a=rtpmap:96 opus/48000/2
        a=fmtp:96 useinbandfec=1
        a=rtpmap:0 PCMU/8000
        a=rtpmap:8 PCMA/8000
        a=rtpmap:9 G722/8000
        a=rtpmap:101 telephone-event/8000
        a=fmtp:101 0-16
        a=ice-ufrag:6b1c2e4f
        a=ice-pwd:4b3d2e1f0a9c8b7d6e5f4a3b
        a=candidate:Ha000a01 1 UDP 2130706431 192.0.2.10 4000 typ host
        a=candidate:Sc0a80101 1 UDP 1694498815 203.0.113.7 41000 typ srflx raddr 192.0.2.10 rport 4000
        a=candidate:Ha000a01 2 UDP 2130706430 192.0.2.10 4001 typ host
        a=candidate:Sc0a80101 2 UDP 1694498814 203.0.113.7 41001 typ srflx raddr 192.0.2.10 rport 4001
        a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9CnVubGVz
        a=crypto:2 AES_CM_128_HMAC_SHA1_32 inline:Y2FsIGFsbCB0aGF0IHdpbGwgYmUgc2VudCBieSB5
        a=rtcp-mux
        """

    private static let answer = """
        v=0
        o=- 3947281130 3947281131 IN IP4 192.0.2.20
        s=pjmedia
        t=0 0
        m=audio 4002 RTP/SAVP 96 101
        c=IN IP4 192.0.2.20
        a=rtcp:4002 IN IP4 192.0.2.20
        a=sendrecv
        a=rtpmap:96 opus/48000/2
        a=fmtp:96 useinbandfec=1
        a=rtpmap:101 telephone-event/8000
        a=fmtp:101 0-16
        a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:c2VjcmV0IGtleSBvZiB0aGUgYW5zd2VyaW5nIHNpZGU=
        a=rtcp-mux
        """

    private static let pidf = """
        <?xml version="1.0" encoding="UTF-8"?>
        <presence xmlns="urn:ietf:params:xml:ns:pidf" xmlns:dm="urn:ietf:params:xml:ns:pidf:data-model" entity="sip:bob@example.com">
         <tuple id="t8f2a">
          <status><basic>open</basic></status>
          <contact priority="0.8">sip:bob@192.0.2.20:5060</contact>
         </tuple>
         <dm:person id="p1"><note>Available</note></dm:person>
        </presence>
        """

    /// A message: its start line and headers, a Content-Length that matches `body`, CRLF ends.
    private static func message(_ name: String, _ head: String, contentType: String? = nil, body: String = "") -> Message {
        let crlfBody = body.isEmpty ? "" : body.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\r\n") + "\r\n"
        var lines = head.split(separator: "\n").map(String.init)
        if let contentType { lines.append("Content-Type: \(contentType)") }
        lines.append("Content-Length: \(crlfBody.utf8.count)")
        return Message(name: name, text: lines.joined(separator: "\r\n") + "\r\n\r\n" + crlfBody)
    }

    static let messages: [Message] = [
        message("invite_srtp_ice", """
            INVITE sip:bob@example.com SIP/2.0
            \(via)
            Max-Forwards: 70
            \(dialog())
            CSeq: 4711 INVITE
            Contact: <\(alice);ob>
            Allow: PRACK, INVITE, ACK, BYE, CANCEL, UPDATE, INFO, SUBSCRIBE, NOTIFY, REFER, MESSAGE, OPTIONS
            Supported: replaces, 100rel, timer, norefersub
            Session-Expires: 1800
            Min-SE: 90
            User-Agent: swift-pjsua
            """, contentType: "application/sdp", body: offer),
        message("trying_100", """
            SIP/2.0 100 Trying
            \(via);received=192.0.2.10
            \(dialog())
            CSeq: 4711 INVITE
            """),
        message("ringing_180", """
            SIP/2.0 180 Ringing
            \(via);received=192.0.2.10
            Record-Route: <sip:198.51.100.1;lr>
            \(dialog(answered: true))
            CSeq: 4711 INVITE
            Contact: <sip:bob@192.0.2.20:5060>
            """),
        message("ok_200_invite_sdp", """
            SIP/2.0 200 OK
            \(via);received=192.0.2.10
            Record-Route: <sip:198.51.100.1;lr>
            Record-Route: <sip:198.51.100.2;lr>
            \(dialog(answered: true))
            CSeq: 4711 INVITE
            Contact: <sip:bob@192.0.2.20:5060>
            Allow: PRACK, INVITE, ACK, BYE, CANCEL, UPDATE, INFO, SUBSCRIBE, NOTIFY, REFER, MESSAGE, OPTIONS
            Supported: replaces, timer
            Session-Expires: 1800;refresher=uac
            """, contentType: "application/sdp", body: answer),
        message("ack", """
            ACK sip:alice@192.0.2.10:5060;ob SIP/2.0
            Via: SIP/2.0/UDP 192.0.2.20:5060;rport;branch=z9hG4bKPj77e1aa
            Route: <sip:198.51.100.1;lr>
            Max-Forwards: 70
            From: <sip:bob@example.com>;tag=b5kd92
            To: "Alice" <sip:alice@example.com>;tag=a73kszlfl
            Call-ID: 3848276298220188511@192.0.2.10
            CSeq: 1 ACK
            """),
        message("bye", """
            BYE sip:bob@192.0.2.20:5060 SIP/2.0
            Via: SIP/2.0/UDP 192.0.2.10:5060;rport;branch=z9hG4bKPj91b0cd
            Route: <sip:198.51.100.2;lr>
            Max-Forwards: 70
            \(dialog(answered: true))
            CSeq: 4712 BYE
            """),
        message("ok_200_bye", """
            SIP/2.0 200 OK
            Via: SIP/2.0/UDP 192.0.2.10:5060;rport=5060;received=192.0.2.10;branch=z9hG4bKPj91b0cd
            \(dialog(answered: true))
            CSeq: 4712 BYE
            """),
        message("register", """
            REGISTER sip:example.com SIP/2.0
            \(via)
            Max-Forwards: 70
            From: <sip:alice@example.com>;tag=r8c1f0
            To: <sip:alice@example.com>
            Call-ID: 7d2c9a1e44b0@192.0.2.10
            CSeq: 12 REGISTER
            Contact: <\(alice);ob>;+sip.instance="<urn:uuid:00000000-0000-0000-0000-00001c2e0b47>"
            Expires: 300
            Allow: PRACK, INVITE, ACK, BYE, CANCEL, UPDATE, INFO, SUBSCRIBE, NOTIFY, REFER, MESSAGE, OPTIONS
            """),
        message("unauthorized_401", """
            SIP/2.0 401 Unauthorized
            \(via);received=192.0.2.10
            From: <sip:alice@example.com>;tag=r8c1f0
            To: <sip:alice@example.com>;tag=37GkEhwl6
            Call-ID: 7d2c9a1e44b0@192.0.2.10
            CSeq: 12 REGISTER
            WWW-Authenticate: Digest realm="example.com", nonce="ZGVhZGJlZWZjYWZlYmFiZQ", opaque="5ccc069c403ebaf9f0171e9517f40e41", algorithm=MD5, qop="auth"
            """),
        message("ok_200_register", """
            SIP/2.0 200 OK
            \(via);received=192.0.2.10
            From: <sip:alice@example.com>;tag=r8c1f0
            To: <sip:alice@example.com>;tag=37GkEhwl6
            Call-ID: 7d2c9a1e44b0@192.0.2.10
            CSeq: 13 REGISTER
            Contact: <\(alice);ob>;expires=300
            Service-Route: <sip:orig@198.51.100.1;lr>, <sip:orig@198.51.100.2;lr>
            Path: <sip:198.51.100.1;lr>
            Date: Sun, 06 Dec 2026 13:00:00 GMT
            """),
        message("options", """
            OPTIONS sip:alice@192.0.2.10:5060 SIP/2.0
            Via: SIP/2.0/UDP 198.51.100.1:5060;branch=z9hG4bK.keepalive1
            Max-Forwards: 70
            From: <sip:keepalive@198.51.100.1>;tag=ka1
            To: <sip:alice@192.0.2.10:5060>
            Call-ID: keepalive-0001@198.51.100.1
            CSeq: 1 OPTIONS
            Accept: application/sdp
            """),
        message("notify_pidf", """
            NOTIFY sip:alice@192.0.2.10:5060;ob SIP/2.0
            Via: SIP/2.0/UDP 192.0.2.20:5060;rport;branch=z9hG4bKPj0c4e11
            Max-Forwards: 70
            From: <sip:bob@example.com>;tag=p83ca0
            To: <sip:alice@example.com>;tag=s1b7d2
            Call-ID: 1f0e2d3c4b5a@192.0.2.10
            CSeq: 3 NOTIFY
            Contact: <sip:bob@192.0.2.20:5060>
            Event: presence
            Subscription-State: active;expires=600
            """, contentType: "application/pidf+xml", body: pidf),
        message("message_text", """
            MESSAGE sip:alice@example.com SIP/2.0
            Via: SIP/2.0/UDP 192.0.2.20:5060;rport;branch=z9hG4bKPj5a6b7c
            Max-Forwards: 70
            From: "Bob" <sip:bob@example.com>;tag=m1c2d3
            To: <sip:alice@example.com>
            Call-ID: 9a8b7c6d5e4f@192.0.2.20
            CSeq: 1 MESSAGE
            """, contentType: "text/plain", body: "Running five minutes late, start without me."),
    ]
}
