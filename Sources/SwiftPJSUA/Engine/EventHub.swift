import Foundation

/// Fans every event out to all current subscribers, in publication order, unbounded.
///
/// Two locks of its own, never held one inside the other's critical section in the opposite
/// order, and neither held while a reader is resumed:
/// - `publishing` is held while an event is handed to every subscriber, so that two callbacks
///   racing on different pjsua threads are seen in the same order by all subscribers. Handing an
///   event over never blocks for long, so the C callbacks never block either.
/// - `subscribers`' lock is held only briefly, never across a hand-over.
///
/// They must be separate: a reader task being cancelled ends its queue from its cancellation
/// handler, under that task's status lock, and the queue then leaves the registry. With one
/// lock for both, a callback publishing while a consumer task was cancelled deadlocked (seen with
/// `AsyncStream`: pjsua's worker in `publish`, a Kit event pump being cancelled).
///
/// Each subscriber is an ``EventQueue`` rather than an `AsyncStream`: every pjsua callback
/// publishes, and the standard library's stream runs unspecialized generic code for each event
/// (metadata look-ups, value-witness copies, a deque) that cost a self-call cycle about as much
/// as the wake-up of its reader (perf, `pjsua-bench setup`, issue 23).
final class EventHub: Sendable {
    /// Orders publications, and holds the newest call and registration events for focused
    /// subscriptions (``subscribe(accepting:startingAfter:)``).
    private let publishing = LockedValueBox(LatestEvents())
    /// The current subscribers' queues. A publication takes the array as it is (a reference, no
    /// copy); subscribing and ending, rare, make a new one.
    private let subscribers = LockedValueBox<[EventQueue]>([])

    /// A new subscriber, receiving every event from now on until it ends (see ``PJSUA/Events``).
    func subscribe() -> PJSUA.Events {
        // Whatever ends the queue (the engine, a cancelled reader, the subscription released)
        // removes it: the hub then holds nothing of it, and its buffer goes with its reader.
        let queue = EventQueue { [weak self] ended in self?.remove(ended) }
        subscribers.withLockedValue { $0.append(queue) }
        return PJSUA.Events(subscription: Subscription(queue))
    }

    /// A new subscriber to the events `accepts` takes (the others are not even buffered for
    /// it), first handed the events `start` picks from the newest ones published: taken under the
    /// publishing lock, so that nothing is published between what it picks and the first event
    /// the subscriber receives.
    func subscribe(
        accepting accepts: @escaping @Sendable (PJSUA.Event) -> Bool,
        startingAfter start: (LatestEvents) -> LatestEvents.Start = { _ in .after([]) }
    ) -> Subscription {
        let queue = EventQueue(accepting: accepts) { [weak self] ended in self?.remove(ended) }
        publishing.withLockedValue { latest in
            switch start(latest) {
            case .ended:
                queue.end()
            case let .after(events):
                events.forEach(queue.push)
                subscribers.withLockedValue { $0.append(queue) }
            }
        }
        return Subscription(queue)
    }

    private func remove(_ queue: EventQueue) {
        subscribers.withLockedValue { $0.removeAll { $0 === queue } }
    }

    func publish(_ event: PJSUA.Event) {
        publishing.withLockedValue { latest in
            latest.record(event)
            let current = subscribers.withLockedValue { $0 }
            for queue in current {
                queue.push(event)
            }
        }
    }

    /// Ends every current subscription (their `for await` loops finish after the buffered events).
    func finishAll() {
        publishing.withLockedValue { _ in
            let current = subscribers.withLockedValue { subscribers in
                defer { subscribers = [] }
                return subscribers
            }
            for queue in current {
                queue.end()
            }
        }
    }

    var subscriberCount: Int {
        subscribers.withLockedValue { $0.count }
    }
}

/// One subscriber's events: an unbounded FIFO the publishers push to and one reader awaits.
///
/// Once ended it takes nothing more; what it holds can still be read, then it reads as ended.
/// A reader whose task is cancelled ends it. Ending calls `onEnd` once, with the queue.
final class EventQueue: Sendable {
    private struct State {
        /// Events not read yet are `buffer[head...]`; read slots are emptied at once.
        var buffer: [PJSUA.Event?] = []
        var head = 0
        /// Readers waiting, oldest first (one, unless an app reads one sequence from two tasks).
        var readers: [UnsafeContinuation<PJSUA.Event?, Never>] = []
        var ended = false
        var onEnd: (@Sendable (EventQueue) -> Void)?

