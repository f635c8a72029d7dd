import Foundation
import PJSUATestSupport
import SwiftPJSUA
import Testing

/// An engine on a free loopback UDP port with SRTP in `mode`; SDES keys may travel over plain
/// UDP here (loopback tests), which the engine allows only when told.
func srtpEngine(_ mode: PJSUA.SRTPConfiguration.Mode, signaling: PJSUA.SRTPConfiguration.SignalingRequirement = .any) -> PJSUA.Configuration {
    PJSUA.Configuration(port: 0, transport: .udp, bindAddress: "127.0.0.1", audioDevice: .null,
                        srtp: PJSUA.SRTPConfiguration(mode: mode, secureSignaling: signaling))
}

/// Mandatory DTLS-SRTP with the engine's trace and SIP messages kept in `lines`.
func tracedDTLSEngine() -> (PJSUA.Configuration, LineLog) {
    var configuration = srtpEngine(.mandatory)
    configuration.srtp.keying = [.dtls]
    configuration.logLevel = .trace
    configuration.logSIPMessages = true
    let lines = LineLog()
    configuration.logHandler = { _, line in lines.append(line) }
    return (configuration, lines)
}

/// Records `call` for `seconds` into `path` and checks that it carries a steady `frequency` tone.
func expectTone(_ frequency: Double, on call: PJSUA.Call, of phone: PJSUA, recordingTo path: String,
                seconds: Double = 1.5, context: @autoclosure () -> String = "") async throws {
    let recorder = try await phone.record(call, to: path)
    try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
    try await phone.stop(recorder)
    let recording = try WAVFile(contentsOf: path)
    let steady = WAVFile(sampleRate: recording.sampleRate, samples: Array(recording.samples.dropFirst(recording.sampleRate / 2)))
    #expect(abs(steady.dominantFrequency() - frequency) <= 20, "heard \(steady.dominantFrequency()) Hz \(context())")
    #expect(steady.rmsLevel > 0.1, "level \(steady.rmsLevel) \(context())")
}

