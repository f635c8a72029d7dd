extension PJSUA {
    /// The registration outcomes of `account` (`on_reg_state2`): first the newest one already
    /// published (if any), then each new one, until the engine shuts down; for an account that
    /// was removed and whose slot another account took, it finishes at once.
    ///
    /// ```swift
    /// let account = try await phone.addAccount(configuration)
    /// for await state in phone.registrationStates(of: account) where state.isRegistered {
    ///     break   // registered
    /// }
    /// ```
    public nonisolated func registrationStates(of account: Account) -> EventStream<RegistrationState> {
        hub.stream(
            accepting: { event in
                if case let .registration(a, _) = event { a == account } else { false }
            },
            startingAfter: { $0.start(of: account) }
        ) { event in
            guard case let .registration(_, state) = event else { return .skip }
            return .element(state)
        }
    }
}
