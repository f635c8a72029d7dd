import Foundation
import PJSUATestSupport
import SwiftPJSUA
import Testing

/// Records `call` for a second into `path`; whether the 600 Hz tone the far end plays is in it
/// (the network-change and NAT tests' check that media still flows).
func hearsTone(_ phone: PJSUA, _ call: PJSUA.Call, at path: String) async throws -> Bool {
    let recorder = try await phone.record(call, to: path)
    try await Task.sleep(for: .milliseconds(1200))
    try await phone.stop(recorder)
    let heard = try WAVFile(contentsOf: path)
    return abs(heard.dominantFrequency() - 600) <= 20 && heard.rmsLevel > 0.01
}

/// The engine's host changes address under a live registration and a live call: alice is a
/// `softphone answer` in a network namespace this test makes (a veth pair), registered with
/// kamailio on this side; bob is this process's engine. The test moves alice's address and
/// tells her softphone (SIGUSR1, which calls `handleIPChange()`), as a network monitor would.
@Suite("Network change: handleIPChange in a namespace whose address moves", .serialized)
struct NetworkChangeTests {
    /// What one scenario saw.
    struct Outcome {
        let alice: ChildProcess
        let call: PJSUA.Call
        let log: EventLog
    }

    /// Starts kamailio, alice in the namespace (answering, playing a 600 Hz tone) and a call
    /// from bob to alice; then moves alice from .2 to .3 and signals her softphone.
    private func callThenMoveAlice(_ net: NetworkNamespace, ipChangeCalls: String, directory: String,
                                   _ body: (PJSUA, Kamailio, Outcome) async throws -> Void) async throws {
        let kamailio = try await Kamailio(host: net.hostAddress)
        defer { kamailio.stop() }
        try WAVFile.tone(frequency: 600, duration: .seconds(1)).write(to: directory + "/tone.wav")
        let alice = try ChildProcess("ip", net.command([
            try softphone(), "answer", "--listen", "udp:0.0.0.0:0", "--json", "--play", directory + "/tone.wav",
            "--account", "sip:alice@\(net.hostAddress)", "--registrar", kamailio.uri, "--username", "alice",
            "--password-env", "ALICE_PASSWORD", "--ip-change-calls", ipChangeCalls,
        ]), name: "softphone-alice-netns", environment: ["ALICE_PASSWORD": "alice-secret"])
        defer { alice.stop() }
        try await alice.waitForOutput("\"registered\":true")

        let configuration = PJSUA.Configuration(port: 0, transport: .udp, bindAddress: net.hostAddress, audioDevice: .null)
        try await withEngine(configuration) { phone, _, log in
            let bob = try await phone.addAccount(id: PJSUA.SIPURI("sip:bob@\(net.hostAddress)"), registrar: PJSUA.SIPURI(kamailio.uri),
                                                 username: "bob", password: "bob-secret")
            try await log.registration(bob, "bob registered", where: \.isRegistered)
            let call = try await phone.makeCall(to: PJSUA.SIPURI("sip:alice@\(net.hostAddress):\(kamailio.port)"), from: bob)
            try await log.state(call, .confirmed)
            try await log.mediaActive(call)
            #expect(try await hearsTone(phone, call, at: directory + "/before.wav"), "no tone before the change")

            // Removed first: deleting a subnet's primary address deletes its secondaries too.
            try await net.removeAddress(hostNumber: 2)
            try await net.addAddress(hostNumber: 3)
            alice.signal(SIGUSR1)
            try await alice.waitForOutput("\"step\":\"completed\"")
            try await body(phone, kamailio, Outcome(alice: alice, call: call, log: log))
        }
    }

    /// The call survives (re-INVITE from the new address, the tone keeps arriving) and alice
    /// registers again with her new Contact: a new call through kamailio reaches her there.
    @Test func theCallMovesAndTheRegistrationFollowsTheNewAddress() async throws {
        let net = try await NetworkNamespace()
        defer { net.remove() }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await callThenMoveAlice(net, ipChangeCalls: "keep", directory: directory) { phone, kamailio, outcome in
            let lines = jsonLines(outcome.alice.output)
            let steps = lines.compactMap { $0["event"] as? String == "ipChange" ? $0["step"] as? String : nil }
            #expect(steps.contains("listenerRestarted"), "\(steps)")
            #expect(steps.contains("accountContactUpdated"), "\(steps)")
            #expect(steps.contains("callReinvited"), "\(steps)")
            #expect(steps.last == "completed", "\(steps)")
            #expect(lines.allSatisfy { $0["event"] as? String != "ipChange" || ($0["error"] as? String ?? "") == "" }, "\(outcome.alice.output)")
            // Registered again after the change.
            let registeredAfter = lines.drop { $0["step"] as? String != "listenerRestarted" }
                .contains { $0["event"] as? String == "registration" && $0["registered"] as? Bool == true }
            #expect(registeredAfter, "\(outcome.alice.output)")

            // The re-INVITE moved the media: the tone still arrives, from the new address.
            try await Task.sleep(for: .milliseconds(500))
            #expect(try await hearsTone(phone, outcome.call, at: directory + "/after.wav"), "no tone after the change:\n\(outcome.alice.output)")
            #expect(outcome.log.states(of: outcome.call).last == .confirmed)
            try await phone.hangUp(outcome.call)
            try await outcome.log.state(outcome.call, .disconnected)

            // kamailio now routes alice to .3: a new call reaches her (.2 is gone).
            let bob = try #require(outcome.log.all.compactMap { event -> PJSUA.Account? in
                if case let .registration(account, state) = event, state.isRegistered { return account }
                return nil
            }.first)
            let second = try await phone.makeCall(to: PJSUA.SIPURI("sip:alice@\(net.hostAddress):\(kamailio.port)"), from: bob)
            try await outcome.log.state(second, .confirmed)
            try await phone.hangUp(second)
            try await outcome.log.state(second, .disconnected)
        }
    }

    /// With `--ip-change-calls hangup` the call ends at the change, with a BYE from alice.
    @Test func withTheHangUpPolicyTheCallEndsAtTheChange() async throws {
        let net = try await NetworkNamespace()
        defer { net.remove() }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await callThenMoveAlice(net, ipChangeCalls: "hangup", directory: directory) { _, _, outcome in
            let steps = jsonLines(outcome.alice.output).compactMap { $0["event"] as? String == "ipChange" ? $0["step"] as? String : nil }
            #expect(steps.contains("callHungUp"), "\(steps)")
            #expect(!steps.contains("callReinvited"), "\(steps)")
            let ended = try await outcome.log.state(outcome.call, .disconnected, timeout: .seconds(15))
            #expect(ended.status.code == 200 || ended.status.code == 408, "\(ended.status)")
        }
    }
}
