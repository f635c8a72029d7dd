extension PJSUA {
    /// Runs `body` while no engine can initialise or shut down PJLIB (a released engine's
    /// thread shuts it down after `shutdown()` returned), so C code in `body` can pair its own
    /// `pj_init()`/`pj_shutdown()` with it. For `pjsua-bench setup`'s C loop; not for applications.
    @_spi(Benchmarks)
    public static func withPJLIBLifecycleHeld<T>(_ body: () throws -> T) rethrows -> T {
        try PJLibrary.withLock(body)
    }
}
