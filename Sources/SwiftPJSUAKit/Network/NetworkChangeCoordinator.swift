/// Runs the engine's network recovery when the network really changed: feeds paths from a
/// monitor through its policy (the first path, repeats of the same path and paths that cannot
/// carry traffic need no recovery), waits for the path to settle, and calls
/// ``CallEngine/handleIPChange()`` one at a time.
///
/// Paths come in bursts (Wi-Fi lost, cellular up, Wi-Fi back within a second); each path that
/// needs recovery restarts the settle wait, so a burst costs one recovery, made on the path it
/// ended with. A change reported while a recovery is running is not lost and does not overlap
/// it (pjsua refuses a second one meanwhile, pjproject #3696): one more recovery follows.
///
/// On Apple platforms `NetworkPathObserver` feeds it from `NWPathMonitor`:
/// ```swift
/// let coordinator = NetworkChangeCoordinator(engine: PJSUACallEngine(phone))
/// let observer = NetworkPathObserver(coordinator: coordinator)
/// observer.start()
/// ```
public actor NetworkChangeCoordinator<Engine: CallEngine> {
    /// Sleeps for a duration; throws when cancelled. Tests pass one they control.
    public typealias Sleep = @Sendable (Duration) async throws -> Void

    private let engine: Engine
    private let settle: Duration
    private let sleep: Sleep
    private var policy = NetworkChangePolicy()
    private var waiting: Task<Void, Never>?
    /// Counts settle waits; only the newest one may start a recovery.
    private var generation = 0
    private var recovering = false
    private var again = false
    private var outcomes: [Result<Void, any Error>] = []
    private var idleWaiters: [CheckedContinuation<Void, Never>] = []

    /// Creates a coordinator for `engine`; a recovery starts once no path that needs one has
    /// arrived for `settle` (half a second by default).
    public init(engine: Engine, settle: Duration = .milliseconds(500), sleep: Sleep? = nil) {
        self.engine = engine
        self.settle = settle
        self.sleep = sleep ?? { duration in try await Task.sleep(for: duration) }
    }

    /// Takes the next path from the monitor.
    public func pathChanged(_ path: NetworkPath) {
        if policy.observe(path) { networkChanged() }
    }

    /// Asks for a recovery after the settle time, whatever the paths say (e.g. the app learnt
    /// of a new Wi-Fi network some other way).
    public func networkChanged() {
        waiting?.cancel()
        generation += 1
        waiting = Task { [settle, sleep, generation] in
            do { try await sleep(settle) } catch { return }
            self.settled(generation)
        }
    }

    /// How each recovery ended, oldest first.
    public var results: [Result<Void, any Error>] { outcomes }

    /// Returns once no recovery is waiting or running.
    public func idle() async {
        if waiting == nil && !recovering { return }
        await withCheckedContinuation { idleWaiters.append($0) }
    }

    /// A wait can end just as a newer path cancels it (its sleep was over, its hop back to the
    /// actor was not): only the newest wait counts, so a burst still costs one recovery.
    private func settled(_ wait: Int) {
        guard wait == generation else { return }
        waiting = nil
        guard !recovering else {
            again = true
            return
        }
        recovering = true
        Task { await self.recover() }
    }

    private func recover() async {
        repeat {
            again = false
            do {
                try await engine.handleIPChange()
                outcomes.append(.success(()))
            } catch {
                outcomes.append(.failure(error))
            }
        } while again
        recovering = false
        if waiting == nil {
            let waiters = idleWaiters
            idleWaiters = []
            waiters.forEach { $0.resume() }
        }
    }
}
