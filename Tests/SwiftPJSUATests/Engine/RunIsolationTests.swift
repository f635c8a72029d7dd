import Foundation
import PJSUATestSupport
@testable import SwiftPJSUA
import Synchronization
import Testing

/// One engine object started, stopped and started again: what the first run made (listeners,
/// its local account, the null device, credential providers and their pending challenges)
/// belongs to that run, and the next run begins with none of it.
@Suite("Run isolation")
struct RunIsolationTests {
    @Test func nothingOfARunLeaksIntoTheNextStartOfTheSameEngine() async throws {
        let kamailio = try await Kamailio()
        defer { kamailio.stop() }
        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        let phone = PJSUA()
        let asked = Counter()

        // Run 1: a second listener, the null device, and a provider that never answers, so a
        // REGISTER challenge is still pending at shutdown.
        let first = try await phone.start(.init(port: 0, bindAddress: "127.0.0.1", audioDevice: .null))
        let firstTCP = try await phone.addTransport(.tcp, port: 0, bindAddress: "127.0.0.1")
        let firstLocal = try #require(await phone.localAccount)
        let firstCredentials = try #require(EngineRun.current?.credentials)
        let waiting = PJSUA.CredentialProvider(timeout: .seconds(60)) { _ in
            asked.increment()
            try await Task.sleep(for: .seconds(3600))
            return nil
        }
        _ = try await phone.addAccount(id: "sip:alice@127.0.0.1", registrar: PJSUA.SIPURI(kamailio.uri), credentials: .provider(waiting))
        try await waitUntil("the provider asked") { asked.value == 1 }
        #expect(firstCredentials.pendingCount == 1)
        #expect(await phone.isAudioDeviceActive)
        #expect(await phone.listeningTransports == [first, firstTCP])
        await phone.shutdown()
        #expect(firstCredentials.pendingCount == 0)

        // Run 2: no device, one listener, a fresh credential table.
        let second = try await phone.start(.init(port: 0, bindAddress: "127.0.0.1", audioDevice: .none))
        let secondCredentials = try #require(EngineRun.current?.credentials)
        #expect(secondCredentials !== firstCredentials)
        #expect(secondCredentials.pendingCount == 0)
        #expect(await !phone.isAudioDeviceActive, "the first run's null device is reported in the second")
        #expect(await phone.listeningTransports == [second])
        let secondLocal = try #require(await phone.localAccount)
        #expect(secondLocal != firstLocal)
        // The first run's provider, woken by its teardown, reaches nothing of this run.
        try await Task.sleep(for: .milliseconds(200))
        #expect(secondCredentials.pendingCount == 0)
        #expect(asked.value == 1)
        await phone.shutdown()
    }
}

/// A count shared with a provider's closure.
private final class Counter: Sendable {
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