        /// The oldest buffered event, if any.
        mutating func take() -> PJSUA.Event? {
            guard head < buffer.count else { return nil }
            let event = buffer[head]
            buffer[head] = nil
            head += 1
            if head == buffer.count {
                // A reader that fell far behind and caught up does not keep its backlog's memory.
                buffer.removeAll(keepingCapacity: buffer.count <= 1024)
                head = 0
            } else if head >= 256, head * 2 >= buffer.count {
                buffer.removeFirst(head)
                head = 0
            }
            return event
        }
    }
    private let state: LockedValueBox<State>
    /// Which events the queue takes (all, for ``PJSUA/events``); asked without the lock.
    private let accepts: (@Sendable (PJSUA.Event) -> Bool)?

    init(accepting accepts: (@Sendable (PJSUA.Event) -> Bool)? = nil, onEnd: @escaping @Sendable (EventQueue) -> Void) {
        self.accepts = accepts
        state = LockedValueBox(State(onEnd: onEnd))
    }

    /// Hands `event` to the waiting reader, or buffers it; does nothing once ended, or for an
    /// event the queue does not take.
    func push(_ event: PJSUA.Event) {
        if let accepts, !accepts(event) { return }
        let reader: UnsafeContinuation<PJSUA.Event?, Never>? = state.withLockedValue { state in
            guard !state.ended else { return nil }
            guard !state.readers.isEmpty else {
                state.buffer.append(event)
                return nil
            }
            return state.readers.removeFirst()
        }
        reader?.resume(returning: event)
    }

    /// Takes nothing more, and wakes every waiting reader with the end.
    func end() {
        let ending: (waiting: [UnsafeContinuation<PJSUA.Event?, Never>], callback: (@Sendable (EventQueue) -> Void)?)? =
            state.withLockedValue { state in
                guard !state.ended else { return nil }
                state.ended = true
                defer {
                    state.readers = []
                    state.onEnd = nil
                }
                return (state.readers, state.onEnd)
            }
        guard let ending else { return }
        for reader in ending.waiting { reader.resume(returning: nil) }
        ending.callback?(self)
    }

    /// The next event, waiting for one; nil once ended and read out. Runs on the caller's
    /// actor, so an actor reading its events takes no hop for each one.
    func next(isolation actor: isolated (any Actor)? = #isolation) async -> PJSUA.Event? {
        switch take(orWait: nil) {
        case let .event(event): return event
        case .ended: return nil
        case .waiting: break
        }
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { (reader: UnsafeContinuation<PJSUA.Event?, Never>) in
                switch take(orWait: reader) {
                case let .event(event): reader.resume(returning: event)
                case .ended: reader.resume(returning: nil)
                case .waiting: break
                }
            }
        } onCancel: {
            end()
        }
    }

    private enum Taken {
        case event(PJSUA.Event)
        case ended
        case waiting
    }

    /// The oldest buffered event, or the end; otherwise `reader` (if any) is left waiting.
    private func take(orWait reader: UnsafeContinuation<PJSUA.Event?, Never>?) -> Taken {
        state.withLockedValue { state in
            if let event = state.take() { return .event(event) }
            if state.ended { return .ended }
            if let reader { state.readers.append(reader) }
            return .waiting
        }
    }
}

/// One subscriber's queue and the means to end it: ending it (``end()``, or releasing the
/// last reference) ends the queue, which removes it from the hub.
final class Subscription: Sendable {
    let queue: EventQueue

    init(_ queue: EventQueue) {
        self.queue = queue
    }

    /// Stops the subscription: nothing more is buffered; what was buffered can still be read.
    func end() { queue.end() }

    deinit { queue.end() }
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
            Iterator(queue: subscription.queue, lifetime: IteratorLifetime(subscription))
        }

        /// The iterator of ``PJSUA/Events``; releasing it ends the subscription.
        public struct Iterator: AsyncIteratorProtocol {
            let queue: EventQueue
            let lifetime: IteratorLifetime

            public mutating func next() async -> Event? {
                await queue.next()
            }

            /// The next event, read on the caller's actor (no hop to the global executor).
            @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
            public mutating func next(isolation actor: isolated (any Actor)?) async -> Event? {
                await queue.next(isolation: actor)
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
