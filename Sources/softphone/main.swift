import Foundation
import SwiftPJSUA

/// softphone: a command-line SIP user agent built on SwiftPJSUA's public API only.
let usage = """
usage: softphone <command> [options]
commands:
  demo       a real SIP call over loopback with a tone check (no server needed)
  answer     answer incoming calls until SIGINT/SIGTERM
  call       place a call
  register   register an account with a registrar
  message    send an instant message (SIP MESSAGE)
  watch      print the presence or line state (BLF) of SIP URIs until stopped
  version    print the versions of softphone, swift-pjsua and PJSIP (also --version)
Run `softphone <command> --help` for a command's options.
Exit codes: 0 success, 1 call or registration failed, 2 usage or bad input.
Signals: the first SIGINT or SIGTERM shuts down cleanly (hangs up calls, unregisters); a second
  one exits at once with 128 + the first one's number. After the clean shutdown:
  SIGINT (Ctrl-C) exits 130 for every command;
  SIGTERM exits 0 for answer and watch (a service manager's stop: systemd and Kubernetes read 143 as a
  failure), and 143 for the others (call, register, message), whose work it cut short.
SIGUSR1 tells answer, call and register that the network changed (re-register, re-INVITE on the
  new address).
"""

struct Command {
    let usage: String
    let spec: OptionSpec
    let run: (Arguments) async throws -> Int32
    /// Whether the command serves until stopped, so that SIGTERM after a clean shutdown is a
    /// success (``Signals/isStopRequest(_:)``) rather than an interruption.
    var servesUntilStopped = false
}

let commands: [String: Command] = [
    "demo": Command(usage: DemoCommand.usage, spec: DemoCommand.spec, run: DemoCommand.run),
    "answer": Command(usage: AnswerCommand.usage, spec: AnswerCommand.spec, run: AnswerCommand.run, servesUntilStopped: true),
    "call": Command(usage: CallCommand.usage, spec: CallCommand.spec, run: CallCommand.run),
    "register": Command(usage: RegisterCommand.usage, spec: RegisterCommand.spec, run: RegisterCommand.run),
    "message": Command(usage: MessageCommand.usage, spec: MessageCommand.spec, run: MessageCommand.run),
    "watch": Command(usage: WatchCommand.usage, spec: WatchCommand.spec, run: WatchCommand.run, servesUntilStopped: true),
]

/// Prints `message` as one error line (and, when asked, the command's usage line) and exits 2.
func usageFailure(_ message: String, usageLine: String? = nil) -> Never {
    var text = "softphone: error: \(message)\n"
    if let usageLine { text += "\(usageLine)\n" }
    FileHandle.standardError.write(Data(text.utf8))
    exit(2)
}

/// The first line of a command's usage text ("usage: softphone call <sip-uri> ...").
func firstLine(of usage: String) -> String {
    usage.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? usage
}

var argv = Array(CommandLine.arguments.dropFirst())
guard let name = argv.first else {
    print(usage)
    exit(2)
}
if name == "--help" || name == "-h" || name == "help" {
    print(usage)
    exit(0)
}
if name == "--version" || name == "-V" || name == "version" {
    print("softphone \(PJSUA.version) (swift-pjsua \(PJSUA.version), PJSIP \(PJSUA.pjsipVersion))")
    exit(0)
}
guard let command = commands[name] else { usageFailure("unknown command '\(name)' (try softphone --help)") }
argv.removeFirst()
if argv.contains("--help") || argv.contains("-h") {
    print(command.usage)
    exit(0)
}

var code: Int32
do {
    let arguments = try Arguments(argv, spec: command.spec)
    code = try await command.run(arguments)
} catch let error as UsageError {
    usageFailure(error.description, usageLine: error.showsUsage ? firstLine(of: command.usage) : nil)
} catch let error as PJSUAError {
    // Bad input the engine refused (an invalid URI, a missing file) is a usage error; the rest
    // is a failure of the call or registration.
    let input: Set<PJSUAError.Code> = [.invalidURI, .invalidArgument, .file, .invalidHeader]
    if input.contains(error.code) { usageFailure(error.message) }
    FileHandle.standardError.write(Data("softphone: \(error.message)\n".utf8))
    code = 1
} catch {
    FileHandle.standardError.write(Data("softphone: \(error)\n".utf8))
    code = 1
}
// A signal decides the status whatever the command made of it (a call it cut short may have
// failed, or ended in time for a 0); a service stopped by SIGTERM keeps its own status (0 after
// the clean shutdown, 1 when something failed).
if let signal = Signals.shared.pending, !(command.servesUntilStopped && Signals.isStopRequest(signal)) {
    code = Signals.exitStatus(for: signal)
}
exit(code)
