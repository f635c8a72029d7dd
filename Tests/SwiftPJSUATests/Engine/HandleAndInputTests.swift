import Foundation
import PJSUATestSupport
import SwiftPJSUA
import Testing

@Suite("Handles stay unique and bad input gets clear errors")
struct HandleAndInputTests {
    @Test func aStaleCallHandleNeverTouchesTheCallThatReusesItsSlot() async throws {
        // Two call slots: the self-call takes both, so the next call must reuse one.
        try await withEngine(.init(port: 0, bindAddress: "127.0.0.1", maxCalls: 2, audioDevice: .null)) { phone, transport, log in
            let first = try await phone.makeCall(to: transport.uri(user: "first"))
            let firstIncoming = try await log.incomingCall().call
            try await phone.hangUp(first)
            try await log.state(first, .disconnected)
            try await log.state(firstIncoming, .disconnected)
            // The caller's slot stays pjsua's until the 200 to its BYE arrives, which can be after
            // both disconnected events; only then is it free to be handed out again.
            try await waitUntil("both slots are free") { try await phone.activeCalls().isEmpty }

            // pjsua hands out the lowest free slot again: the new call lands in the old slot.
            let second = try await phone.makeCall(to: transport.uri(user: "second"))
            #expect(second.slot == first.slot)
            #expect(second != first)
            do {
                try await phone.hangUp(first)
                Issue.record("a stale handle hung up a live call")
            } catch PJSUAError.staleHandle {
            }
            await #expect(throws: PJSUAError.self) { try await phone.answer(firstIncoming) }
            #expect(try await phone.info(second).state != .disconnected)
            #expect(log.states(of: second).contains(.disconnected) == false)
            try await phone.hangUp(second)
        }
    }

    /// pjsua checks its account table with `PJ_ASSERT_RETURN`, an abort in our builds (upstream
    /// 54ebfdbec): the engine refuses the account past the build's limit itself, and goes on.
    @Test func anAccountPastTheBuildsLimitIsRefusedAsTooMany() async throws {
        try await withEngine { phone, transport, log in
            var added: [PJSUA.Account] = []
            do {
                while added.count <= PJSUA.buildLimits.maxAccounts {
                    added.append(try await phone.addAccount(id: PJSUA.SIPURI("sip:user\(added.count)@127.0.0.1"), registrar: nil))
                }
                Issue.record("\(added.count) accounts added, the build's limit is \(PJSUA.buildLimits.maxAccounts)")
            } catch let error as PJSUAError {
                #expect(error.code == .tooMany, "\(error)")
            }
            // The transport's local account is one of the limit's.
            #expect(added.count == PJSUA.buildLimits.maxAccounts - 1)
            try await phone.removeAccount(added.removeLast())
            added.append(try await phone.addAccount(id: "sip:again@127.0.0.1"))
            let call = try await phone.makeCall(to: transport.uri(user: "after-the-limit"))
            try await log.state(call, .calling)
            try await phone.hangUp(call)
            for account in added { try await phone.removeAccount(account) }
        }
    }

    @Test func aRemovedAccountHandleIsStaleEvenWhenTheSlotIsReused() async throws {
        try await withEngine { phone, _, _ in
            let first = try await phone.addAccount(id: "sip:first@127.0.0.1")
            try await phone.removeAccount(first)
            let second = try await phone.addAccount(id: "sip:second@127.0.0.1")
            #expect(second.slot == first.slot)
            do {
                try await phone.removeAccount(first)
                Issue.record("a stale account handle removed a live account")
            } catch PJSUAError.staleHandle {
            }
            try await phone.removeAccount(second)
        }
    }

    @Test(arguments: [
        "", "bob@example.com", "http://example.com", "sip:", "sip:@example.com", "sip:bob@exa mple.com",
        "sip:bob@example.com\r\nX-Evil: 1", "<sip:bob@example.com", String(repeating: "a", count: 300),
        "sip:" + String(repeating: "b", count: 400) + "@example.com",
    ])
    func invalidDestinationURIsAreRejectedNamingTheInput(uri: String) async throws {
        try await withEngine { phone, _, log in
            do {
                _ = try await phone.makeCall(to: PJSUA.SIPURI(stringLiteral: uri))
                Issue.record("called \(uri)")
            } catch let error as PJSUAError {
                #expect(error.code == .invalidURI)
                #expect(error.message.contains("destination URI"))
                #expect(!error.message.contains("\r"))
            }
            #expect(log.all.isEmpty)
        }
    }

