import Foundation
import SwiftPJSUA
import Testing

@Suite("Calls to the engine's own address")
struct SelfCallTests {
    @Test func bothLegsConfirmWithTheSameCallIDAndDisconnectWithStatusCodes() async throws {
        try await withEngine { phone, transport, log in
            let outgoing = try await phone.makeCall(to: transport.uri(user: "self"))
            let incoming = try await log.incomingCall()
            #expect(incoming.call != outgoing)
            try await phone.answer(incoming.call, code: 180)
            try await log.state(outgoing, .early)
            try await phone.answer(incoming.call)
            let a = try await log.state(outgoing, .confirmed)
            let b = try await log.state(incoming.call, .confirmed)
            #expect(a.sipCallID == b.sipCallID)
            #expect(a.sipCallID == incoming.sipCallID)
            #expect(!a.sipCallID.isEmpty)
            try await phone.hangUp(outgoing)
            let endA = try await log.state(outgoing, .disconnected)
            let endB = try await log.state(incoming.call, .disconnected)
            #expect(endA.status.code == 200)
            #expect(endB.status.code == 200)
            #expect(log.states(of: outgoing).first == .calling)
        }
    }
}
