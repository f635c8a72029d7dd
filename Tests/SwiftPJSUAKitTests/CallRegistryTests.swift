import Foundation
import Testing
@testable import SwiftPJSUAKit

@Suite("Call registry: one logical call whatever the order")
struct CallRegistryTests {
    private let a = FakeCall(id: 1)
    private let b = FakeCall(id: 2)

    @Test func pushThenInviteGiveOneCallWithTheCallIDUUID() throws {
        var registry = CallRegistry<FakeCall>()
        guard case let .newCall(pushed) = registry.notePush(VoIPPushPayload(sipCallID: "c1", hasVideo: true)) else {
            Issue.record("first push is not a new call")
            return
        }
        guard case let .matchedPush(matched) = registry.noteInvite(handle: a, sipCallID: "c1", from: "sip:x") else {
            Issue.record("INVITE did not match the push")
            return
        }
        #expect(pushed.uuid == CallIdentity.uuid(forSIPCallID: "c1"))
        #expect(matched.uuid == pushed.uuid)
        #expect(matched.handle == a)
        #expect(!pushed.update.hasVideo, "the engine answers audio-only: a push offering video is not a video call")
        #expect(!matched.update.hasVideo)
        #expect(registry.liveCalls.count == 1)
        #expect(registry.call(handle: a)?.uuid == pushed.uuid)
    }

    @Test func inviteThenPushGiveOneCallAndThePushIsARepeat() {
        var registry = CallRegistry<FakeCall>()
        guard case let .newCall(call) = registry.noteInvite(handle: a, sipCallID: "c1", from: "sip:x") else {
            Issue.record("INVITE is not a new call")
            return
        }
        guard case let .repeated(repeated) = registry.notePush(VoIPPushPayload(sipCallID: "c1", uuid: UUID())) else {
            Issue.record("push after the INVITE is not a repeat")
            return
        }
        #expect(repeated.uuid == call.uuid, "the INVITE's UUID stays; the push's UUID came too late")
        #expect(repeated.announcedByPush)
        #expect(registry.liveCalls.count == 1)
    }

    @Test func serverUUIDInThePushBecomesTheCallUUID() {
        var registry = CallRegistry<FakeCall>()
        let server = UUID()
        _ = registry.notePush(VoIPPushPayload(sipCallID: "c1", uuid: server))
        _ = registry.noteInvite(handle: a, sipCallID: "c1", from: "sip:x")
        #expect(registry.call(handle: a)?.uuid == server)
    }

    @Test func duplicatePushesAreRepeats() {
        var registry = CallRegistry<FakeCall>()
        _ = registry.notePush(VoIPPushPayload(sipCallID: "c1"))
        guard case .repeated = registry.notePush(VoIPPushPayload(sipCallID: "c1")) else {
            Issue.record("second push is not a repeat")
            return
        }
        #expect(registry.liveCalls.count == 1)
    }

    @Test func sameHandleTwiceIsARetransmissionAndANewHandleIsADuplicateLeg() {
        var registry = CallRegistry<FakeCall>()
        _ = registry.noteInvite(handle: a, sipCallID: "c1", from: "sip:x")
        guard case .retransmission = registry.noteInvite(handle: a, sipCallID: "c1", from: "sip:x") else {
            Issue.record("same handle is not a retransmission")
            return
        }
        guard case .duplicateLeg = registry.noteInvite(handle: b, sipCallID: "c1", from: "sip:x") else {
            Issue.record("second handle is not a duplicate leg")
            return
        }
        #expect(registry.liveCalls.count == 1)
    }

    @Test func cancellingPushForAnUnknownCallIsReportedEndedAndItsLateInviteRefused() {
        var registry = CallRegistry<FakeCall>()
        let sighting = registry.notePush(VoIPPushPayload(sipCallID: "c1", isCancelled: true))
        #expect(sighting == .cancelledUnknownCall(uuid: CallIdentity.uuid(forSIPCallID: "c1"), update: CallUpdate()))
        guard case .alreadyEnded = registry.noteInvite(handle: a, sipCallID: "c1", from: "sip:x") else {
            Issue.record("late INVITE was not refused")
            return
        }
        #expect(registry.liveCalls.isEmpty)
    }

