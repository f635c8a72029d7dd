import Foundation
@testable import SwiftPJSUA
import Testing

@Suite("The event hub")
struct EventHubTests {
    /// A callback publishing on a plain thread (as pjsua's worker does) while consumer tasks are
    /// cancelled: resuming a consumer and cancelling one take the consumer task's status lock in
    /// opposite orders with the hub's, which once deadlocked the worker and the canceller.
    @Test func publishingWhileConsumersAreCancelledNeverDeadlocks() async throws {
        let hub = EventHub()
        let stop = Box<Bool>()
        let published = Box<Int>()
        let event = PJSUA.Event.dtmf(call: PJSUA.Call(slot: 0, token: 1), digit: PJSUA.DTMFDigit(digit: "1", method: .rfc4733, duration: nil))
        let publisher = Thread {
            var count = 0
            while stop.value != true {
                hub.publish(event)
                count += 1
                // Paced, as pjsua's callbacks are: back to back, a publisher outruns the
                // consumer (whose `for await` then never suspends, holding a thread of the
                // cooperative pool) and keeps the registry lock from its waiters (subscribe, the
                // cancelled consumer's termination). At the start of an ASan pass at load 9 that
                // froze the whole pool, every other test in the process included, for 15 s. A
                // short rest after each burst of 64 lets both through; the bursts still race
                // the cancellations (resumes of a waiting consumer among them).
                sched_yield()
                if count.isMultiple(of: 64) { usleep(500) }
            }
            published.value = count
        }
        publisher.start()
        // Set on every way out, a failed wait included: a publisher left spinning would load a
        // core for the rest of the test run.
        defer { stop.value = true }
        let cancelled = Box<Int>()
        let canceller = Task.detached {
            for round in 0..<2_000 {
                let stream = hub.subscribe()
                let consumer = Task { for await _ in stream {} }
                if round.isMultiple(of: 2) { await Task.yield() }
                consumer.cancel()
                await consumer.value
                cancelled.value = round + 1
            }
        }
        // The deadlock this looks for blocks the canceller for good while the rest of the
        // cooperative pool runs on; a pool starved by the other tests in the process stops both,
        // and a wall-clock window reads that as a deadlock. So the window is counted in beats of a
        // task on the same pool: fail when the canceller made no progress in 1,500 beats (15 s
        // when the pool is free), or in 120 s whatever the pool did.
        let heartbeat = PoolHeartbeat()
        defer { heartbeat.stop() }
        var done = 0
        while done < 2_000 {
            let beatsBefore = heartbeat.beats
            let deadline = ContinuousClock.now.advanced(by: .seconds(120))
            while (cancelled.value ?? 0) <= done {
                if heartbeat.beats - beatsBefore >= 1_500 || ContinuousClock.now >= deadline {
                    Issue.record("no consumer cancelled while events flow for \(heartbeat.beats - beatsBefore) beats of the pool (\(done) of 2,000 so far): a deadlock")
                    return
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            done = cancelled.value ?? done
        }
        stop.value = true
        try await waitUntil("the publisher returned", timeout: .seconds(10)) { published.value != nil }
        await canceller.value
        #expect(hub.subscriberCount == 0)
    }

    /// Every event reaches the reader once, in publication order, whether it was buffered
    /// (published before the reader asked) or handed to the waiting reader; after the engine
    /// ends the hub, what was buffered is still read, then the sequence ends.
    @Test func eventsArriveOnceInOrderAndTheBufferedOnesOutliveTheEnd() async throws {
        let hub = EventHub()
        let events = hub.subscribe()
        @Sendable func event(_ n: Int) -> PJSUA.Event {
            .dtmf(call: PJSUA.Call(slot: 0, token: UInt(n)), digit: PJSUA.DTMFDigit(digit: "1", method: .rfc4733, duration: nil))
        }
        @Sendable func number(_ event: PJSUA.Event) -> Int? {
            if case let .dtmf(call, _) = event { Int(call.token) } else { nil }
        }
        for n in 0..<500 { hub.publish(event(n)) }  // buffered, past the compaction threshold
        let read = Box<[Int]>()
        let reader = Task {
            var seen: [Int] = []
            for await e in events {
                if let n = number(e) { seen.append(n) }
                read.value = seen
            }
            return seen
        }
        try await waitUntilOnPool("the backlog read") { read.value?.count == 500 }
        let publisher = Thread {  // a pjsua thread hands events to the waiting reader
            for n in 500..<2_000 {
                hub.publish(event(n))
                if n.isMultiple(of: 100) { usleep(1_000) }
            }
        }
        publisher.start()
        try await waitUntilOnPool("the live events read") { read.value?.count == 2_000 }
        let late = hub.subscribe()
        for n in 2_000..<2_010 { hub.publish(event(n)) }
        hub.finishAll()
        hub.publish(event(9_999))  // after the end: taken by nobody
        var lateSeen: [Int] = []
        for await e in late { if let n = number(e) { lateSeen.append(n) } }
        #expect(lateSeen == Array(2_000..<2_010))
        let seen = await reader.value
        #expect(seen == Array(0..<2_010))
        #expect(hub.subscriberCount == 0)
    }

    /// A subscription whose reader is gone leaves the hub, so nothing is buffered for it: an
    /// `events` value released unread, a `for await` loop that broke out (the value still held),
    /// a reader task that was cancelled. Only a value kept and never read stays subscribed.
    @Test func aSubscriptionWhoseReaderIsGoneLeavesTheHub() async throws {
        let phone = PJSUA()
        let hub = phone.hub
        let event = PJSUA.Event.dtmf(call: PJSUA.Call(slot: 0, token: 1), digit: PJSUA.DTMFDigit(digit: "1", method: .rfc4733, duration: nil))
        #expect(hub.subscriberCount == 0)

        _ = phone.events
        #expect(hub.subscriberCount == 0, "a value released unread")

        var kept: PJSUA.Events? = phone.events
        hub.publish(event)
        #expect(hub.subscriberCount == 1, "a value kept is a subscriber")
        kept = nil
        #expect(hub.subscriberCount == 0, "released with an event in its buffer")
        _ = kept

        let held = phone.events
        hub.publish(event)
        hub.publish(event)
        for await _ in held { break }
        #expect(hub.subscriberCount == 0, "a loop that broke out, its sequence still held")
        withExtendedLifetime(held) {}

        let started = Box<Bool>()
        let reader = Task {
            let events = phone.events
            started.value = true
            for await _ in events {}
        }
        try await waitUntilOnPool("the reader subscribed") { started.value == true && hub.subscriberCount == 1 }
        reader.cancel()
        await reader.value
        #expect(hub.subscriberCount == 0, "a cancelled reader")
    }
}

/// Beats of a task on the cooperative pool, one per 10 ms while the pool runs it. A wait counted
/// in beats is not cut short by a pool the other tests in the process keep busy (the task waited
/// for and the heartbeat stop alike), while a task that makes no progress on a running pool
/// still fails it.
final class PoolHeartbeat: Sendable {
    private let count = Box<Int>()
    private let task: Task<Void, Never>

    init() {
        let count = count
        task = Task.detached {
            var beats = 0
            while !Task.isCancelled {
                beats += 1
                count.value = beats
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
    }

    var beats: Int { count.value ?? 0 }

    func stop() { task.cancel() }
}

/// Waits until `condition` holds: at most `beats` beats of the pool (10 s when it is free), or
/// `wallClock` whatever the pool did.
func waitUntilOnPool(_ what: String, beats limit: Int = 1_000, wallClock: Duration = .seconds(120),
                     _ condition: () -> Bool) async throws {
    let heartbeat = PoolHeartbeat()
    defer { heartbeat.stop() }
    let deadline = ContinuousClock.now.advanced(by: wallClock)
    while !condition() {
        if heartbeat.beats >= limit || ContinuousClock.now >= deadline {
            throw TimedOut(what: "\(what) (\(heartbeat.beats) beats of the pool)")
        }
        try await Task.sleep(for: .milliseconds(10))
    }
}
