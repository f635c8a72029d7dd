import Foundation
import SwiftPJSUA
import PJSUATestSupport
import Testing

/// Runs softphone to completion; returns its exit status and output.
func runSoftphone(_ arguments: [String], environment: [String: String] = [:], timeout: Duration = .seconds(60)) async throws -> (status: Int32, output: String) {
    let process = try ChildProcess(try softphone(), arguments, name: "softphone", environment: environment)
    let status = try await process.waitForExit(timeout: timeout)
    return (status, process.output)
}

/// Waits until `socket` (a peer that never answers) has received a datagram.
func waitForDatagram(on socket: LoopbackSocket, seconds: Int) async -> Bool {
    await socket.waitForInput(timeout: .seconds(seconds))
}

@Suite("The softphone CLI, driven as a subprocess")
struct SoftphoneTests {
    @Test func demoConnectsAndDetectsTheToneAtTheFarEnd() async throws {
        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        let result = try await runSoftphone(["demo", "--seconds", "2", "--json"])
        #expect(result.status == 0, "\(result.output)")
        let lines = jsonLines(result.output)
        #expect(lines.contains { $0["event"] as? String == "callState" && $0["state"] as? String == "CONFIRMED" })
        #expect(lines.contains { $0["event"] as? String == "stats" && ($0["packetsReceived"] as? Int ?? 0) > 50 })
        #expect(lines.contains { $0["event"] as? String == "tone" && $0["detected"] as? Bool == true })
    }

    @Test(arguments: [
        (["frobnicate"], "unknown command"),
        (["call", "sip:a@127.0.0.1", "--seconds", "-3"], "--seconds"),
        (["call", "not-a-uri", "--seconds", "0"], "invalid destination URI"),
        (["call", "sip:a@127.0.0.1", "--play", "/nonexistent.wav"], "nonexistent.wav"),
        (["answer", "--max-cps", "0"], "--max-cps"),
        (["answer", "--clock-rate", "11025"], "--clock-rate"),
        (["answer", "--opus-rate", "11025"], "--opus-rate"),
        (["answer", "--jitter-buffer-max", "20"], "--jitter-buffer-max"),
        (["answer", "--rtp-ports", "5000-5002"], "--rtp-ports"),
        (["call", "sip:a@127.0.0.1", "--rtp-ports", "4000-"], "--rtp-ports"),
        (["answer", "--rtp-ports", "65535"], "--rtp-ports"),
        (["call", "sip:a@127.0.0.1", "--resampler", "best"], "--resampler"),
        (["answer", "--listen", "udp:nowhere"], "--listen"),
        (["answer", "--auto-answer", "99"], "--auto-answer"),
        (["answer", "--record-dir", "/nonexistent-dir"], "--record-dir"),
        (["register", "--registrar", "sip:127.0.0.1"], "--account is required"),
        (["register", "--account", "sip:a@127.0.0.1", "--registrar", "sip:127.0.0.1", "--username", "a", "--password-env", "SWIFT_PJSUA_UNSET_VARIABLE"], "SWIFT_PJSUA_UNSET_VARIABLE"),
        (["demo", "--seconds", "0"], "--seconds"),
        (["call", "sip:a@127.0.0.1", "--password", "secret"], "unknown option --password"),
    ])
    func badInputExitsWith2AndOneLine(arguments: [String], mention: String) async throws {
        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        let result = try await runSoftphone(arguments)
        #expect(result.status == 2, "\(arguments): \(result.output)")
        let lines = result.output.split(separator: "\n")
        #expect(lines.count == 1, "\(result.output)")
        #expect(result.output.hasPrefix("softphone: error: "))
        #expect(result.output.contains(mention), "\(result.output)")
    }

