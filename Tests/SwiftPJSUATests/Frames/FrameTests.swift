import CPJSUASupport
import Foundation
import PJSIP
import PJSUATestSupport
@_spi(MediaHooks) @testable import SwiftPJSUA
import Synchronization
import Testing

/// Calls `softphone answer` (a child process: a second engine cannot live in this process) and
/// waits for the call's audio; returns the child and the call.
func callAnsweringSoftphone(_ phone: PJSUA, _ log: EventLog, _ extra: [String], name: String) async throws -> (child: ChildProcess, call: PJSUA.Call) {
    let (child, port) = try await answeringSoftphone(extra, name: name)
    let call = try await phone.makeCall(to: PJSUA.SIPURI("sip:bot@127.0.0.1:\(port)"))
    try await log.mediaActive(call)
    return (child, call)
}

/// Calls a `softphone answer` child that plays a 600 Hz tone (and takes `extra` flags).
func callSoftphonePlayingTone(_ phone: PJSUA, _ log: EventLog, _ extra: [String] = [], name: String) async throws -> (child: ChildProcess, call: PJSUA.Call) {
    let directory = try temporaryDirectory()
    try WAVFile.tone(frequency: 600, duration: .seconds(1)).write(to: directory + "/tone.wav")
    return try await callAnsweringSoftphone(phone, log, ["--play", directory + "/tone.wav"] + extra, name: name)
}

/// `samples` as one WAV at `rate`, for its frequency and level.
func signal(_ frames: [PJSUA.AudioFrame], rate: Int) -> WAVFile {
    WAVFile(sampleRate: rate, samples: frames.flatMap(\.samples))
}

/// Writes `count` frames of a sine tone in `format`, continuing the phase across frames.
func writeTone(_ writer: PJSUA.AudioFrameWriter, frequency: Double, frames count: Int, startingAt first: Int = 0) async throws {
    let format = writer.format
    let rate = Double(format.sampleRate.rawValue)
    // Made before the first write, so that the writes follow each other at once.
    let start = first * format.samplesPerFrame
    let samples = (start..<(start + count * format.samplesPerFrame)).map { index in
        Int16(0.5 * Double(Int16.max) * sin(2 * Double.pi * frequency * Double(index) / rate))
    }
    for frame in stride(from: 0, to: samples.count, by: format.samplesPerFrame) {
        try await writer.write(Array(samples[frame..<(frame + format.samplesPerFrame)]))
    }
}

/// The events a writer reported, collected as they come.
final class WriterEvents: Sendable {
    private let events = Mutex<[PJSUA.AudioFrameWriter.Event]>([])

    init(_ writer: PJSUA.AudioFrameWriter) {
        let stream = writer.events
        Task { [weak self] in
            for await event in stream { self?.events.withLock { $0.append(event) } }
        }
    }

    var all: [PJSUA.AudioFrameWriter.Event] { events.withLock { $0 } }

    func first<T>(_ what: String, timeout: Duration = .seconds(10), _ match: (PJSUA.AudioFrameWriter.Event) -> T?) async throws -> T {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            if let value = all.lazy.compactMap(match).first { return value }
            if ContinuousClock.now >= deadline { throw TimedOut(what: what) }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}

@Suite("Call audio as frames, against a softphone child", .serialized)
struct FrameTests {
    @Test func framesArriveAtTheChosenRateWithMonotonicTimestampsAndNoGapsOverTenSeconds() async throws {
        try await withEngine { phone, _, log in
            let (child, call) = try await callSoftphonePlayingTone(phone, log, name: "softphone-frames-tone")
            defer { child.stop() }
            let format = PJSUA.AudioFormat(sampleRate: .hz48000, frameDuration: .ms10)
            let frames = try await phone.receiveAudio(from: call, format: format, bufferingNewest: 500)
            let started = ContinuousClock.now
            var received: [PJSUA.AudioFrame] = []
            for await frame in frames {
                received.append(frame)
                if ContinuousClock.now - started >= .seconds(10) { break }
            }
            let elapsed = ContinuousClock.now - started
            let expected = Int(elapsed / .milliseconds(10))
            #expect(abs(received.count - expected) <= expected / 50, "\(received.count) frames in \(elapsed)")
            #expect(received.allSatisfy { $0.samples.count == 480 && $0.format == format })
            let steps = zip(received, received.dropFirst()).map { $1.timestamp - $0.timestamp }
            #expect(steps.allSatisfy { $0 == 480 }, "gaps: \(Set(steps))")
            #expect(frames.droppedFrames == 0)
            let last = signal(Array(received.suffix(100)), rate: 48_000)
            #expect(abs(try last.dominantFrequency(in: 300...1500, step: 5) - 600) <= 10)
            #expect(last.rmsLevel > 0.1, "level \(last.rmsLevel)")
            try await phone.hangUp(call)
            try await log.state(call, .disconnected)
        }
    }

