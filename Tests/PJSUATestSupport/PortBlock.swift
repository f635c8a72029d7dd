import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A block of consecutive loopback ports that this process alone may hand to a peer that cannot
/// bind port 0 and report what it got (kamailio, sipp, baresip, coturn, an engine given an RTP
/// range): reserved machine-wide, so that no other test, in this process or in another test run
/// on the same host, is given them until the block is released.
///
/// Picking a port by binding it, closing it and handing the number over is a race: anything that
/// binds in between takes it (a pjsua app child once lost its SIP port that way and exited before
/// it started). Blocks avoid it with a range nobody else binds, 2000-3999: every engine's media
/// starts at 4000 or above (``PJSUA/Configuration/rtpPort``, a random start since KL-46), the
/// kernel's own picks for port 0 are 32768 and above (`ip_local_port_range`), the pjsua app's
/// `--rtp-port=0` draws from 4000 up, and baresip is given its RTP ports inside its block. Each
/// block has a lock file in the temporary directory, held (`flock`) for as long as the
/// ``PortBlock`` lives; the kernel releases it when the process dies, so a crashed run leaves no
/// block taken. A block is also checked free (UDP and TCP, every address) before it is given out,
/// for a peer of a released block still exiting, or a program outside the tests.
public final class PortBlock: @unchecked Sendable {
    // @unchecked Sendable: immutable after init; the descriptor is only closed in deinit.

    /// The ports blocks are carved from: below every engine's media and the kernel's picks.
    public static let range = 2000..<4000
    /// Ports in a block. A baresip takes 16 (SIP, SIP/TLS, control, six RTP/RTCP pairs).
    public static let size = 16

    /// The block's first port (even).
    public let first: Int
    private let descriptor: Int32

    /// The block's ports.
    public var ports: Range<Int> { first..<(first + Self.size) }

    /// The port `offset` places into the block.
    public subscript(offset: Int) -> Int { first + offset }

    /// Reserves a free block (trying every block of ``range`` in a random order); throws if all are
    /// taken or busy.
    public init() throws {
        let directory = NSTemporaryDirectory() + "swift-pjsua-ports"
        // Shared by every user's test runs, like the temporary directory itself.
        if mkdir(directory, 0o1777) == 0 { chmod(directory, 0o1777) }
        let starts = stride(from: Self.range.lowerBound, to: Self.range.upperBound - Self.size + 1, by: Self.size).shuffled()
        for start in starts {
            let path = directory + "/\(start).lock"
            // O_CLOEXEC: a child must not inherit the lock and hold the block past its release.
            // Read-only: flock needs no more, so another user's lock file serves as well.
            let fd = open(path, O_RDONLY | O_CREAT | O_CLOEXEC, 0o644)
            guard fd >= 0 else { continue }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
                close(fd)
                continue
            }
            if (start..<(start + Self.size)).allSatisfy(Self.isFree) {
                first = start
                descriptor = fd
                return
            }
            flock(fd, LOCK_UN)
            close(fd)
        }
        throw ChildProcessError("no free block of \(Self.size) ports in \(Self.range) (locks in \(directory))")
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    /// Whether `port` can be bound on every IPv4 address, UDP and TCP (no SO_REUSEADDR, so a TCP
    /// port with connections still in TIME_WAIT counts as busy).
    private static func isFree(_ port: Int) -> Bool {
        [SOCK_DGRAM, SOCK_STREAM].allSatisfy { kind in
            let fd = socket(AF_INET, Int32(kind.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { return false }
            defer { close(fd) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = INADDR_ANY
            address.sin_port = UInt16(port).bigEndian
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            } == 0
        }
    }
}
