import Foundation
import Synchronization
import Testing
@testable import SwiftPJSUAKit

/// The sequences CallKit produces when a cellular call interrupts ours, or when the user swaps
/// calls; each must end with audio flowing on the call that is active.
@Suite("Orchestrator: audio after interruptions and swaps")
struct AudioInterruptionTests {
    /// An answered, established incoming call with the audio session active.
    private func establishedCall(_ h: Harness, _ call: FakeCall, _ sipCallID: String) async throws -> UUID {
        let uuid = CallIdentity.uuid(forSIPCallID: sipCallID)
        await h.invite(call, sipCallID)
        try await h.core.answerCall(uuid: uuid)
        await h.state(call, .confirmed, sipCallID, 200)
        return uuid
    }

    private func activate(_ h: Harness) async throws {
        h.engine.setSessionActive(true)
        try await h.core.audioSessionDidActivate()
    }

    private func deactivate(_ h: Harness) async {
        h.engine.setSessionActive(false)
        await h.core.audioSessionDidDeactivate()
    }

    @Test func cellularCallDeactivatingFirstThenHoldingLeavesAudioFlowingWhenResumed() async throws {
        let h = await Harness()
        let call = FakeCall(id: 1)
        let uuid = try await establishedCall(h, call, "c1")
        try await activate(h)
        #expect(h.engine.audioFlows(on: call))

        // Cellular call answered: CallKit takes the session, then holds our call.
        await deactivate(h)
        try await h.core.setHeld(uuid: uuid, held: true)
        #expect(!h.engine.isDeviceOpen)
        #expect(h.engine.isHeld(call))

        // Cellular call ended, the user resumes ours.
        try await h.core.setHeld(uuid: uuid, held: false)
        try await activate(h)
        #expect(h.engine.isDeviceOpen)
        #expect(!h.engine.isHeld(call))
        #expect(!h.engine.isMuted(call))
        #expect(h.engine.audioFlows(on: call))
        #expect(await h.core.isAudioSessionActive)
        #expect(h.engine.audioViolations.isEmpty)
    }

    @Test func cellularCallHoldingFirstAndActivatingBeforeTheResumeLeavesAudioFlowing() async throws {
        let h = await Harness()
        let call = FakeCall(id: 1)
        let uuid = try await establishedCall(h, call, "c1")
        try await activate(h)
        try await h.core.setHeld(uuid: uuid, held: true)
        await deactivate(h)
        try await activate(h)
        #expect(!h.engine.audioFlows(on: call), "still held")
        try await h.core.setHeld(uuid: uuid, held: false)
        #expect(h.engine.audioFlows(on: call))
        #expect(h.engine.audioViolations.isEmpty)
    }

    @Test func userMuteSurvivesTheInterruption() async throws {
        let h = await Harness()
        let call = FakeCall(id: 1)
        let uuid = try await establishedCall(h, call, "c1")
        try await activate(h)
        try await h.core.setMuted(uuid: uuid, muted: true)
        await deactivate(h)
        try await h.core.setHeld(uuid: uuid, held: true)
        try await h.core.setHeld(uuid: uuid, held: false)
        try await activate(h)
        #expect(h.engine.isMuted(call), "the user's mute is the user's to lift")
        try await h.core.setMuted(uuid: uuid, muted: false)
        #expect(h.engine.audioFlows(on: call))
    }

    @Test func swappingBetweenTwoSIPCallsMovesTheAudioToTheActiveOne() async throws {
        let h = await Harness()
        let first = FakeCall(id: 1)
        let second = FakeCall(id: 2)
        let firstUUID = try await establishedCall(h, first, "c1")
        try await activate(h)

        // Second call: "Hold & Accept" holds the first and answers the second; the session stays.
        await h.invite(second, "c2")
        let secondUUID = CallIdentity.uuid(forSIPCallID: "c2")
        try await h.core.setHeld(uuid: firstUUID, held: true)
        try await h.core.answerCall(uuid: secondUUID)
        await h.state(second, .confirmed, "c2", 200)
        #expect(h.engine.audioFlows(on: second))
        #expect(!h.engine.audioFlows(on: first))

        // Swap: hold the second, resume the first; and back.
        try await h.core.setHeld(uuid: secondUUID, held: true)
        try await h.core.setHeld(uuid: firstUUID, held: false)
        #expect(h.engine.audioFlows(on: first))
        #expect(!h.engine.audioFlows(on: second))
        try await h.core.setHeld(uuid: firstUUID, held: true)
        try await h.core.setHeld(uuid: secondUUID, held: false)
        #expect(h.engine.audioFlows(on: second))

        // The second call ends remotely; the user resumes the first.
        await h.state(second, .disconnected, "c2", 200)
        try await h.core.setHeld(uuid: firstUUID, held: false)
        #expect(h.engine.audioFlows(on: first))
        #expect(h.engine.count("enableAudio") == 1, "the session never left, the device was never reopened")
        #expect(h.engine.count("disableAudio") == 0)
    }

    /// CallKit calls its delegate in order; the adapter's ordered queue must keep that order all
    /// the way to the core, or a deactivation overtaking the activation after it closes the device.
    @Test func audioSessionEventsSubmittedInOrderReachTheCoreInOrder() async throws {
        for _ in 0..<20 {
            let h = await Harness()
            h.engine.setSessionActive(true)
            let queue = OrderedWork()
            let core = h.core
            for index in 0..<20 {
                if index.isMultiple(of: 2) {
                    queue.submit { await core.audioSessionDidDeactivate() }
                } else {
                    queue.submit { try? await core.audioSessionDidActivate() }
                }
            }
            let done = DoneFlag()
            queue.submit { done.set() }
            await eventually("the queue drained", timeout: .seconds(60)) { done.isSet }
            let deviceOps = h.engine.log.filter { $0 == "enableAudio" || $0 == "disableAudio" }
            #expect(deviceOps == Array(repeating: ["disableAudio", "enableAudio"], count: 10).flatMap { $0 })
            #expect(h.engine.isDeviceOpen)
            #expect(await h.core.isAudioSessionActive)
        }
    }
}

/// A flag set once from any task.
final class DoneFlag: Sendable {
    private let value = Mutex(false)

    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}
