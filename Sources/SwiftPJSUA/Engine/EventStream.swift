extension PJSUA {
    /// A focused subscription to the engine's events: only those of one kind, or of one call or
    /// account, each as a value of its own type, so that a consumer reads what it asked for
    /// instead of matching every case of ``Event``.
    ///
    /// Made by ``PJSUA/incomingCalls``, ``PJSUA/callEvents``, ``PJSUA/stateChanges(of:)``,
    /// ``PJSUA/digits(of:)`` and ``PJSUA/registrationStates(of:)``. It behaves as ``Events``
    /// does (one subscription, read once, nothing dropped, events in callback order; it ends when
    /// the engine shuts down, when its iterator or the unread value is released), and the engine
    /// buffers only the events it takes. A sequence of one call finishes after the call's end.
    public struct EventStream<Element: Sendable>: AsyncSequence, Sendable {
        let subscription: Subscription
        let select: @Sendable (Event) -> Selection<Element>

        public func makeAsyncIterator() -> Iterator {
            Iterator(queue: subscription.queue, lifetime: IteratorLifetime(subscription), select: select)
        }

        /// The iterator of an ``EventStream``; releasing it ends the subscription.
        public struct Iterator: AsyncIteratorProtocol {
            let queue: EventQueue
            let lifetime: IteratorLifetime
            let select: @Sendable (Event) -> Selection<Element>
            var isFinished = false

            public mutating func next() async -> Element? {
                while !isFinished, let event = await queue.next() {
                    if let element = take(event) { return element }
                }
                return nil
            }

            /// The next element, read on the caller's actor (no hop to the global executor).
            @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
            public mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
                while !isFinished, let event = await queue.next(isolation: actor) {
                    if let element = take(event) { return element }
                }
                return nil
            }

            private mutating func take(_ event: Event) -> Element? {
                switch select(event) {
                case .skip:
                    return nil
                case let .element(element):
                    return element
                case let .last(element):
                    finish()
                    return element
                case .end:
                    finish()
                    return nil
                }
            }

            private mutating func finish() {
                isFinished = true
                queue.end()
            }
        }
    }

    /// What a focused subscription makes of one event it took.
    enum Selection<Element> {
        /// Nothing for the reader.
        case skip
        /// The next element.
        case element(Element)
        /// The last element: the sequence finishes after it.
        case last(Element)
        /// The end, with no element.
        case end
    }
}

extension EventHub {
    /// A focused subscription (see ``PJSUA/EventStream``): `accepts` picks the events buffered,
    /// `start` what it begins after, and `select` what each becomes.
    func stream<Element>(
        accepting accepts: @escaping @Sendable (PJSUA.Event) -> Bool,
        startingAfter start: (LatestEvents) -> LatestEvents.Start = { _ in .after([]) },
        select: @escaping @Sendable (PJSUA.Event) -> PJSUA.Selection<Element>
    ) -> PJSUA.EventStream<Element> {
        PJSUA.EventStream(subscription: subscribe(accepting: accepts, startingAfter: start), select: select)
    }
}
