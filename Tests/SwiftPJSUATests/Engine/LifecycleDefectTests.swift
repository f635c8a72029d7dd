import Foundation
import PJSIP
import PJSUATestSupport
@testable import SwiftPJSUA
import Testing

/// Lifecycle defects found in review, each with the trigger that exposed it.
@Suite("Engine lifecycle: releasing, PJLIB, concurrent shutdowns, the executor's queue")
struct LifecycleDefectTests {
    /// The last reference to a running engine dropped inside its own log handler, on a pjsua
    /// thread: the release must return (it used to wait for pjsua_destroy, which waits for that
    /// very thread), and a new engine starts once the released one's teardown is done.
    @Test func releasingARunningEngineInsideItsLogHandlerNeitherBlocksNorDeadlocks() async throws {
        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        let holder = Box<PJSUA>()
        let dropNow = Box<Bool>()
        let released = Box<Bool>()
        let configuration = PJSUA.Configuration(
            port: 0, bindAddress: "127.0.0.1", audioDevice: .null, logLevel: .trace, logSIPMessages: true,
            logHandler: { _, _ in
                guard dropNow.value == true, released.value == nil else { return }
                holder.value = nil  // the engine's deinit runs here, on whichever thread logs
                released.value = true
            })
        // Only `holder` (reachable from the log handler) keeps the engine.
        let (log, port) = try await Self.startCalling(held: holder, configuration)
        defer { holder.value = nil }
        dropNow.value = true
        // The next log line drops the engine: an OPTIONS request makes pjsua's worker log.
        let peer = try LoopbackSocket()
        peer.send("""
            OPTIONS sip:drop@127.0.0.1:\(port) SIP/2.0\r
            Via: SIP/2.0/UDP 127.0.0.1:\(peer.port);branch=z9hG4bK-drop-1\r
            From: <sip:test@127.0.0.1:\(peer.port)>;tag=drop\r
            To: <sip:drop@127.0.0.1:\(port)>\r
            Call-ID: drop-options@127.0.0.1\r
            CSeq: 1 OPTIONS\r
            Max-Forwards: 70\r
            Content-Length: 0\r
            \r

            """, toPort: port)
        try await waitUntil("the engine was released inside the log handler", timeout: .seconds(5)) { released.value == true }
        try await waitUntil("the released engine's events finished", timeout: .seconds(5)) { log.isFinished }
        let next = PJSUA()
        let transport = try await next.start(.init(port: 0, bindAddress: "127.0.0.1"))
        #expect(transport.port > 0)
        await next.shutdown()
    }

    /// Starts an engine that only `holder` references, with a call under way; returns its event log.
    private static func startCalling(held holder: Box<PJSUA>, _ configuration: PJSUA.Configuration) async throws -> (EventLog, Int) {
        let phone = PJSUA()
        holder.value = phone
        let transport = try await phone.start(configuration)
        let log = EventLog(phone.events)
        let call = try await phone.makeCall(to: transport.uri(user: "drop"))
        try await log.state(call, .calling)
        return (log, transport.port)
    }

    @Test func releasingARunningEngineReturnsWithoutWaitingForItsTeardown() async throws {
        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        let silent = try LoopbackSocket()
        var phone: PJSUA? = PJSUA()
        let log = EventLog(phone!.events)
        _ = try await phone?.start(.init(port: 0, bindAddress: "127.0.0.1", audioDevice: .null))
        // A call nobody answers: a graceful teardown would wait for its CANCEL.
        _ = try await phone?.makeCall(to: PJSUA.SIPURI("sip:nobody@127.0.0.1:\(silent.port)"))
        let start = ContinuousClock.now
        phone = nil
        let releaseTook = ContinuousClock.now - start
        // The old deinit ran pjsua_destroy2(0) and joined: about a second or more, on this thread.
        #expect(releaseTook < .milliseconds(300), "releasing took \(releaseTook)")
        try await waitUntil("events finished after the teardown") { log.isFinished }
        // The slot is free again once the teardown has finished.
        let next = PJSUA()
        _ = try await next.start(.init(port: 0, bindAddress: "127.0.0.1"))
        await next.shutdown()
    }

    /// A subscription made while the engine is idle (before its first start, after a shutdown)
    /// has no run to end it: releasing the engine ends it.
    @Test func eventSequencesOfAnIdleEngineFinishWhenItIsReleased() async throws {
        var fresh: PJSUA? = PJSUA()
        let neverStarted = EventLog(fresh!.events)
        fresh = nil
        try await waitUntil("the never-started engine's events finished") { neverStarted.isFinished }

        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        var used: PJSUA? = PJSUA()
        _ = try await used?.start(.init(port: 0, bindAddress: "127.0.0.1"))
        await used?.shutdown()
        let afterShutdown = EventLog(used!.events)
        used = nil
        try await waitUntil("the stopped engine's later subscription finished") { afterShutdown.isFinished }
    }

