import Foundation
import SwiftPJSUA
import PJSUATestSupport
import Testing

/// Each test holds on both builds (the Linux build, and the iOS profile of
/// `make test-ios-profile`): where the build's codec list decides the outcome, the test reads
/// that list and checks the build's own expectation (Opus on Linux, G.722 without Opus).
@Suite("Codecs: the build's best first, priorities, an audio-only offer", .serialized)
struct CodecTests {
    /// Whether the linked build has Opus (swift-pjsip's iOS binary has not), from its codec list.
    private func buildHasOpus(_ phone: PJSUA) async throws -> Bool {
        try await phone.codecs().contains { $0.id.lowercased().hasPrefix("opus") }
    }

    @Test func twoEnginesNegotiateTheBuildsBestCodecByDefault() async throws {
        try await withEngine { phone, _, log in
            let hasOpus = try await buildHasOpus(phone)
            let (call, callee) = try await callAnsweringSoftphone(phone, log, name: "codec")
            let quality = try await phone.quality(of: call)
            try await phone.hangUp(call)
            if hasOpus {
                // Both run Opus at their bridge's 16 kHz inside (MediaSettings.opusSampleRate).
                #expect(quality.codec.lowercased() == "opus/16000", "\(quality.codec)")
            } else {
                #expect(quality.codec.lowercased().hasPrefix("g722/16000"), "\(quality.codec)")
            }
            #expect(try await callee.waitForExit(timeout: .seconds(10)) == 0)
        }
    }

    @Test func theDefaultOfferIsAudioOnlyWithTheBuildsBestCodecFirst() async throws {
        try await withEngine { phone, _, log in
            let hasOpus = try await buildHasOpus(phone)
            let codecs = try await phone.codecs()
            #expect(codecs.first?.id.lowercased().hasPrefix(hasOpus ? "opus" : "g722/16000") == true, "\(codecs)")
            #expect(codecs.map(\.priority) == codecs.map(\.priority).sorted(by: >))
            let offer = hasOpus ? "uas-offer-opus-first.xml" : "uas-offer-g722-first.xml"
            let peer = try await sipp(["-sf", scenario(offer)], name: "sipp-offer-best")
            let call = try await phone.makeCall(to: PJSUA.SIPURI("sip:offer@127.0.0.1:\(peer.sippPort)"))
            #expect(try await log.state(call, .disconnected).status.code == 488)
            #expect(try await peer.waitForExit() == 0, "\(peer.output.suffix(2000))")
        }
    }

    @Test func prioritiesChangeTheOffer() async throws {
        try await withEngine { phone, _, log in
            try await phone.useCodecs(["PCMA", "PCMU"])
            let enabled = try await phone.codecs().filter { $0.priority > 0 }.map(\.id)
            #expect(enabled.count == 2 && enabled[0].hasPrefix("PCMA") && enabled[1].hasPrefix("PCMU"), "\(enabled)")
            let peer = try await sipp(["-sf", scenario("uas-offer-pcma-pcmu.xml")], name: "sipp-offer-pcma")
            let call = try await phone.makeCall(to: PJSUA.SIPURI("sip:offer@127.0.0.1:\(peer.sippPort)"))
            #expect(try await log.state(call, .disconnected).status.code == 488)
            #expect(try await peer.waitForExit() == 0, "\(peer.output.suffix(2000))")
        }
    }

    @Test func preferredCodecsOfTheConfigurationComeFirst() async throws {
        var configuration = PJSUA.Configuration(port: 0, transport: .udp, bindAddress: "127.0.0.1", audioDevice: .null)
        configuration.preferredCodecs = ["PCMU", "not-in-this-build"]
        try await withEngine(configuration) { phone, _, _ in
            let first = try await phone.codecs().first
            #expect(first?.id.hasPrefix("PCMU") == true, "\(String(describing: first))")
            await #expect(throws: PJSUAError.self) { try await phone.useCodecs(["no-such-codec"]) }
            await #expect(throws: PJSUAError.self) { try await phone.setCodecPriority("PCMU", to: 256) }
        }
    }
}
