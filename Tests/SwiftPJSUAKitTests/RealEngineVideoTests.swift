import Foundation
import PJSUATestSupport
import SwiftPJSUA
import Testing
@testable import SwiftPJSUAKit

/// H.264 at CIF, the colour-bar generator's own size: cheap to encode on a loaded machine, and
/// clear of VP8's stalls there (docs/KNOWN-LIMITS.md KL-28).
private let childVideo = ["--video", "--video-codecs", "H264", "--video-size", "352x288"]

/// The last update the provider was given for `uuid`.
private func lastUpdate(_ provider: FakeProvider, _ uuid: UUID) -> CallUpdate? {
    provider.updates.last { $0.0 == uuid }?.1
}

/// A video-capable core on the real engine, called by a `softphone call --video` child; runs
/// `body` with the incoming call's UUID once it was reported, then stops the core.
private func withIncomingVideoCall(_ name: String,
                                   _ body: (PJSUA, CallOrchestrator<PJSUACallEngine, FakeProvider, FakeAudioSession>, FakeProvider, UUID) async throws -> Void) async throws {
    try await withStartedEngine { phone, transport in
        try await useCheapVideo(phone)
        let provider = FakeProvider()
        let core = CallOrchestrator(engine: PJSUACallEngine(phone), provider: provider, audioSession: FakeAudioSession(),
                                    configuration: .init(supportsVideo: true))
        await core.start()
        let child = try ChildProcess(try softphone(), ["call", transport.uri(user: "kit").description, "--json", "--seconds", "20"] + childVideo,
                                     name: name)
        defer { child.stop() }
        if await eventually("the INVITE is reported", timeout: .seconds(15), { provider.newIncomingUUIDs.count == 1 }),
           let uuid = provider.newIncomingUUIDs.first {
            try await body(phone, core, provider, uuid)
        }
        await core.stop()
    }
}

@Suite("Real engine: Kit video calls through PJSUA against a softphone child", .serialized)
struct RealEngineVideoTests {
    @Test func aKitVideoCallToASoftphoneHasVideoAndRemovingAndAddingItIsReportedToTheProvider() async throws {
        let (child, port) = try await answeringSoftphone(childVideo + ["--exit-after", "1"], name: "kit-video-answer")
        defer { child.stop() }
        try await withStartedEngine { phone, _ in
            try await useCheapVideo(phone)
            let provider = FakeProvider()
            let core = CallOrchestrator(engine: PJSUACallEngine(phone), provider: provider, audioSession: FakeAudioSession(),
                                        configuration: .init(supportsVideo: true))
            await core.start()
            let uuid = UUID()
            try await core.startCall(uuid: uuid, to: "sip:video@127.0.0.1:\(port)", video: true)
            guard await eventually("the call is answered", timeout: .seconds(15), { provider.reports.contains(.connected(uuid)) }) else { return }
            let handle = try #require(await core.call(uuid)?.handle)
            await eventually("the call's video is active", timeout: .seconds(10)) { (try? await phone.info(handle).hasVideo) == true }
            #expect(await core.call(uuid)?.update.hasVideo == true)
            #expect(provider.updates.isEmpty, "CallKit knows from the start action; the media agrees")

            // The app's camera button: remove the video, then add it again (re-INVITEs).
            try await core.setVideo(uuid: uuid, enabled: false)
            await eventually("the removal is reported", timeout: .seconds(10)) { lastUpdate(provider, uuid)?.hasVideo == false }
            #expect(try await !phone.info(handle).hasVideo)
            try await core.setVideo(uuid: uuid, enabled: true)
            await eventually("the new video is reported", timeout: .seconds(10)) { lastUpdate(provider, uuid)?.hasVideo == true }
            #expect(try await phone.info(handle).hasVideo)
            #expect(provider.updates.map(\.1.hasVideo) == [false, true])
            // Asking again for what the call already has sends nothing and reports nothing.
            try await core.setVideo(uuid: uuid, enabled: true)
            try await Task.sleep(for: .milliseconds(300))
            #expect(provider.updates.count == 2)

            try await core.endCall(uuid: uuid)
            await eventually("the call is gone", timeout: .seconds(10)) { (try? await phone.activeCalls().isEmpty) == true }
            await core.stop()
        }
        #expect(try await child.waitForExit() == 0, "\(child.output.suffix(2000))")
    }

