import Foundation
import PJSUATestSupport
import SwiftPJSUA
import Testing

/// The scale-out example (Examples/ScaleOut/dispatcher.cfg) as it ships: kamailio's dispatcher
/// in front of two bot processes (`softphone answer`), driven by sipp.
@Suite("Scale-out: kamailio's dispatcher in front of two bots", .serialized)
struct DispatcherTests {
    /// A bot: `softphone answer` on its own port (a free one for 0, read back from its
    /// "listening" line), printing one JSON line per event.
    private static func bot(port: Int = 0, name: String) async throws -> (process: ChildProcess, port: Int) {
        let process = try ChildProcess(try softphone(), ["answer", "--listen", "udp:127.0.0.1:\(port)", "--json"], name: name)
        try await process.waitUntilStarted(printing: "\"listening\"")
        let listening = jsonLines(process.output).first { $0["event"] as? String == "listening" }
        guard let bound = listening?["port"] as? Int else { throw ChildProcessError("\(name) printed no port: \(process.output)") }
        return (process, bound)
    }

    private static func calls(_ bot: ChildProcess) -> Int {
        bot.output.components(separatedBy: "\"event\":\"incomingCall\"").count - 1
    }

    /// The dispatcher, started on a free port over a list of the bots' ports.
    private final class Dispatcher: @unchecked Sendable {
        // @unchecked Sendable: immutable after init.
        let port = freeLoopbackPort()
        let peer: ChildProcess
        let directory: String

        init(bots: [Int]) async throws {
            directory = NSTemporaryDirectory() + "swift-pjsua-dispatcher-\(UUID().uuidString.prefix(8))"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try bots.map { "1 sip:127.0.0.1:\($0)\n" }.joined().write(toFile: directory + "/dispatcher.list", atomically: true, encoding: .utf8)
            peer = try ChildProcess("kamailio", [
                "-f", packageRoot + "/Examples/ScaleOut/dispatcher.cfg", "-l", "udp:127.0.0.1:\(port)",
                "-A", "DS_LIST=\"\(directory)/dispatcher.list\"", "-A", "DS_FROM=\"sip:dispatcher@127.0.0.1\"",
                "-DD", "-E", "-Y", directory, "-m", "64", "-M", "8",
            ], name: "kamailio-dispatcher")
            try await peer.waitForOutput("udp: 127.0.0.1 [127.0.0.1]:\(port)")
            // Workers up, and the first OPTIONS probes answered.
            try await Task.sleep(for: .seconds(2))
        }

        func stop() {
            peer.stop()
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// sipp places `calls` short calls through the dispatcher at `rate` per second.
    private static func sipp(calls: Int, rate: Int, through dispatcher: Dispatcher, name: String) throws -> (ChildProcess, String) {
        let statistics = NSTemporaryDirectory() + "swift-pjsua-\(name)-\(UUID().uuidString.prefix(8)).csv"
        let process = try ChildProcess("sipp", [
            "-sf", scenario("uac-through-proxy.xml"), "127.0.0.1:\(dispatcher.port)", "-s", "bot",
            "-i", "127.0.0.1", "-p", "\(freeLoopbackPort())", "-m", "\(calls)", "-r", "\(rate)", "-d", "100", "-l", "100",
            "-nostdin", "-timeout", "90s", "-timeout_error", "-max_recv_loops", "1000",
            "-trace_stat", "-stf", statistics, "-fd", "1",
        ], name: name)
        return (process, statistics)
    }

    private static func outcome(_ statistics: String) -> (succeeded: Int, failed: Int) {
        let parsed = readText(statistics).flatMap(SippStatistics.init(csv:))
        return (parsed?.counter("SuccessfulCall(C)") ?? -1, parsed?.counter("FailedCall(C)") ?? -1)
    }

    @Test func twoHundredCallsSpreadOverBothBots() async throws {
        let started = [try await Self.bot(name: "bot-a"), try await Self.bot(name: "bot-b")]
        let bots = started.map(\.process)
        let ports = started.map(\.port)
        defer { bots.forEach { $0.stop() } }
        let dispatcher = try await Dispatcher(bots: ports)
        defer { dispatcher.stop() }
        let (sipp, statistics) = try Self.sipp(calls: 200, rate: 40, through: dispatcher, name: "sipp-dispatcher")
        let status = try await sipp.waitForExit(timeout: .seconds(90))
        let result = Self.outcome(statistics)
        #expect(status == 0 && result.succeeded == 200, "\(result), sipp \(status):\n\(sipp.output.suffix(1500))")
        let counts = bots.map(Self.calls)
        #expect(counts.reduce(0, +) == 200, "\(counts)")
        for count in counts {
            #expect((60...140).contains(count), "each bot between 30 % and 70 %: \(counts)")
        }
    }

    /// One bot is killed mid-run and started again: the dispatcher stops sending to it within
    /// its probing interval (failing over the calls that found it dead), calls keep succeeding on
    /// the other, and the restarted bot gets calls again.
    @Test func aKilledBotLeavesTheRotationAndARestartedOneComesBack() async throws {
        let (first, firstPort) = try await Self.bot(name: "bot-a")
        let (survivor, survivorPort) = try await Self.bot(name: "bot-b")
        let ports = [firstPort, survivorPort]
        defer { survivor.stop() }
        let dispatcher = try await Dispatcher(bots: ports)
        defer { dispatcher.stop() }
        let (sipp, statistics) = try Self.sipp(calls: 200, rate: 20, through: dispatcher, name: "sipp-failover")

        try await Task.sleep(for: .seconds(3))
        first.signal(SIGKILL)
        _ = try await first.waitForExit(timeout: .seconds(5))
        let callsBeforeDeath = Self.calls(first)
        try await Task.sleep(for: .seconds(3))
        let restarted = try await Self.bot(port: ports[0], name: "bot-a-restarted").process
        defer { restarted.stop() }

        let status = try await sipp.waitForExit(timeout: .seconds(90))
        let result = Self.outcome(statistics)
        // Only calls already up on the killed bot can fail (20 calls/s held 100 ms: a few);
        // every INVITE that found it dead went on to the survivor.
        #expect(result.succeeded >= 195 && result.succeeded + result.failed == 200, "\(result), sipp \(status)")
        #expect(callsBeforeDeath > 10, "the first bot got \(callsBeforeDeath) calls before it died")
        #expect(Self.calls(survivor) > 80, "survivor: \(Self.calls(survivor))")
        #expect(Self.calls(restarted) > 10, "the restarted bot was not taken back: \(Self.calls(restarted)) calls\n\(dispatcher.peer.output.suffix(1500))")
    }
}
