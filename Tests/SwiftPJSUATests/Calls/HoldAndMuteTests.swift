import Foundation
import PJSUATestSupport
@_spi(MediaHooks) @testable import SwiftPJSUA
import Synchronization
import Testing

@Suite("Hold, resume and mute")
struct HoldAndMuteTests {
    @Test func holdAndResumeRenegotiateMediaOnBothLegs() async throws {
        try await withEngine { phone, transport, log in
            let caller = try await phone.makeCall(to: transport.uri(user: "hold"))
            let callee = try await log.incomingCall().call
            try await phone.answer(callee)
            try await log.mediaActive(caller)
            try await phone.hold(caller)
            try await log.first("caller on local hold") { event -> Void? in
                if case let .callMedia(c, .localHold, _) = event, c == caller { return () }
                return nil
            }
            try await log.first("callee sees remote hold") { event -> Void? in
                if case let .callMedia(c, .remoteHold, _) = event, c == callee { return () }
                return nil
            }
            try await phone.resume(caller)
            try await waitUntil("both legs active again") {
                let a = try await phone.info(caller).media
                let b = try await phone.info(callee).media
                return a == .active && b == .active
            }
            try await phone.hangUp(caller)
        }
    }

    /// Muting disconnects the sound device from the call on the bridge, and only that: what the
    /// far end sends is still heard. It is per call and survives hold and resume.
    @Test func muteCutsOnlyTheMicrophonePathAndSurvivesHold() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try WAVFile.tone(frequency: 800, duration: .seconds(3)).write(to: directory + "/tone.wav")
        try await withEngine { phone, transport, log in
            let caller = try await phone.makeCall(to: transport.uri(user: "mute"))
            let callee = try await log.incomingCall().call
            try await phone.answer(callee)
            try await log.mediaActive(caller)
            try await log.mediaActive(callee)
            // pjmedia's bridge applies connect/disconnect on its clock thread, a frame later.
            try await waitUntil("microphone path connected") { try await phone.microphonePathConnected(caller) }
            try await phone.setMuted(caller, to: true)
            #expect(try await phone.isMuted(caller))
            try await waitUntil("microphone path cut") { try await !phone.microphonePathConnected(caller) }
            #expect(try await phone.microphonePathConnected(callee))
            #expect(try await !phone.isMuted(callee))
            // The far end's audio still reaches the muted call.
            _ = try await phone.play(directory + "/tone.wav", into: callee, loop: true)
            let recorder = try await phone.record(caller, to: directory + "/heard.wav")
            try await Task.sleep(for: .milliseconds(1200))
            try await phone.stop(recorder)
            let heard = try WAVFile(contentsOf: directory + "/heard.wav")
            #expect(abs(heard.dominantFrequency() - 800) <= 20)
            try await phone.hold(caller)
            try await waitUntil("held") { try await phone.info(caller).media == .localHold }
            try await phone.resume(caller)
            try await waitUntil("resumed") { try await phone.info(caller).media == .active }
            #expect(try await phone.isMuted(caller))
            try await Task.sleep(for: .milliseconds(100))
            #expect(try await !phone.microphonePathConnected(caller), "the media callback rewired a muted call")
            try await phone.setMuted(caller, to: false)
            #expect(try await !phone.isMuted(caller))
            try await waitUntil("microphone path restored") { try await phone.microphonePathConnected(caller) }
            try await phone.hangUp(caller)
            try await log.state(caller, .disconnected)
            await #expect(throws: PJSUAError.self) { try await phone.setMuted(caller, to: true) }
        }
    }

    /// A hold the call's INVITE session cannot take yet (the call still ringing) is refused with
    /// invalidCallState, which names what to wait for; nothing is sent and the call goes on.
    @Test func holdingARingingCallIsRefusedWithInvalidCallState() async throws {
        try await withEngine { phone, transport, log in
            let caller = try await phone.makeCall(to: transport.uri(user: "early-hold"))
            let callee = try await log.incomingCall().call
            try await phone.ring(callee)
            try await log.state(caller, .early)
            let refusal = await #expect(throws: PJSUAError.self) { try await phone.hold(caller) }
            #expect(refusal?.code == .invalidCallState, "\(String(describing: refusal))")
            try await phone.answer(callee)
            try await log.state(caller, .confirmed)
            try await phone.hold(caller)
            try await waitUntil("held") { try await phone.info(caller).media == .localHold }
            try await phone.hangUp(caller)
            try await log.state(caller, .disconnected)
        }
    }

    /// A mute racing media updates: the far end holds and resumes the muted call over and over
    /// (each a media update on pjsua's worker) while the app toggles mute. Every wiring runs on
    /// the engine's thread, so the two never interleave, and once the last mute is in place the
    /// microphone path stays cut through further updates. Where each wiring ran, the test sees
    /// for itself: the engine tells a call's attachment (the MediaHooks SPI) of every wiring, on
    /// the thread that wires.
    @Test func muteAndMediaUpdatesNeverInterleave() async throws {
        try await withEngine { phone, transport, log in
            let caller = try await phone.makeCall(to: transport.uri(user: "mute-race"))
            let callee = try await log.incomingCall().call
            try await phone.answer(callee)
            try await log.mediaActive(caller)
            let wirings = WiringThreads(engineThread: await phone.executorThread())
            #expect(try await phone.mediaHookContext().attach(wirings, to: caller))
            let toggling = Task {
                for round in 0..<200 {
                    try await phone.setMuted(caller, to: round.isMultiple(of: 2))
                    try await Task.sleep(for: .milliseconds(2))
                }
            }
            // The media states change when the far end's 200 arrives, a little before its
            // re-INVITE transaction is over; a hold or resume sent in between is refused with
            // invalidCallState (nothing sent), and is sent again until the session takes it.
            func retryingWhileTheSessionIsBusy(_ operation: () async throws -> Void) async throws {
                let deadline = ContinuousClock.now.advanced(by: .seconds(10))
                while true {
                    do {
                        return try await operation()
                    } catch PJSUAError.invalidCallState where ContinuousClock.now < deadline {
                        try await Task.sleep(for: .milliseconds(5))
                    }
                }
            }
            func holdAndResume() async throws {
                try await retryingWhileTheSessionIsBusy { try await phone.hold(callee) }
                try await waitUntil("held by the far end") {
                    let near = try await phone.info(caller), far = try await phone.info(callee)
                    return near.media == .remoteHold && far.media == .localHold
                }
                try await retryingWhileTheSessionIsBusy { try await phone.resume(callee) }
                try await waitUntil("active again") {
                    let near = try await phone.info(caller), far = try await phone.info(callee)
                    return near.media == .active && far.media == .active
                }
            }
            for _ in 0..<10 { try await holdAndResume() }
            try await toggling.value
            try await phone.setMuted(caller, to: true)
            try await holdAndResume()
            try await Task.sleep(for: .milliseconds(100))
            #expect(try await !phone.microphonePathConnected(caller), "the microphone is live on a muted call")
            let counts = wirings.counts
            #expect(counts.onEngineThread >= 200, "wirings: \(counts)")
            #expect(counts.elsewhere == 0, "\(counts.elsewhere) wirings ran off the engine's thread")
            try await phone.hangUp(caller)
        }
    }

    /// An account registered with kamailio registers again (a new, successful REGISTER after
    /// the change), each step is reported, and calls still work afterwards.
    @Test func ipChangeHandlingReRegistersAndKeepsTheEngineUsable() async throws {
        let kamailio = try await Kamailio()
        defer { kamailio.stop() }
        try await withEngine { phone, transport, log in
            let account = try await phone.addAccount(id: "sip:alice@127.0.0.1", registrar: PJSUA.SIPURI(kamailio.uri),
                                                     username: "alice", password: "alice-secret")
            try await log.registration(account, "alice registered", where: \.isRegistered)
            let registrationsBefore = log.registrations(of: account).count
            try await phone.handleIPChange()
            let contactUpdate = try await log.first("alice's Contact updated") { event -> Result<Void, PJSUAError>? in
                guard case let .ipChange(.accountContactUpdated(updated), error) = event, updated == account else { return nil }
                return error.map { .failure($0) } ?? .success(())
            }
            #expect(throws: Never.self, "updating alice's Contact") { try contactUpdate.get() }
            let completion = try await log.first("the IP change completed") { event -> Result<Void, PJSUAError>? in
                guard case let .ipChange(.completed, error) = event else { return nil }
                return error.map { .failure($0) } ?? .success(())
            }
            #expect(throws: Never.self, "the IP change") { try completion.get() }
            try await waitUntil("alice registered again") {
                log.registrations(of: account).dropFirst(registrationsBefore).contains(where: \.isRegistered)
            }
            let call = try await phone.makeCall(to: transport.uri(user: "after-ip-change"))
            try await log.state(call, .calling)
            try await phone.hangUp(call)
            try await log.state(call, .disconnected)
        }
    }
}

/// Counts the wirings of one call's audio by the thread they ran on: an attachment is told of
/// each one (``PJSUA/CallMediaAttachment/callAudioWired(slot:)``) by the code that wires, on its
/// thread.
private final class WiringThreads: PJSUA.CallMediaAttachment {
    private let engineThread: pthread_t
    private let wirings = Mutex((onEngineThread: 0, elsewhere: 0))

    init(engineThread: pthread_t) {
        self.engineThread = engineThread
    }

    /// Wirings so far: on the engine's executor thread, and on any other thread (must stay 0).
    var counts: (onEngineThread: Int, elsewhere: Int) { wirings.withLock { $0 } }

    func callAudioWired(slot: Int32) {
        let here = pthread_equal(pthread_self(), engineThread) != 0
        wirings.withLock { if here { $0.onEngineThread += 1 } else { $0.elsewhere += 1 } }
    }

    func callKeyed(_ digit: PJSUA.DTMFDigit) {}
    func callEnded() {}
    func engineStopping() {}
}

extension PJSUA {
    /// The engine's executor thread (this method runs on it, as every isolated one does).
    fileprivate func executorThread() -> pthread_t { pthread_self() }
}
