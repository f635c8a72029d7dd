import Foundation
import PJSUATestSupport
import SwiftPJSUA
import Testing

/// One player fed into many calls (`makePlayer`, `connect(_:to:)`), in the engine and in
/// `softphone answer --play`, against `softphone answer` children on the loopback.
@Suite("Shared player: one WAV player feeding several calls", .serialized)
struct SharedPlayerTests {
    /// The engine opens one player and connects it to two concurrent calls: the player reports
    /// both, and the far end's recording of each call has the tone. Disconnecting one call
    /// leaves the other fed.
    @Test func onePlayerFeedsTwoConcurrentCallsAndEachFarEndHearsIt() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try WAVFile.tone(frequency: 600, duration: .seconds(1), sampleRate: 8000).write(to: directory + "/tone.wav")
        try await withEngine { phone, _, log in
            let (child, port) = try await answeringSoftphone(["--record-dir", directory, "--exit-after", "2"], name: "softphone-recorder")
            defer { child.stop() }
            let first = try await phone.makeCall(to: PJSUA.SIPURI("sip:bot@127.0.0.1:\(port)"))
            let second = try await phone.makeCall(to: PJSUA.SIPURI("sip:bot@127.0.0.1:\(port)"))
            try await log.mediaActive(first)
            try await log.mediaActive(second)
            let player = try await phone.makePlayer(directory + "/tone.wav")
            try await phone.connect(player, to: first)
            try await phone.connect(player, to: second)
            // Connecting again changes nothing.
            try await phone.connect(player, to: second)
            #expect(try await fed(by: player, on: phone, become: [first, second]))
            try await Task.sleep(for: .milliseconds(1500))
            try await phone.disconnect(player, from: first)
            #expect(try await fed(by: player, on: phone, become: [second]))
            // Disconnecting a call the player no longer feeds does nothing.
            try await phone.disconnect(player, from: first)
            try await phone.hangUp(first)
            try await phone.hangUp(second)
            #expect(try await child.waitForExit(timeout: .seconds(10)) == 0, "\(child.output)")
            for number in 1...2 {
                let heard = try WAVFile(contentsOf: directory + "/call-\(number).wav")
                #expect(abs(heard.dominantFrequency() - 600) <= 20 && heard.rmsLevel > 0.01,
                        "call \(number): \(heard.dominantFrequency()) Hz at \(heard.rmsLevel)\n\(child.output)")
            }
            try await phone.stop(player)
        }
    }

    /// Whether the calls `player` feeds become `expected` within a second: the bridge applies
    /// connections at its next clock tick, not when asked.
    private func fed(by player: PJSUA.Player, on phone: PJSUA, become expected: Set<PJSUA.Call>) async throws -> Bool {
        let deadline = ContinuousClock.now.advanced(by: .seconds(1))
        while try await phone.calls(fedBy: player) != expected {
            guard ContinuousClock.now < deadline else { return false }
            try await Task.sleep(for: .milliseconds(20))
        }
        return true
    }

    /// A stopped player is a stale handle; a file that is not there is a file error.
    @Test func aStoppedPlayerOrAMissingFileIsATypedError() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try WAVFile.tone(frequency: 600, duration: .seconds(1)).write(to: directory + "/tone.wav")
        try await withEngine { phone, _, log in
            let (child, call) = try await callSoftphonePlayingTone(phone, log, name: "softphone-stale-player")
            defer { child.stop() }
            do {
                _ = try await phone.makePlayer(directory + "/missing.wav")
                Issue.record("a missing file made a player")
            } catch let error as PJSUAError {
                #expect(error.code == .file)
            }
            let player = try await phone.makePlayer(directory + "/tone.wav")
            try await phone.stop(player)
            do {
                try await phone.connect(player, to: call)
                Issue.record("a stopped player was connected")
            } catch let error as PJSUAError {
                #expect(error.code == .staleHandle)
            }
            try await phone.hangUp(call)
        }
    }

    /// `softphone answer --play` feeds its one player into every call: two concurrent calls to
    /// it both carry the tone.
    @Test func softphoneAnswerPlaysIntoTwoConcurrentCalls() async throws {
        try await withEngine { phone, _, log in
            let (child, first) = try await callSoftphonePlayingTone(phone, log, ["--no-device-link", "--clock-rate", "8000"],
                                                                     name: "softphone-shared-player")
            defer { child.stop() }
            let port = try #require(jsonLines(child.output).first { $0["event"] as? String == "listening" }?["port"] as? Int)
            let second = try await phone.makeCall(to: PJSUA.SIPURI("sip:bot@127.0.0.1:\(port)"))
            try await log.mediaActive(second)
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            #expect(try await hearsTone(phone, first, at: directory + "/first.wav"), "\(child.output)")
            #expect(try await hearsTone(phone, second, at: directory + "/second.wav"), "\(child.output)")
            try await phone.hangUp(first)
            try await phone.hangUp(second)
        }
    }
}
