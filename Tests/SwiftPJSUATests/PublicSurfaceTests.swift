import Foundation
import SwiftPJSUA
import Testing

/// The engine-core issue's usage: it must keep compiling. Verbatim except the `_ = (...)` that
/// uses the bindings the snippet leaves unused (their warnings are the snippet's, not the API's).
/// Not run (it would bind port 5060 and register with example.com); the behaviour behind each
/// line is tested elsewhere.
@available(*, deprecated, message: "compile-only")
func designUsageCompiles(deviceToken: Data) async throws {
    let phone = PJSUA()
    try await phone.start(.init(port: 5060, transport: .udp))
    let account = try await phone.addAccount(id: "sip:alice@example.com", registrar: "sip:example.com",
        username: "alice", password: "...",
        push: .apns(teamID: "ABCDE12345", bundleID: "com.example.offhook", token: deviceToken))
    for await event in phone.events {
        switch event {
        case let .incomingCall(account, call, sipCallID, from, offeredVideo, _): _ = (account, sipCallID, from, offeredVideo); try? await phone.answer(call)
        case let .callState(call, state, sipCallID, lastStatus): _ = sipCallID; print(call, state, lastStatus)
        default: break
        }
    }
    let call = try await phone.makeCall(to: "sip:bob@example.com", from: account)
    // CallKit tells the engine when the audio session is live:
    Task { try? await phone.activateAudioDevice() }   // pjsua_set_snd_dev(default, default)
    Task { await phone.deactivateAudioDevice() }       // pjsua_set_no_snd_dev()
    _ = call
}

@Suite("Public surface")
struct PublicSurfaceTests {
    @Test func errorCodesMatchInCatchClauses() {
        let error: any Error = PJSUAError(.invalidURI, "bad")
        var matched = false
        do { throw error } catch PJSUAError.invalidURI { matched = true } catch {}
        #expect(matched)
        #expect(!(PJSUAError.staleHandle ~= error))
    }

    @Test func limitsComeFromTheCHeaders() {
        // scripts/pjproject-config_site.h sets these for the Linux build.
        #expect(PJSUA.maxCallsLimit == 128)
        #expect(PJSUA.maxAccountsLimit == 32)
    }
}
