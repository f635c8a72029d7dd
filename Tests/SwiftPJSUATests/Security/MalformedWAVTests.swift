import Foundation
import PJSUATestSupport
import SwiftPJSUA
import Testing

/// KL-57.18 (upstream e0f76d691 and 0ee248125; the absurd rates are ours): a WAV file a bot is
/// given to play (an uploaded prompt) reaches `pjmedia_wav_player_port_create` through
/// ``PJSUA/makePlayer(_:loop:)``. A fmt chunk saying 0 Hz or 0 channels passed its checks and
/// aborted the process in `pjmedia_port_info_init`'s assertion; 25 Hz in two channels passed them
/// too and aborted in the bridge's `pjmedia_resample_create` (upstream's tree still does); a file
/// cut inside its fmt chunk was checked on whatever the stack held past the cut; a rate near 2^30
/// made the frame arithmetic wrap. Before scripts/pjproject-patches/fix-kl57-18-wav-format.sh
/// this test's process died of SIGABRT at the first file; now each is a `.file` error, and the
/// engine goes on to play a valid file into a call.
@Suite("Security: malformed WAV files given to a player (KL-57.18)", .serialized)
struct MalformedWAVTests {
    /// A valid 600 Hz tone at 16 kHz, mono: 44 header bytes, then the samples.
    static func tone() throws -> Data {
        try WAVFile.tone(frequency: 600, duration: .seconds(1)).data
    }

    /// `data` with the fmt chunk's fields (at their offsets in a 44-byte header) set.
    static func withFormat(_ data: Data, channels: Int, rate: Int, blockAlign: Int) -> Data {
        var bytes = [UInt8](data)
        func put(_ value: Int, at offset: Int, size: Int) {
            for index in 0..<size { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
        }
        put(channels, at: 22, size: 2)
        put(rate, at: 24, size: 4)
        put(rate &* blockAlign, at: 28, size: 4)
        put(blockAlign, at: 32, size: 2)
        return Data(bytes)
    }

    /// The malformed files: name, bytes.
    static func malformed() throws -> [(String, Data)] {
        let good = try tone()
        // A LIST chunk before the fmt chunk keeps the file longer than pjmedia's 44-byte minimum
        // when it ends 4 bytes into the fmt chunk's fields.
        var list = Data("LIST".utf8) + Data([40, 0, 0, 0]) + Data(count: 40)
        list = Data(good[0..<12]) + list + Data(good[12..<24])
        return [
            ("rate-0", withFormat(good, channels: 1, rate: 0, blockAlign: 2)),
            ("channels-0", withFormat(good, channels: 0, rate: 16000, blockAlign: 0)),
            ("fmt-cut-short", list),
            ("rate-25-stereo", withFormat(good, channels: 2, rate: 25, blockAlign: 4)),
            ("rate-wraps", withFormat(good, channels: 1, rate: 1_073_742_624, blockAlign: 2)),
        ]
    }

    /// Each malformed file is a `.file` error from `makePlayer`; afterwards the engine makes a
    /// player of a valid file and the far end of a call hears it.
    @Test func aMalformedWAVFileIsAFileErrorAndTheEngineThenPlaysAValidOne() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let files = try Self.malformed()
        for (name, data) in files {
            #expect(FileManager.default.createFile(atPath: "\(directory)/\(name).wav", contents: data))
        }
        #expect(FileManager.default.createFile(atPath: directory + "/tone.wav", contents: try Self.tone()))
        try await withEngine { phone, _, log in
            for (name, _) in files {
                do {
                    let player = try await phone.makePlayer("\(directory)/\(name).wav")
                    Issue.record("\(name).wav made a player")
                    try await phone.stop(player)
                } catch let error as PJSUAError {
                    #expect(error.code == .file, "\(name).wav: \(error)")
                }
            }
            let (child, port) = try await answeringSoftphone(["--record-dir", directory, "--exit-after", "1"],
                                                             name: "softphone-malformed-wav")
            defer { child.stop() }
            let call = try await phone.makeCall(to: PJSUA.SIPURI("sip:bot@127.0.0.1:\(port)"))
            try await log.mediaActive(call)
            let player = try await phone.makePlayer(directory + "/tone.wav")
            try await phone.connect(player, to: call)
            try await Task.sleep(for: .milliseconds(1500))
            try await phone.hangUp(call)
            #expect(try await child.waitForExit(timeout: .seconds(10)) == 0, "\(child.output)")
            let heard = try WAVFile(contentsOf: directory + "/call-1.wav")
            #expect(abs(heard.dominantFrequency() - 600) <= 20 && heard.rmsLevel > 0.01,
                    "\(heard.dominantFrequency()) Hz at \(heard.rmsLevel)\n\(child.output)")
            try await phone.stop(player)
        }
    }
}
