import Foundation
import PJSUATestSupport
import SwiftPJSUA
import Testing

@Suite("Against kamailio as registrar with digest auth")
struct KamailioTests {
    @Test func registerThenUnregister() async throws {
        let kamailio = try await Kamailio()
        defer { kamailio.stop() }
        try await withEngine { phone, _, log in
            let account = try await phone.addAccount(id: "sip:alice@127.0.0.1", registrar: PJSUA.SIPURI(kamailio.uri),
                                                     username: "alice", password: "alice-secret")
            let registered = try await log.registration(account, "registration")
            #expect(registered.status.code == 200)
            #expect(registered.isRegistered)
            #expect(registered.expires > .zero)

            try await phone.setRegistration(account, enabled: false)
            let unregistered = try await log.registration(account, "unregistration", where: \.isUnregistration)
            #expect(unregistered.status.code == 200)
            #expect(!unregistered.isRegistered)
        }
    }

    @Test func aWrongPasswordSurfacesAsAFailedRegistrationWithItsStatusCode() async throws {
        let kamailio = try await Kamailio()
        defer { kamailio.stop() }
        try await withEngine { phone, _, log in
            let account = try await phone.addAccount(id: "sip:alice@127.0.0.1", registrar: PJSUA.SIPURI(kamailio.uri),
                                                     username: "alice", password: "not-the-password")
            let state = try await log.registration(account, "failed registration")
            #expect(!state.isRegistered)
            #expect([401, 403].contains(state.status.code), "\(state)")
        }
    }

    @Test func reRegisterUpdatesThePushParametersInTheContact() async throws {
        let kamailio = try await Kamailio()
        defer { kamailio.stop() }
        let lines = LineLog()
        var configuration = PJSUA.Configuration(port: 0, bindAddress: "127.0.0.1", audioDevice: .null,
                                                logLevel: .trace, logSIPMessages: true)
        configuration.logHandler = { _, message in lines.append(message) }
        try await withEngine(configuration) { phone, _, log in
            let account = try await phone.addAccount(
                id: "sip:alice@127.0.0.1", registrar: PJSUA.SIPURI(kamailio.uri), username: "alice", password: "alice-secret",
                push: .apns(teamID: "ABCDE12345", bundleID: "com.example.offhook", token: Data([0xde, 0xad])))
            try await log.registration(account, "registered", where: \.isRegistered)
            try await phone.reRegister(account, updatingPush: .apns(teamID: "ABCDE12345", bundleID: "com.example.offhook", token: Data([0xbe, 0xef])))
            try await waitUntil("a REGISTER with the new token") { lines.values.contains { $0.contains("pn-prid=beef") } }
            let registers = lines.values.filter { $0.contains("REGISTER sip:") }
            #expect(registers.contains { $0.contains("pn-provider=apns;pn-param=ABCDE12345.com.example.offhook.voip;pn-prid=dead") })
            // The push parameters go in the REGISTER Contact only, never on other requests.
            #expect(!lines.values.contains { $0.contains("INVITE sip:") && $0.contains("pn-prid") })
            // The password never reaches a log line, even at full verbosity with digest auth.
            #expect(!lines.values.contains { $0.contains("alice-secret") })
            #expect(lines.values.contains { $0.contains("Authorization: Digest") })
        }
    }
}

@Suite("Two accounts calling each other through kamailio")
struct KamailioCallTests {
    /// alice is this engine; bob is a second process (softphone answer) registered with the same
    /// kamailio. kamailio challenges alice's INVITE with 407 and routes it to bob's contact.
    @Test func aliceCallsBobThroughTheRegistrar() async throws {
        let kamailio = try await Kamailio()
        defer { kamailio.stop() }
        try await withEngine { phone, _, log in
            let bob = try ChildProcess(try softphone(), [
                "answer", "--listen", "udp:127.0.0.1:0", "--exit-after", "1", "--json",
                "--account", "sip:bob@127.0.0.1", "--registrar", kamailio.uri, "--username", "bob", "--password-env", "BOB_PASSWORD",
            ], name: "softphone-bob", environment: ["BOB_PASSWORD": "bob-secret"])
            try await bob.waitForOutput("\"registered\":true")

            let alice = try await phone.addAccount(id: "sip:alice@127.0.0.1", registrar: PJSUA.SIPURI(kamailio.uri),
                                                   username: "alice", password: "alice-secret")
            try await log.registration(alice, "alice registered", where: \.isRegistered)
            let call = try await phone.makeCall(to: PJSUA.SIPURI("sip:bob@127.0.0.1:\(kamailio.port)"), from: alice)
            let confirmed = try await log.state(call, .confirmed)
            try await Task.sleep(for: .milliseconds(300))
            try await phone.hangUp(call)
            try await log.state(call, .disconnected)
            #expect(try await bob.waitForExit(timeout: .seconds(10)) == 0, "\(bob.output)")
            // Both ends saw the same dialog.
            let bobCallIDs = jsonLines(bob.output).compactMap { $0["event"] as? String == "incomingCall" ? $0["sipCallID"] as? String : nil }
            #expect(bobCallIDs == [confirmed.sipCallID])
            #expect(!bob.output.contains("bob-secret"))
        }
    }
}