    /// Creating an engine (its executor thread initialises PJLIB) must not change the log level
    /// of the engine that runs.
    @Test func creatingAnotherEngineLeavesTheRunningEnginesLogLevelAlone() async throws {
        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        let lines = OrderLog()
        let phone = PJSUA()
        let transport = try await phone.start(.init(port: 0, bindAddress: "127.0.0.1", audioDevice: .null, logLevel: .debug,
                                                     logHandler: { _, _ in lines.append(0) }))
        let level = pj_log_get_level()
        #expect(level >= 4)
        let others = (0..<5).map { _ in PJSUA() }
        #expect(pj_log_get_level() == level)
        let before = lines.count
        let log = EventLog(phone.events)
        let call = try await phone.makeCall(to: transport.uri(user: "still-logging"))
        try await log.state(call, .calling)
        try await waitUntil("the running engine still logs") { lines.count > before }
        _ = others
        await phone.shutdown()
    }

    /// Engines created and released on other threads (each executor takes and gives back a
    /// PJLIB initialisation) while one engine starts and stops: PJLIB's non-atomic init counter
    /// must never reach zero under the running engine.
    @Test func enginesCreatedAndReleasedWhileAnotherStartsAndStopsKeepPJLIBAlive() async throws {
        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        let phone = PJSUA()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for _ in 0..<400 { _ = PJSUA() }
            }
            group.addTask {
                for round in 0..<10 {
                    let log = EventLog(phone.events)
                    let transport = try await phone.start(.init(port: 0, bindAddress: "127.0.0.1", audioDevice: .null))
                    let call = try await phone.makeCall(to: transport.uri(user: "pjlib-\(round)"))
                    try await log.state(call, .calling)
                    await phone.shutdown()
                }
            }
            try await group.waitForAll()
        }
        // PJLIB is still initialised and this thread-independent call still works.
        let transport = try await phone.start(.init(port: 0, bindAddress: "127.0.0.1"))
        #expect(transport.port > 0)
        await phone.shutdown()
    }

    /// Two shutdowns at once: the second must return only when the engine has stopped, so that
    /// `await shutdown(); try start()` works from any task.
    @Test func aSecondShutdownReturnsOnlyOnceTheEngineHasStopped() async throws {
        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        let silent = try LoopbackSocket()
        let phone = PJSUA()
        _ = try await phone.start(.init(port: 0, bindAddress: "127.0.0.1", audioDevice: .null))
        // An unanswered call keeps the first shutdown busy (it waits for the call to end).
        _ = try await phone.makeCall(to: PJSUA.SIPURI("sip:nobody@127.0.0.1:\(silent.port)"))
        let first = Task { await phone.shutdown() }
        try await waitUntil("the first shutdown began") { await !phone.isRunning }
        await phone.shutdown()
        let restarted = try await phone.start(.init(port: 0, bindAddress: "127.0.0.1"))
        #expect(restarted.port > 0)
        await first.value
        await phone.shutdown()
    }

    @Test func blocksSubmittedAfterTheExecutorStoppedAreDropped() {
        let executor = PJSUAExecutor(name: "stopped-test")
        #expect(executor.execute {})
        executor.shutdown()
        let ran = Box<Bool>()
        #expect(!executor.execute { ran.value = true })
        #expect(ran.value == nil)
    }

    /// A burst of 100,000 jobs: the queue gives the memory back once drained, and under a load
    /// that never lets it drain it compacts instead of growing without bound.
    @Test func theExecutorsQueueShrinksAfterABurstAndCompactsUnderSustainedLoad() async throws {
        let executor = PJSUAExecutor(name: "queue-test")
        defer { executor.shutdown() }
        let gate = DispatchSemaphore(value: 0)
        executor.execute { gate.wait() }
        let done = OrderLog()
        for _ in 0..<100_000 { executor.execute { done.append(0) } }
        #expect(executor.queueCapacity >= 100_000)
        gate.signal()
        try await waitUntil("the burst ran") { done.count == 100_000 }
        #expect(executor.queueCapacity <= PJSUAExecutor.retainedCapacity, "capacity \(executor.queueCapacity) after draining")

        // Sustained: the producer stays a few thousand jobs ahead of the thread for 200,000 jobs.
        // It sleeps while it waits for the executor, so it runs on a thread of its own, not on
        // the cooperative pool that every other test shares.
        let ran = OrderLog()
        let peak = await onThreadOfItsOwn("sustained producer") { () -> Int in
            var peak = 0
            for index in 0..<200_000 {
                executor.execute { ran.append(0) }
                if index % 1_000 == 0 {
                    while index - ran.count > 4_000 { usleep(100) }
                    peak = max(peak, executor.queueCapacity)
                }
            }
            return peak
        }
        try await waitUntil("the sustained load ran") { ran.count == 200_000 }
        #expect(peak < 50_000, "the queue grew to \(peak) jobs while never more than ~5,000 were pending")
    }
}
