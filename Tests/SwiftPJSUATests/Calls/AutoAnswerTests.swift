import Foundation
import PJSUATestSupport
import SwiftPJSUA
import Testing

/// `Configuration.autoAnswerCode`: the engine answers in pjsua's callback, after publishing the
/// incoming call, with no call from the app.
@Suite("Answering inside the callback")
struct AutoAnswerTests {
    @Test func everyIncomingCallIsAnsweredWithoutTheAppAndTheEventComesFirst() async throws {
        let configuration = PJSUA.Configuration(port: 0, bindAddress: "127.0.0.1", audioDevice: .null, autoAnswerCode: 200)
        try await withEngine(configuration) { phone, transport, log in
            let caller = try await phone.makeCall(to: transport.uri(user: "auto"))
            try await log.state(caller, .confirmed)
            let callee = try await log.incomingCall().call
            try await log.state(callee, .confirmed)
            // The incoming call event precedes every state event of the callee.
            let order = log.all.compactMap { event -> String? in
                switch event {
                case let .incomingCall(_, call, _, _, _) where call == callee: "incoming"
                case let .callState(call, state, _, _) where call == callee: "\(state)"
                default: nil
                }
            }
            #expect(order.first == "incoming", "\(order)")
            try await phone.hangUp(caller)
            try await log.state(callee, .disconnected)
        }
    }

    @Test func aRejectingCodeRefusesEveryCall() async throws {
        let configuration = PJSUA.Configuration(port: 0, bindAddress: "127.0.0.1", audioDevice: .null, autoAnswerCode: 486)
        try await withEngine(configuration) { phone, transport, log in
            let caller = try await phone.makeCall(to: transport.uri(user: "busy"))
            let end = try await log.state(caller, .disconnected)
            #expect(end.status.code == 486)
        }
    }

    @Test(arguments: [100, 181, 299, 700])
    func codesThatCannotAnswerAreRejectedAtStart(code: PJSUA.SIPResponseCode) async throws {
        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        let phone = PJSUA()
        let error = await startError(phone, .init(port: 0, bindAddress: "127.0.0.1", autoAnswerCode: code))
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("autoAnswerCode") == true)
    }
}
