import Foundation
import SwiftPJSUA
import PJSUATestSupport
import Testing

@Suite("Engine lifecycle")
struct LifecycleTests {
    @Test func aSecondEngineGetsATypedErrorWhileOneRuns() async throws {
        try await withEngine { phone, _, _ in
            let other = PJSUA()
            await #expect(throws: PJSUAError.self) { try await other.start(.init(port: 0, bindAddress: "127.0.0.1")) }
            do {
                try await other.start(.init(port: 0, bindAddress: "127.0.0.1"))
            } catch PJSUAError.alreadyRunning {
                // expected
            }
            await #expect(throws: PJSUAError.self) { try await phone.start(.init(port: 0)) }
            #expect(await phone.isRunning)
            #expect(await !other.isRunning)
        }
    }

    @Test func anEngineStartsAgainAfterShutdown() async throws {
        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        let phone = PJSUA()
        for _ in 0..<3 {
            let events = EventLog(phone.events)
            let transport = try await phone.start(.init(port: 0, bindAddress: "127.0.0.1", audioDevice: .null))
            #expect(transport.port > 0)
            let call = try await phone.makeCall(to: transport.uri(user: "again"))
            try await events.state(call, .calling)
            await phone.shutdown()
            #expect(await !phone.isRunning)
            try await waitUntil("event sequence finished") { events.isFinished }
        }
        // A different engine object can run once the first has shut down.
        let second = PJSUA()
        try await second.start(.init(port: 0, bindAddress: "127.0.0.1"))
        await second.shutdown()
    }

    @Test func shutdownHangsUpActiveCallsAndDeliversTheirDisconnectedEvents() async throws {
        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        let phone = PJSUA()
        let log = EventLog(phone.events)
        let transport = try await phone.start(.init(port: 0, bindAddress: "127.0.0.1", audioDevice: .null))
        let caller = try await phone.makeCall(to: transport.uri(user: "busy"))
        let callee = try await log.incomingCall().call
        try await phone.answer(callee)
        try await log.state(caller, .confirmed)
        try await log.state(callee, .confirmed)
        // A third call left ringing.
        let ringing = try await phone.makeCall(to: transport.uri(user: "ringing"))
        try await log.first("second incoming call") { event -> Void? in
            if case let .incomingCall(_, call, _, _, _) = event, call != callee { return () }
            return nil
        }
        await phone.shutdown()
        try await waitUntil("event sequence finished") { log.isFinished }
        for call in [caller, callee, ringing] {
            #expect(log.states(of: call).last == .disconnected, "\(call): \(log.states(of: call))")
        }
        await #expect(throws: PJSUAError.self) { try await phone.hangUp(caller) }
    }

    @Test func methodsBeforeStartThrowNotStarted() async throws {
        let phone = PJSUA()
        do {
            _ = try await phone.makeCall(to: "sip:bob@127.0.0.1")
            Issue.record("makeCall before start did not throw")
        } catch PJSUAError.notStarted {
        }
        await #expect(throws: PJSUAError.self) { try await phone.activateAudioDevice() }
        await phone.shutdown()  // harmless when not started
        await phone.deactivateAudioDevice()
    }

    @Test func badConfigurationIsRejectedWithoutStarting() async throws {
        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        let phone = PJSUA()
        let cases: [(PJSUA.Configuration, String)] = [
            (.init(port: 70000), "port 70000"),
            (.init(port: -1), "port -1"),
            (.init(port: 0, bindAddress: "not-an-ip"), "not-an-ip"),
            (.init(port: 0, bindAddress: "::1"), "::1"),
            (.init(port: 0, maxCalls: 0), "maxCalls 0"),
            (.init(port: 0, maxCalls: PJSUA.maxCallsLimit + 1), "maxCalls \(PJSUA.maxCallsLimit + 1)"),
            (.init(port: 0, userAgent: "evil\r\nX-Injected: 1"), "user agent"),
        ]
        for (configuration, mention) in cases {
            if let error = await startError(phone, configuration) {
                #expect(error.code == .invalidArgument)
                #expect(error.message.contains(mention), "\(error.message)")
            } else {
                Issue.record("started with \(mention)")
            }
            await phone.shutdown()
            #expect(await !phone.isRunning)
        }
        // A port already in use is PJSIP's error, and leaves nothing half-started; a subscriber
        // made before the failed start still gets the next run's events.
        let log = EventLog(phone.events)
        let blocker = try LoopbackSocket()
        let error = try #require(await startError(phone, .init(port: blocker.port, bindAddress: "127.0.0.1")))
        #expect(error.code == .pjsip)
        #expect(error.status != nil)
        #expect(error.message.contains("\(blocker.port)"), "\(error.message)")
        #expect(await !phone.isRunning)
        let transport = try await phone.start(.init(port: 0, bindAddress: "127.0.0.1"))
        let call = try await phone.makeCall(to: transport.uri(user: "after-failure"))
        try await log.state(call, .calling)
        await phone.shutdown()
    }

    @Test func transportsOverTCPAndIPv6ReportTheirBoundPorts() async throws {
        try await withEngine(.init(port: 0, transport: .tcp, bindAddress: "127.0.0.1", audioDevice: .null)) { phone, tcp, log in
            #expect(tcp.kind == .tcp)
            #expect(tcp.port > 0)
            let udp6 = try await phone.addTransport(.udp, ipv6: true, port: 0, bindAddress: "::1")
            #expect(udp6.port > 0)
            #expect(udp6.uri().description.hasPrefix("sip:[::1]:"))
            let call = try await phone.makeCall(to: tcp.uri(user: "tcp"))
            let incoming = try await log.incomingCall().call
            try await phone.answer(incoming)
            try await log.state(call, .confirmed)
            try await phone.hangUp(call)
            try await log.state(incoming, .disconnected)
        }
    }
}

/// Polls `condition` every 10 ms until it holds or `timeout` passes.
func waitUntil(_ what: String, timeout: Duration = .seconds(10), _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now.advanced(by: timeout)
    while try await !condition() {
        if ContinuousClock.now >= deadline { throw TimedOut(what: what) }
        try await Task.sleep(for: .milliseconds(10))
    }
}

/// The error `start` throws, or nil after shutting the engine down again if it started.
func startError(_ phone: PJSUA, _ configuration: PJSUA.Configuration) async -> PJSUAError? {
    do {
        try await phone.start(configuration)
    } catch {
        return error as? PJSUAError
    }
    return nil
}

@Suite("TLS transport")
struct TLSTransportTests {
    /// Without certificates (a later configuration), a TLS listener still opens for outgoing
    /// TLS and reports its port; a sips: URI to it is well formed.
    @Test func aTLSTransportOpensOnAFreePort() async throws {
        try await withEngine { phone, _, _ in
            let tls = try await phone.addTransport(.tls, port: 0, bindAddress: "127.0.0.1")
            #expect(tls.kind == .tls)
            #expect(tls.port > 0)
            #expect(tls.uri(user: "bob").description.hasPrefix("sips:bob@127.0.0.1:"))
            #expect(await phone.listeningTransports.contains(tls))
        }
    }
}
