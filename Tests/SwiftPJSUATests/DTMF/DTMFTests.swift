import Foundation
import SwiftPJSUA
import PJSUATestSupport
import Testing

/// The 16 DTMF digits, in the order every test sends them.
let allDTMFDigits = "0123456789*#ABCD"

/// An engine on loopback with the null device (a running bridge clock) and in-band detection.
func dtmfEngineConfiguration() -> PJSUA.Configuration {
    var configuration = PJSUA.Configuration(port: 0, transport: .udp, bindAddress: "127.0.0.1", audioDevice: .null)
    configuration.detectsInbandDTMF = true
    return configuration
}

extension EventLog {
    /// The DTMF digits received on `call` so far, in order.
    func digits(on call: PJSUA.Call) -> [PJSUA.DTMFDigit] {
        all.compactMap { event in
            if case let .dtmf(c, digit) = event, c == call { return digit }
            return nil
        }
    }

    /// Waits until `count` digits arrived on `call`; returns them.
    func digits(on call: PJSUA.Call, count: Int, timeout: Duration = .seconds(15)) async throws -> [PJSUA.DTMFDigit] {
        try await first("\(count) DTMF digits on \(call)", timeout: timeout) { _ in
            let digits = self.digits(on: call)
            return digits.count >= count ? digits : nil
        }
    }
}

/// The `dtmf` lines of a softphone's JSON output: digit, method, duration in ms (-1: unknown).
func softphoneDigits(_ output: String) -> [(digit: String, method: String, milliseconds: Int)] {
    jsonLines(output).compactMap { line in
        guard line["event"] as? String == "dtmf", let digit = line["digit"] as? String, let method = line["method"] as? String else { return nil }
        return (digit, method, line["durationMs"] as? Int ?? -1)
    }
}

/// Waits until `process` printed `count` dtmf lines.
func waitForSoftphoneDigits(_ process: ChildProcess, count: Int, timeout: Duration = .seconds(15)) async throws -> [(digit: String, method: String, milliseconds: Int)] {
    let deadline = ContinuousClock.now.advanced(by: timeout)
    while true {
        let digits = softphoneDigits(process.output)
        if digits.count >= count || ContinuousClock.now >= deadline { return digits }
        try await Task.sleep(for: .milliseconds(50))
    }
}

/// Starts `softphone answer` (one call, JSON output, plus `extra`) on a port it picks, calls it
/// from `phone` and waits for the call's audio; returns the call and the answering process.
func callAnsweringSoftphone(_ phone: PJSUA, _ log: EventLog, extra: [String] = [], name: String) async throws -> (call: PJSUA.Call, callee: ChildProcess) {
    let (callee, port) = try await answeringSoftphone(["--exit-after", "1"] + extra, name: name)
    let call = try await phone.makeCall(to: PJSUA.SIPURI("sip:\(name)@127.0.0.1:\(port)"))
    try await log.mediaActive(call)
    return (call, callee)
}

@Suite("DTMF: RFC 4733, SIP INFO and in-band, both ways", .serialized)
struct DTMFTests {
    @Test(arguments: PJSUA.DTMFMethod.allCases)
    func digitsSentToASecondEngineArriveCompleteInOrderWithTheirMethod(_ method: PJSUA.DTMFMethod) async throws {
        try await withEngine(dtmfEngineConfiguration()) { phone, _, log in
            let (call, callee) = try await callAnsweringSoftphone(phone, log, extra: ["--detect-inband"], name: "dtmf-\(method)")
            try await phone.sendDTMF(allDTMFDigits, on: call, method: method, duration: .milliseconds(120))
            let received = try await waitForSoftphoneDigits(callee, count: allDTMFDigits.count)
            try await phone.hangUp(call)
            #expect(received.map(\.digit).joined() == allDTMFDigits, "\(callee.output.suffix(3000))")
            #expect(received.allSatisfy { $0.method == method.rawValue })
            switch method {
            case .rfc4733, .sipInfo:
                #expect(received.allSatisfy { $0.milliseconds == 120 }, "\(received.map(\.milliseconds))")
            case .inband:
                // Heard in whole bridge frames: the tone's 120 ms, give or take the edges.
                #expect(received.allSatisfy { (80...200).contains($0.milliseconds) }, "\(received.map(\.milliseconds))")
            }
            #expect(try await callee.waitForExit(timeout: .seconds(10)) == 0)
        }
    }

