import Foundation
import SwiftPJSUA
import Testing

@Suite("Against sipp (sip-tester)")
struct SippTests {
    @Test func sippAsUASAnswersOurCallAndTakesTheBye() async throws {
        try await withEngine { phone, _, log in
            let peer = try await sipp(["-sn", "uas"], name: "sipp-uas")
            let call = try await phone.makeCall(to: PJSUA.SIPURI("sip:service@127.0.0.1:\(peer.sippPort)"))
            try await log.state(call, .confirmed)
            try await phone.hangUp(call)
            let end = try await log.state(call, .disconnected)
            #expect(end.status.code == 200)
            #expect(try await peer.waitForExit() == 0, "\(peer.output.suffix(2000))")
        }
    }

    @Test func sippAsUACCallsUsAndWeAnswer() async throws {
        try await withEngine { phone, transport, log in
            let peer = try await sipp(["-sn", "uac", "-d", "500", "127.0.0.1:\(transport.port)"], name: "sipp-uac")
            let incoming = try await log.incomingCall()
            #expect(incoming.from.contains("sipp"))
            try await phone.answer(incoming.call, code: 180)
            try await phone.answer(incoming.call)
            try await log.state(incoming.call, .confirmed)
            // sipp hangs up after the pause.
            let end = try await log.state(incoming.call, .disconnected)
            #expect(end.status.code == 200)
            #expect(try await peer.waitForExit() == 0, "\(peer.output.suffix(2000))")
        }
    }

    @Test func a486BusyEndsOurCallWithThatStatus() async throws {
        try await withEngine { phone, _, log in
            let peer = try await sipp(["-sf", scenario("uas-busy.xml")], name: "sipp-busy")
            let call = try await phone.makeCall(to: PJSUA.SIPURI("sip:busy@127.0.0.1:\(peer.sippPort)"))
            let end = try await log.state(call, .disconnected)
            #expect(end.status.code == 486)
            #expect(!log.states(of: call).contains(.confirmed))
            #expect(try await peer.waitForExit() == 0, "\(peer.output.suffix(2000))")
        }
    }

    @Test func aCancelBeforeAnswerEndsTheIncomingCallWith487() async throws {
        try await withEngine { phone, transport, log in
            let peer = try await sipp(["-sf", scenario("uac-cancel.xml"), "-s", "cancel", "127.0.0.1:\(transport.port)"], name: "sipp-cancel")
            let incoming = try await log.incomingCall()
            try await phone.answer(incoming.call, code: 180)
            let end = try await log.state(incoming.call, .disconnected)
            #expect(end.status.code == 487)
            #expect(try await peer.waitForExit() == 0, "\(peer.output.suffix(2000))")
            await #expect(throws: PJSUAError.self) { try await phone.answer(incoming.call) }
        }
    }

    @Test func a407ChallengeOnInviteIsAnsweredWithTheAccountsCredentials() async throws {
        try await withEngine { phone, _, log in
            let peer = try await sipp(["-sf", scenario("uas-proxy-auth.xml")], name: "sipp-407")
            let account = try await phone.addAccount(id: "sip:alice@127.0.0.1", username: "alice", password: "alice-secret")
            let call = try await phone.makeCall(to: PJSUA.SIPURI("sip:auth@127.0.0.1:\(peer.sippPort)"), from: account)
            try await log.state(call, .confirmed)
            try await phone.hangUp(call)
            try await log.state(call, .disconnected)
            #expect(try await peer.waitForExit() == 0, "\(peer.output.suffix(2000))")
        }
    }
}
