import CPJSUAStreams
import CPJSUASupport
import Foundation
import PJSUATestSupport
@testable import SwiftPJSUA
@testable import SwiftPJSUAStreams
import Synchronization
import Testing

/// The events a media stream reported, collected as they come.
final class StreamEvents: Sendable {
    private let events = Mutex<[PJSUA.MediaStream.Event]>([])

    init(_ stream: PJSUA.MediaStream) {
        let sequence = stream.events
        Task { [weak self] in
            for await event in sequence { self?.events.withLock { $0.append(event) } }
        }
    }

    var all: [PJSUA.MediaStream.Event] { events.withLock { $0 } }

    func first<T>(_ what: String, timeout: Duration = .seconds(10), _ match: (PJSUA.MediaStream.Event) -> T?) async throws -> T {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            if let value = all.lazy.compactMap(match).first { return value }
            if ContinuousClock.now >= deadline { throw TimedOut(what: "\(what); events so far: \(all)") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    func ending(timeout: Duration = .seconds(10)) async throws -> PJSUA.MediaStream.Ending {
        try await first("the stream's end", timeout: timeout) { event in
            if case let .ended(ending) = event { return ending }
            return nil
        }
    }
}

/// The code of the engine error `body` throws; nil when it throws none (or another error).
func errorCode(_ body: () async throws -> Any) async -> PJSUAError.Code? {
    do {
        _ = try await body()
        return nil
    } catch let error as PJSUAError {
        return error.code
    } catch {
        return nil
    }
}

/// Decodes base64 mu-law (a `media` payload) into samples.
func mulawSamples(_ payload: String) -> [Int16] {
    var out = [Int16](repeating: 0, count: payload.utf8.count)
    let count = payload.withCString { cpjsua_ulaw_base64_decode($0, UInt32(payload.utf8.count), &out, UInt32(out.count)) }
    return Array(out.prefix(max(0, Int(count))))
}

/// A pjsua app that answers and plays a 600 Hz tone into the call, with `console` steps.
func tonePlayingPjsuaApp(_ name: String, console: [PjsuaApp.Step] = []) async throws -> PjsuaApp {
    let directory = try temporaryDirectory()
    try WAVFile.tone(frequency: 600, duration: .seconds(2), sampleRate: 8000).write(to: directory + "/tone.wav")
    let arguments = ["--auto-answer=200", "--play-file=\(directory)/tone.wav", "--auto-play", "--auto-loop"]
    return try await PjsuaApp(name: name, arguments: arguments, console: console, linger: 15)
}

/// pjsua app console steps that key `digits` once (RFC 2833), as soon as `gate` is opened: the
/// test opens it once the stream is up, so that every digit is keyed while the agent listens.
func digitRound(_ digits: String, when gate: PjsuaApp.Gate) -> [PjsuaApp.Step] {
    [.when(gate, "#"), .init(after: 0.2, digits)]
}

/// pjsua app console steps that key `digits` three times, 2 s apart, from 3 s after it started.
func digitRounds(_ digits: String) -> [PjsuaApp.Step] {
    [.init(after: 3.0, "#"), .init(after: 0.2, digits), .init(after: 2.0, "#"), .init(after: 0.2, digits),
     .init(after: 2.0, "#"), .init(after: 0.2, digits)]
}

/// The tone frequency and duration (20 ms windows above `level`) of a recording.
func toneSpan(_ file: WAVFile, level: Double = 0.05) -> (frequency: Double, milliseconds: Int) {
    let window = file.sampleRate / 50
    let loud = stride(from: 0, to: file.samples.count - window, by: window).compactMap { start -> [Int16]? in
        let slice = Array(file.samples[start..<start + window])
        return WAVFile(sampleRate: file.sampleRate, samples: slice).rmsLevel > level ? slice : nil
    }
    let joined = WAVFile(sampleRate: file.sampleRate, samples: loud.flatMap { $0 })
    return ((try? joined.dominantFrequency(in: 200...3000, step: 5)) ?? 0, loud.count * 20)
}

/// A far end's receiving jitter buffer, as softphone's stats line reports it.
typealias FarEndJitterBuffer = (emptyReads: Int, lostMs: Int, discardedMs: Int)

/// What a softphone child's receiving jitter buffer did over its call so far, from its last
/// `stats` line (`--stats-interval`): read once it printed `after` more lines than it had when
/// this was called, at most `timeout` later (nil if none came).
func farEndJitterBuffer(_ child: ChildProcess, after lines: Int = 2,
                        timeout: Duration = .seconds(10)) async throws -> FarEndJitterBuffer? {
    let stats = { jsonLines(child.output).filter { $0["event"] as? String == "stats" } }
    let wanted = stats().count + lines
    let deadline = ContinuousClock.now.advanced(by: timeout)
    while stats().count < wanted, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
    guard let last = stats().last, let empty = last["jbEmptyReads"] as? Int, let lost = last["jbLostMs"] as? Int,
          let discarded = last["jbDiscardedMs"] as? Int else { return nil }
    return (empty, lost, discarded)
}

/// The loud milliseconds (``toneSpan(_:level:)``) a far end can record of `expected` ms of tone,
/// give or take a frame at each edge, when its jitter buffer did what `farEnd` says: audio lost
/// or discarded is not heard, and each empty read may have played a loud frame of concealment
/// before the late audio (a busy machine's stalls on either side show there).
func heardTone(_ expected: Int, farEnd: FarEndJitterBuffer) -> ClosedRange<Int> {
    (expected - 40 - farEnd.lostMs - farEnd.discardedMs)...(expected + 40 + 20 * farEnd.emptyReads)
}

@Suite("Media streams to a WebSocket agent (Twilio Media Streams), against a Python agent", .serialized)
struct MediaStreamTests {
    @Test func theAgentGetsConnectedStartAndConsecutivelyNumberedMediaOfTheCallersToneThenStopOnHangUp() async throws {
        let agent = try await StreamAgent(name: "stream-agent-protocol")
        defer { agent.stop() }
        let app = try await tonePlayingPjsuaApp("pjsua-app-stream-protocol")
        defer { app.stop() }
        try await withStreamingEngine { phone, _, log in
            let call = try await phone.makeCall(to: PJSUA.SIPURI(app.uri()))
            try await log.mediaActive(call)
            let options = PJSUA.MediaStream.Options(headers: ["Authorization": "Bearer s3cret"],
                                                    customParameters: ["caller": "alice", "quote": "say \"hi\""])
            let stream = try await phone.stream(call, to: agent.url(path: "/agent?tenant=7"), options: options)
            let events = StreamEvents(stream)
            try await Task.sleep(for: .milliseconds(1500))
            try await phone.hangUp(call)
            #expect(try await events.ending().reason == .callEnded)
            try await agent.waitFor("\"closed\"")

            let handshake = agent.records.compactMap { $0["handshake"] as? [String: Any] }.first
            #expect(handshake?["path"] as? String == "/agent?tenant=7")
            #expect((handshake?["headers"] as? [String: Any])?["Authorization"] as? String == "Bearer s3cret")
            let messages = agent.received.map(\.message)
            let names = messages.compactMap { $0["event"] as? String }
            #expect(names.first == "connected" && messages.first?["sequenceNumber"] == nil)
            #expect(names.dropFirst().first == "start" && names.last == "stop", "\(Set(names))")
            let start = messages.dropFirst().first?["start"] as? [String: Any]
            #expect(start?["streamSid"] as? String == stream.streamSID && messages.dropFirst().first?["streamSid"] as? String == stream.streamSID)
            #expect(start?["callSid"] as? String == stream.callSID && !stream.callSID.isEmpty)
            #expect(start?["customParameters"] as? [String: String] == ["caller": "alice", "quote": "say \"hi\""])
            let format = start?["mediaFormat"] as? [String: Any]
            #expect(format?["encoding"] as? String == "audio/x-mulaw" && format?["sampleRate"] as? Int == 8000 && format?["channels"] as? Int == 1)
            // Every message after `connected` is numbered 1, 2, 3... in the order it arrived.
            let numbers = messages.dropFirst().compactMap { ($0["sequenceNumber"] as? String).flatMap { Int($0) } }
            #expect(numbers == Array(1...(messages.count - 1)))
            let media = messages.filter { $0["event"] as? String == "media" }.compactMap { $0["media"] as? [String: Any] }
            #expect((70...80).contains(media.count), "\(media.count) media messages in 1.5 s")
            #expect(media.compactMap { ($0["chunk"] as? String).flatMap { Int($0) } } == Array(1...media.count))
            let stamps = media.compactMap { ($0["timestamp"] as? String).flatMap { Int($0) } }
            #expect(zip(stamps, stamps.dropFirst()).allSatisfy { $1 - $0 == 20 }, "\(stamps.prefix(10))")
            let samples = media.suffix(40).flatMap { mulawSamples($0["payload"] as? String ?? "") }
            #expect(samples.count == 40 * 160)
            let heard = WAVFile(sampleRate: 8000, samples: samples)
            #expect(abs(try heard.dominantFrequency(in: 200...3000, step: 5) - 600) <= 10 && heard.rmsLevel > 0.05)
            let stop = messages.last?["stop"] as? [String: Any]
            #expect(stop?["callSid"] as? String == stream.callSID)
        }
    }

    @Test func agentAudioPlaysGaplesslyAndMarksComeBackOnlyOnceTheAudioBeforeThemHasPlayed() async throws {
        let directory = try temporaryDirectory()
        let script = #"[{"tone":{"hz":1000,"ms":1000,"chunkMs":100}},{"mark":"one"},{"tone":{"hz":1000,"ms":500,"chunkMs":20}},{"mark":"two"},{"sleep":2}]"#
        let agent = try await StreamAgent(name: "stream-agent-marks", script: script)
        defer { agent.stop() }
        var farEnd: FarEndJitterBuffer?
        try await withStreamingEngine { phone, _, log in
            let (child, call) = try await callSoftphonePlayingTone(phone, log, ["--record-dir", directory, "--exit-after", "1",
                                                                                "--stats-interval", "0.2"],
                                                                   name: "softphone-stream-marks")
            defer { child.stop() }
            let stream = try await phone.stream(call, to: agent.url())
            let events = StreamEvents(stream)
            let one = try await events.first("mark one") { event -> PJSUA.MediaStream.MarkReport? in
                if case let .markPlayed(report) = event, report.name == "one" { return report }
                return nil
            }
            let two = try await events.first("mark two") { event -> PJSUA.MediaStream.MarkReport? in
                if case let .markPlayed(report) = event, report.name == "two" { return report }
                return nil
            }
            #expect(one.playedMilliseconds == 1000 && two.playedMilliseconds == 1500, "\(one) \(two)")
            try await agent.waitFor("\"name\": \"two\"")
            // The agent sent all 1.5 s at once: each echo came when its audio had played, not when
            // the mark arrived.
            let echoes = agent.received.filter { $0.message["event"] as? String == "mark" }
            let sentOne = try #require(agent.sentTime("mark", "one"))
            let echoOne = try #require(echoes.first { ($0.message["mark"] as? [String: Any])?["name"] as? String == "one" })
            #expect(echoOne.t - sentOne > 0.8, "mark one echoed \(echoOne.t - sentOne) s after it was sent")
            #expect(echoes.allSatisfy { ($0.message["mark"] as? [String: Any])?["cleared"] == nil })
            try await Task.sleep(for: .milliseconds(100))  // a tick or more after the last frame: the queue ran dry
            #expect(stream.statistics.underruns == 1 && stream.statistics.playedMilliseconds == 1500, "\(stream.statistics)")
            farEnd = try await farEndJitterBuffer(child)
            try await phone.hangUp(call)
            _ = try await events.ending()
            #expect(try await child.waitForExit() == 0, "\(child.output)")
        }
        let heard = toneSpan(try WAVFile(contentsOf: directory + "/call-1.wav"))
        #expect(abs(heard.frequency - 1000) <= 10, "\(heard)")
        // 1500 ms, give or take the edges and what the far end's jitter buffer made up or
        // dropped (a loaded run recorded 1340 ms: 200 ms faded to zero mid-tone, its packets late).
        let buffer = try #require(farEnd, "the far end printed no stats")
        #expect(heardTone(1500, farEnd: buffer).contains(heard.milliseconds), "the far end heard \(heard.milliseconds) ms of the agent's 1500, its jitter buffer \(buffer)")
    }

    @Test func clearDropsTheQueuedAudioAtOnceAndItsMarksComeBackMarkedCleared() async throws {
        let directory = try temporaryDirectory()
        let script = #"[{"tone":{"hz":1000,"ms":3000,"chunkMs":200}},{"mark":"behind"},{"sleep":1.0},{"clear":true},{"sleep":0.3},{"mark":"fresh"},{"sleep":1}]"#
        let agent = try await StreamAgent(name: "stream-agent-clear", script: script)
        defer { agent.stop() }
        try await withStreamingEngine { phone, _, log in
            let (child, call) = try await callSoftphonePlayingTone(phone, log, ["--record-dir", directory, "--exit-after", "1"],
                                                                   name: "softphone-stream-clear")
            defer { child.stop() }
            let stream = try await phone.stream(call, to: agent.url())
            let events = StreamEvents(stream)
            let clear = try await events.first("the clear") { event -> PJSUA.MediaStream.ClearReport? in
                if case let .cleared(report) = event { return report }
                return nil
            }
            #expect((1700...2300).contains(clear.discardedMilliseconds) && clear.marksCleared == 1, "\(clear)")
            #expect(stream.statistics.queuedMilliseconds == 0)
            let behind = try await events.first("mark behind, cleared") { event -> PJSUA.MediaStream.MarkReport? in
                if case let .markCleared(report) = event { return report }
                return nil
            }
            #expect(behind.name == "behind")
            _ = try await events.first("mark fresh, played") { event -> Bool? in
                if case let .markPlayed(report) = event, report.name == "fresh" { return true }
                return nil
            }
            #expect(!events.all.contains { if case let .markPlayed(report) = $0 { return report.name == "behind" }; return false })
            try await agent.waitFor("\"name\": \"fresh\"")
            let echoes = agent.received.filter { $0.message["event"] as? String == "mark" }
            let behindEcho = try #require(echoes.first { ($0.message["mark"] as? [String: Any])?["name"] as? String == "behind" })
            #expect((behindEcho.message["mark"] as? [String: Any])?["cleared"] as? Bool == true)
            let sentClear = try #require(agent.sentTime("clear"))
            #expect(behindEcho.t - sentClear < 0.1, "the cleared mark came back \(behindEcho.t - sentClear) s after the clear")
            let freshEcho = echoes.first { ($0.message["mark"] as? [String: Any])?["name"] as? String == "fresh" }
            #expect((freshEcho?.message["mark"] as? [String: Any])?["cleared"] == nil)
            try await phone.hangUp(call)
            _ = try await events.ending()
            #expect(try await child.waitForExit() == 0, "\(child.output)")
        }
        let heard = toneSpan(try WAVFile(contentsOf: directory + "/call-1.wav"))
        #expect((800...1300).contains(heard.milliseconds), "the far end heard \(heard.milliseconds) ms: the clear stopped the tone after about 1 s")
    }

    @Test func digitsTheCallerKeysReachTheAgentAsNumberedDTMFMessages() async throws {
        let agent = try await StreamAgent(name: "stream-agent-dtmf")
        defer { agent.stop() }
        // Three rounds, 2 s apart: the app's console runs on its own clock, so on a busy machine
        // the first round may come before the stream is up.
        try await withStreamingEngine { phone, _, log in
            // Started once this test has the engine: its console quits 15 s after the last round,
            // and waiting for the engine's turn could outlast that (the call then ended early).
            let app = try await tonePlayingPjsuaApp("pjsua-app-stream-dtmf", console: digitRounds("12*"))
            defer { app.stop() }
            let call = try await phone.makeCall(to: PJSUA.SIPURI(app.uri()))
            try await log.mediaActive(call)
            let stream = try await phone.stream(call, to: agent.url())
            let events = StreamEvents(stream)
            _ = try await events.first("a round of digits sent", timeout: .seconds(15)) { _ -> Bool? in
                let sent = events.all.compactMap { event -> Character? in
                    if case let .dtmfSent(digit) = event { return digit.digit }
                    return nil
                }
                return String(sent).contains("12*") ? true : nil
            }
            try await agent.waitFor("\"digit\": \"*\"")
            let dtmf = agent.received.map(\.message).filter { $0["event"] as? String == "dtmf" }
            let keyed = dtmf.compactMap { ($0["dtmf"] as? [String: Any])?["digit"] as? String }.joined()
            #expect(keyed.contains("12*"), "\(keyed)")
            #expect(dtmf.allSatisfy { ($0["dtmf"] as? [String: Any])?["track"] as? String == "inbound_track" && $0["streamSid"] as? String == stream.streamSID })
            let numbers = agent.received.map(\.message).dropFirst().compactMap { ($0["sequenceNumber"] as? String).flatMap { Int($0) } }
            #expect(numbers == Array(1...numbers.count), "numbers stay consecutive with DTMF among the media")
            try await phone.hangUp(call)
        }
    }

    @Test func badAndUnknownMessagesAreCountedAndIgnoredAndTheStreamGoesOn() async throws {
        // 20 ms of mu-law silence (160 bytes of 0xFF) as base64, and as a JSON string with its
        // slashes escaped (which the C reader leaves to Foundation's parser: both play).
        let silence = String(repeating: "////", count: 53) + "/w=="
        let escaped = silence.replacingOccurrences(of: "/", with: #"\\/"#)
        let script = #"[{"text":"not json"},{"text":"{\"event\":\"dance\"}"},{"text":"{\"event\":\"media\",\"media\":{}}"},"#
            + #"{"text":"{\"event\":\"media\",\"media\":{\"payload\":\"%%%\"}}"},{"binary":12},{"text":"[1,2]"},{"big":1048576},"#
            + #"{"text":"{ \"media\" : {\"track\":\"outbound\",\"payload\":\"\#(silence)\",\"x\":[1,{\"y\":null},true]},"#
            + #"\"event\":\"media\",\"n\":-1.5e3}"},{"text":"{\"event\":\"media\",\"media\":{\"payload\":\"\#(escaped)\"}}"},"#
            + #"{"tone":{"hz":1000,"ms":200}},{"mark":"still-alive"},{"sleep":1}]"#
        let agent = try await StreamAgent(name: "stream-agent-garbage", script: script)
        defer { agent.stop() }
        let app = try await tonePlayingPjsuaApp("pjsua-app-stream-garbage")
        defer { app.stop() }
        try await withStreamingEngine { phone, _, log in
            let call = try await phone.makeCall(to: PJSUA.SIPURI(app.uri()))
            try await log.mediaActive(call)
            let stream = try await phone.stream(call, to: agent.url())
            let events = StreamEvents(stream)
            _ = try await events.first("mark still-alive") { event -> Bool? in
                if case let .markPlayed(report) = event, report.name == "still-alive" { return true }
                return nil
            }
            let invalid = events.all.compactMap { event -> PJSUA.MediaStream.InvalidMessage? in
                if case let .invalidMessage(message) = event { return message }
                return nil
            }
            // The 1 MiB message is over the 256 KiB limit: skipped unread, counted, the stream goes on.
            #expect(invalid.map(\.reason) == [.notJSON, .unknownEvent, .missingField, .badPayload, .binaryMessage, .notJSON, .tooLarge],
                    "\(invalid)")
            #expect(invalid.last?.detail.contains("1048576 bytes") == true, "\(invalid)")
            #expect(invalid.map(\.count) == Array(1...7))
            #expect(stream.statistics.invalidMessages == 7 && stream.statistics.playedMilliseconds == 240, "\(stream.statistics)")
            #expect(!stream.hasEnded)
            #expect(log.states(of: call).last == .confirmed)
            try await phone.hangUp(call)
        }
    }

    @Test func anAgentThatClosesEndsTheStreamWithItsCodeAndTheCallIsHungUpByDefault() async throws {
        let agent = try await StreamAgent(name: "stream-agent-close", script: #"[{"sleep":0.3},{"close":4000}]"#)
        defer { agent.stop() }
        let app = try await tonePlayingPjsuaApp("pjsua-app-stream-close")
        defer { app.stop() }
        try await withStreamingEngine { phone, _, log in
            let call = try await phone.makeCall(to: PJSUA.SIPURI(app.uri()))
            try await log.mediaActive(call)
            let stream = try await phone.stream(call, to: agent.url())
            let ending = try await StreamEvents(stream).ending()
            #expect(ending.reason == .agentClosed(code: 4000, reason: "agent done") && ending.action == .hangUp, "\(ending)")
            _ = try await log.state(call, .disconnected, timeout: .seconds(5))
        }
    }

    @Test func withKeepCallTheCallOutlivesTheAgentAndCanBeStreamedAgain() async throws {
        let agent = try await StreamAgent(name: "stream-agent-keep", script: #"[{"sleep":0.3},{"close":1000}]"#)
        defer { agent.stop() }
        let app = try await tonePlayingPjsuaApp("pjsua-app-stream-keep")
        defer { app.stop() }
        try await withStreamingEngine { phone, _, log in
            let call = try await phone.makeCall(to: PJSUA.SIPURI(app.uri()))
            try await log.mediaActive(call)
            let stream = try await phone.stream(call, to: agent.url(), options: .init(whenAgentLeaves: .keepCall))
            let ending = try await StreamEvents(stream).ending()
            #expect(ending.reason == .agentClosed(code: 1000, reason: "agent done") && ending.action == .keepCall)
            try await Task.sleep(for: .milliseconds(500))
            #expect(log.states(of: call).last == .confirmed)
            let again = try await phone.stream(call, to: agent.url())
            #expect(again.streamSID != stream.streamSID)
            await phone.stopStream(again)
            #expect(try await StreamEvents(again).ending().reason == .stoppedByApp)
            try await phone.hangUp(call)
        }
    }

    @Test func softphoneAnswerStreamBridgesTheAnsweredCallAndPrintsTheStreamsEvents() async throws {
        let script = #"[{"tone":{"hz":1000,"ms":400}},{"mark":"greeting"},{"waitFor":"dtmf"},{"sleep":0.3}]"#
        let agent = try await StreamAgent(name: "stream-agent-cli", script: script)
        defer { agent.stop() }
        try await withStreamingEngine { phone, _, log in
            let (child, call) = try await callAnsweringSoftphone(phone, log, ["--stream", agent.url(path: "/cli"), "--stream-header", "Authorization: Bearer cli",
                                                                              "--stream-param", "source=softphone", "--clock-rate", "8000",
                                                                              "--codecs", "PCMU"],
                                                                 name: "softphone-stream-cli")
            defer { child.stop() }
            try await child.waitForOutput("\"streamMark\"")
            try await phone.sendDTMF("5", on: call)
            try await agent.waitFor("\"digit\": \"5\"")
            try await phone.hangUp(call)
            try await child.waitForOutput("\"state\":\"ended\"")
            try await agent.waitFor("\"closed\"")  // everything sent has arrived
            let lines = softphoneEvents(child.output, "stream")
            #expect(lines.first?["state"] as? String == "connected" && lines.last?["reason"] as? String == "callEnded", "\(lines)")
            #expect(lines.first?["callerAudio"] as? String == "passthrough", "a PCMU call: \(lines)")
            #expect(lines.first?["agentAudio"] as? String == "arrival", "a PCMU call: \(lines)")
            let mark = softphoneEvents(child.output, "streamMark").first
            #expect(mark?["name"] as? String == "greeting" && mark?["cleared"] as? Bool == false && mark?["playedMilliseconds"] as? Int == 400)
            #expect(softphoneEvents(child.output, "streamDTMF").first?["digit"] as? String == "5")
            let start = agent.received.map(\.message).first { $0["event"] as? String == "start" }?["start"] as? [String: Any]
            #expect(start?["customParameters"] as? [String: String] == ["source": "softphone"])
            let handshake = agent.records.compactMap { $0["handshake"] as? [String: Any] }.first
            #expect((handshake?["headers"] as? [String: Any])?["Authorization"] as? String == "Bearer cli")
            #expect(agent.received.last?.message["event"] as? String == "stop")
        }
    }

    @Test func shuttingTheEngineDownWhileStreamingSendsStopAndEndsTheStream() async throws {
        let agent = try await StreamAgent(name: "stream-agent-shutdown")
        defer { agent.stop() }
        // This test shuts the engine down itself, so it takes the engine's turn by hand (another
        // test's engine was running when it started one without it).
        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        let app = try await tonePlayingPjsuaApp("pjsua-app-stream-shutdown")
        defer { app.stop() }
        let phone = PJSUA()
        let log = EventLog(phone.events)
        var configuration = PJSUA.Configuration(port: 0, transport: .udp, bindAddress: "127.0.0.1", audioDevice: .null)
        configuration.enablesMediaStreams = true
        _ = try await phone.start(configuration)
        let call = try await phone.makeCall(to: PJSUA.SIPURI(app.uri()))
        try await log.mediaActive(call)
        let stream = try await phone.stream(call, to: agent.url())
        let events = StreamEvents(stream)
        try await Task.sleep(for: .milliseconds(300))
        await phone.shutdown()
        // shutdown() hangs the call up first, so the stream usually ends with it; a stream still
        // running at the teardown ends as engineStopped. Either way `stop` went out.
        let reason = try await events.ending().reason
        #expect(reason == .callEnded || reason == .engineStopped, "\(reason)")
        try await agent.waitFor("\"closed\"")
        #expect(agent.received.last?.message["event"] as? String == "stop")
        #expect(stream.hasEnded)
    }

    /// Each bad option is refused with its own typed error (code and reason) on a live call with
    /// its agent up, and nothing reaches the agent: no line break in a header's name or value or
    /// in the token is written into the WebSocket upgrade. A check that is gone fails its case
    /// (the stream connects, or fails later with another error), where the old test, on a stale
    /// call, passed without any (every stream failed on the handle).
    @Test func invalidOptionsAreRefusedWithTheirTypedErrorAndNothingReachesTheAgent() async throws {
        let agent = try await StreamAgent(name: "stream-agent-options")
        defer { agent.stop() }
        let app = try await tonePlayingPjsuaApp("pjsua-app-stream-options")
        defer { app.stop() }
        try await withStreamingEngine { phone, _, log in
            let call = try await phone.makeCall(to: PJSUA.SIPURI(app.uri()))
            try await log.mediaActive(call)
            let tooMany = Dictionary(uniqueKeysWithValues: (0..<17).map { ("X-\($0)", "v") })
            let cases: [(options: PJSUA.MediaStream.Options, code: PJSUAError.Code, reason: String)] = [
                (.init(headers: tooMany), .invalidArgument, "at most 16 handshake headers"),
                (.init(headers: ["Bad Name": "v"]), .invalidHeader, "is not an HTTP header name"),
                (.init(headers: ["X-A": "b\r\nX-Injected: 1"]), .invalidArgument, "contains a line break"),
                (.init(headers: ["X-A\r\nX-Injected": "1"]), .invalidArgument, "contains a line break"),
                (.init(authorizationToken: "k\r\nX-Injected: 1"), .invalidArgument, "contains a line break"),
                (.init(connectTimeout: .zero), .invalidArgument, "the connect timeout"),
                (.init(playbackCapacity: .seconds(601)), .invalidArgument, "the playback capacity"),
                (.init(maximumMessageSize: 10), .invalidArgument, "maximumMessageSize"),
                (.init(streamSID: String(repeating: "x", count: 300)), .invalidArgument, "identifiers are at most 256 bytes"),
            ]
            for (options, code, reason) in cases {
                do {
                    let stream = try await phone.stream(call, to: agent.url(), options: options)
                    Issue.record("taken, and the stream connected: \(options)")
                    await phone.stopStream(stream)
                } catch let error as PJSUAError {
                    #expect(error.code == code && error.message.contains(reason), "\(error) for \(options)")
                }
            }
            #expect(!agent.process.output.contains("\"handshake\""), "a refused option reached the agent: \(agent.process.logNote)")
            // The call and the agent were live: valid options connect.
            let stream = try await phone.stream(call, to: agent.url(), options: .init(headers: ["X-A": "b"]))
            try await agent.waitFor("\"handshake\"")
            let handshakes = agent.records.compactMap { $0["handshake"] as? [String: Any] }
            #expect(handshakes.count == 1 && !"\(handshakes)".contains("Injected"), "\(handshakes)")
            await phone.stopStream(stream)
            try await phone.hangUp(call)
        }
    }

    @Test func anAgentThatNeverAnswersTheUpgradeFailsWithTimedOutAndOneThatIsNotThereWithAConnectError() async throws {
        let agent = try await StreamAgent(name: "stream-agent-silent", silent: true)
        defer { agent.stop() }
        let app = try await tonePlayingPjsuaApp("pjsua-app-stream-silent")
        defer { app.stop() }
        try await withStreamingEngine { phone, _, log in
            let call = try await phone.makeCall(to: PJSUA.SIPURI(app.uri()))
            try await log.mediaActive(call)
            let started = ContinuousClock.now
            let timedOut = await errorCode { try await phone.stream(call, to: agent.url(), options: .init(connectTimeout: .milliseconds(500))) }
            #expect(timedOut == .timedOut)
            #expect(ContinuousClock.now - started < .seconds(2))
            // A TCP port bound but not listening, held by the test: a connection is refused (a
            // port merely free a moment ago could be another test's listener by then).
            let nobody = try LoopbackSocket(udp: false)
            let refused = await errorCode {
                try await phone.stream(call, to: "ws://127.0.0.1:\(nobody.port)/", options: .init(connectTimeout: .seconds(3)))
            }
            withExtendedLifetime(nobody) {}
            #expect(refused == .pjsip)
            #expect(log.states(of: call).last == .confirmed, "a failed stream leaves the call alone")
            try await phone.hangUp(call)
        }
    }
}

/// Against pipecat (PyPI pipecat-ai, installed by scripts/install-peers.sh): in the same serialized
/// suite as the others, so that no two streaming tests load the machine at once.
extension MediaStreamTests {
    @Test func pipecatDecodesTheCallersAudioAndDigitsAndItsEchoAndInterruptionBehaveAsTheProtocolSays() async throws {
        let directory = try temporaryDirectory()
        // pipecat echoes every audio frame it decoded; the script adds 3 s of its own 1000 Hz
        // tone, then interrupts (InterruptionFrame -> `clear`) a second later.
        let script = #"[{"sleep":1.0},{"tone":{"hz":1000,"ms":3000,"chunkMs":20}},{"sleep":1.0},{"clear":true},{"sleep":1.0}]"#
        let agent = try await StreamAgent(name: "stream-agent-pipecat", script: script, echo: true)
        defer { agent.stop() }
        try await withStreamingEngine { phone, _, log in
            let (child, call) = try await callSoftphonePlayingTone(phone, log, ["--record-dir", directory, "--exit-after", "1"],
                                                                   name: "softphone-stream-pipecat")
            defer { child.stop() }
            let stream = try await phone.stream(call, to: agent.url())
            let events = StreamEvents(stream)
            let clear = try await events.first("pipecat's clear", timeout: .seconds(15)) { event -> PJSUA.MediaStream.ClearReport? in
                if case let .cleared(report) = event { return report }
                return nil
            }
            #expect(clear.discardedMilliseconds > 1000, "\(clear)")
            try await Task.sleep(for: .milliseconds(600))
            try await phone.hangUp(call)
            _ = try await events.ending()
            #expect(try await child.waitForExit() == 0, "\(child.output)")
            let decoded = agent.records.filter { $0["pipecat"] as? String == "InputAudioRawFrame" }
            #expect(decoded.count > 100 && decoded.allSatisfy { $0["bytes"] as? Int == 320 && $0["sampleRate"] as? Int == 8000 })
        }
        // The softphone heard its own 600 Hz tone echoed through pipecat, and pipecat's 1000 Hz
        // tone for about the second before the interruption.
        let file = try WAVFile(contentsOf: directory + "/call-1.wav")
        let window = file.sampleRate / 50
        let windows = stride(from: 0, to: file.samples.count - window, by: window).map {
            WAVFile(sampleRate: file.sampleRate, samples: Array(file.samples[$0..<$0 + window]))
        }
        let loud = windows.filter { $0.rmsLevel > 0.02 }
        let frequencies = loud.compactMap { try? $0.dominantFrequency(in: 300...1500, step: 10) }
        let echoed = frequencies.filter { abs($0 - 600) <= 20 }.count
        let pipecatTone = frequencies.filter { abs($0 - 1000) <= 20 }.count
        #expect(echoed > 25, "\(echoed) windows of the echoed 600 Hz tone")
        #expect((35...70).contains(pipecatTone), "\(pipecatTone) windows (20 ms) of pipecat's tone: the clear cut it after about 1 s")
    }
}

extension MediaStreamTests {
    @Test func aPipecatPipelineAnswersThroughSoftphoneAnswerStreamTheCallerHearsItAndDigitsAndInterruptionsReachIt() async throws {
        // The example takes a port (pipecat's server transport reports none it bound): one of a
        // block held until the bot has exited. It prints its line before it listens.
        let block = try PortBlock()
        let wsPort = block[0]
        let bot = try ChildProcess(StreamAgent.python, ["-u", packageRoot + "/Examples/PipecatAgent/bot.py", "--port", "\(wsPort)"],
                                   name: "pipecat-bot", holding: block)
        defer { bot.stop() }
        try await bot.waitUntilBound(port: wsPort)
        let directory = try temporaryDirectory()
        try WAVFile.tone(frequency: 600, duration: .seconds(2), sampleRate: 8000).write(to: directory + "/tone.wav")
        try await withStreamingEngine { phone, _, log in
            let (child, call) = try await callAnsweringSoftphone(phone, log, ["--stream", "ws://127.0.0.1:\(wsPort)/bot", "--clock-rate", "8000",
                                                                              "--no-device-link", "--json"],
                                                                 name: "softphone-stream-pipecat-bot")
            defer { child.stop() }
            try await child.waitForOutput("\"state\":\"connected\"")
            _ = try await phone.play(directory + "/tone.wav", into: call, loop: true)
            let recorder = try await phone.record(call, to: directory + "/heard.wav")
            try await Task.sleep(for: .milliseconds(1500))
            try await phone.sendDTMF("1*", on: call)
            try await bot.waitForOutput("digit *")
            try await child.waitForOutput("\"streamClear\"")
            try await phone.stop(recorder)
            try await phone.hangUp(call)
            #expect(bot.output.contains("digit 1"))
        }
        let heard = toneSpan(try WAVFile(contentsOf: directory + "/heard.wav"))
        #expect(abs(heard.frequency - 600) <= 10 && heard.milliseconds >= 800, "the caller heard \(heard) back through pipecat")
    }

    /// The digits arrive as pipecat's InputDTMFFrames, in the order keyed. The agent logs each
    /// message as received (a DTMF message names its digit too) and then what pipecat decoded of
    /// it: the wait is for pipecat's frame of the last digit (waiting for the digit anywhere read
    /// the frames before pipecat's "#" was logged: "4"). The app keys one round once the stream is
    /// up (rounds on its own clock could start before it, and a round cut short read "#").
    @Test func digitsTheCallerKeysBecomePipecatDTMFFrames() async throws {
        let agent = try await StreamAgent(name: "stream-agent-pipecat-dtmf", pipecat: true)
        defer { agent.stop() }
        try await withStreamingEngine { phone, _, log in
            // Started once this test has the engine: its console quits 15 s after the last step,
            // and waiting for the engine's turn could outlast that (the call then ended early).
            let streamUp = PjsuaApp.Gate()
            let app = try await tonePlayingPjsuaApp("pjsua-app-stream-pipecat-dtmf", console: digitRound("4#", when: streamUp))
            defer { app.stop() }
            let call = try await phone.makeCall(to: PJSUA.SIPURI(app.uri()))
            try await log.mediaActive(call)
            _ = try await phone.stream(call, to: agent.url())
            try await agent.waitFor("\"event\": \"start\"")
            streamUp.open()
            do {
                try await agent.waitFor(##""pipecat": "InputDTMFFrame", "digit": "#""##, timeout: .seconds(15))
            } catch {
                Issue.record("pipecat decoded no \"#\": \(error)\n\(app.process.explain("was to key \"4#\""))")
            }
            let digits = agent.records.filter { $0["pipecat"] as? String == "InputDTMFFrame" }.compactMap { $0["digit"] as? String }
            #expect(digits == ["4", "#"], "\(digits)\n\(agent.process.logNote)")
            try await phone.hangUp(call)
        }
    }
}

@Suite("Media stream protocol messages and input checks (no network)")
struct MediaStreamProtocolTests {
    @Test func agentMessagesAreReadIntoTypedMessagesAndAnythingElseIsInvalidNeverATrap() {
        func parse(_ text: String) -> TwilioMediaStreams.AgentMessage {
            Array(text.utf8).withUnsafeBytes { TwilioMediaStreams.parse($0) }
        }
        #expect(parse(#"{"event":"media","streamSid":"MZ1","media":{"payload":"AAAA"}}"#) == .media(payload: "AAAA"))
        #expect(parse(#"{"event":"mark","mark":{"name":"x y"}}"#) == .mark(name: "x y"))
        #expect(parse(#"{"event":"clear","streamSid":"MZ1"}"#) == .clear)
        for (text, reason) in [("", PJSUA.MediaStream.InvalidMessage.Reason.notJSON), ("[]", .notJSON), ("{\"event\":3}", .missingField),
                               ("{\"event\":\"mark\",\"mark\":{}}", .missingField), ("{\"event\":\"stop\"}", .unknownEvent),
                               ("{\"event\":\"media\",\"media\":{\"payload\":7}}", .missingField), ("\u{0}\u{1}", .notJSON)] {
            guard case let .invalid(got, _) = parse(text) else {
                Issue.record("\(text) was read as valid")
                continue
            }
            #expect(got == reason, "\(text)")
        }
    }

    @Test func callSideMessagesAreValidJSONWithEscapedTextAndASequenceNumberSlot() throws {
        let start = TwilioMediaStreams.start(streamSID: "MZ\"1", callSID: "c\\2", accountSID: "AC", customParameters: ["k\n": "v\u{1}"])
        let text = start.head + "17" + start.tail
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(object["sequenceNumber"] as? String == "17" && object["streamSid"] as? String == "MZ\"1")
        let body = try #require(object["start"] as? [String: Any])
        #expect(body["callSid"] as? String == "c\\2" && body["customParameters"] as? [String: String] == ["k\n": "v\u{1}"])
        let mark = TwilioMediaStreams.mark(streamSID: "MZ", name: "m", cleared: true)
        let markObject = try #require(try JSONSerialization.jsonObject(with: Data((mark.head + "3" + mark.tail).utf8)) as? [String: Any])
        #expect((markObject["mark"] as? [String: Any])?["cleared"] as? Bool == true)
        #expect(TwilioMediaStreams.connected().numbered == false)
    }

    @Test func badURLsAndOptionsAreTypedErrorsBeforeAnythingConnects() async throws {
        try await withStreamingEngine { phone, _, _ in
            let call = PJSUA.Call(slot: 0, token: 999_999)
            // A wss:// URL passes the URL checks (and fails here on the stale call only).
            for (url, code) in [("wss://agent.example/", PJSUAError.Code.staleHandle), ("http://x/", .invalidArgument),
                                ("ws://", .invalidArgument), ("wss://", .invalidArgument), ("ws://:80/", .invalidArgument),
                                ("ws://a b/", .invalidArgument), ("ws://x/\r\n", .invalidArgument)] {
                #expect(await errorCode { try await phone.stream(call, to: url) } == code, "\(url)")
            }
            // Bad options: invalidOptionsAreRefusedWithTheirTypedErrorAndNothingReachesTheAgent,
            // on a live call (on this stale one every stream fails anyway).
            #expect(await errorCode { try await phone.stream(call, to: "ws://127.0.0.1:1/", protocol: .init(rawValue: "asterisk")) } == .unsupported)
            // OpenAI Realtime takes wss:// (verified like Twilio streams), and needs its API key.
            #expect(await errorCode {
                try await phone.stream(call, to: "wss://127.0.0.1:1/", protocol: .openAIRealtime, options: .init(authorizationToken: "k"))
            } == .staleHandle)
            #expect(await errorCode { try await phone.stream(call, to: "wss://127.0.0.1:1/", protocol: .openAIRealtime) } == .invalidArgument)
            #expect(await errorCode {
                try await phone.stream(call, to: "ws://127.0.0.1:1/", protocol: .openAIRealtime,
                                       options: .init(authorizationToken: "k", realtimeSession: .init(silenceDuration: .seconds(11))))
            } == .invalidArgument)
            // Trimming is Twilio's only (a Realtime barge-in reports what was heard).
            #expect(await errorCode {
                try await phone.stream(call, to: "ws://127.0.0.1:1/", protocol: .openAIRealtime,
                                       options: .init(trimsStandingQueue: true, authorizationToken: "k"))
            } == .invalidArgument)
            #expect(await errorCode {
                try await phone.stream(call, to: "ws://127.0.0.1:1/", options: .init(trimsStandingQueue: true))
            } == .staleHandle)
            #expect(await errorCode { try await phone.stream(call, to: "ws://127.0.0.1:1/") } == .staleHandle)
        }
    }
}
