import Foundation
import PJSUATestSupport

/// A sipp scenario file of Tests/Peers/sipp.
func scenario(_ file: String) -> String { peersDirectory + "/sipp/" + file }

/// sipp against the engine, one call, bounded; returned once its port is bound (sipp prints
/// nothing when it is ready, and on a loaded machine it took longer to start than a client's
/// retransmissions last).
func sipp(_ arguments: [String], name: String) async throws -> ChildProcess {
    let port = freeLoopbackPort()
    let process = try ChildProcess("sipp", ["-i", "127.0.0.1", "-p", "\(port)", "-m", "1", "-nostdin", "-timeout", "20s",
                                            "-timeout_error", "-trace_err", "-error_file", NSTemporaryDirectory() + "sipp-\(name)-\(port)-errors.log",
                                            "-max_recv_loops", "1000"] + arguments,
                                   name: name)
    do {
        try await process.waitUntilBound(port: port)
    } catch where !process.isRunning {
        // A client scenario (one MESSAGE, one call) can run to its end before its port shows in
        // /proc/net on a busy machine: that is not a failure to bind; the test reads how it ended.
    }
    return process
}

/// sipp's listening port, from its arguments.
extension ChildProcess {
    var sippPort: Int {
        guard let index = arguments.firstIndex(of: "-p"), index + 1 < arguments.count else { return 0 }
        return Int(arguments[index + 1]) ?? 0
    }
}