    @Test(arguments: PJSUA.DTMFMethod.allCases)
    func digitsFromASecondEngineArriveAsEventsWithMethodAndDuration(_ method: PJSUA.DTMFMethod) async throws {
        try await withEngine(dtmfEngineConfiguration()) { phone, transport, log in
            let caller = try ChildProcess(try softphone(), ["call", transport.uri(user: "ivr").description, "--listen", "udp:127.0.0.1:0",
                                                           "--dtmf", allDTMFDigits, "--dtmf-method", method.rawValue, "--seconds", "8",
                                                           "--json"], name: "softphone-dtmf-caller-\(method)")
            let incoming = try await log.incomingCall(timeout: ChildProcess.startTimeout)
            try await phone.answer(incoming.call)
            let digits = try await log.digits(on: incoming.call, count: allDTMFDigits.count)
            try await phone.hangUp(incoming.call)
            #expect(String(digits.map(\.digit)) == allDTMFDigits, "\(digits)")
            #expect(digits.allSatisfy { $0.method == method })
            switch method {
            case .rfc4733, .sipInfo:
                #expect(digits.allSatisfy { $0.duration == .milliseconds(160) }, "\(digits)")
            case .inband:
                #expect(digits.allSatisfy { $0.duration.map { (.milliseconds(100)...Duration.milliseconds(240)).contains($0) } ?? false }, "\(digits)")
            }
            _ = try await caller.waitForExit(timeout: .seconds(15))
        }
    }

    @Test func sipInfoDigitsReachSippInOrder() async throws {
        try await withEngine(dtmfEngineConfiguration()) { phone, _, log in
            let peer = try await sipp(["-sf", scenario("uas-dtmf-info.xml")], name: "sipp-dtmf-info")
            let call = try await phone.makeCall(to: PJSUA.SIPURI("sip:info@127.0.0.1:\(peer.sippPort)"))
            try await log.state(call, .confirmed)
            try await phone.sendDTMF(allDTMFDigits, on: call, method: .sipInfo)
            // sipp checks every Signal line; give the 16 transactions time to finish, then BYE.
            try await Task.sleep(for: .seconds(2))
            try await phone.hangUp(call)
            try await log.state(call, .disconnected)
            #expect(try await peer.waitForExit() == 0, "\(peer.output.suffix(2000))")
        }
    }

    @Test func sipInfoFromSippArrivesWithItsDuration() async throws {
        try await withEngine(dtmfEngineConfiguration()) { phone, transport, log in
            let peer = try await sipp(["-sf", scenario("uac-dtmf-info.xml"), "-s", "ivr", "127.0.0.1:\(transport.port)"], name: "sipp-dtmf-uac")
            let incoming = try await log.incomingCall()
            try await phone.answer(incoming.call)
            let digits = try await log.digits(on: incoming.call, count: 3)
            #expect(digits == [PJSUA.DTMFDigit(digit: "5", method: .sipInfo, duration: .milliseconds(250)),
                               PJSUA.DTMFDigit(digit: "#", method: .sipInfo, duration: .milliseconds(100)),
                               PJSUA.DTMFDigit(digit: "A", method: .sipInfo, duration: nil)])
            #expect(try await peer.waitForExit() == 0, "\(peer.output.suffix(2000))")
        }
    }

    @Test func badDTMFInputIsRejectedWithATypedError() async throws {
        try await withEngine(dtmfEngineConfiguration()) { phone, transport, log in
            let call = try await phone.makeCall(to: transport.uri(user: "self"))
            let incoming = try await log.incomingCall()
            try await phone.answer(incoming.call)
            try await log.mediaActive(call)
            for bad in ["", "12X", String(repeating: "1", count: 65), "1\u{0}"] {
                await #expect(throws: PJSUAError.self) { try await phone.sendDTMF(bad, on: call) }
            }
            await #expect(throws: PJSUAError.self) { try await phone.sendDTMF(String(repeating: "1", count: 33), on: call, method: .inband) }
            await #expect(throws: PJSUAError.self) { try await phone.sendDTMF("1", on: call, duration: .milliseconds(10)) }
            await #expect(throws: PJSUAError.self) { try await phone.sendDTMF("1", on: call, duration: .seconds(6)) }
            try await phone.hangUp(call)
            try await log.state(call, .disconnected)
            await #expect(throws: PJSUAError.self) { try await phone.sendDTMF("1", on: call) }
        }
    }
}

/// Polls `read` until it returns at least `count` characters or the time is up.
func waitForText(count: Int, timeout: Duration = .seconds(15), _ read: () -> String) async throws -> String {
    let deadline = ContinuousClock.now.advanced(by: timeout)
    while true {
        let text = read()
        if text.count >= count || ContinuousClock.now >= deadline { return text }
        try await Task.sleep(for: .milliseconds(50))
    }
}

