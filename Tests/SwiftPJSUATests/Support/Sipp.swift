import Foundation
import PJSUATestSupport

/// A sipp scenario file of Tests/Peers/sipp.
func scenario(_ file: String) -> String { peersDirectory + "/sipp/" + file }

/// sipp against the engine, one call, bounded; returned once its port is bound (sipp prints
/// nothing when it is ready, and on a loaded machine it took longer to start than a client's
/// retransmissions last).
func sipp(_ arguments: [String], name: String) async throws -> ChildProcess {
    let block = try PortBlock()
    let port = block[0]
    let process = try ChildProcess("sipp", sippPorts(block) + ["-m", "1", "-nostdin", "-timeout", "20s",
                                            "-timeout_error", "-trace_err", "-error_file", NSTemporaryDirectory() + "sipp-\(name)-\(port)-errors.log",
                                            "-max_recv_loops", "1000"] + arguments,
                                   name: name, holding: block)
    do {
        try await process.waitUntilBound(port: port)
    } catch where !process.isRunning {
        // A client scenario (one MESSAGE, one call) can run to its end before its port shows in
        // /proc/net on a busy machine: that is not a failure to bind; the test reads how it ended.
    }
    return process
}

/// The arguments that put a sipp's ports in `block` (held by the sipp's ``ChildProcess``): SIP
/// (UDP or TCP) on its first port, and the media sockets sipp binds at start (audio at `-mp`,
/// video 2 above) from its fifth. sipp picks no port itself but its control port (8888 up), and
/// moves on when that one is taken.
func sippPorts(_ block: PortBlock) -> [String] {
    ["-i", "127.0.0.1", "-p", "\(block[0])", "-mp", "\(block[4])"]
}

/// sipp's listening port, from its arguments.
extension ChildProcess {
    var sippPort: Int {
        guard let index = arguments.firstIndex(of: "-p"), index + 1 < arguments.count else { return 0 }
        return Int(arguments[index + 1]) ?? 0
    }
}
