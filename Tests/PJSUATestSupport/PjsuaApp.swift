import Foundation

/// The reference pjsua app (`/usr/local/bin/pjsua`, built from the same pjproject) as a peer,
/// with the null sound device, its SIP messages in its log. It binds its SIP port itself
/// (`--local-port=0`, the kernel's pick), and ``port`` is read from its log: a port the test
/// picked beforehand could be taken by another test before the app bound it (one such app exited
/// before it started, "Address already in use"). Its media starts at a random even port from 4000
/// up (`--rtp-port=0`) and walks on past a taken one, as every engine's does, rather than at 4000
/// in every instance.
///
/// Two ways to drive it: typed console commands (``Step``s: a line typed after a pause, through a
/// shell pipe into its legacy console, which quits when its input ends, so the pipe stays open
/// for `linger` seconds after the last step), or none at all (the same console on an input that
/// never ends, so it runs until stopped: a server for auto-answer tests). Either way its whole
/// log, SIP messages included, is the process's log, which ``ChildProcess/explain(_:)`` names.
/// Its telnet CLI is off unless a test asks for it (`--use-cli --no-cli-console
/// --cli-telnet-port=0` in `arguments`): it listens on every address and asks for no login.
public final class PjsuaApp: @unchecked Sendable {
    // @unchecked Sendable: immutable after init; ChildProcess is Sendable.
    public let port: Int
    public let process: ChildProcess

    /// One console command: `line` typed `after` seconds after the previous step, or (``when(_:_:)``)
    /// as soon as the test opens a ``Gate``: a step that must follow something the test waits for
    /// (a call answered) is gated, so a slow machine delays it instead of sending it too early.
    public struct Step: Sendable {
        public let after: Double
        public let line: String
        public let gate: String?
        public init(after: Double, _ line: String) {
            self.after = after
            self.line = line
            self.gate = nil
        }

        private init(gate: Gate, _ line: String) {
            self.after = 0
            self.line = line
            self.gate = gate.path
        }

        /// `line`, typed once `gate` is opened (at most 60 s after the previous step).
        public static func when(_ gate: Gate, _ line: String) -> Step { Step(gate: gate, line) }
    }

    /// A point the console waits for: a file the test creates with ``open()``.
    public final class Gate: Sendable {
        let path = NSTemporaryDirectory() + "swift-pjsua-gate-\(UUID().uuidString)"
        public init() {}
        /// Lets the gated step go.
        public func open() { _ = FileManager.default.createFile(atPath: path, contents: nil) }
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    /// Starts the app and returns once it has bound its SIP port. `arguments` are added to the
    /// loopback ones (e.g. `--auto-answer=200`, or a URI to call at start). `ofThisBuild`: the app
    /// of the PJSIP this process loaded (``ofThisBuild()``), for a test of our patches to PJSIP that
    /// reach the app, rather than /usr/local's.
    /// `prefix`: the app of the PJSIP installed there instead (PREFIX/bin/pjsua on PREFIX/lib,
    /// e.g. /opt/pjproject-unpatched).
    public init(name: String = "pjsua-app", arguments: [String] = [], console steps: [Step] = [], linger: Double = 30,
                ofThisBuild: Bool = false, prefix: String? = nil) async throws {
        // --log-level=4 at least: the line that names the bound port (``sipPort(in:)``) is level 4.
        let base = ["--null-audio", "--local-port=0", "--rtp-port=0", "--bound-addr=127.0.0.1", "--ip-addr=127.0.0.1", "--no-tcp",
                    "--log-level=4", "--max-calls=4"]
        let build = try prefix.map { (executable: $0 + "/bin/pjsua", libraries: $0 + "/lib") } ?? (ofThisBuild ? Self.ofThisBuild() : nil)
        let pjsua = try build?.executable ?? ChildProcess.locate("pjsua")
        // Its log goes to stdout, which stdio buffers in full when it is a file: line buffering
        // (stdbuf) lets a test see a line when it is written.
        let stdbuf = try ChildProcess.locate("stdbuf")
        // With video in the build the app initialises SDL, which by default takes SIGTERM (the
        // app then ignores ChildProcess.stop's SIGTERM and needed SIGKILL) and, without a display,
        // prints "XDG_RUNTIME_DIR is invalid". The engine sets the same two as SDL hints.
        var environment = ["SDL_NO_SIGNAL_HANDLERS": "1"]
        if ProcessInfo.processInfo.environment["DISPLAY"] == nil { environment["SDL_VIDEODRIVER"] = "dummy" }
        // The installed app finds its libraries through the linker cache (/usr/local's), not its prefix.
        if let build { environment["LD_LIBRARY_PATH"] = build.libraries }
        if steps.isEmpty {
            // The legacy console, reading a FIFO the app itself holds open for writing (opened
            // read-write, so a read never sees its end): it runs until stopped, and its whole log,
            // SIP messages included, goes to stdout a line at a time. (Its CLI, the other way to
            // run without input, sends the log to the CLI's front ends, none of which is stdout,
            // and a --log-file is buffered by stdio and lost to the SIGTERM that stops the app: an
            // empty file hid why a loaded run's peer failed.) Each exec keeps one process: the
            // app is the group's leader, as the SIGTERM tests need.
            let fifo = NSTemporaryDirectory() + "swift-pjsua-console-\(UUID().uuidString)"
            guard mkfifo(fifo, 0o600) == 0 else { throw ChildProcessError("cannot make the console FIFO \(fifo): errno \(errno)") }
            let command = "exec 0<>\(Self.shellQuoted(fifo)); rm -f \(Self.shellQuoted(fifo)); exec \(Self.shellQuoted(stdbuf)) -oL "
                + ([pjsua] + base + arguments).map(Self.shellQuoted).joined(separator: " ")
            process = try ChildProcess("/bin/sh", ["-c", command], name: name, environment: environment)
        } else {
            // The legacy console reads stdin line by line; a shell feeds it the steps in time.
            var feed = steps.map { step in
                let wait = step.gate.map { "n=0; while [ ! -e \(Self.shellQuoted($0)) ] && [ $n -lt 1200 ]; do sleep 0.05; n=$((n+1)); done" }
                    ?? "sleep \(step.after)"
                return "\(wait); printf '%s\\n' \(Self.shellQuoted(step.line))"
            }
            feed.append("sleep \(linger)")
            let command = "(\(feed.joined(separator: "; "))) | exec \(Self.shellQuoted(stdbuf)) -oL \(Self.shellQuoted(pjsua)) "
                + (base + arguments).map(Self.shellQuoted).joined(separator: " ")
            process = try ChildProcess("/bin/sh", ["-c", command], name: name, environment: environment)
        }
        var port: Int?
        do {
            try await process.waitForOutput("log its SIP port", timeout: ChildProcess.startTimeout) { log in
                port = Self.sipPort(in: log)
                return port != nil
            }
            // The port is bound before pjsua_start(): until the app is running, pjsua answers an
            // INVITE 503 ("Error initializing media channel: Object is busy", PJ_EBUSY), which a
            // loaded machine made a test's call meet.
            try await process.waitForOutput("start (PJSUA state RUNNING)", timeout: ChildProcess.startTimeout) { log in
                log.contains(Self.running)
            }
        } catch {
            process.stop()
            throw error
        }
        guard let port else { throw ChildProcessError(process.explain("logged no SIP port")) }
        self.port = port
    }

