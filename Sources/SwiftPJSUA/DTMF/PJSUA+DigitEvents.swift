extension PJSUA {
    /// The DTMF digits that arrive on `call` from now on (RFC 4733 events, SIP INFO, and in-band
    /// tones when detection is on: see ``Event/dtmf(call:digit:)``); the sequence finishes when
    /// the call ends, or at once for a call that already ended.
    ///
    /// ```swift
    /// for await digit in phone.digits(of: call) { menu.press(digit.digit) }
    /// ```
    public nonisolated func digits(of call: Call) -> EventStream<DTMFDigit> {
        hub.stream(
            accepting: { event in
                switch event {
                case let .dtmf(c, _): c == call
                case let .callState(c, .disconnected, _, _): c == call
                default: false
                }
            },
            // Only whether the call is over matters: digits are not replayed.
            startingAfter: { $0.hasEnded(call) ? .ended : .after([]) }
        ) { event in
            switch event {
            case let .dtmf(_, digit): .element(digit)
            case .callState: .end
            default: .skip
            }
        }
    }
}
