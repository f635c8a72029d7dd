import CPJSUAStreams
import Foundation
import PJSIP
import PJSUATestSupport
@_spi(MediaHooks) @testable import SwiftPJSUA
import SwiftPJSUAStreams
import Testing

/// Issue 38: the voice-agent bridge's tap (MediaTap.c, pjsua's `on_create_media_transport`) and
/// pace (MediaPace.c, `on_stream_created2`) wrap a call's media only in an engine started with
/// `enablesMediaStreams`; an app that does not stream keeps pjsua's own transport and stream port.
@Suite("Streams: the media hooks are installed only where calls can be streamed", .serialized)
struct MediaHookTests {
    @Test func anEngineThatDoesNotStreamKeepsPjsuasOwnTransportAndStreamPort() async throws {
        try await withEngine { phone, _, log in
            try await phone.useCodecs(["PCMU"])
            let (callee, call) = try await callAnsweringSoftphone(phone, log, ["--codecs", "PCMU"], name: "softphone-hooks-off")
            defer { callee.stop() }
            let names = try await phone.mediaWrappers(of: call)
            #expect(!names.tapped)
            #expect(!names.paced)
            // And a stream is refused with the reason, not started half-way.
            let error = await #expect(throws: PJSUAError.self) { _ = try await phone.stream(call, to: "ws://127.0.0.1:9/media") }
            #expect(error?.code == .unsupported)
            #expect(error?.message.contains("enablesMediaStreams") == true)
        }
    }

    @Test func anEngineThatStreamsWrapsEveryCallsTransportAndStreamPort() async throws {
        try await withStreamingEngine { phone, _, log in
            try await phone.useCodecs(["PCMU"])
            let (callee, call) = try await callAnsweringSoftphone(phone, log, ["--codecs", "PCMU"], name: "softphone-hooks-on")
            defer { callee.stop() }
            let names = try await phone.mediaWrappers(of: call)
            #expect(names.tapped)
            #expect(names.paced)
        }
    }

    @Test func theSameHooksListedTwiceAreRefused() async throws {
        var configuration = PJSUA.Configuration(port: 0, transport: .udp, bindAddress: "127.0.0.1", audioDevice: .null)
        configuration.enablesMediaStreams = true
        configuration.mediaHooks += configuration.mediaHooks
        let phone = PJSUA()
        let error = await #expect(throws: PJSUAError.self) { try await phone.start(configuration) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("twice") == true)
        configuration.enablesMediaStreams = false
        #expect(configuration.mediaHooks.isEmpty)
    }

    /// The engine installs its own callbacks first and refuses hooks that replace one of them
    /// (the run would lose that callback's events): `start` throws invalidArgument naming the
    /// hooks, and leaves nothing behind: the same engine starts without them and its calls are
    /// reported.
    @Test func hooksThatReplaceOneOfTheEnginesCallbacksAreRefused() async throws {
        var configuration = PJSUA.Configuration(port: 0, transport: .udp, bindAddress: "127.0.0.1", audioDevice: .null)
        let replaced = Box<Bool>()
        configuration.mediaHooks = [PJSUA.MediaHooks(name: "replaces-on-call-state", install: { config in
            replaced.value = config.cb.on_call_state != nil
            config.cb.on_call_state = { _, _ in }
        }, releaseAll: {})]
        await EngineTurns.shared.acquire()
        let phone = PJSUA()
        do {
            let error = await #expect(throws: PJSUAError.self) { try await phone.start(configuration) }
            #expect(error?.code == .invalidArgument, "\(String(describing: error))")
            #expect(error?.message.contains("replaces-on-call-state") == true, "\(String(describing: error))")
            #expect(replaced.value == true, "the hook ran after the engine's callbacks were installed")
            #expect(await !phone.isRunning)
            configuration.mediaHooks = []
            let log = EventLog(phone.events)
            let transport = try await phone.start(configuration)
            let call = try await phone.makeCall(to: transport.uri(user: "after-refusal"))
            let callee = try await log.incomingCall().call
            try await phone.answer(callee)
            try await log.state(call, .confirmed)
            try await phone.hangUp(call)
            try await log.state(call, .disconnected)
        } catch {
            Issue.record(error)
        }
        await phone.shutdown()
        await EngineTurns.shared.release()
    }
}

extension PJSUA {
    /// Whether `call`'s first media transport is wrapped in a tap and its audio stream's port in
    /// a pace (pjsua has no accessor for either: the hooks' own lists say whether they ran for
    /// the call).
    fileprivate func mediaWrappers(of call: Call) throws -> (tapped: Bool, paced: Bool) {
        _ = try audioPort(of: call)
        var stats = cpjsua_pace_stats()
        return (cpjsua_media_tap_exists(call.slot, 0) == 1, cpjsua_media_pace_stats_of(call.slot, 0, &stats) == 1)
    }
}
