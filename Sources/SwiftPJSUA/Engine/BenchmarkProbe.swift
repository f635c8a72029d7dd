extension PJSUA {
    /// Publishes a probe event (`.dtmf` on a call with slot -1, digit `P`) through the exact path
    /// pjsua's C callbacks use, from the calling thread. For `pjsua-bench events`, which measures
    /// callback-to-consumer latency; not for applications.
    @_spi(Benchmarks)
    public nonisolated func publishProbeEvent() {
        EngineRun.current?.publish(.dtmf(call: Call(slot: -1, token: 0), digit: DTMFDigit(digit: "P", method: .rfc4733, duration: nil)))
    }

    /// Runs `body` while no engine can initialise or shut down PJLIB (a released engine's
    /// thread shuts it down after `shutdown()` returned), so C code in `body` can pair its own
    /// `pj_init()`/`pj_shutdown()` with it. For `pjsua-bench setup`'s C loop; not for applications.
    @_spi(Benchmarks)
    public static func withPJLIBLifecycleHeld<T>(_ body: () throws -> T) rethrows -> T {
        try PJLibrary.withLock(body)
    }
}