    @Test func anIncomingVideoCallIsShownAsVideoAndAnsweredWithVideoThroughTheCore() async throws {
        try await withIncomingVideoCall("kit-video-call") { phone, core, provider, uuid in
            let shown = provider.reports.compactMap { if case let .newIncoming(_, update) = $0 { update } else { nil } }
            #expect(shown.first?.hasVideo == true, "the INVITE offers video and the app answers video with video")
            #expect(await core.call(uuid)?.offersVideo == true)

            // CallKit's answer action carries no video flag: the configuration answers with video.
            try await core.answerCall(uuid: uuid)
            let handle = try #require(await core.call(uuid)?.handle)
            await eventually("the call's video is active", timeout: .seconds(15)) { (try? await phone.info(handle).hasVideo) == true }
            await eventually("the call is established", timeout: .seconds(10)) { await core.call(uuid)?.isConnected == true }
            #expect(provider.updates.isEmpty, "shown as video from the start, and the media agrees")
            try await core.endCall(uuid: uuid)
        }
    }

    /// pjsua fixes a call's settings at the first answer that carries them: the core's 180 must
    /// leave them open, or this audio answer would get the video the ringing was sent with (or,
    /// ringing audio-only, the previous test's video answer would get none).
    @Test func aRungVideoCallAnsweredAudioOnlyThroughTheCoreHasNoVideoAndIsShownSo() async throws {
        try await withIncomingVideoCall("kit-video-call-audio-answer") { phone, core, provider, uuid in
            try await core.answerCall(uuid: uuid, video: false)
            await eventually("the call is established", timeout: .seconds(10)) { await core.call(uuid)?.isConnected == true }
            await eventually("the call UI is told the call has no video", timeout: .seconds(10)) { lastUpdate(provider, uuid)?.hasVideo == false }
            let handle = try #require(await core.call(uuid)?.handle)
            #expect(try await !phone.info(handle).hasVideo)
            try await core.endCall(uuid: uuid)
        }
    }

    @Test func ringingRefusesCodesThatCarrySDPOrAreNotProvisional() async throws {
        try await withStartedEngine { phone, transport in
            var events = phone.events.makeAsyncIterator()
            _ = try await phone.makeCall(to: transport.uri(user: "kit"))
            var incoming: PJSUA.Call?
            while incoming == nil, let event = await events.next() {
                if case let .incomingCall(_, call, _, _, _) = event { incoming = call }
            }
            let call = try #require(incoming)
            for code: PJSUA.SIPResponseCode in [100, 183, 200, 486] {
                await #expect(throws: PJSUAError.self, "\(code)") { try await phone.ring(call, code: code) }
            }
            try await phone.ring(call)
            try await phone.reject(call, code: 603)
        }
    }

    @Test func aVideoStartIsRefusedOnTheRealEngineWhenSupportsVideoIsFalse() async throws {
        try await withStartedEngine { phone, transport in
            let provider = FakeProvider()
            let core = CallOrchestrator(engine: PJSUACallEngine(phone), provider: provider, audioSession: FakeAudioSession())
            await core.start()
            let uuid = UUID()
            await #expect(throws: CallOrchestratorError.videoNotSupported(uuid)) {
                try await core.startCall(uuid: uuid, to: transport.uri(user: "kit").description, video: true)
            }
            let calls = try await phone.activeCalls()
            #expect(calls.isEmpty, "no INVITE was sent")
            #expect(provider.reports.isEmpty)
            await core.stop()
        }
    }
}
