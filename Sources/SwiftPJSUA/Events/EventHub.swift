import Foundation

/// Fans every event out to all current subscribers, in publication order, unbounded.
///
/// Publishing holds the lock while yielding to every subscriber, so two callbacks racing on
/// different pjsua threads are seen in the same order by all subscribers. Yielding to an
/// `AsyncStream` continuation never blocks, so the C callbacks that publish never block either.
final class EventHub: @unchecked Sendable {
    // @unchecked Sendable: `subscribers`, `nextID` are guarded by `lock`.
    private let lock = NSLock()
    private var subscribers: [UInt64: AsyncStream<PJSUA.Event>.Continuation] = [:]
    private var nextID: UInt64 = 0

    func subscribe() -> AsyncStream<PJSUA.Event> {
        let (stream, continuation) = AsyncStream<PJSUA.Event>.makeStream(bufferingPolicy: .unbounded)
        lock.lock()
        let id = nextID
        nextID += 1
        subscribers[id] = continuation
        lock.unlock()
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            self.lock.lock()
            self.subscribers[id] = nil
            self.lock.unlock()
        }
        return stream
    }

    func publish(_ event: PJSUA.Event) {
        lock.lock()
        defer { lock.unlock() }
        for continuation in subscribers.values {
            continuation.yield(event)
        }
    }

    /// Ends every current subscription (their `for await` loops finish after the buffered events).
    func finishAll() {
        lock.lock()
        let current = subscribers
        subscribers = [:]
        lock.unlock()
        for continuation in current.values {
            continuation.finish()
        }
    }

    var subscriberCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return subscribers.count
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
