import CPJSUASupport
import Foundation
import PJSIP
import PJSUATestSupport
@testable import SwiftPJSUA
import Testing

/// What the engine chooses by itself follows the PJSIP it is linked against: the Linux build
/// (256 calls, 64 players, Opus) and the iOS profile (`make test-ios-profile`: swift-pjsip 0.2.1's
/// 8 calls, 4 players, no Opus). Each test reads the build's limits and exercises them, so it
/// runs, and means the same, on both.
@Suite("Build profile: limits, codecs and media defaults follow the linked PJSIP", .serialized)
struct BuildProfileTests {
    @Test func theLimitsAreTheHeadersOfTheLinkedBuild() {
        let limits = PJSUA.buildLimits
        #expect(limits.maxCalls == Int(PJSUA_MAX_CALLS) && limits.maxCalls == PJSUA.maxCallsLimit)
        #expect(limits.maxAccounts == Int(PJSUA_MAX_ACC))
        #expect(limits.maxPlayers == Int(PJSUA_MAX_PLAYERS) && limits.maxRecorders == Int(PJSUA_MAX_RECORDERS))
        #expect(limits.maxPacketLength == Int(PJSIP_MAX_PKT_LEN))
        #expect(limits.maxConferencePorts >= limits.maxCalls + limits.maxPlayers)
        #expect(limits.maxIOQueueHandles > 0 && limits.maxTransactions > 0 && limits.maxDialogs > 0)
    }

    /// The pinned values of each profile, written here rather than read from the headers (the
    /// test above compares the build with itself): a change to a config_site, or a build linked
    /// against the wrong one, fails here. make test-ios-profile sets SWIFT_PJSUA_PROFILE=ios; every
    /// other pass runs on the Linux build. The iOS row is swift-pjsip 0.2.1's (KL-36).
    @Test func theLinkedBuildHasItsProfilesPinnedValues() {
        struct Pinned: Equatable {
            var calls, accounts, players, recorders, conferencePorts, ioqueueHandles, packetLength: Int
            var opus: Bool
        }
        let ios = ProcessInfo.processInfo.environment["SWIFT_PJSUA_PROFILE"] == "ios"
        let expected = ios
            ? Pinned(calls: 8, accounts: 8, players: 4, recorders: 4, conferencePorts: 254, ioqueueHandles: 64,
                     packetLength: 16000, opus: false)
            : Pinned(calls: 256, accounts: 32, players: 64, recorders: 64, conferencePorts: 1024, ioqueueHandles: 2048,
                     packetLength: 16000, opus: true)
        let limits = PJSUA.buildLimits
        let linked = Pinned(calls: limits.maxCalls, accounts: limits.maxAccounts, players: limits.maxPlayers,
                            recorders: limits.maxRecorders, conferencePorts: limits.maxConferencePorts,
                            ioqueueHandles: limits.maxIOQueueHandles, packetLength: limits.maxPacketLength,
                            opus: PJMEDIA_HAS_OPUS_CODEC != 0)
        #expect(linked == expected, "the \(ios ? "iOS" : "Linux") profile's pinned values")
        if ios {
            #expect(limits.maxTransactions == 31 && limits.maxDialogs == 31, "\(limits)")
        }
    }

    /// pjsua refuses a call past PJSUA_MAX_CALLS with PJ_ETOOMANY, before anything is sent: the
    /// engine's default `maxCalls` is the build's limit, and the call past it is a typed refusal
    /// (the ninth on the iOS binary), not a crash or a silent drop.
    @Test func theCallPastTheBuildsLimitIsRefusedWithTooMany() async throws {
        let limit = PJSUA.buildLimits.maxCalls
        let (callee, port) = try await answeringSoftphone(["--auto-answer", "180"], name: "limit-callee")
        defer { callee.stop() }
        try await withEngine { phone, _, log in
            var calls: [PJSUA.Call] = []
            for index in 0..<limit {
                calls.append(try await phone.makeCall(to: PJSUA.SIPURI("sip:limit\(index)@127.0.0.1:\(port)")))
            }
            do {
                let extra = try await phone.makeCall(to: PJSUA.SIPURI("sip:past-the-limit@127.0.0.1:\(port)"))
                Issue.record("call \(limit + 1) was placed (\(extra)) past PJSUA_MAX_CALLS \(limit)")
            } catch let error as PJSUAError {
                #expect(error.code == .tooMany, "\(error)")
            }
            for call in calls {
                try await log.state(call, .early, timeout: .seconds(20))
                try await phone.hangUp(call)
            }
            for call in calls { try await log.state(call, .disconnected, timeout: .seconds(20)) }
        }
    }

