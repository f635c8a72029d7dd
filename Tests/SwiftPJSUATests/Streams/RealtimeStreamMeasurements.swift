import Foundation
import PJSUATestSupport
@testable import SwiftPJSUA
import Testing

/// The OpenAI Realtime path's costs (Performance.md, MediaStreams.md): CPU per streamed
/// call-second and how soon an answer's audio is heard. Not a pass/fail test: it prints figures,
/// and runs only with SWIFT_PJSUA_MEASURE_REALTIME=1. Written against the public API only, so
/// that it ran unchanged on the AI-port path before that was removed.
extension MediaStreamTests {
    @Test(.enabled(if: ProcessInfo.processInfo.environment["SWIFT_PJSUA_MEASURE_REALTIME"] == "1"))
    func measureRealtimeStreamCPUAndAnswerLatency() async throws {
        let calls = 3, seconds = 5
        let echo = try await StreamAgent(name: "stream-agent-realtime-echo", script: #"[{"sleep": 60}]"#, echo: true, realtime: true)
        defer { echo.stop() }
        // pjsua loops every call's audio back (--auto-loop): what the stream plays comes back to
        // the engine, where a frame tap hears it.
        let app = try await PjsuaApp(name: "pjsua-app-realtime-loop", arguments: ["--auto-answer=200", "--auto-loop"], linger: 60)
        defer { app.stop() }
        try await withStreamingEngine { phone, _, log in
            var active: [PJSUA.Call] = []
            for _ in 0..<calls {
                let call = try await phone.makeCall(to: PJSUA.SIPURI(app.uri()))
                try await log.mediaActive(call)
                active.append(call)
            }
            try await Task.sleep(for: .seconds(1))
            var before = cpuMilliseconds()
            try await Task.sleep(for: .seconds(seconds))
            let idle = cpuMilliseconds() - before
            var streams: [PJSUA.MediaStream] = []
            for call in active {
                streams.append(try await phone.stream(call, to: echo.url(path: "/v1/realtime"), protocol: .openAIRealtime,
                                                      options: .init(authorizationToken: "sk-local")))
            }
            try await Task.sleep(for: .seconds(1))
            before = cpuMilliseconds()
            try await Task.sleep(for: .seconds(seconds))
            let streaming = cpuMilliseconds() - before
            for stream in streams { await phone.stopStream(stream) }
            let perCallSecond = (streaming - idle) / Double(calls * seconds)
            print("MEASURE realtime cpu: idle \(idle) ms, streaming \(streaming) ms over \(seconds) s x \(calls) calls: \(perCallSecond) ms CPU per streamed call-second")

            // Latency: the agent sends a 1 s answer; the tap hears it come back through pjsua's loop.
            var latencies: [Double] = [], played: [Double] = []
            for round in 0..<5 {
                let agent = try await StreamAgent(name: "stream-agent-realtime-latency-\(round)",
                                                  script: #"[{"afterAudio": 300}, {"answer": {"hz": 1000, "ms": 1000, "chunkMs": 100, "beta": true}}, {"sleep": 5}]"#,
                                                  realtime: true)
                defer { agent.stop() }
                let call = active[0]
                let tap = try await phone.receiveAudio(from: call, format: .init(sampleRate: .hz16000), bufferingNewest: 500)
                // Heard: when the tap's consumer, waiting on every frame, has the first loud one.
                let heard = Task { () -> Double? in
                    for await frame in tap where frame.rmsLevel > 0.1 { return monotonicSeconds() }
                    return nil
                }
                let stream = try await phone.stream(call, to: agent.url(path: "/v1/realtime"), protocol: .openAIRealtime,
                                                    options: .init(authorizationToken: "sk-local"))
                // The engine's own side: when the answer's first samples left the playback queue.
                var firstPlayed: Double?
                let deadline = ContinuousClock.now + .seconds(3)
                while firstPlayed == nil, ContinuousClock.now < deadline {
                    if stream.statistics.playedMilliseconds > 0 { firstPlayed = monotonicSeconds() }
                    try await Task.sleep(for: .milliseconds(1))
                }
                try await agent.waitFor("\"firstDelta\"")
                let timeout = Task {
                    try await Task.sleep(for: .seconds(3))
                    await phone.stopReceiving(tap)
                }
                let heardAt = await heard.value
                timeout.cancel()
                await phone.stopReceiving(tap)
                await phone.stopStream(stream)
                let sent = agent.records.first { $0["firstDelta"] != nil }?["t"] as? Double
                if let heardAt, let sent { latencies.append((heardAt - sent) * 1000) }
                if let firstPlayed, let sent { played.append((firstPlayed - sent) * 1000) }
                try await Task.sleep(for: .milliseconds(300))
            }
            print("MEASURE realtime latency (first delta sent -> heard back through the pjsua loop), ms: \(latencies.map { Int($0.rounded()) })")
            print("MEASURE realtime latency (first delta sent -> first samples played into the bridge, 1 ms polling), ms: \(played.map { Int($0.rounded()) })")
            for call in active { try await phone.hangUp(call) }
        }
    }
}

/// CPU time (user + system) this process has used, in milliseconds.
private func cpuMilliseconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000 + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1000
}
