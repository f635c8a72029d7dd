import Foundation
import PJSUATestSupport
import SwiftPJSUA
import Testing

/// STUN, ICE and TURN against coturn and a second engine process: media forced through a TURN
/// relay carries the tone; ICE across a network namespace connects and reports its pair.
@Suite("NAT traversal: ICE, STUN and TURN with coturn", .serialized)
struct NATTraversalTests {
    /// Waits until ICE has a working pair for `call`.
    private func establishedPath(_ phone: PJSUA, _ call: PJSUA.Call) async throws -> PJSUA.MediaPath {
        let deadline = ContinuousClock.now.advanced(by: .seconds(10))
        while true {
            let path = try await phone.mediaPath(call)
            if path.isEstablished || ContinuousClock.now >= deadline { return path }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Runs `body` with a network namespace, coturn on the host side of it, and a temporary
    /// directory holding `tone.wav` (1 s at 600 Hz); all three are removed afterwards.
    private func withNamespace(_ body: (NetworkNamespace, Coturn, String) async throws -> Void) async throws {
        let net = try await NetworkNamespace()
        defer { net.remove() }
        let coturn = try await Coturn(host: net.hostAddress)
        defer { coturn.stop() }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try WAVFile.tone(frequency: 600, duration: .seconds(1)).write(to: directory + "/tone.wav")
        try await body(net, coturn, directory)
    }

    /// No host candidates on our side: the only way for media is a TURN allocation on coturn.
    /// The far end (softphone answer --ice, in a network namespace: pjnath never takes a
    /// loopback address as an ICE host candidate, KL-13) plays a tone; we hear it through the relay.
    @Test(arguments: [PJSUA.TURNConfiguration.Transport.udp, .tcp])
    func aCallForcedThroughATURNRelayCarriesTheTone(over transport: PJSUA.TURNConfiguration.Transport) async throws {
        try await withNamespace { net, turn, directory in
            let callee = try ChildProcess("ip", net.command([
                try softphone(), "answer", "--listen", "udp:\(net.address(2)):5060", "--ice", "--exit-after", "1",
                "--play", directory + "/tone.wav", "--json",
            ]), name: "softphone-turn-callee")
            defer { callee.stop() }
            try await callee.waitUntilStarted(printing: "\"listening\"")

            var configuration = PJSUA.Configuration(port: 0, transport: .udp, bindAddress: net.hostAddress, audioDevice: .null)
            configuration.nat.ice = PJSUA.ICEConfiguration(maxHostCandidates: 0)
            configuration.nat.turn = PJSUA.TURNConfiguration(server: turn.address, transport: transport, username: Coturn.username,
                                                             password: Coturn.password)
            try await withEngine(configuration) { phone, _, log in
                let call = try await phone.makeCall(to: PJSUA.SIPURI("sip:callee@\(net.address(2)):5060"))
                try await log.state(call, .confirmed, timeout: .seconds(15))
                try await log.mediaActive(call)
                let path = try await establishedPath(phone, call)
                #expect(path.usesICE && path.isEstablished, "\(path)")
                #expect(path.localCandidate == .relayed, "\(path)")
                let relayPort = Int(path.localAddress.split(separator: ":").last ?? "") ?? 0
                #expect(path.localAddress.hasPrefix(net.hostAddress + ":") && (50000...50999).contains(relayPort),
                        "not a coturn relay address: \(path)")
                #expect(path.remoteAddress.hasPrefix(net.address(2) + ":"), "\(path)")
                #expect(try await hearsTone(phone, call, at: directory + "/relayed.wav"), "no tone through the relay\n\(callee.output)")
                try await phone.hangUp(call)
                try await log.state(call, .disconnected)
            }
            #expect(turn.peer.output.contains("ALLOCATE processed, success"), "coturn saw no allocation")
            #expect(try await callee.waitForExit(timeout: .seconds(10)) == 0, "\(callee.output)")
        }
    }

    /// ICE between this engine and a softphone in a network namespace (veth pair), with coturn
    /// as the STUN server of both: the checks succeed and the pair is host to host (no NAT between).
    /// Without trickle, and with full trickle ICE (RFC 8838) on both sides.
    @Test(arguments: [PJSUA.ICEConfiguration.Trickle.off, .full])
    func iceAcrossANetworkNamespaceConnectsAndReportsTheCandidatePair(trickle: PJSUA.ICEConfiguration.Trickle) async throws {
        try await withNamespace { net, stun, directory in
            let callee = try ChildProcess("ip", net.command([
                try softphone(), "answer", "--listen", "udp:\(net.address(2)):5060", "--ice", "--stun", stun.address,
                "--ice-trickle", trickle == .full ? "full" : "off",
                "--exit-after", "1", "--play", directory + "/tone.wav", "--json",
            ]), name: "softphone-ice-netns")
            defer { callee.stop() }
            try await callee.waitUntilStarted(printing: "\"listening\"")

            var configuration = PJSUA.Configuration(port: 0, transport: .udp, bindAddress: net.hostAddress, audioDevice: .null)
            configuration.nat.stunServers = [stun.address]
            configuration.nat.ice = PJSUA.ICEConfiguration(trickle: trickle)
            let lines = LineLog()
            configuration.logLevel = .trace
            configuration.logSIPMessages = true
            configuration.logHandler = { _, line in lines.append(line) }
            try await withEngine(configuration) { phone, _, log in
                let call = try await phone.makeCall(to: PJSUA.SIPURI("sip:callee@\(net.address(2)):5060"))
                try await log.state(call, .confirmed, timeout: .seconds(15))
                try await log.mediaActive(call)
                let path = try await establishedPath(phone, call)
                #expect(path.usesICE && path.isEstablished, "\(path)")
                #expect(path.localCandidate == .host && path.remoteCandidate == .host, "\(path)")
                #expect(path.localAddress.hasPrefix(net.hostAddress + ":"), "\(path)")
                #expect(path.remoteAddress.hasPrefix(net.address(2) + ":"), "\(path)")
                #expect(try await hearsTone(phone, call, at: directory + "/ice.wav"), "no tone over ICE\n\(callee.output)")
                // Both offers say whether they trickle (RFC 8840 a=ice-options:trickle).
                let trickling = lines.values.filter { $0.contains("a=ice-options:trickle") }.count
                #expect(trickle == .full ? trickling >= 2 : trickling == 0, "\(trickling) SDPs with trickle")
                try await phone.hangUp(call)
                try await log.state(call, .disconnected)
            }
            #expect(try await callee.waitForExit(timeout: .seconds(10)) == 0, "\(callee.output)")
        }
    }

    /// The other way round, with full trickle ICE: a softphone in the namespace calls this engine,
    /// which takes the caller's trickled candidates (the SDP fragments of its INFOs), matched to the
    /// offer's media by `a=mid`. KL-45: pjsua kept that `a=mid` as a pointer into the INVITE's receive
    /// buffer, so the match read freed memory (AddressSanitizer, which make test's engine pass runs
    /// this under: heap-use-after-free) or whatever the buffer held by then (the candidates refused
    /// as "media ID ... not recognized").
    @Test func anEngineAnsweringATrickleICECallTakesTheCallersTrickledCandidates() async throws {
        try await withNamespace { net, stun, directory in

            var configuration = PJSUA.Configuration(port: 0, transport: .udp, bindAddress: net.hostAddress, audioDevice: .null)
            configuration.nat.stunServers = [stun.address]
            configuration.nat.ice = PJSUA.ICEConfiguration(trickle: .full)
            let lines = LineLog()
            configuration.logLevel = .trace
            configuration.logSIPMessages = true
            configuration.logHandler = { _, line in lines.append(line) }
            try await withEngine(configuration) { phone, transport, log in
                let caller = try ChildProcess("ip", net.command([
                    try softphone(), "call", "sip:callee@\(net.hostAddress):\(transport.port)", "--listen", "udp:\(net.address(2)):5060",
                    "--ice", "--stun", stun.address, "--ice-trickle", "full", "--seconds", "3",
                    "--play", directory + "/tone.wav", "--json",
                ]), name: "softphone-trickle-caller")
                defer { caller.stop() }
                let incoming = try await log.incomingCall(timeout: .seconds(15))
                try await phone.answer(incoming.call)
                try await log.state(incoming.call, .confirmed, timeout: .seconds(15))
                try await log.mediaActive(incoming.call)
                let path = try await establishedPath(phone, incoming.call)
                #expect(path.usesICE && path.isEstablished, "\(path)")
                #expect(try await hearsTone(phone, incoming.call, at: directory + "/trickled.wav"), "no tone over ICE\n\(caller.output)")
                let received = lines.values.filter { $0.contains("application/trickle-ice-sdpfrag") }
                #expect(!received.isEmpty, "the caller trickled nothing")
                let refused = lines.values.filter { $0.contains("is not recognized") }
                #expect(refused.isEmpty, "trickled candidates refused: \(refused)")
                try await log.state(incoming.call, .disconnected, timeout: .seconds(15))
                #expect(try await caller.waitForExit(timeout: .seconds(15)) == 0, "\(caller.output)")
            }
        }
    }

    /// ICE set for the engine, turned off for one account: that account's calls use a plain
    /// media transport, the engine's other calls ICE.
    @Test func anAccountOverridesTheEnginesICE() async throws {
        let net = try await NetworkNamespace()
        defer { net.remove() }
        let callee = try ChildProcess("ip", net.command([
            try softphone(), "answer", "--listen", "udp:\(net.address(2)):5060", "--exit-after", "2", "--json",
        ]), name: "softphone-plain-netns")
        defer { callee.stop() }
        try await callee.waitUntilStarted(printing: "\"listening\"")
        var configuration = PJSUA.Configuration(port: 0, transport: .udp, bindAddress: net.hostAddress, audioDevice: .null)
        configuration.nat.ice = PJSUA.ICEConfiguration()
        try await withEngine(configuration) { phone, _, log in
            var plain = PJSUA.Account.Configuration(id: try PJSUA.SIPURI("sip:plain@\(net.hostAddress)"))
            plain.ice = .off
            let account = try await phone.addAccount(plain)
            for (from, expectsICE) in [(Optional(account), false), (nil, true)] {
                let call = try await phone.makeCall(to: PJSUA.SIPURI("sip:callee@\(net.address(2)):5060"), from: from)
                try await log.state(call, .confirmed, timeout: .seconds(15))
                try await log.mediaActive(call)
                let path = try await phone.mediaPath(call)
                #expect(path.usesICE == expectsICE, "\(from.map(\.description) ?? "the engine's account"): \(path)")
                try await phone.hangUp(call)
                try await log.state(call, .disconnected)
            }
        }
        #expect(try await callee.waitForExit(timeout: .seconds(10)) == 0, "\(callee.output)")
    }

    @Test func badNATSettingsAreRefusedWithAClearErrorAndTheTURNPasswordNeverShows() async throws {
        var configuration = PJSUA.Configuration(port: 0, transport: .udp, bindAddress: "127.0.0.1", audioDevice: .null)
        let turn = PJSUA.TURNConfiguration(server: "127.0.0.1:3478", username: "alice", password: "turn-secret")
        for (nat, mention) in [
            (PJSUA.NATTraversal(turn: turn), "ICE"),
            (PJSUA.NATTraversal(stunServers: ["stun.example.com:99999"]), "port"),
            (PJSUA.NATTraversal(stunServers: ["sip:stun.example.com"]), "STUN server"),
            (PJSUA.NATTraversal(stunServers: ["::1"]), "brackets"),
            (PJSUA.NATTraversal(ice: .init(maxHostCandidates: 99)), "maxHostCandidates"),
        ] {
            configuration.nat = nat
            let phone = PJSUA()
            do {
                _ = try await phone.start(configuration)
                Issue.record("\(nat) was accepted")
                await phone.shutdown()
            } catch let error as PJSUAError {
                #expect(error.code == .invalidArgument, "\(error)")
                #expect(error.message.contains(mention), "\(error)")
            }
        }
        var account = PJSUA.Account.Configuration(id: "sip:alice@127.0.0.1")
        account.turn = .custom(turn)
        var dumped = ""
        dump(account, to: &dumped)
        for text in [turn.description, String(describing: turn), "\(account.turn)", account.description, dumped, String(reflecting: turn)] {
            #expect(!text.contains("turn-secret"), "\(text)")
        }
    }
}