    @Test func cancellingPushEndsAPushedCallWithoutInvite() {
        var registry = CallRegistry<FakeCall>()
        _ = registry.notePush(VoIPPushPayload(sipCallID: "c1"))
        guard case .cancelledKnownCall = registry.notePush(VoIPPushPayload(sipCallID: "c1", isCancelled: true)) else {
            Issue.record("cancelling push did not end the call")
            return
        }
        #expect(registry.liveCalls.isEmpty)
        #expect(registry.endedCall(CallIdentity.uuid(forSIPCallID: "c1"))?.reason == .unanswered)
    }

    @Test func pushForACallThatAlreadyEndedKeepsItsUUIDAndReason() {
        var registry = CallRegistry<FakeCall>()
        guard case let .newCall(call) = registry.noteInvite(handle: a, sipCallID: "c1", from: "sip:x") else {
            Issue.record("INVITE is not a new call")
            return
        }
        registry.end(call.uuid, reason: .unanswered)
        guard case let .alreadyEnded(uuid, _, reason) = registry.notePush(VoIPPushPayload(sipCallID: "c1", uuid: UUID())) else {
            Issue.record("late push not recognised")
            return
        }
        #expect(uuid == call.uuid)
        #expect(reason == .unanswered)
    }

    @Test func hasVideoChangesOnlyWhenTheMediaDoes() {
        var registry = CallRegistry<FakeCall>()
        guard case let .newCall(call) = registry.noteInvite(handle: a, sipCallID: "c1", from: "sip:x") else {
            Issue.record("INVITE is not a new call")
            return
        }
        #expect(!call.update.hasVideo)
        #expect(registry.setHasVideo(false, for: call.uuid) == nil, "no change, nothing to report")
        #expect(registry.setHasVideo(true, for: call.uuid)?.update.hasVideo == true)
        #expect(registry.call(call.uuid)?.update.hasVideo == true)
        #expect(registry.setHasVideo(true, for: call.uuid) == nil)
        #expect(registry.setHasVideo(true, for: UUID()) == nil)
    }

    @Test func outgoingCallAttachesItsHandleAndLearnsItsCallID() {
        var registry = CallRegistry<FakeCall>()
        let uuid = UUID()
        let first = registry.beginOutgoing(uuid: uuid, destination: "sip:bob@example.com")
        let second = registry.beginOutgoing(uuid: uuid, destination: "sip:bob@example.com")
        let attached = registry.attach(handle: a, to: uuid)
        #expect(first)
        #expect(!second)
        #expect(attached?.handle == a)
        registry.learnSIPCallID("out-1", for: uuid)
        #expect(registry.call(sipCallID: "out-1")?.uuid == uuid)
        guard case .duplicateLeg = registry.noteInvite(handle: b, sipCallID: "out-1", from: "sip:x") else {
            Issue.record("an INVITE looping back with our own Call-ID was not a duplicate")
            return
        }
    }

    @Test func endedCallMemoryIsBounded() {
        var registry = CallRegistry<FakeCall>(endedCallMemory: 2)
        for index in 0..<3 {
            _ = registry.noteInvite(handle: FakeCall(id: index), sipCallID: "c\(index)", from: "x")
            registry.end(CallIdentity.uuid(forSIPCallID: "c\(index)"), reason: .remoteEnded)
        }
        let oldest = registry.endedCall(CallIdentity.uuid(forSIPCallID: "c0"))
        let newest = registry.endedCall(CallIdentity.uuid(forSIPCallID: "c2"))
        #expect(oldest == nil)
        #expect(newest != nil)
    }
}