    @Test func aWriterThatFallsBehindReportsUnderrunsAndTheFarEndHearsSilence() async throws {
        let directory = try temporaryDirectory()
        try await withEngine { phone, _, log in
            let (child, call) = try await callAnsweringSoftphone(phone, log, ["--record-dir", directory, "--exit-after", "1"],
                                                                 name: "softphone-frames-underrun")
            defer { child.stop() }
            let writer = try await phone.sendAudio(to: call, format: .init(sampleRate: .hz16000))
            let events = WriterEvents(writer)
            try await writeTone(writer, frequency: 1000, frames: 50)  // 1 s, then nothing for 1.2 s
            let firstDrySpell = try await events.first("an underrun") { event -> Duration? in
                if case let .underrun(played) = event { return played }
                return nil
            }
            #expect(firstDrySpell == .milliseconds(1000), "the queue ran dry after the whole second was played")
            try await Task.sleep(for: .milliseconds(1200))
            try await writeTone(writer, frequency: 1000, frames: 50)
            try await Task.sleep(for: .milliseconds(1500))
            let statistics = writer.statistics
            #expect(statistics.underruns == 2, "\(statistics)")
            #expect(statistics.played == .seconds(2))
            #expect(statistics.silentFrames >= 60)
            try await phone.hangUp(call)
            #expect(try await child.waitForExit() == 0, "\(child.output)")
            let recording = try WAVFile(contentsOf: directory + "/call-1.wav")
            // 20 ms windows: the tone, then a run of silence at least a second long, then the tone
            // (the longest quiet run between two tone windows: a loaded machine may add a dropout).
            let window = recording.sampleRate / 50
            let levels = stride(from: 0, to: recording.samples.count - window, by: window).map {
                WAVFile(sampleRate: recording.sampleRate, samples: Array(recording.samples[$0..<$0 + window])).rmsLevel
            }
            let tones = levels.indices.filter { levels[$0] > 0.1 }
            var gap = 0..<0
            var index = 0
            while index < levels.count {
                var end = index
                while end < levels.count && levels[end] < 0.02 { end += 1 }
                if end - index > gap.count, let before = tones.first, before < index, let after = tones.last, after >= end { gap = index..<end }
                index = end + 1
            }
            #expect(gap.count >= 55, "the longest gap lasted \(gap.count * 20) ms: \(levels.map { Int($0 * 1000) })")
            let inside = gap.count > 4 ? Array(levels[(gap.lowerBound + 2)..<(gap.upperBound - 2)]) : []
            #expect(inside.allSatisfy { $0 < 0.002 }, "not silence in the gap: \(inside.map { Int($0 * 10000) })")
            guard let toneStart = tones.first, toneStart + 40 < levels.count else {
                Issue.record("no tone at the far end: \(levels.map { Int($0 * 1000) })")
                return
            }
            let firstTone = WAVFile(sampleRate: recording.sampleRate, samples: Array(recording.samples[(toneStart + 5) * window..<(toneStart + 40) * window]))
            #expect(abs(try firstTone.dominantFrequency(in: 500...2000, step: 5) - 1000) <= 10)
        }
    }

