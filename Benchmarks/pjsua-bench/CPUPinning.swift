import PJSUATestSupport

/// `--pin`: the server under test runs on CPU 0 and sipp on CPU 1 (`taskset`), so the load
/// generator never takes the server's core on a 2-core machine; the same for both sides.
enum CPUPinning {
    static let enabled = CommandLine.arguments.contains("--pin")
    static let serverCPU = 0
    static let loadGeneratorCPU = 1

    /// `executable` with `arguments`, run through `taskset -c cpu` when pinning is on (taskset
    /// execs the program, so the pid, output and exit status are the program's).
    static func command(_ executable: String, _ arguments: [String], cpu: Int) throws -> (String, [String]) {
        guard enabled else { return (executable, arguments) }
        return ("taskset", ["-c", "\(cpu)", try ChildProcess.locate(executable)] + arguments)
    }
}