    @Test func aCallWithoutADestinationNamesItAndShowsTheUsageLine() async throws {
        let result = try await runSoftphone(["call", "--seconds", "1"])
        #expect(result.status == 2, "\(result.output)")
        let lines = result.output.split(separator: "\n")
        #expect(lines.count == 2, "\(result.output)")
        #expect(lines.first?.hasPrefix("softphone: error: missing <sip-uri> (the destination to call") == true, "\(result.output)")
        #expect(lines.last?.hasPrefix("usage: softphone call <sip-uri>") == true, "\(result.output)")
        let message = try await runSoftphone(["message", "sip:a@127.0.0.1"])
        #expect(message.status == 2, "\(message.output)")
        #expect(message.output.hasPrefix("softphone: error: missing <text> (the message body)\nusage: softphone message"), "\(message.output)")
    }

    @Test func versionPrintsSoftphoneSwiftPJSUAAndPJSIPVersions() async throws {
        for flag in ["--version", "-V", "version"] {
            let result = try await runSoftphone([flag])
            #expect(result.status == 0, "\(result.output)")
            #expect(result.output == "softphone \(PJSUA.version) (swift-pjsua \(PJSUA.version), PJSIP \(PJSUA.pjsipVersion))\n")
        }
        #expect(PJSUA.pjsipVersion.hasPrefix("2."))
    }

    /// `--max-calls` means what it means to the pjsua app: calls at once. A second call while
    /// the first is up is refused (503, admission control); the agent keeps running.
    @Test func maxCallsLimitsCallsAtOnceLikeThePjsuaApp() async throws {
        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        let (callee, port) = try await answeringSoftphone(["--max-calls", "1", "--exit-after", "2"], name: "softphone-max-calls")
        let first = try ChildProcess(try softphone(), ["call", "sip:x@127.0.0.1:\(port)", "--listen", "udp:127.0.0.1:0", "--seconds", "4",
                                                      "--json"], name: "softphone-first")
        try await first.waitForOutput("\"CONFIRMED\"")
        let second = try await runSoftphone(["call", "sip:x@127.0.0.1:\(port)", "--listen", "udp:127.0.0.1:0", "--seconds", "0"])
        #expect(second.status == 1, "\(second.output)")
        #expect(second.output.contains("503"), "\(second.output)")
        #expect(try await first.waitForExit(timeout: .seconds(15)) == 0, "\(first.output)")
        // With the first call over, a new one is admitted (and is the agent's second call).
        let third = try await runSoftphone(["call", "sip:x@127.0.0.1:\(port)", "--listen", "udp:127.0.0.1:0", "--seconds", "0"])
        #expect(third.status == 0, "\(third.output)")
        #expect(try await callee.waitForExit(timeout: .seconds(10)) == 0, "\(callee.output)")
    }

    @Test func helpExitsWith0() async throws {
        for arguments in [["--help"], ["demo", "--help"], ["answer", "--help"], ["call", "--help"], ["register", "--help"]] {
            let result = try await runSoftphone(arguments)
            #expect(result.status == 0)
            #expect(result.output.contains("usage:"))
        }
    }

    @Test func aRefusedCallExitsWith1AndTheReason() async throws {
        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        let (callee, port) = try await answeringSoftphone(["--auto-answer", "486", "--exit-after", "1"], name: "softphone-busy")
        let result = try await runSoftphone(["call", "sip:x@127.0.0.1:\(port)", "--listen", "udp:127.0.0.1:0"])
        #expect(result.status == 1, "\(result.output)")
        #expect(result.output.contains("486"), "\(result.output)")
        #expect(try await callee.waitForExit(timeout: .seconds(10)) == 0)
    }

    /// SIGTERM is how systemd and Kubernetes stop a service: after the clean shutdown `answer`
    /// exits 0. SIGINT (Ctrl-C at a terminal) keeps the shell's 130.
    @Test func answerShutsDownCleanlyAndExits0OnSIGTERMAnd130OnSIGINT() async throws {
        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        for (signal, extra, status) in [(SIGTERM, [String](), Int32(0)), (SIGINT, ["--media-thread"], Int32(130))] {
            let agent = try ChildProcess(try softphone(), ["answer", "--json"] + extra, name: "softphone-signal")
            try await agent.waitUntilStarted(printing: "\"listening\"")
            agent.signal(signal)
            #expect(try await agent.waitForExit(timeout: .seconds(10)) == status, "\(agent.output)")
            #expect(agent.output.contains("\"done\""))
        }
    }

