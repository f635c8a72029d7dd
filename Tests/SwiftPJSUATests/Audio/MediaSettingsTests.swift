import Foundation
import PJSUATestSupport
@testable import SwiftPJSUA
import Testing

/// The conference bridge's clock rate and resampler (`Configuration.media`): the bridge runs at
/// the rate asked for, and a call's audio still arrives whole at every rate and quality.
@Suite("Media settings: bridge clock rate and resampler", .serialized)
struct MediaSettingsTests {
    /// A bridge rate or Opus rate PJSIP cannot run at is refused at start, naming the setting.
    @Test(arguments: [0, 11025, 44100, 96000].map { (PJSUA.MediaSettings(clockRate: $0), "clock rate") }
        + [0, 11025, 44100, 96000].map { (PJSUA.MediaSettings(opusSampleRate: $0), "Opus sample rate") })
    func aRateTheBridgeOrOpusCannotRunAtIsRefusedAtStart(media: PJSUA.MediaSettings, setting: String) async throws {
        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        var configuration = PJSUA.Configuration(port: 0, bindAddress: "127.0.0.1", audioDevice: .null)
        configuration.media = media
        let error = await startError(PJSUA(), configuration)
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains(setting) == true, "\(String(describing: error))")
    }

    /// Both ends of a PCMU call at the settings under test (this engine through
    /// `Configuration.media`, the softphone child through `--clock-rate`/`--resampler`): the
    /// bridge reports the rate, and the child's 600 Hz tone arrives at its frequency.
    @Test(arguments: [Duration.zero, .milliseconds(39), .milliseconds(5001), .seconds(Int64.max)])
    func aJitterBufferBoundOutsideItsRangeIsRefusedAtStart(bound: Duration) async throws {
        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        var configuration = PJSUA.Configuration(port: 0, bindAddress: "127.0.0.1", audioDevice: .null)
        configuration.media.jitterBufferMax = bound
        let error = await startError(PJSUA(), configuration)
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("jitter buffer") == true, "\(String(describing: error))")
    }

    @Test(arguments: [
        PJSUA.MediaSettings.telephony,
        PJSUA.MediaSettings(clockRate: 16000, resamplerQuality: .fast),
        PJSUA.MediaSettings(clockRate: 16000, resamplerQuality: .medium),
        PJSUA.MediaSettings(clockRate: 48000, resamplerQuality: .high),
        PJSUA.MediaSettings(clockRate: 8000, resamplerQuality: .fast, jitterBufferMax: .milliseconds(60)),
    ])
    func theBridgeRunsAtTheConfiguredRateAndAToneCrossesIt(media: PJSUA.MediaSettings) async throws {
        var configuration = PJSUA.Configuration(port: 0, bindAddress: "127.0.0.1", audioDevice: .null)
        configuration.media = media
        try await withEngine(configuration) { phone, _, log in
            #expect(try await phone.bridgeClockRate() == media.clockRate)
            let (child, call) = try await callSoftphonePlayingTone(
                phone, log, ["--codecs", "PCMU", "--clock-rate", "\(media.clockRate)", "--resampler", media.resamplerQuality.rawValue]
                    + (media.jitterBufferMax.map { ["--jitter-buffer-max", "\($0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000)"] } ?? []),
                name: "softphone-media-\(media.clockRate)")
            defer { child.stop() }
            let directory = try temporaryDirectory()
            #expect(try await hearsTone(phone, call, at: directory + "/heard.wav"), "\(media)")
            try await phone.hangUp(call)
        }
    }

    /// `connectsCallsToAudioDevice`: on (the default), a call's bridge port and slot 0 are linked
    /// both ways; off, neither way, and the far end's tone still reaches what listens to the
    /// call (a recorder).
    @Test(arguments: [true, false])
    func callsAreLinkedToTheDeviceSlotOnlyWhenAsked(linked: Bool) async throws {
        var configuration = PJSUA.Configuration(port: 0, bindAddress: "127.0.0.1", audioDevice: .null)
        configuration.media = .telephony
        configuration.media.connectsCallsToAudioDevice = linked
        try await withEngine(configuration) { phone, _, log in
            let (child, call) = try await callSoftphonePlayingTone(phone, log, ["--codecs", "PCMU"], name: "softphone-device-link")
            defer { child.stop() }
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            #expect(try await hearsTone(phone, call, at: directory + "/heard.wav"))
            // Read after the tone: the bridge applies links at its next tick, long past by now.
            let port = try await phone.audioPort(of: call)
            #expect(try await phone.listeners(of: 0).contains(port) == linked)
            #expect(try await phone.listeners(of: port).contains(0) == linked)
            try await phone.hangUp(call)
        }
    }

    /// Opus runs at the bridge's rate unless `opusSampleRate` says otherwise (so no Opus call is
    /// resampled from 48 kHz: two resamplers built per call, ~1 ms of its setup, and most of
    /// its CPU), and no run keeps the last run's rate (pjmedia holds it in a process-wide
    /// static): each configuration below follows one that set another rate.
    @Test func opusRunsAtTheBridgesRateUnlessSetAndNoRunKeepsTheLastRunsRate() async throws {
        let runs: [(PJSUA.MediaSettings, String)] = [
            (PJSUA.MediaSettings(opusSampleRate: 24000), "opus/24000"),
            (PJSUA.MediaSettings(), "opus/16000"),
            (.telephony, "opus/8000"),
            (PJSUA.MediaSettings(clockRate: 32000), "opus/48000"),
        ]
        for (media, codec) in runs {
            var configuration = PJSUA.Configuration(port: 0, bindAddress: "127.0.0.1", audioDevice: .null)
            configuration.media = media
            try await withEngine(configuration) { phone, transport, log in
                let call = try await phone.makeCall(to: transport.uri(user: "opus"))
                try await phone.answer(try await log.incomingCall().call)
                try await log.state(call, .confirmed)
                let quality = try await phone.quality(of: call)
                #expect(quality.codec.lowercased() == codec, "\(quality.codec) at \(media)")
                try await phone.hangUp(call)
            }
        }
    }

    /// `opusSampleRate`: both ends run Opus at 16 kHz inside (this engine through the setting,
    /// the child through `--opus-rate`); the call's codec reports that rate and the child's tone
    /// arrives at its frequency.
    @Test func opusRunsAtTheConfiguredSampleRateAndAToneCrossesIt() async throws {
        var configuration = PJSUA.Configuration(port: 0, bindAddress: "127.0.0.1", audioDevice: .null)
        configuration.media.opusSampleRate = 16000
        try await withEngine(configuration) { phone, _, log in
            let (child, call) = try await callSoftphonePlayingTone(phone, log, ["--codecs", "opus", "--opus-rate", "16000"],
                                                                   name: "softphone-opus-rate")
            defer { child.stop() }
            #expect(try await phone.quality(of: call).codec.lowercased() == "opus/16000")
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            #expect(try await hearsTone(phone, call, at: directory + "/heard.wav"))
            try await phone.hangUp(call)
        }
    }
}
