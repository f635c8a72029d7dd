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
                // Without a pause the loop takes the hub's lock again before a waiting
                // subscriber is scheduled: under ASan at load 30 no subscribe() got in for 15 s
                // (starvation, not the deadlock this test looks for). pjsua's callbacks never
                // publish back to back like this.
                sched_yield()
            }
            published.value = count
        }
        publisher.start()
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
        // A deadlock stops progress for good; a loaded machine only slows it (the publisher spins on
        // a core of its own): fail when no consumer was cancelled for 15 s, not after a total time.
        var done = 0
        while done < 2_000 {
            try await waitUntil("a consumer cancelled while events flow (\(done) of 2,000 so far)", timeout: .seconds(15)) {
                (cancelled.value ?? 0) > done
            }
            done = cancelled.value ?? done
        }
        stop.value = true
        try await waitUntil("the publisher returned", timeout: .seconds(10)) { published.value != nil }
        await canceller.value
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
        try await waitUntil("the reader subscribed") { started.value == true && hub.subscriberCount == 1 }
        reader.cancel()
        await reader.value
        #expect(hub.subscriberCount == 0, "a cancelled reader")
    }
}
