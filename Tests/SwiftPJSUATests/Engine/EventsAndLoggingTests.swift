import Foundation
import PJSUATestSupport
import SwiftPJSUA
import Testing

@Suite("Events fan out to every subscriber; logging is quiet and password-free")
struct EventsAndLoggingTests {
    @Test func everySubscriberSeesEveryEventInTheSameOrder() async throws {
        try await withEngine { phone, transport, first in
            let second = EventLog(phone.events)
            let third = EventLog(phone.events)
            for index in 0..<3 {
                let call = try await phone.makeCall(to: transport.uri(user: "fan\(index)"))
                let incoming = try await first.first("incoming \(index)") { event -> PJSUA.Call? in
                    if case let .incomingCall(_, c, _, _, _) = event, !first.states(of: c).contains(.disconnected) { return c }
                    return nil
                }
                try await phone.answer(incoming)
                try await first.state(call, .confirmed)
                try await phone.hangUp(call)
                try await first.state(incoming, .disconnected)
                try await first.state(call, .disconnected)
            }
            try await waitUntil("all subscribers caught up") {
                second.all.count == first.all.count && third.all.count == first.all.count
            }
            let summary = { (log: EventLog) in log.all.map { "\($0)" } }
            #expect(summary(first).count >= 3 * 6)
            #expect(summary(second) == summary(first))
            #expect(summary(third) == summary(first))
        }
    }

    @Test func aSubscriberOnlySeesEventsFromWhenItSubscribed() async throws {
        try await withEngine { phone, transport, log in
            let call = try await phone.makeCall(to: transport.uri(user: "early"))
            try await log.state(call, .calling)
            let late = EventLog(phone.events)
            try await phone.hangUp(call)
            try await log.state(call, .disconnected)
            try await waitUntil("late subscriber sees the hangup") { late.states(of: call).contains(.disconnected) }
            #expect(!late.states(of: call).contains(.calling))
        }
    }

    @Test func aSlowSubscriberLosesNothingAndDoesNotHoldOthersBack() async throws {
        try await withEngine { phone, transport, log in
            let slow = phone.events  // subscribed, but nobody reads it until the end
            let call = try await phone.makeCall(to: transport.uri(user: "slow"))
            let incoming = try await log.incomingCall().call
            try await phone.answer(incoming)
            try await log.state(call, .confirmed)
            try await phone.hangUp(call)
            try await log.state(incoming, .disconnected)
            let seen = log.all.count
            var count = 0
            for await _ in slow {
                count += 1
                if count == seen { break }
            }
            #expect(count == seen)
        }
    }

    @Test func pjsipLogLinesReachTheHandler() async throws {
        let lines = LineLog()
        var configuration = PJSUA.Configuration(port: 0, bindAddress: "127.0.0.1", audioDevice: .null,
                                                logLevel: .trace, logSIPMessages: true)
        configuration.logHandler = { level, message in lines.append("\(level) \(message)") }
        try await withEngine(configuration) { phone, transport, log in
            let call = try await phone.makeCall(to: transport.uri(user: "logged"))
            try await log.state(call, .calling)
            try await phone.hangUp(call)
            try await log.state(call, .disconnected)
        }
        #expect(lines.values.count > 20)
        #expect(lines.values.contains { $0.contains("INVITE sip:logged@") })
        // (The password never reaching the log, with digest auth at full verbosity, is checked
        // against kamailio in KamailioTests.)
    }

    /// With the default configuration (no handler), PJSIP writes nothing anywhere. An engine in
    /// a process of its own (softphone, which configures no logging) places a call to ours, and
    /// its whole output, stdout and stderr, is read: softphone prints only JSON records with
    /// `--json`, so any other line (a PJSIP log line, from `pj_init` on) fails the test.
    @Test func theLogIsQuietByDefault() async throws {
        try await withEngine { phone, transport, log in
            let caller = try ChildProcess(try softphone(), ["call", transport.uri(user: "quiet").description, "--seconds", "1", "--timeout", "10", "--json"],
                                          name: "softphone-quiet")
            defer { caller.stop() }
            try await phone.answer(try await log.incomingCall(timeout: ChildProcess.startTimeout).call)
            #expect(try await caller.waitForExit(timeout: .seconds(30)) == 0, "\(caller.output)")
            let records = jsonLines(caller.output)
            #expect(records.contains { $0["event"] as? String == "callState" && $0["state"] as? String == "CONFIRMED" }, "\(caller.output)")
            let others = caller.output.split(separator: "\n").filter { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] == nil
            }
            #expect(others.isEmpty, "not softphone's records: \(others)")
        }
    }
}
