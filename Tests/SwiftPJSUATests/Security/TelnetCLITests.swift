import Foundation
import PJSUATestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SEC-14 and SEC-15 (scripts/pjproject-patches/sec-14-telnet-cli-lines.sh, sec-15-…history.sh;
/// upstream 4472a31d7, 628b71638): the pjsua app's telnet CLI (pjlib-util cli_telnet.c; a user
/// runs the app with it, `--use-cli --no-cli-console`) asks for no login and listens on every
/// address, and it wrote a peer's command line into stack buffers smaller than the line. The app
/// of the build under test, sent what a stranger could type, must answer and live on.
@Suite("Security: the pjsua app's telnet CLI")
struct TelnetCLITests {
    @Test func anErrorFarDownALongCommandLineIsReportedAndTheAppLivesOn() async throws {
        // 300 spaces, then an unknown word: the caret line is 300 bytes, its buffer 256.
        try await withTelnetCLI { app, cli in
            cli.type(String(repeating: " ", count: 300) + "zzz\r\n")
            let answer = await cli.read(until: "%Error", timeout: .seconds(5))
            #expect(app.process.isRunning, "the app died (exit \(app.process.exited ?? 0))")
            #expect(answer.contains("%Error : Invalid Arguments"), "\(answer.suffix(300))")
        }
    }

    @Test func recallingALongCommandOverALongLineRedrawsItAndTheAppLivesOn() async throws {
        // A 483-byte command to the history (its error is at the start, so its caret line is
        // short), a 500-byte line typed, then Up: the redraw is about 1,500 bytes, its buffer 512.
        try await withTelnetCLI { app, cli in
            let command = "zzz" + String(repeating: " a", count: 240)
            cli.type(command + "\r\n")
            _ = await cli.read(until: "%Error", timeout: .seconds(5))
            // Typed, then Up (the CLI takes its bytes in order; without telnet's echo option it
            // echoes nothing, so there is nothing to wait for in between).
            cli.type(String(repeating: "q", count: 500) + "\u{1B}[A")
            let redraw = await cli.read(until: command, timeout: .seconds(5))
            #expect(app.process.isRunning, "the app died (exit \(app.process.exited ?? 0))")
            #expect(redraw.contains(command), "the command was not recalled: \(redraw.suffix(300))")
        }
    }

    /// Runs the pjsua app of this build with its telnet CLI on a port it bound itself and `body` with a
    /// connection to it.
    private func withTelnetCLI(_ body: (PjsuaApp, TelnetConnection) async throws -> Void) async throws {
        // The telnet CLI on a port of the app's own choosing (--cli-telnet-port=0); the app logs
        // it: "Telnet to <address>:<port>: Success".
        let app = try await PjsuaApp(name: "pjsua-telnet", arguments: ["--use-cli", "--no-cli-console", "--cli-telnet-port=0"],
                                     ofThisBuild: true)
        defer { app.stop() }
        try await app.process.waitForOutput("Telnet to ")
        let line = app.process.output.components(separatedBy: "Telnet to ").dropFirst().first ?? ""
        let port = try #require(line.split(separator: ":").dropFirst().first.flatMap { Int($0) },
                                "no telnet port in the app's log: \(app.process.output.suffix(2000))")
        let cli = try await TelnetConnection(port: port, timeout: .seconds(15))
        // Its greeting (telnet options, then the prompt).
        _ = await cli.read(until: "> ", timeout: .seconds(5))
        try await body(app, cli)
    }
}

/// A TCP connection to a telnet CLI on 127.0.0.1 that types bytes and reads what comes back.
private final class TelnetConnection {
    private let socket: LoopbackSocket

    /// Connects, retrying while the CLI is not listening yet, for up to `timeout`.
    init(port: Int, timeout: Duration) async throws {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            let socket = try LoopbackSocket(udp: false)
            if socket.connect(toPort: port) {
                self.socket = socket
                return
            }
            guard ContinuousClock.now < deadline else { throw ChildProcessError("no telnet CLI on port \(port)") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Sends `text` as typed (one write; the CLI reads it a byte at a time).
    func type(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(socket.descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// What arrives until it contains `text` (bells dropped), or `timeout` passes.
    func read(until text: String, timeout: Duration) async -> String {
        var received = ""
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while !received.contains(text) && ContinuousClock.now < deadline {
            if let chunk = socket.receiveNow() {
                received += chunk.replacingOccurrences(of: "\u{07}", with: "")
            } else {
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
        return received
    }
}