    /// With a call up, SIGTERM first hangs the call up (the caller gets a BYE and ends long
    /// before its 60 s), then `answer` exits 0.
    @Test func answerStoppedBySIGTERMHangsUpItsCallThenExits0() async throws {
        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        let (agent, port) = try await answeringSoftphone(name: "softphone-sigterm-callee")
        defer { agent.stop() }
        let caller = try ChildProcess(try softphone(), ["call", "sip:x@127.0.0.1:\(port)", "--listen", "udp:127.0.0.1:0", "--seconds", "60",
                                                       "--json"], name: "softphone-sigterm-caller")
        defer { caller.stop() }
        try await caller.waitForOutput("\"CONFIRMED\"")
        try await agent.waitForOutput("\"CONFIRMED\"")
        agent.signal(SIGTERM)
        #expect(try await agent.waitForExit(timeout: .seconds(10)) == 0, "\(agent.output)")
        let events = jsonLines(agent.output).compactMap { line -> String? in
            switch line["event"] as? String {
            case "callState": line["state"] as? String
            case "signal": "signal"
            case "done": "done"
            default: nil
            }
        }
        #expect(events.suffix(3) == ["signal", "DISCONNECTED", "done"], "\(agent.output)")
        // The caller heard the BYE: its call ended by itself, and it exits 0 well before --seconds.
        #expect(try await caller.waitForExit(timeout: .seconds(10)) == 0, "\(caller.output)")
        #expect(jsonLines(caller.output).contains { $0["event"] as? String == "callState" && $0["state"] as? String == "DISCONNECTED" },
                "\(caller.output)")
        #expect(!caller.output.contains("\"interrupted\""), "\(caller.output)")
    }

    @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143))])
    func aSignalWhileTheRegistrarIsSilentSaysInterruptedAndExitsWithTheSignalsStatus(signal: Int32, status: Int32) async throws {
        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        let registrar = try LoopbackSocket()
        let process = try ChildProcess(try softphone(), ["register", "--account", "sip:a@127.0.0.1", "--registrar",
                                                        "sip:127.0.0.1:\(registrar.port)", "--timeout", "30"], name: "softphone-register")
        #expect(await waitForDatagram(on: registrar, seconds: 10), "no REGISTER arrived: \(process.output)")
        process.signal(signal)
        #expect(try await process.waitForExit(timeout: .seconds(10)) == status, "\(process.output)")
        #expect(process.output.contains("interrupted"), "\(process.output)")
        #expect(!process.output.contains("no answer from the registrar"), "\(process.output)")
    }

    @Test func aSignalWhileACallRingsUnansweredSaysInterruptedAndExitsWith143() async throws {
        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        let callee = try LoopbackSocket()
        let process = try ChildProcess(try softphone(), ["call", "sip:x@127.0.0.1:\(callee.port)", "--listen", "udp:127.0.0.1:0",
                                                        "--timeout", "30", "--json"], name: "softphone-call")
        #expect(await waitForDatagram(on: callee, seconds: 10), "no INVITE arrived: \(process.output)")
        process.signal(SIGTERM)
        #expect(try await process.waitForExit(timeout: .seconds(10)) == 143, "\(process.output)")
        #expect(jsonLines(process.output).contains { $0["event"] as? String == "interrupted" && $0["signal"] as? String == "SIGTERM" },
                "\(process.output)")
    }

    /// The registrar accepts the registration and then ignores the unregistration, so the clean
    /// shutdown after the first Ctrl-C waits for it (5 s or more); the second Ctrl-C must end the
    /// process at once, with the same status.
    @Test func aSecondSIGINTDuringAStuckShutdownExitsAtOnceWith130() async throws {
        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        let registrar = try await sipp(["-sf", scenario("uas-register-then-silent.xml")], name: "sipp-silent-registrar", lifetime: sippLifetimeForAChildClient)
        defer { registrar.stop() }
        let process = try ChildProcess(try softphone(), ["register", "--account", "sip:a@127.0.0.1", "--registrar",
                                                        "sip:127.0.0.1:\(registrar.sippPort)", "--seconds", "60", "--json"],
                                       name: "softphone-stuck")
        try await process.waitForOutput("\"registered\":true")
        process.signal(SIGINT)
        try await process.waitForOutput("\"interrupted\"")
        // Stuck: the unregistration goes unanswered.
        try await Task.sleep(for: .milliseconds(300))
        #expect(process.isRunning, "the shutdown was not stuck, so this proves nothing: \(process.output)")
        let start = ContinuousClock.now
        process.signal(SIGINT)
        #expect(try await process.waitForExit(timeout: .seconds(3)) == 130, "\(process.output)")
        #expect(ContinuousClock.now - start < .seconds(1), "\(process.output)")
        #expect(process.output.contains("exiting without a clean shutdown"), "\(process.output)")
    }

    /// The caller plays a tone and sends DTMF; the answering softphone records the call and
    /// reports the digits. (The far end records for the whole call, so a busy machine delaying
    /// one process cannot make the tone miss the recording.)
    @Test func callPlaysRecordsAndSendsDTMFToAnAnsweringSoftphone() async throws {
        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try WAVFile.tone(frequency: 600, duration: .seconds(1)).write(to: directory + "/prompt.wav")
        let (callee, port) = try await answeringSoftphone(["--exit-after", "1", "--record-dir", directory], name: "softphone-callee")
        let result = try await runSoftphone(["call", "sip:x@127.0.0.1:\(port)", "--listen", "udp:127.0.0.1:0", "--seconds", "3",
                                             "--play", directory + "/prompt.wav", "--record", directory + "/caller.wav",
                                             "--dtmf", "12#", "--json"])
        #expect(result.status == 0, "\(result.output)")
        #expect(try await callee.waitForExit(timeout: .seconds(10)) == 0)
        let digits = jsonLines(callee.output).compactMap { $0["event"] as? String == "dtmf" ? $0["digit"] as? String : nil }
        #expect(digits.joined() == "12#", "\(callee.output)")
        let heard = try WAVFile(contentsOf: directory + "/call-1.wav")
        #expect(abs(heard.dominantFrequency() - 600) <= 20,
                "heard \(heard.dominantFrequency()) Hz at \(heard.rmsLevel) over \(heard.duration)\ncaller:\n\(result.output)\ncallee:\n\(callee.output)")
        // The caller's own recording is a complete WAV file.
        #expect(try WAVFile(contentsOf: directory + "/caller.wav").duration > .milliseconds(500))
    }

    /// Without `--listen`, `call` binds every interface when its destination is on another host
    /// (it bound loopback only, which cannot reach one). The caller runs in a network namespace
    /// whose only way out is a veth pair; the callee listens on this side's end of it.
    @Test func aCallWithoutListenReachesAnotherHost() async throws {
        let net = try await NetworkNamespace()
        defer { net.remove() }
        let callee = try ChildProcess(try softphone(), ["answer", "--listen", "udp:\(net.hostAddress):5060", "--exit-after", "1", "--json"],
                                      name: "softphone-callee-host")
        defer { callee.stop() }
        try await callee.waitUntilStarted(printing: "\"listening\"")
        let caller = try ChildProcess("ip", net.command([try softphone(), "call", "sip:x@\(net.hostAddress):5060", "--seconds", "1", "--json"]),
                                      name: "softphone-caller-netns")
        defer { caller.stop() }
        #expect(try await caller.waitForExit(timeout: .seconds(30)) == 0, "\(caller.output)")
        #expect(jsonLines(caller.output).contains { $0["event"] as? String == "callState" && $0["state"] as? String == "CONFIRMED" },
                "\(caller.output)")
        #expect(try await callee.waitForExit(timeout: .seconds(10)) == 0, "\(callee.output)")
    }
}
