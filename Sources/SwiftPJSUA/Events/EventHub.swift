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

    /// A new subscriber, receiving every event from now on until it ends (see ``PJSUA/Events``).
    func subscribe() -> PJSUA.Events {
        let (stream, continuation) = AsyncStream<PJSUA.Event>.makeStream(bufferingPolicy: .unbounded)
        let id = registry.withLock {
            let id = nextID
            nextID += 1
            subscribers[id] = continuation
            return id
        }
        // Whatever ends the stream (finish, a cancelled reader, the stream released) removes
        // the subscriber: the hub then holds nothing of it, and its buffer goes with its reader.
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            self.registry.withLock { self.subscribers[id] = nil }
        }
        return PJSUA.Events(subscription: Subscription(stream: stream, continuation: continuation))
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

/// One subscriber's stream and the means to end it: ending it (``end()``, or releasing the
/// last reference) finishes the stream, which removes it from the hub.
final class Subscription: Sendable {
    let stream: AsyncStream<PJSUA.Event>
    private let continuation: AsyncStream<PJSUA.Event>.Continuation

    init(stream: AsyncStream<PJSUA.Event>, continuation: AsyncStream<PJSUA.Event>.Continuation) {
        self.stream = stream
        self.continuation = continuation
    }

    /// Stops the subscription: nothing more is buffered; what was buffered can still be read.
    func end() { continuation.finish() }

    deinit { continuation.finish() }
}

extension PJSUA {
    /// The engine's events as an `AsyncSequence`: one subscription, starting when it was created
    /// (when ``PJSUA/events`` was read), carrying every event in callback order with nothing
    /// dropped.
    ///
    /// It is read once, by one iterator, and it ends (the engine stops buffering for it) when
    /// the engine shuts down or is released, when its iterator is released (a `for await` loop
    /// that finishes, breaks or is cancelled), or when the value is released before anything
    /// read it. A value kept but never read keeps buffering: read it, or let it go.
    public struct Events: AsyncSequence, Sendable {
        public typealias Element = Event
        let subscription: Subscription

        public func makeAsyncIterator() -> Iterator {
            Iterator(base: subscription.stream.makeAsyncIterator(), lifetime: IteratorLifetime(subscription))
        }

        /// The iterator of ``PJSUA/Events``; releasing it ends the subscription.
        public struct Iterator: AsyncIteratorProtocol {
            var base: AsyncStream<Event>.Iterator
            let lifetime: IteratorLifetime

            public mutating func next() async -> Event? {
                await base.next()
            }
        }
    }
}

/// Ends a subscription when the last copy of its iterator is released.
final class IteratorLifetime: Sendable {
    private let subscription: Subscription
    init(_ subscription: Subscription) { self.subscription = subscription }
    deinit { subscription.end() }
}
