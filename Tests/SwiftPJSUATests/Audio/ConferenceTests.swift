import Foundation
import PJSUATestSupport
@testable import SwiftPJSUA
import Testing

/// Frames of 100 ms of a recording, each marked loud (a tone) or quiet.
func loudFrames(_ recording: WAVFile, threshold: Double = 0.05) -> [Bool] {
    let size = recording.sampleRate / 10
    return stride(from: 0, to: recording.samples.count - size + 1, by: size).map { start in
        WAVFile(sampleRate: recording.sampleRate, samples: Array(recording.samples[start..<start + size])).rmsLevel > threshold
    }
}

/// The samples of the loud frames, joined.
func loudPart(_ recording: WAVFile, _ frames: [Bool]) -> WAVFile {
    let size = recording.sampleRate / 10
    let samples = frames.enumerated().filter(\.element).flatMap { index, _ in recording.samples[index * size..<(index + 1) * size] }
    return WAVFile(sampleRate: recording.sampleRate, samples: samples)
}

@Suite("Local conference on the bridge")
struct ConferenceTests {
    /// We call two softphones, each playing its own tone and recording what it hears. Alone,
    /// each hears only our silent microphone; in conference each hears the other's tone; after
    /// split, silence again. Checked by frequency and level over time in both recordings.
    @Test func inConferenceEveryPartyHearsEveryOtherAndAfterSplitNoLonger() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let tones = [(name: "high", frequency: 1000.0), (name: "low", frequency: 600.0)]
        var parties: [(process: ChildProcess, uri: String, directory: String)] = []
        for tone in tones {
            let folder = directory + "/" + tone.name
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try WAVFile.tone(frequency: tone.frequency, duration: .seconds(2)).write(to: folder + "/tone.wav")
            let party = try await answeringSoftphone(tone.name, ["--play", folder + "/tone.wav", "--record-dir", folder, "--exit-after", "1"])
            parties.append((party.process, party.uri, folder))
        }
        try await withEngine { phone, _, log in
            // PCMU: speex/16000 (what two engines pick by default) clips a tone this loud, and
            // the clipped 1000 Hz + 600 Hz mix reads as 200 Hz (measured).
            try await phone.useCodecs(["PCMU"])
            let calls = try await parties.asyncMap { try await phone.makeCall(to: PJSUA.SIPURI($0.uri)) }
            for call in calls {
                try await log.state(call, .confirmed)
                try await log.mediaActive(call)
            }
            try await Task.sleep(for: .milliseconds(1500))
            try await phone.conference(calls)
            #expect(await phone.conferenceCalls == Set(calls))
            try await Task.sleep(for: .milliseconds(2500))
            try await phone.split(calls[0])
            // A conference of one is no conference.
            #expect(await phone.conferenceCalls.isEmpty)
            try await Task.sleep(for: .milliseconds(2000))
            for call in calls { try await phone.hangUp(call) }
            for call in calls { try await log.state(call, .disconnected) }
        }
        for (index, party) in parties.enumerated() {
            #expect(try await party.process.waitForExit(timeout: .seconds(10)) == 0, "\(party.process.output)")
            let recording = try WAVFile(contentsOf: party.directory + "/call-1.wav")
            let frames = loudFrames(recording)
            let heard = tones[1 - index].frequency
            let loud = frames.filter { $0 }.count
            let summary = "\(tones[index].name) heard \(frames.map { $0 ? "#" : "." }.joined()) over \(recording.duration)"
            // Quiet (about 1.5 s), then loud in one stretch (about 2.5 s), then quiet (about 2 s);
            // the margins absorb a busy machine starting a recording or a wait late.
            let runs = frames.runs
            #expect(runs.map(\.isLoud) == [false, true, false], "\(summary)")
            #expect(runs.count == 3 && runs[0].length >= 5 && runs[2].length >= 8, "\(summary)")
            #expect((15...35).contains(loud), "\(summary)")
            let part = loudPart(recording, frames)
            #expect(abs(part.dominantFrequency() - heard) <= 20, "\(summary): \(part.dominantFrequency()) Hz")
            #expect(part.rmsLevel > 0.1, "\(summary): level \(part.rmsLevel)")
        }
    }

    /// Two self-calls (four legs): the conference links exactly the chosen legs, both ways,
    /// keeps them through hold and resume, and split undoes them.
    @Test func conferenceLinksSurviveHoldAndResumeAndSplitRemovesThem() async throws {
        try await withEngine { phone, transport, log in
            var legs: [(caller: PJSUA.Call, callee: PJSUA.Call)] = []
            for user in ["one", "two"] {
                let caller = try await phone.makeCall(to: transport.uri(user: user))
                let known = Set(legs.map(\.callee))
                let callee = try await log.first("the call from \(caller)") { event -> PJSUA.Call? in
                    if case let .incomingCall(_, call, _, _, _) = event, !known.contains(call) { return call }
                    return nil
                }
                try await phone.answer(callee)
                try await log.state(caller, .confirmed)
                try await log.mediaActive(caller)
                try await log.mediaActive(callee)
                legs.append((caller, callee))
            }
            let (a, b) = (legs[0].caller, legs[1].caller)
            try await phone.conference([a, b])
            try await waitUntil("a and b linked") { (try? await phone.linked(a, b)) ?? false }
            try await waitUntil("the first callee's audio active") { (try? await phone.info(legs[0].callee).media) == .active }
            #expect(try await !phone.hears(legs[0].callee, b))
            try await phone.hold(a)
            try await waitUntil("a held") { try await phone.info(a).media == .localHold }
            #expect(await phone.conferenceCalls == [a, b])
            try await phone.resume(a)
            try await waitUntil("a active") { try await phone.info(a).media == .active }
            try await waitUntil("a and b linked after resume") { (try? await phone.linked(a, b)) ?? false }
            try await phone.split(b)
            try await waitUntil("a and b unlinked") { (try? await phone.linked(a, b, false)) ?? false }
            // A held call can join; it is mixed in once resumed (CallKit's merge of a held call).
            try await phone.hold(b)
            try await waitUntil("b held") { try await phone.info(b).media == .localHold }
            try await phone.conference([a, b])
            #expect(await phone.conferenceCalls == [a, b])
            try await phone.resume(b)
            try await waitUntil("b active") { try await phone.info(b).media == .active }
            try await waitUntil("a and b linked once b is resumed") { (try? await phone.linked(a, b)) ?? false }
            try await phone.split(b)
            try await waitUntil("a and b unlinked again") { (try? await phone.linked(a, b, false)) ?? false }
            // Both stay wired to the sound device.
            #expect(try await phone.microphonePathConnected(a))
            #expect(try await phone.microphonePathConnected(b))
            for leg in legs { try await phone.hangUp(leg.caller) }
            for leg in legs { try await log.state(leg.caller, .disconnected) }
        }
    }

    @Test func conferenceInputIsChecked() async throws {
        try await withEngine { phone, transport, log in
            let caller = try await phone.makeCall(to: transport.uri(user: "solo"))
            let callee = try await log.incomingCall().call
            await #expect(throws: PJSUAError.self) { try await phone.conference([caller, callee]) }  // not answered: no audio
            try await phone.answer(callee)
            try await log.mediaActive(caller)
            try await log.mediaActive(callee)
            for calls in [[], [caller], [caller, caller]] {
                do {
                    try await phone.conference(calls)
                    Issue.record("conference of \(calls) was accepted")
                } catch {
                    #expect((error as? PJSUAError)?.code == .invalidArgument, "\(error)")
                }
            }
            try await phone.split(caller)  // not a member: nothing to do
            try await phone.conference([caller, callee])
            try await phone.hangUp(caller)
            try await log.state(caller, .disconnected)
            // Ended members leave the conference.
            #expect(await phone.conferenceCalls.isEmpty)
            do {
                try await phone.split(caller)
                Issue.record("split of an ended call was accepted")
            } catch {
                #expect((error as? PJSUAError)?.code == .staleHandle, "\(error)")
            }
        }
    }
}

extension PJSUA {
    /// Whether `a` and `b` hear each other on the bridge (both ways), or neither hears the other.
    func linked(_ a: Call, _ b: Call, _ expected: Bool = true) throws -> Bool {
        try hears(a, b) == expected && hears(b, a) == expected
    }
}

extension Array where Element == Bool {
    /// The stretches of equal values, in order: loud (true) or quiet, and how many frames each.
    var runs: [(isLoud: Bool, length: Int)] {
        reduce(into: []) { runs, value in
            if let last = runs.last, last.isLoud == value {
                runs[runs.count - 1].length += 1
            } else {
                runs.append((value, 1))
            }
        }
    }
}

extension Array {
    /// `transform` applied to each element in order, awaiting each.
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}