    @Test func flushEmptiesTheQueueAtOnceAndReportsPendingMarksFlushed() async throws {
        try await withEngine { phone, _, log in
            let (child, call) = try await callAnsweringSoftphone(phone, log, [], name: "softphone-frames-flush")
            defer { child.stop() }
            let writer = try await phone.sendAudio(to: call, format: .init(sampleRate: .hz8000), capacity: .seconds(5))
            let events = WriterEvents(writer)
            try await writeTone(writer, frequency: 500, frames: 150)  // 3 s
            let mark = try writer.mark()
            #expect(writer.queuedDuration > .milliseconds(2500))
            let discarded = writer.flush()
            #expect(writer.queuedDuration == .zero)
            #expect(discarded > .milliseconds(2500), "\(discarded)")
            #expect(await writer.waitUntilPlayed(mark) == nil, "a flushed mark is never played")
            let played = try await events.first("the mark flushed") { event -> Duration? in
                if case let .markFlushed(m, played) = event, m == mark { return played }
                return nil
            }
            #expect(played < .milliseconds(500), "\(played) had been played")
            let playedAtFlush = writer.statistics.played
            try await Task.sleep(for: .milliseconds(200))
            #expect(writer.statistics.played == playedAtFlush, "audio went out after the flush")
            #expect(!events.all.contains { if case .markPlayed = $0 { return true } else { return false } })

            // A flush as early as the bridge lets it (usually before it has taken anything):
            // nothing more plays, and the flush discarded exactly what had not played. On a
            // loaded machine the bridge may still take some first (r1 of session 9: 100 ms).
            let fresh = try await phone.sendAudio(to: call, format: .init(sampleRate: .hz8000), capacity: .seconds(5))
            try await writeTone(fresh, frequency: 500, frames: 100)
            let discardedFresh = fresh.flush()
            let playedAtFreshFlush = fresh.statistics.played
            try await Task.sleep(for: .milliseconds(200))
            #expect(fresh.statistics.played == playedAtFreshFlush, "audio went out after the flush")
            #expect(playedAtFreshFlush + discardedFresh == .seconds(2), "played \(playedAtFreshFlush), discarded \(discardedFresh)")
            try await phone.hangUp(call)
            try await log.state(call, .disconnected)
        }
    }

    @Test func aMarkAfterNMillisecondsOfAudioIsReportedPlayedAtN() async throws {
        try await withEngine { phone, _, log in
            let (child, call) = try await callAnsweringSoftphone(phone, log, [], name: "softphone-frames-marks")
            defer { child.stop() }
            let format = PJSUA.AudioFormat(sampleRate: .hz24000, frameDuration: .ms10)
            let writer = try await phone.sendAudio(to: call, format: format, capacity: .seconds(3))
            let events = WriterEvents(writer)
            try await writeTone(writer, frequency: 800, frames: 73)  // 730 ms
            let first = try writer.mark()
            try await writeTone(writer, frequency: 800, frames: 50, startingAt: 73)
            let second = try writer.mark()
            let awaited = Task { await writer.waitUntilPlayed(second) }  // waiting before it plays
            let started = ContinuousClock.now
            let firstPlayed = try await events.first("\(first) played") { event -> Duration? in
                if case let .markPlayed(m, played) = event, m == first { return played }
                return nil
            }
            let secondPlayed = try await events.first("\(second) played") { event -> Duration? in
                if case let .markPlayed(m, played) = event, m == second { return played }
                return nil
            }
            let elapsed = ContinuousClock.now - started
            #expect(await writer.waitUntilPlayed(first) == firstPlayed, "the async value agrees with the event")
            #expect(await writer.waitUntilPlayed(second) == secondPlayed)
            #expect(await awaited.value == secondPlayed)
            #expect(await writer.waitUntilPlayed(.init(id: 999)) == nil, "an unknown mark")
            #expect(abs((firstPlayed - .milliseconds(730)).wholeMilliseconds) <= 10, "\(firstPlayed)")
            #expect(abs((secondPlayed - .milliseconds(1230)).wholeMilliseconds) <= 10, "\(secondPlayed)")
            #expect(elapsed > .milliseconds(1000), "the marks came back before the audio could have been played (\(elapsed))")
            #expect(second.id > first.id)

            // Frames of the wrong size or format are typed errors.
            await #expect(throws: PJSUAError.self) { try await writer.write([Int16](repeating: 0, count: 100)) }
            #expect(thrownCode { try PJSUA.AudioFrame([1, 2, 3], format: format) } == .invalidFrame)
            do {
                try await writer.write(.silence(.init(sampleRate: .hz16000)))
                Issue.record("a 16 kHz frame went into a 24 kHz writer")
            } catch {
                #expect((error as? PJSUAError)?.code == .invalidFrame)
            }
            try await phone.hangUp(call)
            try await log.state(call, .disconnected)
            #expect(writer.isClosed, "the writer closes with its call")
            do {
                try await writer.write(.silence(format))
                Issue.record("a write after the call ended succeeded")
            } catch {
                #expect((error as? PJSUAError)?.code == .staleHandle)
            }
        }
    }

