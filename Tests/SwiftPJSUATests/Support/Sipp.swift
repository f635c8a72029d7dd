import Foundation
import PJSUATestSupport

/// A sipp scenario file of Tests/Peers/sipp.
func scenario(_ file: String) -> String { peersDirectory + "/sipp/" + file }

/// sipp against the engine, one call, bounded.
func sipp(_ arguments: [String], name: String) throws -> ChildProcess {
    let port = freeLoopbackPort()
    return try ChildProcess("sipp", ["-i", "127.0.0.1", "-p", "\(port)", "-m", "1", "-nostdin", "-timeout", "20s",
                                    "-timeout_error", "-trace_err", "-error_file", NSTemporaryDirectory() + "sipp-\(name)-\(port)-errors.log",
                                    "-max_recv_loops", "1000"] + arguments,
                           name: name)
}

/// sipp's listening port, from its arguments.
extension ChildProcess {
    var sippPort: Int {
        guard let index = arguments.firstIndex(of: "-p"), index + 1 < arguments.count else { return 0 }
        return Int(arguments[index + 1]) ?? 0
    }
}
