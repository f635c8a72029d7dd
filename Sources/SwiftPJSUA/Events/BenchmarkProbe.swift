extension PJSUA {
    /// Publishes a probe event (`.dtmf` on a call with slot -1, digit `P`) through the exact path
    /// pjsua's C callbacks use, from the calling thread. For `pjsua-bench events`, which measures
    /// callback-to-consumer latency; not for applications.
    @_spi(Benchmarks)
    public nonisolated func publishProbeEvent() {
        CallbackContext.publish(.dtmf(call: Call(slot: -1, token: 0), digit: DTMFDigit(digit: "P", method: .rfc4733, duration: nil)))
    }
}
