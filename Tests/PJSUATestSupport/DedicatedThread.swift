import Foundation

/// Runs `body` on a new thread and awaits its result: for test work that blocks (a producer
/// that sleeps until a consumer catches up, a blocking system call). Swift's cooperative pool has
/// one thread per core (two here) and every test in the process shares it; blocking work run on
/// it stalls them all.
public func onThreadOfItsOwn<T: Sendable>(_ name: String, _ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        let thread = Thread {
            continuation.resume(returning: body())
        }
        thread.name = name
        thread.start()
    }
}
