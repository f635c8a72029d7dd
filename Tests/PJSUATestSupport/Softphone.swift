import Foundation

// The softphone CLI as a test peer: a second engine must be a separate process (pjsua is a
// process singleton), so engine and Kit tests talk to a `softphone` child.

/// The built softphone binary (make test builds it before running the tests).
public func softphone() throws -> String {
    var url = URL(fileURLWithPath: #filePath)
    while url.lastPathComponent != "Tests" { url.deleteLastPathComponent() }
    // SWIFT_PJSUA_SOFTPHONE: the softphone of another build of PJSIP (make test-ios-profile's,
    // linked against the iOS profile), so that both ends of a call run on the same build.
    let path = ProcessInfo.processInfo.environment["SWIFT_PJSUA_SOFTPHONE"]
        ?? url.deletingLastPathComponent().appendingPathComponent(".build/debug/softphone").path
    guard FileManager.default.isExecutableFile(atPath: path) else {
        throw ChildProcessError("\(path) is missing: build it with `swift build --product softphone` (make test does)")
    }
    return path
}

/// JSON lines of softphone's output.
public func jsonLines(_ output: String) -> [[String: Any]] {
    output.split(separator: "\n").compactMap { line in
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }
}

/// A `softphone answer --json` child on a loopback port it binds itself (port 0, the kernel's
/// pick, read from its "listening" line: a port chosen beforehand can be taken by then), and
/// that port; in `namespace` when given (its own loopback). `executable` and `environment`: another
/// softphone, or ours on other libraries (an `LD_LIBRARY_PATH`).
public func answeringSoftphone(_ extra: [String] = [], transport: String = "udp", name: String,
                               namespace: NetworkNamespace? = nil, executable: String? = nil,
                               environment: [String: String] = [:]) async throws -> (process: ChildProcess, port: Int) {
    let command = [try executable ?? softphone(), "answer", "--listen", "\(transport):127.0.0.1:0", "--json"] + extra
    let process = try namespace.map { try ChildProcess("ip", $0.command(command), name: name, environment: environment) }
        ?? ChildProcess(command[0], Array(command.dropFirst()), name: name, environment: environment)
    try await process.waitUntilStarted(printing: "\"event\":\"listening\"")
    let listening = jsonLines(process.output).first { $0["event"] as? String == "listening" }
    guard let port = listening?["port"] as? Int else {
        process.stop()
        throw ChildProcessError(process.explain("printed no port"))
    }
    return (process, port)
}
