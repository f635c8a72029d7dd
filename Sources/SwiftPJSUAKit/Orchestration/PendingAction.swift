/// A provider action waiting for its call's engine handle (push first, or an outgoing call still
/// being placed).
struct PendingAction: Sendable {
    /// What to do once the handle is known.
    enum Kind: Sendable, Hashable {
        /// Answer; `video` is the caller's choice (nil: the configuration's).
        case answer(video: Bool?)
        case end
    }

    let id: UInt64
    let kind: Kind
    let continuation: CheckedContinuation<Result<Void, CallOrchestratorError>, Never>
    let timeout: Task<Void, Never>

    /// Resumes the waiting action (once) and stops its timer.
    func finish(_ result: Result<Void, CallOrchestratorError>) {
        timeout.cancel()
        continuation.resume(returning: result)
    }
}
