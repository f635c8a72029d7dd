import Foundation

/// Fans every event out to all current subscribers, in publication order, unbounded.
///
/// Two locks, never held one inside the other's critical section in the opposite order:
/// - `publishing` is held while an event is yielded to every subscriber, so that two callbacks
///   racing on different pjsua threads are seen in the same order by all subscribers. Yielding to
///   an `AsyncStream` continuation never blocks for long, so the C callbacks never block either.
/// - `registry` guards the subscriber table and is held only briefly, never across a yield.
///
/// They must be separate: yielding resumes a waiting task under that task's status lock, and a
/// task being cancelled runs its stream's termination handler under the same status lock, and
/// that handler removes the subscriber. With one lock for both, a callback publishing while a
/// consumer task was cancelled deadlocked (seen: pjsua's worker in `publish`, a Kit event pump
/// being cancelled in `onTermination`).
final class EventHub: @unchecked Sendable {
    // @unchecked Sendable: `subscribers` and `nextID` are guarded by `registry`; `publishing`
    // only orders publications.
    private let publishing = NSLock()
    private let registry = NSLock()
    private var subscribers: [UInt64: AsyncStream<PJSUA.Event>.Continuation] = [:]
    private var nextID: UInt64 = 0

    func subscribe() -> AsyncStream<PJSUA.Event> {
        let (stream, continuation) = AsyncStream<PJSUA.Event>.makeStream(bufferingPolicy: .unbounded)
        let id = registry.withLock {
            let id = nextID
            nextID += 1
            subscribers[id] = continuation
            return id
        }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            self.registry.withLock { self.subscribers[id] = nil }
        }
        return stream
    }

    func publish(_ event: PJSUA.Event) {
        publishing.lock()
        defer { publishing.unlock() }
        let current = registry.withLock { Array(subscribers.values) }
        for continuation in current {
            continuation.yield(event)
        }
    }

    /// Ends every current subscription (their `for await` loops finish after the buffered events).
    func finishAll() {
        publishing.lock()
        defer { publishing.unlock() }
        let current = registry.withLock {
            let current = subscribers
            subscribers = [:]
            return current
        }
        for continuation in current.values {
            continuation.finish()
        }
    }

    var subscriberCount: Int {
        registry.withLock { subscribers.count }
    }
}

extension PJSUA {
    /// The engine's events as an `AsyncSequence`: one subscription, starting when it was created
    /// (when ``PJSUA/events`` was read), carrying every event in callback order with nothing
    /// dropped, and finishing when the engine shuts down.
    public struct Events: AsyncSequence, Sendable {
        public typealias Element = Event
        let stream: AsyncStream<Event>

        public func makeAsyncIterator() -> Iterator {
            Iterator(base: stream.makeAsyncIterator())
        }

        /// The iterator of ``PJSUA/Events``.
        public struct Iterator: AsyncIteratorProtocol {
            var base: AsyncStream<Event>.Iterator

            public mutating func next() async -> Event? {
                await base.next()
            }
        }
    }
}
