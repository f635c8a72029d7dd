import Foundation
import SwiftPJSUA
import PJSUATestSupport
import Testing

@Suite("3xx redirects: follow, report, ask", .serialized)
struct RedirectTests {
    /// A sipp that redirects to a second sipp (the built-in uas), and the engine's redirected event.
    private func redirect(_ policy: PJSUA.RedirectPolicy,
                          _ body: (PJSUA, EventLog, PJSUA.Call, ChildProcess, ChildProcess) async throws -> Void) async throws {
        var configuration = PJSUA.Configuration(port: 0, transport: .udp, bindAddress: "127.0.0.1", audioDevice: .null)
        configuration.redirectPolicy = policy
        try await withEngine(configuration) { phone, _, log in
            let target = try await sipp(["-sn", "uas"], name: "sipp-moved")
            let redirector = try await sipp(["-sf", scenario("uas-302-redirect.xml"), "-set", "target_port", "\(target.sippPort)"], name: "sipp-302")
            let call = try await phone.makeCall(to: PJSUA.SIPURI("sip:old@127.0.0.1:\(redirector.sippPort)"))
            try await body(phone, log, call, redirector, target)
        }
    }

    private func redirected(_ log: EventLog, _ call: PJSUA.Call) async throws -> PJSUA.Redirect {
        try await log.first("\(call) redirected") { event in
            if case let .redirected(redirect) = event, redirect.call == call { return redirect }
            return nil
        }
    }

    /// The followed call reaches the second sipp, is hung up, and both sipps finish cleanly.
    private func talkToTheNewTarget(_ phone: PJSUA, _ log: EventLog, _ call: PJSUA.Call, _ redirector: ChildProcess, _ target: ChildProcess) async throws {
        try await log.state(call, .confirmed)
        try await phone.hangUp(call)
        try await log.state(call, .disconnected)
        #expect(try await redirector.waitForExit() == 0, "\(redirector.output.suffix(2000))")
        #expect(try await target.waitForExit() == 0, "\(target.output.suffix(2000))")
    }

    @Test func a302IsFollowedByDefault() async throws {
        try await redirect(.follow) { phone, log, call, redirector, target in
            let event = try await redirected(log, call)
            #expect(event.target.contains("moved@127.0.0.1:\(target.sippPort)"), "\(event.target)")
            #expect(event.status.code == 302)
            #expect(event.isFollowed)
            try await talkToTheNewTarget(phone, log, call, redirector, target)
        }
    }

    @Test func theReportPolicyEndsTheCallWithThe302() async throws {
        try await redirect(.report) { _, log, call, redirector, target in
            let event = try await redirected(log, call)
            #expect(event.target.contains("moved@"), "\(event.target)")
            #expect(!event.isFollowed)
            let end = try await log.state(call, .disconnected)
            #expect(end.status.code == 302, "\(end.status)")
            #expect(!log.states(of: call).contains(.confirmed))
            #expect(try await redirector.waitForExit() == 0, "\(redirector.output.suffix(2000))")
            target.stop()
        }
    }

    @Test func theAskPolicyWaitsForTheAppsDecision() async throws {
        try await redirect(.ask) { phone, log, call, redirector, target in
            let event = try await redirected(log, call)
            #expect(!event.isFollowed)
            try await Task.sleep(for: .milliseconds(300))
            #expect(!log.states(of: call).contains(.disconnected))
            try await phone.decideRedirect(call, follow: true)
            try await talkToTheNewTarget(phone, log, call, redirector, target)
        }
    }

    @Test func refusingAnAskedRedirectEndsTheCall() async throws {
        try await redirect(.ask) { phone, log, call, redirector, target in
            _ = try await redirected(log, call)
            try await phone.decideRedirect(call, follow: false)
            let end = try await log.state(call, .disconnected)
            // pjsip_inv_process_redirect ends a refused redirect with 487 (its cancel code);
            // the 302 itself was in the redirected event.
            #expect(end.status.code == 487, "\(end.status)")
            #expect(!log.states(of: call).contains(.confirmed))
            #expect(try await redirector.waitForExit() == 0, "\(redirector.output.suffix(2000))")
            target.stop()
        }
    }
}
