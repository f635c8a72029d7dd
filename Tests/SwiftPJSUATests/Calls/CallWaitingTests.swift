import Foundation
import PJSUATestSupport
@testable import SwiftPJSUA
import Testing

@Suite("Call waiting: a second call while one is up")
struct CallWaitingTests {
    /// A softphone's call is up when a second softphone calls: the second INVITE is an ordinary
    /// incoming call. We ring it, hold the first, answer the second (whose tone we then hear),
    /// end it, resume the first and end that too. Both callers see everything end cleanly.
    @Test func holdTheFirstCallAnswerTheSecondThenGoBack() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try WAVFile.tone(frequency: 700, duration: .seconds(2), amplitude: 0.3).write(to: directory + "/tone.wav")
        try await withEngine { phone, transport, log in
            try await phone.useCodecs(["PCMU"])
            let first = try ChildProcess(try softphone(), ["call", transport.uri(user: "first").description, "--listen", "udp:127.0.0.1:0",
                                                          "--seconds", "30", "--json"], name: "softphone-first")
            let one = try await log.incomingCall(timeout: ChildProcess.startTimeout).call
            try await phone.answer(one)
            try await log.state(one, .confirmed)

            let second = try ChildProcess(try softphone(), ["call", transport.uri(user: "second").description, "--listen", "udp:127.0.0.1:0",
                                                           "--seconds", "30", "--play", directory + "/tone.wav", "--json"],
                                          name: "softphone-second")
            let two = try await log.first("the second incoming call") { event -> PJSUA.Call? in
                if case let .incomingCall(_, call, _, _, _) = event, call != one { return call }
                return nil
            }
            // Waiting: it rings while the first call goes on.
            try await phone.answer(two, code: 180)
            try await log.state(two, .early)
            #expect(try await phone.info(one).state == .confirmed)
            #expect(Set(try await phone.activeCalls()) == [one, two])

            try await phone.hold(one)
            try await waitUntil("first call held") { try await phone.info(one).media == .localHold }
            try await phone.answer(two)
            try await log.state(two, .confirmed)
            try await log.mediaActive(two)
            #expect(try await phone.info(one).media == .localHold)
            let recorder = try await phone.record(two, to: directory + "/second.wav")
            try await Task.sleep(for: .milliseconds(1500))
            try await phone.stop(recorder)
            try await phone.hangUp(two)
            try await log.state(two, .disconnected)

            try await phone.resume(one)
            try await waitUntil("first call active again") { try await phone.info(one).media == .active }
            try await phone.hangUp(one)
            try await log.state(one, .disconnected)

            #expect(try await first.waitForExit(timeout: .seconds(10)) == 0, "\(first.output)")
            #expect(try await second.waitForExit(timeout: .seconds(10)) == 0, "\(second.output)")
            // The first caller saw the hold and the resume.
            let media = softphoneEvents(first.output, "media").compactMap { $0["state"] as? String }
            #expect(media.contains("remoteHold") && media.last == "active", "\(media)")
            #expect(softphoneEvents(second.output, "callState").contains { $0["state"] as? String == "EARLY" })
        }
        let heard = try WAVFile(contentsOf: directory + "/second.wav")
        let steady = WAVFile(sampleRate: heard.sampleRate, samples: Array(heard.samples.dropFirst(heard.sampleRate / 2)))
        #expect(abs(steady.dominantFrequency() - 700) <= 20, "\(steady.dominantFrequency()) Hz")
        #expect(steady.rmsLevel > 0.1, "level \(steady.rmsLevel)")
    }

    /// Calls up to ``PJSUA/Configuration/maxCalls`` (here 4, pjproject's default
    /// `PJSUA_MAX_CALLS`; this build allows 256) are taken at once; one more is refused with
    /// 503 (admission control) and the others stay up.
    @Test func callsUpToTheConfiguredLimitAreHeldAtOnce() async throws {
        let limit = 4
        var configuration = PJSUA.Configuration(port: 0, transport: .udp, bindAddress: "127.0.0.1", audioDevice: .null)
        configuration.maxCalls = limit
        try await withEngine(configuration) { phone, transport, log in
            var callers: [ChildProcess] = []
            for index in 0..<limit {
                callers.append(try ChildProcess(try softphone(), ["call", transport.uri(user: "c\(index)").description, "--listen", "udp:127.0.0.1:0",
                                                                 "--seconds", "30", "--json"], name: "softphone-c\(index)"))
                let call = try await log.first("call \(index)") { event -> PJSUA.Call? in
                    if case let .incomingCall(_, call, _, _, _) = event,
                       !log.all.contains(where: { if case let .callState(c, .confirmed, _, _) = $0 { c == call } else { false } }) {
                        return call
                    }
                    return nil
                }
                try await phone.answer(call)
                try await log.state(call, .confirmed)
            }
            #expect(try await phone.activeCalls().count == limit)
            let extra = try await runSoftphone(["call", transport.uri(user: "extra").description, "--listen", "udp:127.0.0.1:0", "--json"])
            #expect(extra.status == 1, "\(extra.output)")
            #expect(extra.output.contains("503"), "\(extra.output)")
            #expect(try await phone.activeCalls().count == limit)
            for call in try await phone.activeCalls() { try await phone.hangUp(call) }
            for caller in callers { #expect(try await caller.waitForExit(timeout: .seconds(10)) == 0, "\(caller.output)") }
        }
    }
}
