import Foundation
import PJSUATestSupport
import SwiftPJSUA
import Testing

/// KL-57: flaws a peer reaches in our 2.17 base that upstream fixed after it outside its security
/// advisories (scripts/pjproject-patches/fix-kl57-*.sh; the iOS binary, a later master, carries
/// upstream's fixes). Each is shown on the PJSIP without our patches (the pjsua app of
/// /opt/pjproject-unpatched stops) and answered on ours: the pjsua app of this build and the
/// softphone (our engine), each living on.
@Suite("Security: upstream's fixes after 2.17 that are not advisories (KL-57)")
struct UpstreamFixTests {
    /// KL-57.1: an OPTIONS carrying `Record-Route: <sip:proxy.example;hide>` (PJSIP's own "hide"
    /// parameter, without "lr"): the answer copies the Record-Route, and printing it asserted.
    static func hiddenRouteOptions(_ peer: RawSIPPeer) -> RawSIPRequest {
        var options = RawSIPRequest(peer: peer, method: "OPTIONS")
        options.extraHeaders = ["Record-Route: <sip:proxy.example;hide>"]
        return options
    }

    @Test func aHiddenRecordRouteWithoutLrAbortsTheUnpatchedLibrary() async throws {
        let app = try await FuzzFindingTests.answeringApp("pjsua-unpatched-route-hide", prefix: InputScreenTests.prefix)
        defer { app.stop() }
        let peer = try RawSIPPeer(target: app.port)
        peer.send(Self.hiddenRouteOptions(peer))
        try await FuzzFindingTests.expectAborted(app, "a hidden Record-Route without lr")
    }

    /// Our patch: answered 200, the hidden route left out of the answer (as PJSIP leaves out a
    /// hidden route it prints), and a call afterwards.
    @Test func aHiddenRecordRouteWithoutLrIsAnsweredByThePatchedAppAndOurEngine() async throws {
        let app = try await FuzzFindingTests.answeringApp("pjsua-patched-route-hide", prefix: nil)
        defer { app.stop() }
        let (child, port) = try await answeringSoftphone([], name: "softphone-route-hide")
        defer { child.stop() }
        for (name, target, output) in [("the pjsua app", app.port, { app.process.output }), ("the softphone", port, { child.output })] {
            let peer = try RawSIPPeer(target: target)
            let answer = try await peer.exchange(Self.hiddenRouteOptions(peer), timeout: .seconds(5))
            #expect(answer?.statusCode == 200, "\(name): \(answer?.startLine ?? "no answer"): \(output().suffix(3000))")
            #expect(answer?.header("record-route") == nil, "\(name) printed the hidden route: \(answer?.description ?? "")")
            let call = try await peer.plainCall()
            #expect(call.invite == 200 && call.bye == 200, "\(name), a call after the hidden route: \(call)")
        }
    }
}