    @Test func sixteenKilohertzInAndTwentyFourOutOnAPCMUCallCarryATonePerDirection() async throws {
        let directory = try temporaryDirectory()
        try await withEngine { phone, _, log in
            try await phone.useCodecs(["PCMU/8000"])
            let (child, call) = try await callSoftphonePlayingTone(phone, log, ["--record-dir", directory, "--exit-after", "1"],
                                                                   name: "softphone-frames-rates")
            defer { child.stop() }
            #expect(try await phone.quality(of: call).codec.hasPrefix("PCMU"))
            let frames = try await phone.receiveAudio(from: call, format: .init(sampleRate: .hz16000))
            let writer = try await phone.sendAudio(to: call, format: .init(sampleRate: .hz24000))
            let sending = Task { try await writeTone(writer, frequency: 1000, frames: 100) }  // 2 s
            var received: [PJSUA.AudioFrame] = []
            for await frame in frames {
                received.append(frame)
                if received.count == 100 { break }
            }
            try await sending.value
            try await Task.sleep(for: .milliseconds(400))
            try await phone.hangUp(call)
            #expect(try await child.waitForExit() == 0, "\(child.output)")
            #expect(received.allSatisfy { $0.samples.count == 320 })
            let heard = signal(Array(received.suffix(50)), rate: 16_000)
            let heardFrequency = try heard.dominantFrequency(in: 300...3000, step: 5)
            #expect(abs(heardFrequency - 600) <= 10, "we heard \(heardFrequency) Hz")
            #expect(heard.rmsLevel > 0.1)
            let recording = try WAVFile(contentsOf: directory + "/call-1.wav")
            let middle = recording.samples.count / 2
            let sent = WAVFile(sampleRate: recording.sampleRate, samples: Array(recording.samples[(middle - recording.sampleRate / 2)..<middle]))
            let sentFrequency = try sent.dominantFrequency(in: 300...3000, step: 5)
            #expect(abs(sentFrequency - 1000) <= 10, "the far end heard \(sentFrequency) Hz")
            #expect(sent.rmsLevel > 0.1)
        }
    }

    @Test func dtmfEventsArriveWhileFramesFlowBothWays() async throws {
        try await withEngine { phone, transport, log in
            let caller = try ChildProcess(try softphone(), ["call", "sip:frames@127.0.0.1:\(transport.port)", "--dtmf", "159#",
                                                            "--seconds", "3", "--timeout", "10"], name: "softphone-frames-dtmf")
            defer { caller.stop() }
            let incoming = try await log.incomingCall(timeout: ChildProcess.startTimeout)
            try await phone.answer(incoming.call)
            try await log.mediaActive(incoming.call)
            let frames = try await phone.receiveAudio(from: incoming.call)
            let writer = try await phone.sendAudio(to: incoming.call, capacity: .seconds(4))
            try await writeTone(writer, frequency: 700, frames: 150)
            var count = 0
            for await _ in frames { count += 1 }  // until the caller hangs up
            #expect(count > 50)
            let digits = String(log.all.compactMap { event -> Character? in
                if case let .dtmf(c, digit) = event, c == incoming.call { return digit.digit }
                return nil
            })
            #expect(digits == "159#")
            #expect(try await caller.waitForExit() == 0, "\(caller.output)")
        }
    }