    /// pjsua holds PJSUA_MAX_PLAYERS players (4 in the iOS binary): the one past it is
    /// ``PJSUAError/Code/tooMany``, not a file error, and stopping one frees its slot.
    @Test func thePlayerPastTheBuildsLimitIsRefusedWithTooMany() async throws {
        let directory = try temporaryDirectory()
        let path = directory + "/prompt.wav"
        try WAVFile.tone(frequency: 440, duration: .milliseconds(200)).write(to: path)
        try await withEngine { phone, _, _ in
            var players: [PJSUA.Player] = []
            for _ in 0..<PJSUA.buildLimits.maxPlayers {
                players.append(try await phone.makePlayer(path))
            }
            do {
                let extra = try await phone.makePlayer(path)
                Issue.record("player \(players.count + 1) opened (\(extra)) past PJSUA_MAX_PLAYERS \(players.count)")
            } catch let error as PJSUAError {
                #expect(error.code == .tooMany, "\(error)")
            }
            try await phone.stop(players.removeLast())
            players.append(try await phone.makePlayer(path))
            for player in players { try await phone.stop(player) }
        }
    }

    /// The engine's first choices are the best codecs the build has (Opus, G.722, then
    /// PCMU/PCMA), never pjmedia's registration order, which puts iLBC (the iOS binary) or
    /// speex (Linux) first; G.729 and iLBC are never first unless asked for.
    @Test func theDefaultPreferenceIsTheBestCodecTheBuildHas() async throws {
        try await withEngine { phone, _, _ in
            let codecs = try await phone.codecs().filter { $0.priority > 0 }.map { $0.id.lowercased() }
            let wanted = PJSUA.Configuration.defaultPreferredCodecs.map { $0.lowercased() }
                .filter { id in codecs.contains { $0.hasPrefix(id) } }
            #expect(wanted.first == (codecs.contains { $0.hasPrefix("opus") } ? "opus" : "g722/16000"), "\(codecs)")
            #expect(Array(codecs.prefix(wanted.count)).enumerated().allSatisfy { $0.element.hasPrefix(wanted[$0.offset]) }, "\(codecs)")
            #expect(!(codecs.first ?? "").hasPrefix("ilbc") && !(codecs.first ?? "").hasPrefix("g729"), "\(codecs)")
        }
    }

    /// Two engines on the same build, with defaults: the offer (read from the INVITE that went
    /// out) lists the build's best codec first and telephone-event at the build's payload type,
    /// and the call runs that codec: Opus on Linux, G.722 on the iOS profile.
    @Test func twoEnginesWithDefaultsTalkTheBestCodecTheirBuildHas() async throws {
        let lines = LineLog()
        var configuration = PJSUA.Configuration(port: 0, transport: .udp, bindAddress: "127.0.0.1", audioDevice: .null)
        configuration.logLevel = .trace
        configuration.logSIPMessages = true
        configuration.logHandler = { _, line in lines.append(line) }
        let (callee, port) = try await answeringSoftphone(["--exit-after", "1"], name: "profile-codec")
        defer { callee.stop() }
        try await withEngine(configuration) { phone, _, log in
            let hasOpus = try await phone.codecs().contains { $0.id.lowercased().hasPrefix("opus") && $0.priority > 0 }
            let best = hasOpus ? "opus" : "g722"
            let call = try await phone.makeCall(to: PJSUA.SIPURI("sip:codec@127.0.0.1:\(port)"))
            try await log.mediaActive(call)
            let quality = try await phone.quality(of: call)
            try await phone.hangUp(call)
            try await log.state(call, .disconnected)
            #expect(quality.codec.lowercased().hasPrefix(best + "/"), "\(quality.codec)")

            let invite = try #require(lines.values.first { $0.contains("INVITE sip:codec@") && $0.contains("m=audio") })
            let offer = SDPAudioOffer(invite)
            #expect(offer.encodings.first == best, "offered \(offer.encodings)")
            #expect(offer.telephoneEventPayloadType == PJSUA.buildLimits.telephoneEventPayloadType, "\(offer)")
        }
        #expect(try await callee.waitForExit(timeout: .seconds(10)) == 0, "\(callee.output)")
    }

