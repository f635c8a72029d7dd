import Foundation

/// A value and the lock that guards it, as one object: the value is reachable only inside
/// ``withLockedValue(_:)``, so the compiler, not a comment, says what the lock protects (NIO's
/// `NIOLockedValueBox`; `Synchronization.Mutex` needs iOS 18, and the engine supports iOS 17).
///
/// The lock is a condition too: ``withLockedValue(waitingWhile:until:_:)`` sleeps on it until
/// the value allows progress, and ``signal()``/``broadcast()`` wake sleepers after a change.
/// Held only for the closure: a closure must not call out to code that takes another lock that
/// may be held while taking this one, nor wait on anything else.
///
/// Used by the engine, the Kit and the CLI (the SPI is not public API).
@_spi(Locking)
public final class LockedValueBox<Value>: @unchecked Sendable {
    // @unchecked Sendable, on the terms of `Synchronization.Mutex`: the value is stored only
    // here, is read and written only with `condition` held, and enters (`init`) and leaves
    // (`withLockedValue`'s result) as `sending`, so no non-Sendable reference the caller keeps
    // is shared with the threads that reach the box.
    private let condition = NSCondition()
    private var value: Value

    public init(_ value: sending Value) {
        self.value = value
    }

    /// Runs `body` with the value, holding the lock.
    public func withLockedValue<Result, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        condition.lock()
        defer { condition.unlock() }
        return try body(&value)
    }

    /// Runs `body` with the value, holding the lock, without the `sending` checks: for a value
    /// that holds references the region checker cannot follow (the engine's C resources, used on
    /// its executor thread only, kept in its run's state until they are released). The caller
    /// answers for what it puts in and takes out (`OSAllocatedUnfairLock.withLockUnchecked`).
    public func withLockedValueUnchecked<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        condition.lock()
        defer { condition.unlock() }
        return try body(&value)
    }

    /// Waits, holding the lock between waits, until `blocked` says no (or until `deadline`
    /// passes), then runs `body` with the value, still holding the lock. `blocked` may change
    /// the value (a waiter can note that it sleeps); it runs once before every wait.
    public func withLockedValue<Result, Failure: Error>(
        waitingWhile blocked: (inout sending Value) -> Bool,
        until deadline: Date? = nil,
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        condition.lock()
        defer { condition.unlock() }
        while blocked(&value) {
            if let deadline {
                if !condition.wait(until: deadline) { break }
            } else {
                condition.wait()
            }
        }
        return try body(&value)
    }

    /// Wakes one thread waiting in ``withLockedValue(waitingWhile:until:_:)``; with or
    /// without the lock held.
    public func signal() { condition.signal() }

    /// Wakes every thread waiting in ``withLockedValue(waitingWhile:until:_:)``.
    public func broadcast() { condition.broadcast() }
}