    /// A port leaves the bridge when its sequence is stopped and when its call ends, and is
    /// destroyed then, not at shutdown: its channel, which the port keeps alive until pjmedia
    /// destroys it, is freed as soon as the test lets go of it.
    @Test func framePortsLeaveTheBridgeWhenStoppedAndWhenTheCallEnds() async throws {
        try await withEngine { phone, _, log in
            let (child, call) = try await callAnsweringSoftphone(phone, log, [], name: "softphone-frames-lifetime")
            defer { child.stop() }
            #expect(try await phone.framePortsOnTheBridge() == 0)
            let stopped: FreedChannels
            let ended: FreedChannels
            do {
                let writer: PJSUA.AudioFrameWriter
                let other: PJSUA.AudioFrames
                do {
                    let frames = try await phone.receiveAudio(from: call)
                    writer = try await phone.sendAudio(to: call)
                    other = try await phone.receiveAudio(from: call, format: .init(sampleRate: .hz8000))
                    stopped = FreedChannels([frames.channel])
                    #expect(try await phone.framePortsOnTheBridge() == 3)
                    await phone.stopReceiving(frames)
                    // A stopped sequence ends after the frames it had queued (ReceivedFrames.finish; on a
                    // loaded machine some arrive between the attach and the stop): drained, it ends.
                    let drained = Box<Int>()
                    Task { var count = 0; for await _ in frames { count += 1 }; drained.value = count }
                    try await waitUntil("the stopped sequence ended", timeout: .seconds(5)) { drained.value != nil }
                }
                try await waitUntil("the stopped port off the bridge") { try await phone.framePortsOnTheBridge() == 2 }
                try await waitUntil("the stopped port destroyed") { stopped.allFreed }
                try await phone.hangUp(call)
                try await log.state(call, .disconnected)
                try await waitUntil("the call's ports off the bridge") { try await phone.framePortsOnTheBridge() == 0 }
                #expect(writer.isClosed)
                ended = FreedChannels([writer.channel, other.channel])
            }
            try await waitUntil("the call's ports destroyed") { ended.allFreed }
            await #expect(throws: PJSUAError.self) { try await phone.receiveAudio(from: call) }
        }
    }

    @Test func framesCarryTheToneAgainAfterHoldAndResume() async throws {
        try await withEngine { phone, _, log in
            let (child, call) = try await callSoftphonePlayingTone(phone, log, name: "softphone-frames-hold")
            defer { child.stop() }
            let bridge = try await phone.addTickCounter()
            let attaching = bridge.ticks
            let frames = try await phone.receiveAudio(from: call, format: .init(sampleRate: .hz8000), bufferingNewest: 500)
            let attached = bridge.ticks
            for media in [PJSUA.MediaState.localHold, .active] {
                if media == .active { try await phone.resume(call) } else { try await phone.hold(call) }
                try await waitUntil("\(call) \(media)") { try await phone.info(call).media == media }
            }
            let resumed = ContinuousClock.now
            var all: [PJSUA.AudioFrame] = []
            var after: [PJSUA.AudioFrame] = []
            for await frame in frames {
                all.append(frame)
                guard ContinuousClock.now - resumed > .milliseconds(500) else { continue }
                after.append(frame)
                if after.count == 50 { break }
            }
            // Stopped, the sequence still ends with every frame the port was handed (the ones
            // this task, late on a loaded machine, had not read yet too: 77 read of 86 "due").
            let stopping = bridge.ticks
            await phone.stopReceiving(frames)
            let stopped = bridge.ticks
            for await frame in frames { all.append(frame) }
            await phone.removeTickCounter(bridge)
            // The stream stays continuous through the re-INVITEs (silence while the call's
            // conference slot is replaced): a frame every tick of the bridge while the port was
            // on it, counted in the bridge's own ticks (BridgeTickCounter), not the wall clock's
            // (a bridge held back on a loaded machine ticks late, then makes the ticks up). The
            // port was on the bridge for every tick from `attached` to `stopping`, and for none
            // before `attaching` or after `stopped` (but the one that applies the removal); a
            // tick the port missed is a frame fewer. (Two ticks either way: a read of the count
            // can fall inside a tick, before or after either port's turn in it.)
            let steps = Set(zip(all, all.dropFirst()).map { $1.timestamp - $0.timestamp })
            #expect(steps == [160], "\(steps)")
            #expect(all.first?.timestamp == 0)
            let least = stopping - attached, most = stopped - attaching + 1
            print("hold and resume: \(all.count) frames while the port was on the bridge for \(least)...\(most) of its ticks")
            #expect(all.count >= least - 2 && all.count <= most + 2, "\(all.count) frames while the port was on the bridge for \(least)...\(most) of its ticks")
            #expect(frames.droppedFrames == 0)
            let heard = signal(after, rate: 8000)
            #expect(abs(try heard.dominantFrequency(in: 300...3000, step: 5) - 600) <= 10)
            #expect(heard.rmsLevel > 0.1, "level after resume \(heard.rmsLevel)")
            try await phone.hangUp(call)
            try await log.state(call, .disconnected)
        }
    }

