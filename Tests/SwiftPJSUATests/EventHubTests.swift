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
        try await waitUntil("2,000 consumers cancelled while events flow", timeout: .seconds(20)) { cancelled.value == 2_000 }
        stop.value = true
        try await waitUntil("the publisher returned", timeout: .seconds(10)) { published.value != nil }
        await canceller.value
        #expect(hub.subscriberCount == 0)
    }
}
