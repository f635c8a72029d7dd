import Foundation
import Synchronization

/// The loop a test's own UDP server runs (FakeDNSServer, FakeSTUNServer): every 2 ms it hands
/// each datagram that came to the server's handler, which answers at once itself or returns an
/// answer to hold back, and sends the held answers that are due, until ``stop()``. The loop holds
/// its server only while it handles what came, so the server's deinit can run, and stops it.
///
/// The loop runs on a thread of its own, not in Swift's cooperative pool: the pool has one thread
/// per core (two here), shared by every test of the process, so a test's server that waits its
/// turn there answers as late as the busiest other test makes it. (A DNSForgeryTests call once
/// reached no callee within 15 s of its query during a loaded ASan pass, the answer due 300 ms
/// after the query; that the pool held the answer back is likely, not proven.)
final class DatagramServingLoop: Sendable {
    private let stopped = Mutex(false)

    /// An answer a handler holds back: `bytes` to 127.0.0.1:`port` once `after` has passed.
    struct Held {
        let bytes: [UInt8]
        let port: Int
        let after: Duration
    }

    private var isStopped: Bool { stopped.withLock { $0 } }

    /// Serves `socket` for `server` with `handle`.
    func start<Server: AnyObject & Sendable>(_ socket: DatagramSocket, for server: Server,
                                             handle: @escaping @Sendable (Server, DatagramSocket.Datagram) -> Held?) {
        let thread = Thread { [weak server, self] in
            var pending: [(due: ContinuousClock.Instant, bytes: [UInt8], port: Int)] = []
            while !isStopped, let server {
                while let datagram = socket.receiveNow() {
                    if let held = handle(server, datagram) {
                        pending.append((ContinuousClock.now.advanced(by: held.after), held.bytes, held.port))
                    }
                }
                let now = ContinuousClock.now
                for answer in pending where answer.due <= now { socket.send(answer.bytes, port: answer.port) }
                pending.removeAll { $0.due <= now }
                usleep(2000)
            }
        }
        thread.name = "DatagramServingLoop"
        thread.start()
    }

    /// Stops serving (the thread ends within 2 ms).
    func stop() {
        stopped.withLock { $0 = true }
    }
}