    /// Shutdown ends the ports' sequences and writers and destroys the ports: their channels
    /// (which a port keeps alive until pjmedia destroys it) are freed once the test lets go.
    @Test func shuttingDownWithFramePortsOnALiveCallEndsThemAndFreesThePorts() async throws {
        let ports: FreedChannels
        do {
            let (frames, writer) = try await withEngine { phone, _, log in
                let (child, call) = try await callAnsweringSoftphone(phone, log, [], name: "softphone-frames-shutdown")
                defer { child.stop() }
                return (try await phone.receiveAudio(from: call), try await phone.sendAudio(to: call))
            }
            ports = FreedChannels([frames.channel, writer.channel])
            var count = 0
            for await _ in frames { count += 1 }  // ends: the engine is down
            #expect(count <= 50, "the stream kept going after shutdown")
            #expect(writer.isClosed)
            await #expect(throws: PJSUAError.self) { try await writer.write(.silence(writer.format)) }
        }
        try await waitUntil("the ports destroyed") { ports.allFreed }
    }

    @Test func aFullQueueMakesWritesWaitOrDropsTheOldestAudioByPolicy() async throws {
        try await withEngine { phone, _, log in
            let (child, call) = try await callAnsweringSoftphone(phone, log, [], name: "softphone-frames-policy")
            defer { child.stop() }
            // wait: a second of audio through a 200 ms queue takes about 800 ms of bridge time.
            let patient = try await phone.sendAudio(to: call, capacity: .milliseconds(200), whenFull: .wait)
            let started = ContinuousClock.now
            try await writeTone(patient, frequency: 500, frames: 50)
            let waited = ContinuousClock.now - started
            #expect(waited > .milliseconds(700) && waited < .milliseconds(1500), "\(waited)")
            #expect(patient.statistics.dropped == .zero)
            #expect(patient.queuedDuration <= .milliseconds(200))
            await phone.stopSending(patient)

            // dropOldest: the same second goes in at once, and all but the newest 200 ms (less
            // whatever the bridge took meanwhile) is dropped.
            let live = try await phone.sendAudio(to: call, capacity: .milliseconds(200), whenFull: .dropOldest)
            let liveStart = ContinuousClock.now
            try await writeTone(live, frequency: 500, frames: 50)
            #expect(ContinuousClock.now - liveStart < .milliseconds(300))
            let statistics = live.statistics
            #expect(statistics.dropped >= .milliseconds(600) && statistics.dropped <= .milliseconds(800), "\(statistics)")
            #expect(live.queuedDuration <= .milliseconds(200))

            // A task cancelled while it waits for room gets CancellationError.
            let blocked = try await phone.sendAudio(to: call, capacity: .milliseconds(20), whenFull: .wait)
            let writing = Task { try await writeTone(blocked, frequency: 500, frames: 500) }
            try await Task.sleep(for: .milliseconds(100))
            writing.cancel()
            await #expect(throws: CancellationError.self) { try await writing.value }
            try await phone.hangUp(call)
            try await log.state(call, .disconnected)
        }
    }
}

/// Frame channels (the Swift side of frame ports), held weakly. A port keeps its channel alive
/// until pjmedia destroys the port (FramePort.c's `on_destroy` releases it), so once the test
/// holds a channel no more, the channel freed is the port destroyed, and a port leaked is a
/// channel that stays.
final class FreedChannels: Sendable {
    private struct Held {
        weak var channel: FrameChannel?
    }

    private let held: Mutex<[Held]>

    init(_ channels: [FrameChannel]) {
        held = Mutex(channels.map { Held(channel: $0) })
    }

    /// Whether every channel has been freed.
    var allFreed: Bool { held.withLock { $0.allSatisfy { $0.channel == nil } } }
}

extension PJSUA {
    /// The frame ports on the conference bridge now: its ports with the names FramePort.c gives
    /// them (`pjsua_enum_conf_ports`, `pjsua_conf_get_port_info`).
    func framePortsOnTheBridge() throws -> Int {
        var ids = [pjsua_conf_port_id](repeating: 0, count: Int(pjsua_conf_get_max_ports()))
        var count = UInt32(ids.count)
        try check(pjsua_enum_conf_ports(&ids, &count), "pjsua_enum_conf_ports")
        return ids.prefix(Int(count)).filter { id in
            var info = pjsua_conf_port_info()
            return pjsua_conf_get_port_info(id, &info) == pjSuccess && ["frame-reader", "frame-writer"].contains(String(pj: info.name))
        }.count
    }
}
