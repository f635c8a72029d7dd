import Foundation
import PJSUATestSupport
import SwiftPJSUA
import Testing
@testable import SwiftPJSUAKit

/// The Call-ID and state events of one engine call, from the events a gated engine saw.
private func firstCallID(of call: PJSUA.Call, in events: [CallEngineEvent<PJSUA.Call>]) -> String? {
    for event in events {
        if case let .callState(handle, _, id, _) = event, handle == call, !id.isEmpty { return id }
    }
    return nil
}

private func reachedState(_ call: PJSUA.Call, _ state: CallPhase, in events: [CallEngineEvent<PJSUA.Call>]) -> PJSUA.SIPStatus? {
    for event in events {
        if case let .callState(handle, phase, _, status) = event, handle == call, phase == state { return status }
    }
    return nil
}

@Suite("Real engine: PJSUA through the orchestration core", .serialized)
struct RealEngineTests {
    @Test func inviteFirstCallIsReportedOnceAndAnsweringThroughTheCoreConnectsIt() async throws {
        try await withStartedEngine { phone, transport in
            let provider = FakeProvider()
            let account = await phone.localAccount
            let core = CallOrchestrator(engine: PJSUACallEngine(phone), provider: provider, audioSession: FakeAudioSession(),
                                        configuration: .init(wakeAccount: account))
            await core.start()
            let caller = try await phone.makeCall(to: transport.uri(user: "kit"))
            guard await eventually("the INVITE is reported", timeout: .seconds(10), { provider.newIncomingUUIDs.count == 1 }) else { return }
            let uuid = try #require(provider.newIncomingUUIDs.first)
            let sipCallID = try #require(await core.call(uuid)?.sipCallID)
            #expect(uuid == CallIdentity.uuid(forSIPCallID: sipCallID))

            // The push arrives after the INVITE: it joins the call.
            let outcome = await core.handleIncomingPush(.success(VoIPPushPayload(sipCallID: sipCallID, uuid: UUID())))
            #expect(outcome == .repeatedCall(uuid))

            try await core.answerCall(uuid: uuid)
            await eventually("the call is established", timeout: .seconds(10)) { await core.call(uuid)?.isConnected == true }
            #expect(provider.newIncomingUUIDs.first == uuid)
            #expect(provider.newIncomingUUIDs.count == 2, "the call, and the push posted as a placeholder")
            #expect(await core.liveCalls.count == 1)
            #expect(await core.handle(for: uuid) != nil, "the app can reach the answered call on the engine")

            // An engine refusal reaches the app as the engine's own typed error, not as text.
            await #expect {
                try await core.playDTMF(uuid: uuid, digits: "not digits")
            } throws: { error in
                guard case let .engine(engineError as PJSUAError)? = error as? CallOrchestratorError else { return false }
                return engineError.code == .invalidArgument
            }

            try await phone.hangUp(caller)
            await eventually("the remote hang-up is reported", timeout: .seconds(10)) { provider.endings.contains { $0.0 == uuid } }
            #expect(provider.endings.first { $0.0 == uuid }?.1 == .remoteEnded)
            await core.stop()
        }
    }

    @Test func pushFirstCallIsReportedOnceAndAnswerQueuedBeforeTheInviteConnectsIt() async throws {
        try await withStartedEngine { phone, transport in
            let provider = FakeProvider()
            let engine = GatedEngine(phone)
            let core = CallOrchestrator(engine: engine, provider: provider, audioSession: FakeAudioSession(),
                                        configuration: .init(wakeAccount: await phone.localAccount))
            await core.start()
            let caller = try await phone.makeCall(to: transport.uri(user: "kit"))
            guard await eventually("the caller's Call-ID is known", timeout: .seconds(10), { firstCallID(of: caller, in: engine.events) != nil }) else { return }
            let sipCallID = try #require(firstCallID(of: caller, in: engine.events))

            let server = UUID()
            let outcome = await core.handleIncomingPush(.success(VoIPPushPayload(sipCallID: sipCallID, uuid: server, caller: "sip:kit@127.0.0.1")))
            #expect(outcome == .reportedNewCall(server))
            let answer = Task { try await core.answerCall(uuid: server) }
            await eventually("the answer is queued") { await core.pendingActionCount(for: server) == 1 }

            engine.open()
            try await answer.value
            await eventually("the call is established", timeout: .seconds(10)) { await core.call(server)?.isConnected == true }
            #expect(reachedState(caller, .confirmed, in: engine.events) != nil)
            #expect(provider.newIncomingUUIDs == [server])
            #expect(await core.liveCalls.count == 1)

            try await core.endCall(uuid: server)
            await eventually("the caller sees the hang-up", timeout: .seconds(10)) { reachedState(caller, .disconnected, in: engine.events) != nil }
            #expect(provider.endings.isEmpty, "a call the user ended is not reported back as ended")
            await core.stop()
        }
    }

    @Test func callsAfterAnEngineRestartAreReportedAndTheOldRunsCallsEnded() async throws {
        let configuration = PJSUA.Configuration(port: 0, transport: .udp, bindAddress: "127.0.0.1", audioDevice: .null)
        try await withStartedEngine(configuration) { phone, transport in
            let provider = FakeProvider()
            let core = CallOrchestrator(engine: PJSUACallEngine(phone), provider: provider, audioSession: FakeAudioSession())
            await core.start()
            _ = try await phone.makeCall(to: transport.uri(user: "before"))
            guard await eventually("the first run's call is reported", timeout: .seconds(10), { provider.newIncomingUUIDs.count == 1 }) else { return }
            let first = try #require(provider.newIncomingUUIDs.first)

            await phone.shutdown()
            await eventually("the first run's call is reported ended", timeout: .seconds(10)) {
                provider.endings.contains { $0.0 == first }
            }
            await eventually("no call of the first run is left") { await core.liveCalls.isEmpty }

            let restarted = try await phone.start(configuration)
            _ = try await phone.makeCall(to: restarted.uri(user: "after"))
            guard await eventually("the second run's call is reported", timeout: .seconds(10), { provider.newIncomingUUIDs.count == 2 }) else { return }
            let second = try #require(provider.newIncomingUUIDs.last)
            #expect(second != first)
            #expect(await core.call(second)?.handle != nil)
            await core.stop()
        }
    }

    @Test func establishedAudioCallReachesTheCoreAsMediaWithoutVideoAndNoUpdateIsReported() async throws {
        try await withStartedEngine { phone, transport in
            let provider = FakeProvider()
            let core = CallOrchestrator(engine: PJSUACallEngine(phone), provider: provider, audioSession: FakeAudioSession())
            await core.start()
            var events = PJSUACallEngine(phone).callEvents().makeAsyncIterator()
            let caller = try await phone.makeCall(to: transport.uri(user: "kit"))
            guard await eventually("the INVITE is reported", timeout: .seconds(10), { provider.newIncomingUUIDs.count == 1 }) else { return }
            let uuid = try #require(provider.newIncomingUUIDs.first)
            try await core.answerCall(uuid: uuid)
            var media: Bool?
            while media == nil, let event = await events.next() {
                if case let .mediaChanged(call, hasVideo) = event, call == caller { media = hasVideo }
            }
            #expect(media == false, "the engine's media event reaches the core, audio-only")
            await eventually("the call is established", timeout: .seconds(10)) { await core.call(uuid)?.isConnected == true }
            #expect(provider.updates.isEmpty, "no video, nothing to update")
            #expect(await core.call(uuid)?.update.hasVideo == false)
            try await phone.hangUp(caller)
            await core.stop()
        }
    }

    @Test func holdAndMuteGoThroughThePJSUAAdapterToTheEngine() async throws {
        try await withStartedEngine { phone, transport in
            let engine = PJSUACallEngine(phone)
            var events = phone.events.makeAsyncIterator()
            let caller = try await phone.makeCall(to: transport.uri(user: "kit"))
            var connected = false
            while !connected, let event = await events.next() {
                switch event {
                case let .incomingCall(_, call, _, _, _): try await engine.answer(call, video: false)
                case let .callState(call, .confirmed, _, _) where call == caller: connected = true
                default: break
                }
            }
            #expect(connected)
            try await engine.setMuted(caller, to: true)
            #expect(try await phone.isMuted(caller))
            try await engine.setHeld(caller, to: true)
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await phone.info(caller).media == .localHold)
            try await engine.setHeld(caller, to: false)
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await phone.info(caller).media == .active)
            #expect(try await phone.isMuted(caller), "mute survives hold and resume")
            try await engine.setMuted(caller, to: false)
            #expect(try await !phone.isMuted(caller))
            try await engine.hangUp(caller)
        }
    }

    /// CallKit's merge on the real engine: two answered calls, the first put on hold, are grouped
    /// through the core: the held one is resumed and both are in the local conference; ungrouping
    /// takes one out again.
    @Test func groupingThroughTheCoreResumesAndConferencesTheCalls() async throws {
        try await withStartedEngine { phone, transport in
            let provider = FakeProvider()
            let core = CallOrchestrator(engine: PJSUACallEngine(phone), provider: provider, audioSession: FakeAudioSession(),
                                        configuration: .init(wakeAccount: await phone.localAccount))
            await core.start()
            defer { Task { await core.stop() } }
            var uuids: [UUID] = []
            for number in 1...2 {
                _ = try await phone.makeCall(to: transport.uri(user: "kit\(number)"))
                guard await eventually("INVITE \(number) is reported", timeout: .seconds(10), { provider.newIncomingUUIDs.count == number }) else { return }
                let uuid = provider.newIncomingUUIDs[number - 1]
                try await core.answerCall(uuid: uuid)
                await eventually("call \(number) is established", timeout: .seconds(10)) { await core.call(uuid)?.isConnected == true }
                uuids.append(uuid)
            }
            // CONNECTING turns CONFIRMED once the caller's ACK is in; hold needs CONFIRMED.
            try await Task.sleep(for: .milliseconds(300))
            try await core.setHeld(uuid: uuids[0], held: true)
            // The hold is a re-INVITE: merge acts on calls held by then (CallKit's merge comes
            // after its hold action was fulfilled and the call shows held).
            let held = try #require(await core.call(uuids[0])?.handle)
            await eventually("the first call is held", timeout: .seconds(20)) { (try? await phone.info(held).media) == .localHold }
            try await core.setGroup(uuid: uuids[1], with: uuids[0])
            let handles = try await phone.activeCalls()
            let grouped = await phone.conferenceCalls
            #expect(grouped.count == 2, "\(grouped) of \(handles)")
            // The resume is a re-INVITE: the held call's audio is active once it is answered.
            for call in grouped {
                let resumed = await eventually("\(call) resumed", timeout: .seconds(20)) { (try? await phone.info(call).media) == .active }
                #expect(resumed)
            }
            try await core.setGroup(uuid: uuids[1], with: nil)
            #expect(await phone.conferenceCalls.count < 2)
        }
    }
}
