import Foundation

/// The loop a test's own UDP server runs (FakeDNSServer, FakeSTUNServer): every 2 ms it hands
/// each datagram that came to the server's handler, which answers at once itself or returns an
/// answer to hold back, and sends the held answers that are due, until ``stop()``. The loop holds
/// its server only while it handles what came, so the server's deinit can run, and stops it.
final class DatagramServingLoop: @unchecked Sendable {
    // @unchecked Sendable: `task` is guarded by `lock`.
    private let lock = NSLock()
    private var task: Task<Void, Never>?

    /// An answer a handler holds back: `bytes` to 127.0.0.1:`port` once `after` has passed.
    struct Held {
        let bytes: [UInt8]
        let port: Int
        let after: Duration
    }

    /// Serves `socket` for `server` with `handle`.
    func start<Server: AnyObject & Sendable>(_ socket: DatagramSocket, for server: Server,
                                             handle: @escaping @Sendable (Server, DatagramSocket.Datagram) -> Held?) {
        let serving = Task.detached { [weak server] in
            var pending: [(due: ContinuousClock.Instant, bytes: [UInt8], port: Int)] = []
            while !Task.isCancelled, let server {
                while let datagram = socket.receiveNow() {
                    if let held = handle(server, datagram) {
                        pending.append((ContinuousClock.now.advanced(by: held.after), held.bytes, held.port))
                    }
                }
                let now = ContinuousClock.now
                for answer in pending where answer.due <= now { socket.send(answer.bytes, port: answer.port) }
                pending.removeAll { $0.due <= now }
                try? await Task.sleep(for: .milliseconds(2))
            }
        }
        lock.withLock { task = serving }
    }

    /// Stops serving.
    func stop() {
        let serving = lock.withLock {
            defer { task = nil }
            return task
        }
        serving?.cancel()
    }
}
