import Foundation
import Testing
@testable import SwiftPJSUAKit

@Suite("Orchestrator: push and INVITE racing")
struct PushInviteRaceTests {
    @Test func concurrentPushesAndInvitesGiveExactlyOneReportPerCall() async {
        let h = await Harness()
        let calls = 200
        let outcomes = await withTaskGroup(of: PushOutcome?.self) { group in
            for index in 0..<calls {
                let sipCallID = "race-\(index)"
                group.addTask { await h.push(sipCallID) }
                group.addTask { await h.invite(FakeCall(id: index), sipCallID); return nil }
                group.addTask { await h.push(sipCallID) }
                group.addTask { await h.invite(FakeCall(id: index), sipCallID); return nil }
            }
            var all: [PushOutcome] = []
            for await outcome in group { if let outcome { all.append(outcome) } }
            return all
        }
        let expected = Set((0..<calls).map { CallIdentity.uuid(forSIPCallID: "race-\($0)") })
        let reported = h.provider.newIncomingUUIDs
        let callReports = reported.filter { expected.contains($0) }
        #expect(callReports.count == calls)
        #expect(Set(callReports) == expected)
        // Every push was reported: the one that arrived before anything else of its call as the
        // call itself, each later one (a duplicate, or after the INVITE) as a placeholder, ended
        // at once. How many of each depends on the race; their sum does not.
        let placeholders = reported.filter { !expected.contains($0) }
        let firstReports = outcomes.filter { if case .reportedNewCall = $0 { true } else { false } }.count
        let repeats = outcomes.filter { if case .repeatedCall = $0 { true } else { false } }.count
        #expect(outcomes.count == 2 * calls)
        #expect(firstReports + repeats == 2 * calls)
        #expect(placeholders.count == repeats)
        #expect((calls...(2 * calls)).contains(placeholders.count))
        #expect(Set(h.provider.endings.map(\.0)) == Set(placeholders))
        #expect(h.provider.refusedCount == 0)
        let live = await h.core.liveCalls
        #expect(live.count == calls)
        #expect(live.allSatisfy { $0.handle?.id == Int($0.sipCallID?.dropFirst(5) ?? "") })
        #expect(h.engine.count("ring") == calls)
        #expect(h.engine.count("reject") == 0)
    }

    @Test func concurrentAnswersQueuedBeforeRacingInvitesAllConnect() async throws {
        let h = await Harness()
        let calls = 100
        for index in 0..<calls { _ = await h.push("q-\(index)") }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<calls {
                let uuid = CallIdentity.uuid(forSIPCallID: "q-\(index)")
                group.addTask { try await h.core.answerCall(uuid: uuid) }
                group.addTask { await h.invite(FakeCall(id: index), "q-\(index)") }
            }
            try await group.waitForAll()
        }
        #expect(h.engine.count("answer") == calls)
        #expect(Set(h.engine.log.filter { $0.hasPrefix("answer") }).count == calls)
    }

    @Test func inviteStreamAndPushPathRacingThroughTheEventPump() async {
        let h = await Harness()
        let calls = 100
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<calls {
                group.addTask { _ = await h.push("s-\(index)") }
                group.addTask {
                    h.engine.emit(.incomingCall(call: FakeCall(id: index), sipCallID: "s-\(index)", from: "sip:x", offeredVideo: false))
                }
            }
        }
        await eventually("every call has its handle") {
            await h.core.liveCalls.filter { $0.handle != nil }.count == calls
        }
        #expect(h.provider.newIncomingUUIDs.count == calls)
    }
}
