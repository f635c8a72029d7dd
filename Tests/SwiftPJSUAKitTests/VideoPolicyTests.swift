import Foundation
import Testing
@testable import SwiftPJSUAKit

/// The update the provider was given for each new incoming call, in order.
private func reportedNewCalls(_ provider: FakeProvider) -> [CallUpdate] {
    provider.reports.compactMap { if case let .newIncoming(_, update) = $0 { update } else { nil } }
}

@Suite("Orchestrator: video calls (supportsVideo, the answer policy, adding and removing video)")
struct VideoPolicyTests {
    private let call = FakeCall(id: 1)
    private let uuid = CallIdentity.uuid(forSIPCallID: "c1")

    // MARK: supportsVideo == false (the default): everything stays audio-only

    @Test func aVideoStartIsRefusedWithoutSupportsVideoAndNothingIsPlaced() async {
        let h = await Harness()
        let outgoing = UUID()
        await #expect(throws: CallOrchestratorError.videoNotSupported(outgoing)) {
            try await h.core.startCall(uuid: outgoing, to: "sip:bob@example.com", video: true)
        }
        #expect(h.engine.log.isEmpty, "no INVITE, no audio-session change")
        #expect(h.audio.configurations == 0)
        #expect(await h.core.call(outgoing) == nil)
        // The UUID is still free: the same call as audio goes through.
        try? await h.core.startCall(uuid: outgoing, to: "sip:bob@example.com")
        #expect(h.engine.log == ["place sip:bob@example.com"])
    }

    @Test func aVideoAnswerAndAddingVideoAreRefusedWithoutSupportsVideo() async throws {
        let h = await Harness()
        await h.invite(call, "c1", video: true)
        await #expect(throws: CallOrchestratorError.videoNotSupported(uuid)) { try await h.core.answerCall(uuid: uuid, video: true) }
        try await h.core.answerCall(uuid: uuid)
        #expect(h.engine.log == ["ring #1", "answer #1"], "a video offer is answered with audio alone")
        await #expect(throws: CallOrchestratorError.videoNotSupported(uuid)) { try await h.core.setVideo(uuid: uuid, enabled: true) }
        #expect(!h.engine.log.contains { $0.hasPrefix("video") })
    }

    // MARK: Outgoing

    @Test func aVideoStartPlacesAVideoCallShownAsVideoUntilTheMediaSaysOtherwise() async throws {
        let h = await Harness(supportsVideo: true)
        let outgoing = UUID()
        try await h.core.startCall(uuid: outgoing, to: "sip:bob@example.com", video: true)
        #expect(h.engine.log == ["place sip:bob@example.com video"])
        #expect(await h.core.call(outgoing)?.update.hasVideo == true)
        let handle = FakeCall(id: 1001)
        await h.core.process(.mediaChanged(call: handle, hasVideo: true))
        #expect(h.provider.updates.isEmpty, "CallKit already knows from the start action")
        // The peer declined the video: the call UI follows.
        await h.core.process(.mediaChanged(call: handle, hasVideo: false))
        #expect(h.provider.updates.map(\.1.hasVideo) == [false])
    }

    @Test func anAudioStartStaysAudioWithSupportsVideo() async throws {
        let h = await Harness(supportsVideo: true)
        try await h.core.startCall(uuid: UUID(), to: "sip:bob@example.com")
        #expect(h.engine.log == ["place sip:bob@example.com"])
    }

    // MARK: Incoming: the answer policy

    @Test func aVideoOfferIsShownAndAnsweredWithVideoByDefaultWhenVideoIsSupported() async throws {
        let h = await Harness(supportsVideo: true)
        await h.invite(call, "c1", video: true)
        #expect(reportedNewCalls(h.provider).map(\.hasVideo) == [true])
        try await h.core.answerCall(uuid: uuid)
        #expect(h.engine.log == ["ring #1", "answer #1 video"])
    }

    @Test func anAudioOfferIsShownAsAudioAndAnsweredWithAudioEvenWhenVideoIsAsked() async throws {
        let h = await Harness(supportsVideo: true)
        await h.invite(call, "c1", video: false)
        #expect(reportedNewCalls(h.provider).map(\.hasVideo) == [false])
        try await h.core.answerCall(uuid: uuid, video: true)
        #expect(h.engine.log == ["ring #1", "answer #1"], "no video to accept: add it later with setVideo")
    }

    @Test func answersWithVideoFalseShowsAndAnswersVideoOffersAsAudioUnlessTheAnswerAsks() async throws {
        let h = await Harness(supportsVideo: true, answersWithVideo: false)
        await h.invite(call, "c1", video: true)
        await h.invite(FakeCall(id: 2), "c2", video: true)
        #expect(reportedNewCalls(h.provider).map(\.hasVideo) == [false, false])
        try await h.core.answerCall(uuid: uuid)
        try await h.core.answerCall(uuid: CallIdentity.uuid(forSIPCallID: "c2"), video: true)
        #expect(h.engine.log == ["ring #1", "ring #2", "answer #1", "answer #2 video"])
    }

    @Test func anAnswerCanDeclineTheVideoOfOneCall() async throws {
        let h = await Harness(supportsVideo: true)
        await h.invite(call, "c1", video: true)
        try await h.core.answerCall(uuid: uuid, video: false)
        #expect(h.engine.log == ["ring #1", "answer #1"])
        // Shown as video until the media event says the call has none.
        await h.core.process(.mediaChanged(call: call, hasVideo: false))
        #expect(h.provider.updates.map(\.1.hasVideo) == [false])
    }

    // MARK: Incoming: pushes

    @Test func aVideoPushIsShownAsVideoOnlyWhenVideoCallsAreAnsweredWithVideo() async {
        for (supports, answers, shown) in [(false, true, false), (true, false, false), (true, true, true)] {
            let h = await Harness(supportsVideo: supports, answersWithVideo: answers)
            _ = await h.push("c1", video: true)
            _ = await h.push("c2", video: false)
            #expect(reportedNewCalls(h.provider).map(\.hasVideo) == [shown, false], "supportsVideo \(supports), answersWithVideo \(answers)")
        }
    }

    @Test func theInvitesOfferCorrectsWhatThePushSaid() async {
        let h = await Harness(supportsVideo: true)
        _ = await h.push("c1", video: true)
        _ = await h.push("c2", video: false)
        await h.invite(call, "c1", video: false)
        await h.invite(FakeCall(id: 2), "c2", video: true)
        let second = CallIdentity.uuid(forSIPCallID: "c2")
        #expect(h.provider.updates.map(\.0) == [uuid, second])
        #expect(h.provider.updates.map(\.1.hasVideo) == [false, true])
        #expect(await h.core.call(uuid)?.offersVideo == false)
        #expect(await h.core.call(second)?.offersVideo == true)
    }

    @Test func anAnswerTappedBeforeTheInviteKeepsItsVideoChoiceAndTheInviteDecides() async throws {
        let h = await Harness(supportsVideo: true, answersWithVideo: false)
        _ = await h.push("c1", video: true)
        _ = await h.push("c2", video: true)
        let second = CallIdentity.uuid(forSIPCallID: "c2")
        let first = Task { try await h.core.answerCall(uuid: uuid, video: true) }
        let other = Task { try await h.core.answerCall(uuid: second, video: true) }
        await eventually("both answers wait for their INVITE") {
            let first = await h.core.pendingActionCount(for: uuid)
            let other = await h.core.pendingActionCount(for: second)
            return first == 1 && other == 1
        }
        await h.invite(call, "c1", video: true)
        await h.invite(FakeCall(id: 2), "c2", video: false)
        try await first.value
        try await other.value
        #expect(h.engine.log == ["answer #1 video", "answer #2"])
    }

    // MARK: Adding and removing video

    @Test func setVideoDrivesTheEngineAndTheCallUIFollowsTheMediaEvents() async throws {
        let h = await Harness(supportsVideo: true)
        await h.invite(call, "c1")
        try await h.core.answerCall(uuid: uuid)
        try await h.core.setVideo(uuid: uuid, enabled: true)
        #expect(h.provider.updates.isEmpty, "nothing is shown before the engine reports the media")
        await h.core.process(.mediaChanged(call: call, hasVideo: true))
        try await h.core.setVideo(uuid: uuid, enabled: false)
        await h.core.process(.mediaChanged(call: call, hasVideo: false))
        #expect(h.engine.log == ["ring #1", "answer #1", "video #1 on", "video #1 off"])
        #expect(h.provider.updates.map(\.1.hasVideo) == [true, false])
    }

    @Test func setVideoOnACallWithoutEngineCallOrUnknownFailsTyped() async {
        let h = await Harness(supportsVideo: true)
        _ = await h.push("c1", video: true)
        await #expect(throws: CallOrchestratorError.callNotReady(uuid)) { try await h.core.setVideo(uuid: uuid, enabled: true) }
        let unknown = UUID()
        await #expect(throws: CallOrchestratorError.unknownCall(unknown)) { try await h.core.setVideo(uuid: unknown, enabled: true) }
    }

    @Test func anEngineRefusalOfVideoIsAnEngineFailure() async {
        let h = await Harness(supportsVideo: true)
        await h.invite(call, "c1")
        h.engine.fail("video")
        await #expect(throws: CallOrchestratorError.engine(FakeFailure(operation: "video #1 on"))) {
            try await h.core.setVideo(uuid: uuid, enabled: true)
        }
    }
}
