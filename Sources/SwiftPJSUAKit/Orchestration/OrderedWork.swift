/// Runs submitted asynchronous work one item at a time, in submission order.
///
/// CallKit calls its delegate in order on one queue, but a `Task` started per callback reaches
/// the core in any order: a `didDeactivate` overtaking the `didActivate` that followed it would
/// leave the audio device closed during a call. `CallKitProvider` submits audio-session,
/// hold and mute events here so the core sees them in CallKit's order. (Answer, end and start
/// are not submitted: an answer may wait for its INVITE and must not hold back the rest.)
final class OrderedWork: Sendable {
    private let continuation: AsyncStream<@Sendable () async -> Void>.Continuation

    /// Creates the queue and the task that drains it; the task ends when the queue is released.
    init() {
        let (stream, continuation) = AsyncStream<@Sendable () async -> Void>.makeStream(bufferingPolicy: .unbounded)
        self.continuation = continuation
        Task {
            for await work in stream { await work() }
        }
    }

    deinit {
        continuation.finish()
    }

    /// Queues `work`; it starts once everything submitted before it has finished.
    func submit(_ work: @escaping @Sendable () async -> Void) {
        continuation.yield(work)
    }
}