/// The digits the pjsua app logged as received ("Incoming DTMF on call 0: 5, using ... method").
func pjsuaAppDigits(_ output: String) -> String {
    var digits = ""
    var rest = Substring(output)
    while let range = rest.range(of: "Incoming DTMF on call ") {
        rest = rest[range.upperBound...]
        if let colon = rest.range(of: ": "), let digit = rest[colon.upperBound...].first { digits.append(digit) }
    }
    return digits
}

@Suite("DTMF interop: baresip and the pjsua app", .serialized)
struct DTMFInteropTests {
    @Test(arguments: [PJSUA.DTMFMethod.rfc4733, .sipInfo])
    func ourDigitsReachBaresip(_ method: PJSUA.DTMFMethod) async throws {
        try await withEngine(dtmfEngineConfiguration()) { phone, _, log in
            let peer = try Baresip(lifetime: 30)
            try await peer.waitUntilReady()
            let call = try await phone.makeCall(to: PJSUA.SIPURI(peer.uri))
            try await log.mediaActive(call)
            try await phone.sendDTMF(allDTMFDigits, on: call, method: method)
            let heard = try await waitForText(count: allDTMFDigits.count) { peer.receivedDTMF }
            try await phone.hangUp(call)
            #expect(heard == allDTMFDigits, "\(peer.process.output.suffix(3000))")
        }
    }

    /// baresip 1.0 sends RFC 4733 only (it has no SIP INFO sending).
    @Test func baresipDigitsArriveAsRFC4733Events() async throws {
        try await withEngine(dtmfEngineConfiguration()) { phone, transport, log in
            let peer = try Baresip(lifetime: 30)
            try await peer.waitUntilReady()
            try await peer.dial(transport.uri(user: "ivr").description)
            let incoming = try await log.incomingCall()
            try await phone.answer(incoming.call)
            try await log.mediaActive(incoming.call)
            try await Task.sleep(for: .milliseconds(300))
            try await peer.sendDTMF(allDTMFDigits)
            let digits = try await log.digits(on: incoming.call, count: allDTMFDigits.count)
            try await phone.hangUp(incoming.call)
            #expect(String(digits.map(\.digit)) == allDTMFDigits, "\(digits)\n\(peer.process.output.suffix(2000))")
            #expect(digits.allSatisfy { $0.method == .rfc4733 && $0.duration != nil })
        }
    }

    /// The pjsua app is driven inline (auto-answer, null audio) until the shared launcher exists.
    @Test(arguments: [PJSUA.DTMFMethod.rfc4733, .sipInfo])
    func ourDigitsReachThePjsuaApp(_ method: PJSUA.DTMFMethod) async throws {
        try await withEngine(dtmfEngineConfiguration()) { phone, _, log in
            // The legacy console (stdin held open by `sleep`) logs to stdout, where the CLI mode
            // would not; stdbuf because stdio buffers it fully when it is not a terminal. The app
            // binds its own ports (0) and logs its SIP port at level 4.
            let command = "sleep 40 | stdbuf -oL \(try ChildProcess.locate("pjsua")) --null-audio --auto-answer=200 --local-port=0 "
                + "--rtp-port=0 --bound-addr=127.0.0.1 --ip-addr=127.0.0.1 --no-tcp --log-level=4 --app-log-level=4"
            let app = try ChildProcess("/bin/sh", ["-c", command], name: "pjsua-app-dtmf")
            defer { app.stop() }
            try await app.waitForOutput("log its SIP port", timeout: ChildProcess.startTimeout) { PjsuaApp.sipPort(in: $0) != nil }
            let port = try #require(PjsuaApp.sipPort(in: app.output), "\(app.explain("logged no SIP port"))")
            let call = try await phone.makeCall(to: PJSUA.SIPURI("sip:app@127.0.0.1:\(port)"))
            try await log.mediaActive(call)
            try await phone.sendDTMF(allDTMFDigits, on: call, method: method)
            let heard = try await waitForText(count: allDTMFDigits.count) { pjsuaAppDigits(app.output) }
            try await phone.hangUp(call)
            #expect(heard == allDTMFDigits, "\(app.output.suffix(3000))")
            #expect(app.output.contains(method == .rfc4733 ? "using RFC2833 method" : "using SIP INFO method"))
        }
    }

