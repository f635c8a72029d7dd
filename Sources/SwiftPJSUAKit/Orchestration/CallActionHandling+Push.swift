extension CallActionHandling {
    /// Handles a VoIP push on a new task and calls `completion` once the push was reported to the
    /// provider, whatever happens to the caller meanwhile.
    ///
    /// PushKit requires its completion to run for every push, so the task holds this handler and
    /// `completion` strongly; it captures nothing weakly. `PushKitRegistry` uses this.
    @discardableResult
    public func handleIncomingPush(_ parsed: Result<VoIPPushPayload, PushPayloadError>,
                                   completion: @escaping @Sendable () -> Void) -> Task<Void, Never> {
        Task {
            _ = await self.handleIncomingPush(parsed)
            completion()
        }
    }
}