@Suite("SRTP (SDES) between engines and against the pjsua app")
struct SRTPTests {
    /// Mandatory SRTP engine to engine (the far end is `softphone answer --srtp mandatory`
    /// playing a tone): the call is encrypted and the tone arrives at its frequency and level.
    @Test func mandatorySRTPEngineToEngineCarriesTheTone() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try WAVFile.tone(frequency: 800, duration: .seconds(2)).write(to: directory + "/tone.wav")
        let callee = try ChildProcess(try softphone(), ["answer", "--listen", "udp:127.0.0.1:0", "--srtp", "mandatory",
                                                       "--play", directory + "/tone.wav", "--exit-after", "1", "--json"],
                                      name: "softphone-srtp")
        defer { callee.stop() }
        try await callee.waitUntilStarted(printing: "\"listening\"")
        #expect(callee.output.contains("softphone: warning: --srtp mandatory over udp"), "\(callee.output)")
        let uri = try #require(jsonLines(callee.output).first { $0["event"] as? String == "listening" }?["uri"] as? String)
        try await withEngine(srtpEngine(.mandatory)) { phone, _, log in
            let call = try await phone.makeCall(to: PJSUA.SIPURI(uri))
            try await log.state(call, .confirmed)
            try await log.mediaActive(call)
            let encryption = try await phone.info(call).encryption
            #expect(encryption.isEncrypted, "\(encryption)")
            #expect(encryption.keying == .sdes)
            #expect(encryption.cryptoSuite?.hasPrefix("AES") == true, "\(encryption)")
            try await expectTone(800, on: call, of: phone, recordingTo: directory + "/heard.wav", context: callee.output)
            try await phone.hangUp(call)
            try await log.state(call, .disconnected)
        }
        #expect(try await callee.waitForExit(timeout: .seconds(10)) == 0, "\(callee.output)")
    }

    /// Without SRTP configured, a call reports itself unencrypted.
    @Test func aPlainCallReportsNoEncryption() async throws {
        try await withEngine { phone, transport, log in
            let caller = try await phone.makeCall(to: transport.uri(user: "plain"))
            let callee = try await log.incomingCall().call
            try await phone.answer(callee)
            try await log.mediaActive(caller)
            #expect(try await phone.info(caller).encryption == .none)
            try await phone.hangUp(caller)
            try await log.state(caller, .disconnected)
        }
    }

    /// The answering side sees the encryption too: `softphone call --srtp mandatory` calls the
    /// engine, which answers and reports its leg as SRTP.
    @Test func anAnsweredSRTPCallReportsItsEncryption() async throws {
        try await withEngine(srtpEngine(.optional)) { phone, transport, log in
            let caller = try ChildProcess(try softphone(), ["call", transport.uri(user: "encrypted").description, "--listen", "udp:127.0.0.1:0",
                                                           "--srtp", "mandatory", "--seconds", "2", "--timeout", "10", "--json"],
                                          name: "softphone-srtp-caller")
            defer { caller.stop() }
            let callee = try await log.incomingCall(timeout: ChildProcess.startTimeout).call
            try await phone.answer(callee)
            try await log.mediaActive(callee)
            let encryption = try await phone.info(callee).encryption
            #expect(encryption.isEncrypted && encryption.keying == .sdes, "\(encryption)")
            #expect(try await caller.waitForExit(timeout: .seconds(20)) == 0, "\(caller.output)")
        }
    }

    /// Mandatory SRTP against a peer without it fails with 488, both ways: our offer is refused
    /// by `softphone answer --srtp off`, and we refuse `softphone call --srtp off`.
    @Test func mandatorySRTPAgainstAPlainPeerFailsWith488() async throws {
        let callee = try ChildProcess(try softphone(), ["answer", "--listen", "udp:127.0.0.1:0", "--srtp", "off", "--exit-after", "1", "--json"],
                                      name: "softphone-plain")
        defer { callee.stop() }
        try await callee.waitUntilStarted(printing: "\"listening\"")
        let uri = try #require(jsonLines(callee.output).first { $0["event"] as? String == "listening" }?["uri"] as? String)
        try await withEngine(srtpEngine(.mandatory)) { phone, transport, log in
            let call = try await phone.makeCall(to: PJSUA.SIPURI(uri))
            let ended = try await log.state(call, .disconnected)
            #expect(ended.status.code == 488, "\(ended.status)")

            let caller = try ChildProcess(try softphone(), ["call", transport.uri(user: "secure").description, "--listen", "udp:127.0.0.1:0",
                                                           "--srtp", "off", "--timeout", "10", "--json"], name: "softphone-plain-caller")
            defer { caller.stop() }
            #expect(try await caller.waitForExit(timeout: .seconds(20)) == 1, "\(caller.output)")
            let failure = jsonLines(caller.output).first { $0["event"] as? String == "failed" }?["reason"] as? String
            #expect(failure?.contains("488") == true, "\(caller.output)")
        }
    }

    /// SDES keys are not offered over plain UDP unless allowed: with the default requirement
    /// (TLS), a mandatory-SRTP call to a `sip:` UDP address is refused before anything is sent,
    /// with a typed error.
    @Test func mandatorySRTPRefusesInsecureSignalingByDefault() async throws {
        try await withEngine(srtpEngine(.mandatory, signaling: .tls)) { phone, transport, log in
            do {
                let call = try await phone.makeCall(to: transport.uri(user: "insecure"))
                Issue.record("the call was placed: \(try await log.state(call, .disconnected).status)")
            } catch {
                #expect(PJSUAError.Code.insecureSignaling ~= error, "\(error)")
                #expect(String(describing: error).contains("PJSIP_ESESSIONINSECURE"), "\(error)")
            }
        }
    }

    /// Mandatory SRTP against the reference pjsua app (`--use-srtp=2 --srtp-secure=0`), which
    /// answers and plays nothing: the call connects encrypted.
    @Test func mandatorySRTPAgainstThePJSUAApp() async throws {
        let app = try await PjsuaApp(name: "pjsua-app-srtp", arguments: ["--auto-answer=200", "--use-srtp=2", "--srtp-secure=0"])
        defer { app.stop() }
        try await withEngine(srtpEngine(.mandatory)) { phone, _, log in
            let call = try await phone.makeCall(to: PJSUA.SIPURI(app.uri(user: "app")))
            try await log.state(call, .confirmed, timeout: .seconds(15))
            try await log.mediaActive(call)
            let encryption = try await phone.info(call).encryption
            #expect(encryption.isEncrypted && encryption.keying == .sdes, "\(encryption)\n\(app.process.output.suffix(2000))\n\(app.process.logNote)")
            try await phone.hangUp(call)
            try await log.state(call, .disconnected)
        }
    }

    /// SRTP over TLS with the default signalling requirement, engine to engine: the keys travel
    /// only inside TLS, and the tone arrives.
    @Test func mandatorySRTPOverTLSWithTheDefaultSignalingRequirement() async throws {
        let certificates = try await TestCertificates.make()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try WAVFile.tone(frequency: 500, duration: .seconds(2)).write(to: directory + "/tone.wav")
        let callee = try ChildProcess(try softphone(), [
            "answer", "--listen", "tls:127.0.0.1:0", "--cert", certificates.server.certificate, "--key", certificates.server.key,
            "--srtp", "mandatory", "--play", directory + "/tone.wav", "--exit-after", "1", "--json",
        ], name: "softphone-srtp-tls")
        defer { callee.stop() }
        try await callee.waitUntilStarted(printing: "\"listening\"")
        #expect(!callee.output.contains("warning"), "\(callee.output)")
        let uri = try #require(jsonLines(callee.output).first { $0["event"] as? String == "listening" }?["uri"] as? String)
        var configuration = tlsEngine(caFile: certificates.caFile)
        configuration.srtp = PJSUA.SRTPConfiguration(mode: .mandatory)
        try await withEngine(configuration) { phone, _, log in
            let call = try await phone.makeCall(to: PJSUA.SIPURI(uri.replacingOccurrences(of: "sips:", with: "sips:bob@")))
            try await log.state(call, .confirmed)
            try await log.mediaActive(call)
            #expect(try await phone.info(call).encryption.isEncrypted)
            try await expectTone(500, on: call, of: phone, recordingTo: directory + "/heard.wav", context: callee.output)
            try await phone.hangUp(call)
            try await log.state(call, .disconnected)
        }
    }

    /// The DTLS-SRTP certificate is made once per process and kept across engine runs (KL-37:
    /// pjmedia made a new RSA-2048 key at every start, 0.2-0.7 s of CPU, DTLS used or not). Two
    /// runs, each with a DTLS-SRTP self-call, offer the same fingerprint.
    @Test func theDTLSCertificateOutlivesAnEngineRun() async throws {
        var fingerprints: [Set<String>] = []
        for run in 0..<2 {
            let (configuration, lines) = tracedDTLSEngine()
            try await withEngine(configuration) { phone, transport, log in
                let caller = try await phone.makeCall(to: transport.uri(user: "dtls-run-\(run)"))
                let callee = try await log.incomingCall().call
                try await phone.answer(callee)
                try await log.mediaActive(caller)
                try await phone.hangUp(caller)
                try await log.state(caller, .disconnected)
            }
            // SIP messages end their lines with CRLF, one Character in Swift.
            let found = lines.values.flatMap { $0.split(whereSeparator: \.isNewline) }
                .filter { $0.hasPrefix("a=fingerprint:") }.map(String.init)
            fingerprints.append(Set(found))
        }
        #expect(fingerprints[0].count == 1, "one certificate in the first run: \(fingerprints[0])")
        #expect(fingerprints[0] == fingerprints[1], "the second run offered another certificate: \(fingerprints)")
    }

    /// DTLS-SRTP (RFC 5764) engine to engine: no key in the SDP (a=fingerprint instead of
    /// a=crypto), keys agreed by a DTLS handshake on the media path, and the tone arrives.
    @Test func mandatoryDTLSSRTPEngineToEngineCarriesTheToneWithNoKeyInTheSDP() async throws {
        #expect(PJSUA.supportsDTLSSRTP, "this build has DTLS-SRTP (scripts/pjproject-config_site.h)")
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try WAVFile.tone(frequency: 900, duration: .seconds(3)).write(to: directory + "/tone.wav")
        let callee = try ChildProcess(try softphone(), ["answer", "--listen", "udp:127.0.0.1:0", "--srtp", "mandatory",
                                                       "--srtp-keying", "dtls", "--play", directory + "/tone.wav",
                                                       "--exit-after", "1", "--json"], name: "softphone-dtls")
        defer { callee.stop() }
        try await callee.waitUntilStarted(printing: "\"listening\"")
        // With DTLS keying no key travels in SIP, so there is nothing to warn about.
        #expect(!callee.output.contains("softphone: warning"), "\(callee.output)")
        let uri = try #require(jsonLines(callee.output).first { $0["event"] as? String == "listening" }?["uri"] as? String)
        let (configuration, lines) = tracedDTLSEngine()
        try await withEngine(configuration) { phone, _, log in
            let call = try await phone.makeCall(to: PJSUA.SIPURI(uri))
            try await log.state(call, .confirmed)
            do {
                try await log.mediaActive(call)
            } catch {
                // Seen once in a full run under load (the call confirmed, media never active):
                // keep what both ends said, to tell a callee that ended the call from a stall.
                Issue.record("\(error)\ncallee:\n\(callee.output.suffix(3000))\nengine:\n\(lines.values.suffix(150).joined(separator: "\n"))")
                throw error
            }
            // The DTLS handshake follows the answer; the stream is encrypted once it is done.
            try await waitUntil("DTLS-SRTP is up", timeout: .seconds(10)) { try await phone.info(call).encryption.isEncrypted }
            #expect(try await phone.info(call).encryption.keying == .dtls)
            try await expectTone(900, on: call, of: phone, recordingTo: directory + "/heard.wav", context: callee.output)
            try await phone.hangUp(call)
            try await log.state(call, .disconnected)
        }
        let sdp = lines.values.filter { $0.contains("m=audio") }
        #expect(sdp.contains { $0.contains("a=fingerprint:") }, "no DTLS fingerprint in the SDP")
        #expect(!sdp.contains { $0.contains("a=crypto:") }, "an SDES key in the SDP")
        #expect(try await callee.waitForExit(timeout: .seconds(10)) == 0, "\(callee.output)")
    }

    /// Mandatory SRTP against baresip (`mediaenc=srtp-mand`, its `srtp` module), which answers
    /// and plays a tone from a file: the call is encrypted both ways and the tone arrives.
    @Test func mandatorySRTPAgainstBaresipCarriesItsTone() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // baresip's aufile ends the call when the file ends: long enough for a slow (sanitizer) run.
        try WAVFile.tone(frequency: 700, duration: .seconds(25), sampleRate: 8000).write(to: directory + "/tone.wav")
        // baresip listens on UDP and TCP (and TLS on the next port) and takes RTP ports from a range:
        // all in a block of its own (a port free for UDP only was once taken on TCP, "tcp:
        // sock_bind: Address already in use", a run with two suites beside it).
        let block = try PortBlock()
        let port = block[0]
        let config = Baresip.ports(of: block) + [
            "poll_method epoll",
            "audio_player aubridge,nil", "audio_source aufile,\(directory)/tone.wav", "audio_alert aubridge,nil",
            "rtcp_mux no", "module_path /usr/lib/baresip/modules",
            "module g711.so", "module aufile.so", "module aubridge.so", "module srtp.so",
            "module_app account.so", "module_app menu.so",
        ]
        try (config.joined(separator: "\n") + "\n").write(toFile: directory + "/config", atomically: true, encoding: .utf8)
        try "<sip:bob@127.0.0.1:\(port)>;answermode=auto;regint=0;mediaenc=srtp-mand\n"
            .write(toFile: directory + "/accounts", atomically: true, encoding: .utf8)
        // Started once the engine turn is ours: `-t` ends baresip by itself, whatever happens.
        try await withEngine(srtpEngine(.mandatory)) { phone, _, log in
            let baresip = try ChildProcess("baresip", ["-4", "-f", directory, "-t", "30"], name: "baresip-srtp", holding: block)
            defer { baresip.stop() }
            try await baresip.waitForOutput("Using media encryption 'srtp-mand'")
            try await Task.sleep(for: .milliseconds(300))
            let call = try await phone.makeCall(to: PJSUA.SIPURI("sip:bob@127.0.0.1:\(port)"))
            try await log.state(call, .confirmed)
            try await log.mediaActive(call)
            let encryption = try await phone.info(call).encryption
            #expect(encryption.isEncrypted && encryption.keying == .sdes, "\(encryption)")
            try await expectTone(700, on: call, of: phone, recordingTo: directory + "/heard.wav", context: baresip.output.suffix(1500).description)
            try await phone.hangUp(call)
            try await log.state(call, .disconnected)
            #expect(baresip.output.contains("SRTP is Enabled"), "\(baresip.output.suffix(1500))")
        }
    }
}
