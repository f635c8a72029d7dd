import Dispatch
import Foundation

/// SIGINT and SIGTERM as an async wait, so commands shut the engine down cleanly on either.
final class Signals: @unchecked Sendable {
    // @unchecked Sendable: `received` and `waiters` are guarded by `lock`; the dispatch sources
    // are created once in init and only cancelled by deinit.
    private let lock = NSLock()
    private var received: Int32?
    private var waiters: [CheckedContinuation<Int32, Never>] = []
    private var sources: [DispatchSourceSignal] = []

    init() {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in self?.deliver(number) }
            source.resume()
            sources.append(source)
        }
    }

    deinit { sources.forEach { $0.cancel() } }

    private func deliver(_ number: Int32) {
        lock.lock()
        if received == nil { received = number }
        let pending = waiters
        waiters = []
        lock.unlock()
        pending.forEach { $0.resume(returning: number) }
    }

    /// The signal received so far, if any.
    var pending: Int32? {
        lock.lock()
        defer { lock.unlock() }
        return received
    }

    /// Waits for SIGINT or SIGTERM.
    func wait() async -> Int32 {
        await withCheckedContinuation { continuation in
            lock.lock()
            if let received {
                lock.unlock()
                continuation.resume(returning: received)
            } else {
                waiters.append(continuation)
                lock.unlock()
            }
        }
    }
}