    /// The pjsua app's console commands `#` (RFC 2833) and `*` (SIP INFO), piped in. The commands
    /// wait for files the test creates once the call has media and once the digits are in (fixed
    /// sleeps typed the digits before a loaded machine had connected the call); each wait is
    /// bounded to 60 s so the app never outlives a failed test.
    @Test(arguments: [PJSUA.DTMFMethod.rfc4733, .sipInfo])
    func pjsuaAppDigitsArriveWithTheirMethod(_ method: PJSUA.DTMFMethod) async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let connected = directory + "/connected", finished = directory + "/finished"
        defer { _ = FileManager.default.createFile(atPath: finished, contents: nil) }
        try await withEngine(dtmfEngineConfiguration()) { phone, transport, log in
            let key = method == .rfc4733 ? "#" : "*"
            func waitFor(_ path: String) -> String { "for i in $(seq 600); do [ -e \(path) ] && break; sleep 0.1; done" }
            let script = "(\(waitFor(connected)); echo '\(key)'; sleep 0.3; echo '\(allDTMFDigits)'; \(waitFor(finished)); "
                + "echo h; sleep 0.5; echo q) | "
                + "pjsua --null-audio --local-port=0 --rtp-port=0 --bound-addr=127.0.0.1 --no-tcp --log-level=3 \(transport.uri(user: "ivr"))"
            let app = try ChildProcess("/bin/sh", ["-c", script], name: "pjsua-app-dtmf-caller")
            defer { app.stop() }
            let incoming = try await log.incomingCall()
            try await phone.answer(incoming.call)
            try await log.mediaActive(incoming.call)
            _ = FileManager.default.createFile(atPath: connected, contents: nil)
            let digits = try await log.digits(on: incoming.call, count: allDTMFDigits.count)
            _ = FileManager.default.createFile(atPath: finished, contents: nil)
            #expect(String(digits.map(\.digit)) == allDTMFDigits, "\(digits)\n\(app.output.suffix(2000))")
            #expect(digits.allSatisfy { $0.method == method })
            try? await phone.hangUp(incoming.call)
            _ = try? await app.waitForExit(timeout: .seconds(15))
        }
    }
}

@Suite("The baresip launcher")
struct BaresipLauncherTests {
    /// baresip plays a WAV into the call and records what it hears (sndfile); it hangs up on command.
    @Test func baresipPlaysRecordsAndHangsUp() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // G.711 only: aufile needs the codec's rate (8 kHz mono) and does not loop.
        try WAVFile.tone(frequency: 600, duration: .seconds(20), sampleRate: 8000, amplitude: 0.3).write(to: directory + "/prompt.wav")
        try WAVFile.tone(frequency: 1000, duration: .seconds(5)).write(to: directory + "/ours.wav")
        var options = Baresip.Options()
        options.codecs = ["g711"]
        options.play = directory + "/prompt.wav"
        options.record = true
        // Started once this test holds the engine turn: baresip's lifetime must not run out while
        // other suites' engines run.
        let peer = try await withEngine { phone, _, log in
            let peer = try Baresip(options, lifetime: 30)
            try await peer.waitUntilReady()
            let call = try await phone.makeCall(to: PJSUA.SIPURI(peer.uri))
            try await log.mediaActive(call)
            let recorder = try await phone.record(call, to: directory + "/heard.wav")
            _ = try await phone.play(directory + "/ours.wav", into: call, loop: true)
            try await Task.sleep(for: .milliseconds(1500))
            try await phone.stop(recorder)
            try await peer.hangup()
            try await log.state(call, .disconnected)
            return peer
        }
        let heard = try WAVFile(contentsOf: directory + "/heard.wav")
        let steady = WAVFile(sampleRate: heard.sampleRate, samples: Array(heard.samples.dropFirst(heard.sampleRate / 2)))
        #expect(abs(steady.dominantFrequency() - 600) <= 20, "we heard \(steady.dominantFrequency()) Hz")
        // sndfile writes dump-<call>-enc.wav (sent) and dump-<call>-dec.wav (received).
        let files = try FileManager.default.contentsOfDirectory(atPath: peer.recordingDirectory)
        let received = try #require(files.first { $0.hasPrefix("dump-") && $0.hasSuffix("-dec.wav") }, "\(files)")
        let recording = try WAVFile(contentsOf: peer.recordingDirectory + "/" + received)
        let tail = WAVFile(sampleRate: recording.sampleRate, samples: Array(recording.samples.dropFirst(recording.sampleRate / 2)))
        #expect(abs(tail.dominantFrequency() - 1000) <= 20, "baresip heard \(tail.dominantFrequency()) Hz")
    }
}
