import Foundation
import Testing
@testable import SwiftPJSUAKit

@Suite("Orchestrator lifetime")
struct OrchestratorLifetimeTests {
    /// The event pump keeps the engine to subscribe again after restarts; an orchestrator
    /// released without stop() must end it, or the engine (with PJSUA: its thread and pjsua
    /// itself) would never be released.
    @Test func aReleasedOrchestratorLetsGoOfItsEngine() async throws {
        weak var released: FakeEngine?
        do {
            let engine = FakeEngine()
            released = engine
            let core = TestOrchestrator(engine: engine, provider: FakeProvider(), audioSession: FakeAudioSession())
            await core.start()
            #expect(engine.subscriptionCount == 1)
        }
        let deadline = ContinuousClock.now.advanced(by: .seconds(5))
        while released != nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(released == nil, "the engine is still referenced after its orchestrator was released")
    }
}
