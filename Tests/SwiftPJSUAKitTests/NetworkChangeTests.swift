import Foundation
import PJSUATestSupport
import SwiftPJSUA
import Synchronization
import Testing
@testable import SwiftPJSUAKit

private let wifi = NetworkPath.Interface(name: "en0", kind: .wifi)
private let cellular = NetworkPath.Interface(name: "pdp_ip0", kind: .cellular)
private let loopback = NetworkPath.Interface(name: "lo0", kind: .loopback)
private func up(_ interfaces: NetworkPath.Interface...) -> NetworkPath { NetworkPath(isSatisfied: true, interfaces: interfaces) }
private let down = NetworkPath(isSatisfied: false, interfaces: [])

@Suite("When a network change needs the engine to recover")
struct NetworkChangePolicyTests {
    private func decisions(_ paths: [NetworkPath]) -> [Bool] {
        var policy = NetworkChangePolicy()
        return paths.map { policy.observe($0) }
    }

    @Test func theFirstPathIsTheOneTheEngineStartedOn() {
        #expect(decisions([up(wifi)]) == [false])
    }

    @Test func theSamePathAgainChangesNothing() {
        #expect(decisions([up(wifi), up(wifi), up(wifi, loopback)]) == [false, false, false])
    }

    @Test func wifiToCellularAndBackRecoverEachTime() {
        #expect(decisions([up(wifi), up(cellular), up(wifi)]) == [false, true, true])
    }

    @Test func aNewPreferredInterfaceRecovers() {
        #expect(decisions([up(wifi, cellular), up(cellular, wifi)]) == [false, true])
        #expect(decisions([up(wifi), up(wifi, cellular)]) == [false, true])
    }

    @Test func aLossRecoversOnlyOnceTheNetworkIsBackEvenOnTheSameInterface() {
        #expect(decisions([up(wifi), down, down, up(wifi)]) == [false, false, false, true])
        // Satisfied with only loopback is no network.
        #expect(decisions([up(wifi), up(loopback), up(wifi)]) == [false, false, true])
    }

    @Test func anEngineStartedOfflineRecoversWhenTheNetworkArrives() {
        #expect(decisions([down, up(wifi), up(wifi)]) == [false, true, false])
    }
}

/// A sleep the test ends by hand (`elapse()`), so the settle wait is deterministic.
///
/// Cancellation ends a sleep at once, under the lock, so that when the coordinator has cancelled
/// a wait, ``count`` no longer includes it (an actor here would end it later, in a task of its
/// own, and ``waitForSleepers(_:)`` could mistake a cancelled wait for the newest one).
final class ManualSleep: Sendable {
    private struct State {
        var sleepers: [UUID: CheckedContinuation<Void, any Error>] = [:]
        /// Sleeps cancelled before they were stored: they end as soon as they are.
        var cancelledEarly: Set<UUID> = []
    }

    private let state = Mutex(State())

    var count: Int { state.withLock { $0.sleepers.count } }

    func sleep() async throws {
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let cancelled = state.withLock { state in
                    if state.cancelledEarly.remove(id) != nil { return true }
                    state.sleepers[id] = continuation
                    return false
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let sleeper = state.withLock { state in
                let sleeper = state.sleepers.removeValue(forKey: id)
                if sleeper == nil { state.cancelledEarly.insert(id) }
                return sleeper
            }
            sleeper?.resume(throwing: CancellationError())
        }
    }

    /// Ends every sleep in progress.
    func elapse() {
        let all = state.withLock { state in
            let all = state.sleepers
            state.sleepers = [:]
            return all
        }
        all.values.forEach { $0.resume() }
    }

    /// Waits until `n` sleeps are in progress.
    func waitForSleepers(_ n: Int) async {
        while count != n { await Task.yield(); try? await Task.sleep(for: .milliseconds(1)) }
    }
}

/// Gates handed out in order, one per sleep, so a test ends each wait on its own.
actor NumberedGates {
    private var gates: [Gate] = []
    private var taken = 0

    /// The gate of the next sleep.
    func take() -> Gate {
        defer { taken += 1 }
        return gate(taken)
    }

    /// The gate of sleep `index` (counting from 0), whether it has started yet or not.
    func gate(_ index: Int) -> Gate {
        while gates.count <= index { gates.append(Gate()) }
        return gates[index]
    }
}

