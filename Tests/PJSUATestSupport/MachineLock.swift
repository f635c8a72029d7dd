import Foundation

/// An exclusive lock shared by every process on this machine (a `flock` on a file under the
/// temporary directory): for choices that test processes running side by side must not both make,
/// such as a test network's subnet. Acquiring polls without blocking a thread, so a task of the
/// same process that holds the lock can go on; the kernel drops the lock of a process that dies.
public final class MachineLock: Sendable {
    private let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    /// Waits (polling every 10 ms, for at most `limit`) until this process holds the lock `name`.
    public static func acquire(_ name: String, within limit: Duration = .seconds(30)) async throws -> MachineLock {
        let path = NSTemporaryDirectory() + "swift-pjsua-\(name).lock"
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else { throw ChildProcessError("cannot open \(path): errno \(errno)") }
        let deadline = ContinuousClock.now.advanced(by: limit)
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard ContinuousClock.now < deadline else {
                close(descriptor)
                throw ChildProcessError("\(path) stayed locked for \(limit)")
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return MachineLock(descriptor: descriptor)
    }

    /// Gives the lock back (once; the descriptor is closed).
    public func release() {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