    /// What pjsua logs (at log level 4) once pjsua_start() has run: from then on it takes calls.
    private static let running = "PJSUA state changed: STARTING --> RUNNING"

    /// What the app logs (at log level 4) once its SIP UDP transport is bound, before the address.
    private static let transportStarted = "SIP UDP transport started, published address is "

    /// The SIP UDP port a pjsua app's log says it bound (with `--local-port=0` and
    /// `--log-level=4` or more), from its line "SIP UDP transport started, published address is
    /// 127.0.0.1:<port>"; nil until that line is written whole.
    public static func sipPort(in log: String) -> Int? {
        guard let range = log.range(of: transportStarted) else { return nil }
        let rest = log[range.upperBound...]
        guard let end = rest.firstIndex(of: "\n") else { return nil }
        return rest[..<end].split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// The pjsua app installed with the PJSIP this process loaded (PREFIX/bin/pjsua beside
    /// PREFIX/lib/libpjsua.so) and its library directory: the build under test (a patched
    /// prefix, make test-ios-profile's), where the peers of other tests run /usr/local's.
    public static func ofThisBuild() throws -> (executable: String, libraries: String) {
        // The loader's map of this process names the file each library came from.
        let maps = FileHandle(forReadingAtPath: "/proc/self/maps").map { String(decoding: $0.readDataToEndOfFile(), as: UTF8.self) } ?? ""
        guard let line = maps.split(separator: "\n").first(where: { $0.contains("/libpjsua.so") }),
              let start = line.firstIndex(of: "/") else {
            throw ChildProcessError("this process has no libpjsua loaded")
        }
        let libraries = URL(fileURLWithPath: String(line[start...])).deletingLastPathComponent()
        let executable = libraries.deletingLastPathComponent().appendingPathComponent("bin/pjsua").path
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw ChildProcessError("no pjsua app beside \(libraries.path) (looked for \(executable))")
        }
        return (executable, libraries.path)
    }

    /// A URI that reaches the app.
    public func uri(user: String = "pjsua") -> String { "sip:\(user)@127.0.0.1:\(port)" }

    /// Waits until the app has logged `text`.
    public func waitForLog(_ text: String, timeout: Duration = .seconds(15)) async throws {
        try await process.waitForOutput(text, timeout: timeout)
    }

    /// Ends the app (and the shell feeding it).
    public func stop() { process.stop() }

    deinit { stop() }

    private static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