    /// An INVITE whose From fills most of the build's PJSIP_MAX_PKT_LEN (about 14.5 kB on both
    /// builds, past the 4 kB the engine once printed it into and past pjsua's own 256-character
    /// copy) is reported with that From whole.
    @Test func aFromAsLongAsTheBuildsPacketsAllowArrivesWhole() async throws {
        let display = String(repeating: "Long Name ", count: (PJSUA.buildLimits.maxPacketLength - 1500) / 10)
        let run = try await runHostile("hostile-odd-identities.xml", sippArguments: ["-set", "display", display])
        #expect(run.sippStatus == 0, "\(run.sippOutput.suffix(2000))")
        let call = try #require(run.incomingCalls.first)
        #expect(call.from.count > display.count && call.from.contains(display), "\(call.from.count) characters of From")
    }

    /// `MediaSettings()` is pjsua's `pjsua_media_config_default()` for the build (the iOS
    /// preset's resampler quality is 4, Linux's 8), and the engine passes it through unchanged.
    @Test func mediaSettingsDefaultsArePjsuasForThePlatform() {
        var pjsuaDefaults = pjsua_media_config()
        pjsua_media_config_default(&pjsuaDefaults)
        let settings = PJSUA.MediaSettings()
        #expect(settings.clockRate == Int(pjsuaDefaults.clock_rate))
        #expect(settings.resamplerQuality.pjsuaQuality == Int(pjsuaDefaults.quality), "\(settings.resamplerQuality)")
        #expect(Int(pjsuaDefaults.quality) == Int(cpjsua_default_codec_quality))
        var applied = pjsuaDefaults
        settings.apply(to: &applied)
        #expect(applied.clock_rate == pjsuaDefaults.clock_rate && applied.quality == pjsuaDefaults.quality)
    }
}

/// The audio part of an SDP offer as one logged message carries it: encodings in the order of
/// the `m=audio` line, and the payload type of telephone-event.
struct SDPAudioOffer: CustomStringConvertible {
    var encodings: [String] = []
    var telephoneEventPayloadType: Int?

    init(_ message: String) {
        let lines = message.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        var names: [String: String] = [:]
        for line in lines where line.hasPrefix("a=rtpmap:") {
            let parts = line.dropFirst("a=rtpmap:".count).split(separator: " ", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let name = parts[1].split(separator: "/").first.map { $0.lowercased() } ?? ""
            names[String(parts[0])] = name
            if name == "telephone-event", telephoneEventPayloadType == nil { telephoneEventPayloadType = Int(parts[0]) }
        }
        // Static payload types without an rtpmap (RFC 3551).
        let statics = ["0": "pcmu", "8": "pcma", "9": "g722", "18": "g729"]
        if let media = lines.first(where: { $0.hasPrefix("m=audio ") }) {
            encodings = media.split(separator: " ").dropFirst(3).map { names[String($0)] ?? statics[String($0)] ?? String($0) }
        }
    }

    var description: String { "\(encodings), telephone-event \(telephoneEventPayloadType.map(String.init) ?? "none")" }
}