@Suite("The network change coordinator: settles bursts, never overlaps recoveries")
struct NetworkChangeCoordinatorTests {
    @Test func aBurstOfChangesCostsOneRecoveryAfterItSettles() async {
        let engine = FakeEngine()
        let clock = ManualSleep()
        let coordinator = NetworkChangeCoordinator(engine: engine, sleep: { _ in try await clock.sleep() })
        await coordinator.pathChanged(up(wifi))
        #expect(clock.count == 0)
        for path in [down, up(cellular), down, up(wifi)] {
            await coordinator.pathChanged(path)
        }
        await clock.waitForSleepers(1)  // earlier waits were cancelled by later paths
        #expect(engine.count("networkChange") == 0)
        clock.elapse()
        await coordinator.idle()
        #expect(engine.count("networkChange") == 1)
        #expect(await coordinator.results.count == 1)
    }

    /// A wait whose sleep was over when a newer path cancelled it (the cancellation came too
    /// late to stop it) must not recover on its own: the burst still costs one recovery.
    @Test func aWaitThatEndsAfterANewerPathArrivedDoesNotRecoverToo() async {
        let engine = FakeEngine()
        let held = Gate()
        engine.holdNetworkChanges(at: held)
        // Sleeps that ignore cancellation, each ended by a gate of its own.
        let gates = NumberedGates()
        let coordinator = NetworkChangeCoordinator(engine: engine, sleep: { _ in await gates.take().wait() })
        await coordinator.pathChanged(up(wifi))
        await coordinator.pathChanged(up(cellular))
        await coordinator.pathChanged(up(wifi))
        await gates.gate(0).open()
        try? await Task.sleep(for: .milliseconds(50))  // room for a recovery to start
        await gates.gate(1).open()
        while engine.count("networkChange") < 1 { try? await Task.sleep(for: .milliseconds(1)) }
        try? await Task.sleep(for: .milliseconds(50))  // room for a second one to be asked for
        await held.open()
        await coordinator.idle()
        #expect(engine.count("networkChange") == 1, "\(engine.log)")
        #expect(await coordinator.results.count == 1)
    }

    @Test func aChangeDuringARecoveryRunsOneMoreAfterItNeverAlongside() async {
        let engine = FakeEngine()
        let gate = Gate()
        engine.holdNetworkChanges(at: gate)
        let clock = ManualSleep()
        let coordinator = NetworkChangeCoordinator(engine: engine, sleep: { _ in try await clock.sleep() })
        await coordinator.pathChanged(up(wifi))
        await coordinator.pathChanged(up(cellular))
        await clock.waitForSleepers(1)
        clock.elapse()
        while engine.count("networkChange") < 1 { try? await Task.sleep(for: .milliseconds(1)) }
        // Two more changes while the first recovery is held: they settle into one more.
        await coordinator.pathChanged(up(wifi))
        await clock.waitForSleepers(1)
        clock.elapse()
        await coordinator.networkChanged()
        await clock.waitForSleepers(1)
        clock.elapse()
        try? await Task.sleep(for: .milliseconds(50))
        #expect(engine.count("networkChange") == 1, "a recovery overlapped the running one: \(engine.log)")
        await gate.open()
        await coordinator.idle()
        #expect(engine.count("networkChange") == 2, "\(engine.log)")
    }

    @Test func aFailedRecoveryIsReportedAndTheNextChangeStillRecovers() async {
        let engine = FakeEngine()
        engine.fail("networkChange")
        let coordinator = NetworkChangeCoordinator(engine: engine, settle: .zero)
        await coordinator.pathChanged(up(wifi))
        await coordinator.pathChanged(up(cellular))
        try? await Task.sleep(for: .milliseconds(20))
        await coordinator.idle()
        await coordinator.pathChanged(up(wifi))
        try? await Task.sleep(for: .milliseconds(20))
        await coordinator.idle()
        let results = await coordinator.results
        #expect(results.count == 2)
        #expect(results.allSatisfy { if case .failure = $0 { true } else { false } })
    }

    /// With the real engine: a recovery runs pjsua's IP change to completion.
    @Test func withTheRealEngineARecoveryRunsPjsuasIPChangeToCompletion() async throws {
        try await withStartedEngine { phone, _ in
            let events = phone.events
            let coordinator = NetworkChangeCoordinator(engine: PJSUACallEngine(phone), settle: .zero)
            await coordinator.networkChanged()
            var steps: [PJSUA.IPChangeStep] = []
            for await event in events {
                if case let .ipChange(step, error) = event {
                    #expect(error == nil, "\(step): \(String(describing: error))")
                    steps.append(step)
                    if step == .completed { break }
                }
            }
            await coordinator.idle()
            #expect(steps.contains(.listenerRestarted), "\(steps)")
            #expect(steps.last == .completed)
            let results = await coordinator.results
            #expect(results.count == 1)
        }
    }
}
