import Foundation
import PJSUATestSupport
@testable import SwiftPJSUA
@testable import SwiftPJSUAStreams
import Testing

/// The mark report named `name`, once it came back played.
private func markPlayed(_ events: StreamEvents, _ name: String) async throws -> PJSUA.MediaStream.MarkReport {
    try await events.first("mark \(name)") { event -> PJSUA.MediaStream.MarkReport? in
        if case let .markPlayed(report) = event, report.name == name { return report }
        return nil
    }
}

@Suite("Media stream playback queue trim after stalls (Options.trimsStandingQueue), against a Python agent", .serialized)
struct MediaStreamTrimTests {
    /// 200 ms at once (a lead the agent chose), 1 s at the real-time rate, a 500 ms stall (the
    /// lead runs out, then 300 ms of silence plays), the 500 ms it owed at once, then 2 s more at
    /// the real-time rate and a mark: the queue stands 500 ms deep, 300 ms of it the stall's.
    static let stallThenRealTime = #"[{"tone":{"hz":1000,"ms":200,"chunkMs":20}},{"tone":{"hz":1000,"ms":1000,"chunkMs":20,"paced":true}},"#
        + #"{"sleep":0.5},{"tone":{"hz":1000,"ms":500,"chunkMs":20}},{"tone":{"hz":1000,"ms":2000,"chunkMs":20,"paced":true}},"#
        + #"{"mark":"end"},{"sleep":1.5}]"#

    @Test(arguments: [true, false])
    func aStallFollowedByRealTimeAudioIsTrimmedByAtMostTheStallsSilenceOnlyWhenAskedAndMarksCountWhatPlayed(trims: Bool) async throws {
        let agent = try await StreamAgent(name: "stream-agent-trim-\(trims)", script: Self.stallThenRealTime)
        defer { agent.stop() }
        try await withStreamingEngine { phone, _, log in
            let (child, call) = try await callSoftphonePlayingTone(phone, log, ["--exit-after", "1"], name: "softphone-stream-trim-\(trims)")
            defer { child.stop() }
            let stream = try await phone.stream(call, to: agent.url(), options: .init(trimsStandingQueue: trims))
            let events = StreamEvents(stream)
            let end = try await markPlayed(events, "end")
            try await agent.waitFor("\"name\": \"end\"")
            let statistics = stream.statistics
            #expect(statistics.underruns >= 1, "\(statistics)")
            // Nothing was lost but what the trim took, and the mark counts only what played.
            #expect(statistics.playedMilliseconds + statistics.trimmedMilliseconds == 3700, "\(statistics)")
            #expect(end.playedMilliseconds == statistics.playedMilliseconds, "\(end) \(statistics)")
            let sent = try #require(agent.sentTime("mark", "end"))
            let echo = try #require(agent.received.first { ($0.message["mark"] as? [String: Any])?["name"] as? String == "end" })
            if trims {
                // The stall's 300 ms of silence taken back (give or take a frame at its edges),
                // the agent's own 200 ms lead left alone: never more than the silence played.
                // That is more than the stall's when the agent's own pacing ran late on a busy
                // machine (340 ms trimmed once), so it is read, not assumed.
                #expect(statistics.trimmedMilliseconds >= 260, "\(statistics)")
                #expect(statistics.trimmedMilliseconds <= statistics.underrunSilenceMilliseconds, "\(statistics)")
                #expect((0.1...0.32).contains(echo.t - sent), "the mark came back \(echo.t - sent) s after the audio before it was sent")
            } else {
                #expect(statistics.trimmedMilliseconds == 0, "\(statistics)")
                #expect(statistics.underrunSilenceMilliseconds >= 280, "the stall's silence: \(statistics)")
                #expect(echo.t - sent > 0.4, "the mark came back \(echo.t - sent) s after the audio before it was sent")
            }
            try await phone.hangUp(call)
            _ = try await events.ending()
        }
    }

    @Test func aBurstAfterAStallIsNeverTrimmed() async throws {
        // A stall (owed silence), then 2 s sent at once: it drains a frame a tick, never standing.
        // The mark before the burst splits what played: the burst must play whole. The paced
        // 500 ms before it plays whole too unless the agent's own pacing stalled (a machine
        // loaded as in s16r5's ASan pass: two underruns), when its standing frame may be
        // trimmed as the option says; whatever was trimmed must then be from before the burst.
        let script = #"[{"tone":{"hz":1000,"ms":500,"chunkMs":20,"paced":true}},{"sleep":0.3},{"mark":"burst"},"#
            + #"{"tone":{"hz":1000,"ms":2000,"chunkMs":100}},{"mark":"end"},{"sleep":1}]"#
        let agent = try await StreamAgent(name: "stream-agent-trim-burst", script: script)
        defer { agent.stop() }
        try await withStreamingEngine { phone, _, log in
            let (child, call) = try await callSoftphonePlayingTone(phone, log, ["--exit-after", "1"], name: "softphone-stream-trim-burst")
            defer { child.stop() }
            let stream = try await phone.stream(call, to: agent.url(), options: .init(trimsStandingQueue: true))
            let events = StreamEvents(stream)
            let burst = try await markPlayed(events, "burst")
            let end = try await markPlayed(events, "end")
            let statistics = stream.statistics
            #expect(end.playedMilliseconds - burst.playedMilliseconds == 2000, "the burst played whole: \(burst) \(end)")
            #expect(statistics.underruns >= 1 && statistics.trimmedMilliseconds == 500 - burst.playedMilliseconds, "\(burst) \(statistics)")
            #expect(statistics.trimmedMilliseconds == 0 || statistics.underruns >= 2, "a trim only after a stall of the paced part: \(statistics)")
            #expect(statistics.playedMilliseconds == end.playedMilliseconds, "\(end) \(statistics)")
            try await phone.hangUp(call)
            _ = try await events.ending()
        }
    }
}
