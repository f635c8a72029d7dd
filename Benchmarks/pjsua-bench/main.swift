import CPJSUABaseline
import Dispatch
import Foundation
@_spi(Benchmarks) import SwiftPJSUA

/// pjsua-bench: speed and memory of the Swift engine against baselines measured in the same run.
/// Each subcommand prints human-readable lines and, last, one JSON object.
let usage = """
usage: pjsua-bench <hop|events|setup|load|idle|soak> [options]
  hop    [--iterations N]          awaited engine round trip vs default actor vs DispatchQueue
  events [--iterations N]          callback -> for-await consumer latency, 1 and 4 subscribers
  setup  [--calls N]               self-call cycles, Swift engine vs the same loop in C
  load   [--rate R] [--seconds T] [--hold-ms H] [--find-max]
                                   sipp UAC against softphone answer and the pjsua app
  idle   [--seconds N]             CPU of a started engine with one registered account
  soak   [--calls N]               RSS and file descriptors before/after N self-calls
"""

let command = CommandLine.arguments.dropFirst().first ?? ""
let arguments = Array(CommandLine.arguments.dropFirst(2))

func option(_ name: String, default value: Int) -> Int {
    guard let index = arguments.firstIndex(of: "--\(name)"), index + 1 < arguments.count else { return value }
    guard let number = Int(arguments[index + 1]), number > 0 else {
        FileHandle.standardError.write(Data("pjsua-bench: --\(name) must be a positive integer\n".utf8))
        exit(2)
    }
    return number
}

do {
    switch command {
    case "hop": try await HopBenchmark.run(iterations: option("iterations", default: 100_000))
    case "events": try await EventsBenchmark.run(iterations: option("iterations", default: 20_000))
    case "setup": try await SetupBenchmark.run(calls: option("calls", default: 200))
    case "load":
        try await LoadBenchmark.run(rate: option("rate", default: 20), seconds: option("seconds", default: 10),
                                    holdMilliseconds: option("hold-ms", default: 1000), findMax: arguments.contains("--find-max"))
    case "idle": try await IdleBenchmark.run(seconds: option("seconds", default: 10))
    case "soak": try await SoakBenchmark.run(calls: option("calls", default: 1000))
    case "--help", "-h", "help":
        print(usage)
    case "":
        FileHandle.standardError.write(Data("\(usage)\n".utf8))
        exit(2)
    default:
        FileHandle.standardError.write(Data("pjsua-bench: unknown benchmark '\(command)'\n\(usage)\n".utf8))
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("pjsua-bench: \(error)\n".utf8))
    exit(1)
}
