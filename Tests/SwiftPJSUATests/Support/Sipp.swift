import Foundation
import PJSUATestSupport

/// A sipp scenario file of Tests/Peers/sipp.
func scenario(_ file: String) -> String { peersDirectory + "/sipp/" + file }

/// How long a sipp waits whose client is a child process still to start (a softphone): the
/// child's start bound, then the scenario's own 30 s. Its start is part of sipp's wait: a loaded
/// machine has starved a child's start past sipp's usual 20 s (sipp gave up before the
/// softphone's MESSAGE came, which then timed out: 408).
let sippLifetimeForAChildClient = ChildProcess.startTimeout + .seconds(30)

/// sipp against the engine, one call, bounded (`lifetime`, then sipp fails with a timeout);
/// returned once its port is bound (sipp prints nothing when it is ready, and on a loaded machine
/// it took longer to start than a client's retransmissions last).
func sipp(_ arguments: [String], name: String, lifetime: Duration = .seconds(20)) async throws -> ChildProcess {
    let block = try PortBlock()
    let port = block[0]
    let process = try ChildProcess("sipp", sippPorts(block) + ["-m", "1", "-nostdin", "-timeout", "\(lifetime.components.seconds)s",
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

/// When sipp received each request of `method`, in seconds since midnight (sipp's clock), from the
/// message trace it wrote with `-trace_msg -message_file path`: the schedule as the wire saw it,
/// whatever the test process was doing when the engine reported each attempt.
func sippReceived(_ method: String, messageFile path: String) throws -> [Double] {
    let lines = try String(contentsOfFile: path, encoding: .utf8).components(separatedBy: "\n")
    var times: [Double] = []
    var stamp: Double?
    var received = false
    for line in lines {
        if line.hasPrefix("-----------------------------------------------") {
            // "----...---- 2026-12-06 21:08:36.365039": the time of day, microseconds.
            let clock = line.split(separator: " ").last.map(String.init) ?? ""
            let parts = clock.split(separator: ":").compactMap { Double($0) }
            stamp = parts.count == 3 ? parts[0] * 3600 + parts[1] * 60 + parts[2] : nil
            received = false
        } else if line.contains("message received") {
            received = true
        } else if received, let time = stamp, line.hasPrefix(method + " ") {
            times.append(times.last.map { time < $0 ? time + 86400 : time } ?? time)
            received = false
        }
    }
    return times
}

/// sipp's listening port, from its arguments.
extension ChildProcess {
    var sippPort: Int {
        guard let index = arguments.firstIndex(of: "-p"), index + 1 < arguments.count else { return 0 }
        return Int(arguments[index + 1]) ?? 0
    }
}