    @Test func invalidArgumentsAreRejected() async throws {
        try await withEngine { phone, transport, log in
            let call = try await phone.makeCall(to: transport.uri(user: "args"))
            let incoming = try await log.incomingCall().call
            // answer sends provisional and success responses only: refusing is reject's.
            for code: PJSUA.SIPResponseCode in [0, 99, 100, 300, .busyHere, .decline, 700, -1] {
                await #expect(throws: PJSUAError.self, "\(code)") { try await phone.answer(incoming, code: code) }
            }
            await #expect(throws: PJSUAError.self) { try await phone.reject(incoming, code: .ok) }
            await #expect(throws: PJSUAError.self) { try await phone.reject(incoming, code: .trying) }
            await #expect(throws: PJSUAError.self) { try await phone.reject(incoming, code: 0) }
            await #expect(throws: PJSUAError.self) { try await phone.reject(incoming, code: 700) }
            await #expect(throws: PJSUAError.self) { try await phone.sendDTMF("12x", on: call) }
            await #expect(throws: PJSUAError.self) { try await phone.sendDTMF("", on: call) }
            await #expect(throws: PJSUAError.self) { try await phone.setCodecPriority("PCMU", to: 300) }
            await #expect(throws: PJSUAError.self) { try await phone.useCodecs(["no-such-codec"]) }
            await #expect(throws: PJSUAError.self) { try await phone.play("/nonexistent.wav", into: call) }
            await #expect(throws: PJSUAError.self) { try await phone.addAccount(id: "not a uri") }
            await #expect(throws: PJSUAError.self) { try await phone.addAccount(id: "sip:a@127.0.0.1", registrar: "mailto:x") }
            await #expect(throws: PJSUAError.self) {
                try await phone.addAccount(.init(id: "sip:a@127.0.0.1", username: "a\r\nb", password: "p"))
            }
            await #expect(throws: PJSUAError.self) {
                try await phone.addAccount(id: "sip:a@127.0.0.1", push: .apns(teamID: "bad;team", bundleID: "com.x", token: Data([1])))
            }
            await #expect(throws: PJSUAError.self) {
                try await phone.addAccount(id: "sip:a@127.0.0.1", push: .apns(teamID: "T", bundleID: "com.x", token: Data()))
            }
            // Media before it is active.
            do {
                _ = try await phone.record(call, to: NSTemporaryDirectory() + "early.wav")
                Issue.record("recorded before media was active")
            } catch PJSUAError.mediaNotActive {
            }
            try await phone.hangUp(call)
            try await log.state(call, .disconnected)
        }
    }

    // Input that once trapped (an integer conversion or an overflow before the range check) is a
    // typed error naming what was wrong.

    @Test(arguments: [Duration.seconds(Int64.max), .seconds(601), .seconds(-1)])
    func anUnregisterTimeoutOutOfRangeIsRefusedAtStart(timeout: Duration) async throws {
        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        let error = await startError(PJSUA(), .init(port: 0, bindAddress: "127.0.0.1", unregisterTimeout: timeout))
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("unregisterTimeout") == true, "\(String(describing: error))")
    }

    @Test func morePreferredCodecsThanPrioritiesAreRefusedAtStart() async throws {
        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        // Every entry a codec the build has: each would get priority 255 - index, below 0 past 255.
        var configuration = PJSUA.Configuration(port: 0, bindAddress: "127.0.0.1")
        configuration.preferredCodecs = Array(repeating: "PCMU", count: 300)
        let error = await startError(PJSUA(), configuration)
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("preferredCodecs") == true, "\(String(describing: error))")
    }

    @Test func aWritersCapacityOutOfRangeIsATypedErrorBeforeAnyConversion() async throws {
        try await withEngine { phone, transport, log in
            let call = try await phone.makeCall(to: transport.uri(user: "capacity"))
            for capacity in [Duration.seconds(Int64.max), .seconds(-Int64.max), .zero, .seconds(601)] {
                #expect(await thrownCode { try await phone.sendAudio(to: call, capacity: capacity) } == .invalidArgument, "\(capacity)")
            }
            try await phone.hangUp(call)
            try await log.state(call, .disconnected)
        }
    }

    @Test func aUsernameWithoutAPasswordOrAPasswordWithoutAUsernameIsRefused() async throws {
        try await withEngine { phone, _, _ in
            do {
                try await phone.addAccount(id: "sip:alice@127.0.0.1", registrar: "sip:127.0.0.1:9", username: "alice")
                Issue.record("a username without a password was accepted (it would register with an empty password)")
            } catch let error as PJSUAError {
                #expect(error.code == .invalidArgument && error.message.contains("no password"), "\(error)")
            }
            #expect(await thrownCode {
                try await phone.addAccount(id: "sip:alice@127.0.0.1", registrar: "sip:127.0.0.1:9", password: "secret")
            } == .invalidArgument)
            // Whole credentials, or none, are fine.
            try await phone.addAccount(id: "sip:alice@127.0.0.1", username: "alice", password: "secret")
            try await phone.addAccount(id: "sip:bob@127.0.0.1")
        }
    }

    @Test func aDTMFDetectorRefusesSampleRatesItCannotWorkAt() throws {
        for rate in [0, -8000, 7999, 48_001, Int.max] {
            #expect(thrownCode { try DTMFDetector(sampleRate: rate) } == .invalidArgument, "\(rate)")
        }
        var detector = try DTMFDetector(sampleRate: 8000)
        #expect(detector.process([Int16](repeating: 0, count: 160)) == nil)
    }

    /// A break of less than 40 ms inside a digit (frames lost on a loaded machine) does not split
    /// it; a pause of 40 ms or more of quiet audio between two presses of one key does. Audio a
    /// decoder made up for lost frames (KL-54: one tone kept, the other faded, at about the
    /// digit's level) is a break, not a pause, up to 100 ms.
    @Test func aDTMFDetectorForgivesBreaksShorterThanTheShortestPause() throws {
        enum Block { case digit, silence, concealed, lowTone }
        // "#": 941 Hz and 1477 Hz, in 10 ms blocks at 8 kHz.
        func block(_ kind: Block, _ index: Int) -> [Int16] {
            (0..<80).map { n in
                let t = Double(index * 80 + n) / 8000
                switch kind {
                case .digit: return Int16(6000 * (sin(2 * .pi * 941 * t) + sin(2 * .pi * 1477 * t)))
                case .silence: return 0
                case .concealed: return Int16(4000 * sin(2 * .pi * 941 * t) + 300 * sin(2 * .pi * 1477 * t))
                case .lowTone: return Int16(1000 * sin(2 * .pi * 941 * t))
                }
            }
        }
        func detections(_ pattern: [Block]) throws -> [DTMFDetector.Detection] {
            var detector = try DTMFDetector(sampleRate: 8000)
            var found = pattern.enumerated().compactMap { detector.process(block($0.element, $0.offset)) }
            if let last = detector.finish() { found.append(last) }
            return found
        }
        func blocks(_ kind: Block, _ milliseconds: Int) -> [Block] { [Block](repeating: kind, count: milliseconds / 10) }
        let tone = blocks(.digit, 100)
        #expect(try detections(tone + blocks(.silence, 30) + tone).map(\.digit) == ["#"], "a 30 ms break")
        #expect(try detections(tone + blocks(.silence, 40) + tone).map(\.digit) == ["#", "#"], "a 40 ms pause")
        #expect(try detections(tone + blocks(.lowTone, 40) + tone).map(\.digit) == ["#", "#"], "a 40 ms pause 12 dB down")

        // 40 and 90 ms concealed: one digit, the break in its duration.
        for concealed in [40, 90] {
            let found = try detections(tone + blocks(.concealed, concealed) + tone)
            #expect(found.map(\.digit) == ["#"] && found.first?.duration == .milliseconds(200 + concealed), "\(concealed) ms concealed: \(found)")
        }
        // 100 ms without the digit ends it, whatever the level; a break that ends a digit is not
        // in its duration.
        #expect(try detections(tone + blocks(.concealed, 100) + tone).map(\.digit) == ["#", "#"], "100 ms concealed")
        let ended = try detections(tone + blocks(.concealed, 60) + blocks(.silence, 40))
        #expect(ended.map(\.digit) == ["#"] && ended.first?.duration == .milliseconds(100), "\(ended)")
    }

    @Test func aToneOrWAVFileThatCannotBeMadeIsATypedError() throws {
        for duration in [Duration.seconds(Int64.max), .seconds(-1), WAVFile.longestTone + .seconds(1)] {
            #expect(thrownCode { try WAVFile.tone(frequency: 440, duration: duration) } == .invalidArgument, "\(duration)")
        }
        #expect(thrownCode { try WAVFile.tone(frequency: 440, duration: .seconds(1), sampleRate: 0) } == .invalidArgument)
        #expect(thrownCode { try WAVFile.tone(frequency: .infinity, duration: .seconds(1)) } == .invalidArgument)
        #expect(thrownCode { try WAVFile.tone(frequency: 440, duration: .seconds(1), amplitude: .nan) } == .invalidArgument)
        #expect(try WAVFile.tone(frequency: 440, duration: .milliseconds(250), sampleRate: 8000).samples.count == 2000)
        // A rate no WAV header can hold: `data` does not trap, `write` refuses.
        let odd = WAVFile(sampleRate: -1, samples: [0, 1])
        #expect(!odd.data.isEmpty)
        #expect(thrownCode { try odd.write(to: NSTemporaryDirectory() + "never.wav") } == .invalidArgument)
    }

    /// Every stored setting of an account is settable through its initializer (NAT and keep-alive
    /// settings were not), and each reaches the configuration.
    @Test func anAccountsInitializerTakesEverySetting() {
        let account = PJSUA.Account.Configuration(id: "sip:a@127.0.0.1", ice: .off, turn: .off, usesSTUN: false,
                                                  keepAliveInterval: .zero)
        #expect(account.ice == .off && account.turn == .off && account.usesSTUN == false && account.keepAliveInterval == .zero)
        let defaults = PJSUA.Account.Configuration(id: "sip:a@127.0.0.1")
        #expect(defaults.ice == .engineDefault && defaults.turn == .engineDefault && defaults.usesSTUN)
        #expect(defaults.keepAliveInterval == .seconds(15))
    }

    @Test func aFrequencyScanThatCannotEndIsATypedError() throws {
        let tone = try WAVFile.tone(frequency: 600, duration: .milliseconds(100), sampleRate: 8000)
        for step in [0, -5, .nan, .infinity] {
            #expect(thrownCode { try tone.dominantFrequency(in: 100...1000, step: step) } == .invalidArgument, "step \(step)")
        }
        #expect(thrownCode { try tone.dominantFrequency(in: 0...Double.infinity) } == .invalidArgument)
        #expect(thrownCode { try tone.dominantFrequency(in: -10...100) } == .invalidArgument)
        #expect(thrownCode { try tone.dominantFrequency(in: 0...1e9, step: 1) } == .invalidArgument)
        #expect(try tone.dominantFrequency(in: 500...700, step: 5) == 600)
        #expect(tone.dominantFrequency() == 600)
    }

    @Test func pushParametersFollowRFC8599() throws {
        let token = Data([0x01, 0xab, 0xff, 0x00])
        let apns = try PJSUA.PushParameters.apns(teamID: "ABCDE12345", bundleID: "com.example.offhook", token: token).contactParameters()
        #expect(apns == ";pn-provider=apns;pn-param=ABCDE12345.com.example.offhook.voip;pn-prid=01abff00")
        #expect(try PJSUA.PushParameters.custom("pn-provider=fcm;pn-prid=xyz").contactParameters() == ";pn-provider=fcm;pn-prid=xyz")
        #expect(throws: PJSUAError.self) { try PJSUA.PushParameters.custom("a\r\nb").contactParameters() }
    }

    @Test func descriptionsNeverContainThePassword() {
        let configuration = PJSUA.Account.Configuration(id: "sip:a@example.com", registrar: "sip:example.com",
                                                        username: "a", password: "hunter2-secret")
        #expect(!configuration.description.contains("hunter2"))
        var dumped = ""
        dump(configuration, to: &dumped)
        #expect(!dumped.contains("hunter2"))
    }

    @Test func errorsCarryPJSIPStatusAndText() async throws {
        try await withEngine { phone, _, _ in
            // A TLS transport on a port already taken by this engine's UDP transport is fine;
            // the same UDP port twice is PJSIP's error.
            let udp = try #require(await phone.listeningTransports.first)
            do {
                try await phone.addTransport(.udp, port: udp.port, bindAddress: "127.0.0.1")
                Issue.record("bound the same port twice")
            } catch let error as PJSUAError {
                #expect(error.code == .pjsip)
                #expect(error.status != nil)
                #expect(error.message.contains("Address already in use") || error.message.contains("in use"), "\(error.message)")
            }
        }
    }
}
