import Foundation
import PJSUATestSupport
@testable import SwiftPJSUA
import Testing

/// A `softphone answer` child on a free loopback port, listening when returned, and a URI that
/// reaches it (user `name`).
func answeringSoftphone(_ name: String, _ extra: [String] = []) async throws -> (process: ChildProcess, uri: String) {
    let (process, port) = try await answeringSoftphone(extra, name: name)
    return (process, "sip:\(name)@127.0.0.1:\(port)")
}

/// The JSON events of a softphone's output named `event` (and, when given, of that `kind`).
func softphoneEvents(_ output: String, _ event: String, kind: String? = nil) -> [[String: Any]] {
    jsonLines(output).filter { $0["event"] as? String == event && (kind == nil || $0["kind"] as? String == kind) }
}

/// Whether a softphone's output shows `call` reaching `state`.
func softphoneSaw(_ output: String, call: String, state: String) -> Bool {
    softphoneEvents(output, "callState").contains { $0["call"] as? String == call && $0["state"] as? String == state }
}

extension EventLog {
    /// Waits for the transfer status of `call` that is final or 2xx.
    func transferOutcome(_ call: PJSUA.Call, timeout: Duration = .seconds(15)) async throws -> PJSUA.SIPStatus {
        try await first("\(call) transfer outcome", timeout: timeout) { event in
            if case let .transferStatus(progress) = event, progress.call == call,
               progress.isFinal || progress.status.code.isSuccess { return progress.status }
            return nil
        }
    }

    /// The transfer statuses of `call` seen so far.
    func transferStatuses(of call: PJSUA.Call) -> [PJSUA.SIPStatus] {
        all.compactMap { event in
            if case let .transferStatus(progress) = event, progress.call == call { return progress.status }
            return nil
        }
    }

    /// Waits for a REFER on `call`; returns where to, by whom, and the verdict.
    func transferRequest(on call: PJSUA.Call, timeout: Duration = .seconds(15)) async throws -> (to: String, by: String, accepted: Bool) {
        try await first("a REFER on \(call)", timeout: timeout) { event in
            if case let .transferRequested(decision) = event, decision.request.call == call {
                return (decision.request.target, decision.request.requester, decision.isAccepted)
            }
            return nil
        }
    }

    /// Waits for the call placed because `call` was transferred.
    func transferredCall(from call: PJSUA.Call, timeout: Duration = .seconds(15)) async throws -> PJSUA.Call {
        try await first("the call placed for \(call)'s transfer", timeout: timeout) { event in
            if case let .transferCallPlaced(c, newCall) = event, c == call { return newCall }
            return nil
        }
    }
}

/// The DocC article TransferAndConference.md's example ("In code"): it must keep compiling. Not
/// run (it would call example.com); the behaviour behind each line is tested below.
@available(*, deprecated, message: "compile-only")
func transferReadmeUsageCompiles(phone: PJSUA, call: PJSUA.Call, caller: PJSUA.Call, first: PJSUA.Call, second: PJSUA.Call) async throws {
    try await phone.transfer(call, to: "sip:carol@example.com")
    try await phone.hold(caller)
    let consultation = try await phone.makeCall(to: "sip:carol@example.com")
    try await phone.transfer(caller, replacing: consultation)
    var configuration = PJSUA.Configuration()
    configuration.transferPolicy = .decide { request in request.target.hasSuffix("@example.com>") }
    try await phone.setTransferPolicy(.refuse(code: 403))
    for await event in phone.events {
        switch event {
        case let .transferRequested(decision):
            print(decision)
        case let .transferCallPlaced(call, newCall): print("\(call) continues as \(newCall)")
        case let .callReplaced(call, newCall): print("\(newCall) replaced \(call)")
        default: break
        }
    }
    try await phone.hold(first)
    try await phone.answer(second)
    try await phone.conference([first, second])
    try await phone.split(second)
    _ = configuration
}

@Suite("Call transfer (REFER, Replaces) against real peers")
struct TransferTests {
    /// A (a softphone) calls us (B); we transfer A to C (another softphone). A's new call to C
    /// connects, our call with A ends, and both sides report the transfer.
    @Test func blindTransferMovesTheCallerToTheTarget() async throws {
        let target = try await answeringSoftphone("carol", ["--exit-after", "1"])
        try await withEngine { phone, transport, log in
            let caller = try ChildProcess(try softphone(), ["call", transport.uri(user: "bob").description, "--listen", "udp:127.0.0.1:0",
                                                           "--seconds", "6", "--json"], name: "softphone-alice")
            let incoming = try await log.incomingCall(timeout: ChildProcess.startTimeout)
            try await phone.answer(incoming.call)
            try await log.state(incoming.call, .confirmed)
            try await phone.transfer(incoming.call, to: PJSUA.SIPURI(target.uri))
            let outcome = try await log.transferOutcome(incoming.call)
            #expect(outcome.code == 200, "\(log.transferStatuses(of: incoming.call))")
            #expect(log.transferStatuses(of: incoming.call).first?.code == 100)
            // The engine hangs up the transferred call once the transfer succeeded.
            try await log.state(incoming.call, .disconnected)
            #expect(try await caller.waitForExit(timeout: .seconds(20)) == 0, "\(caller.output)")
            let requested = softphoneEvents(caller.output, "transfer", kind: "requested")
            #expect(requested.first?["to"] as? String == "<\(target.uri)>" || requested.first?["to"] as? String == target.uri, "\(caller.output)")
            #expect(requested.first?["accepted"] as? Bool == true)
            let placed = try #require(softphoneEvents(caller.output, "transfer", kind: "placed").first?["newCall"] as? String, "\(caller.output)")
            #expect(softphoneSaw(caller.output, call: placed, state: "CONFIRMED"), "\(caller.output)")
        }
        #expect(try await target.process.waitForExit(timeout: .seconds(15)) == 0, "\(target.process.output)")
        #expect(softphoneEvents(target.process.output, "callState").contains { $0["state"] as? String == "CONFIRMED" }, "\(target.process.output)")
    }

    /// B (a softphone with --transfer-to) calls us (A) and transfers us to C: the engine accepts
    /// the REFER by default, says who asked and where, and its new call connects to C.
    @Test func anIncomingReferIsFollowedWithANewCall() async throws {
        let target = try await answeringSoftphone("carol", ["--exit-after", "1"])
        try await withEngine { phone, transport, log in
            let transferor = try ChildProcess(try softphone(), ["call", transport.uri(user: "alice").description, "--listen", "udp:127.0.0.1:0",
                                                               "--transfer-to", target.uri, "--transfer-after", "0.5", "--json"],
                                              name: "softphone-bob")
            let incoming = try await log.incomingCall(timeout: ChildProcess.startTimeout)
            try await phone.answer(incoming.call)
            let request = try await log.transferRequest(on: incoming.call)
            #expect(request.to.contains(target.uri))
            #expect(request.by.contains("127.0.0.1"))
            #expect(request.accepted)
            let newCall = try await log.transferredCall(from: incoming.call)
            #expect(newCall != incoming.call)
            try await log.state(newCall, .confirmed)
            #expect(try await phone.info(newCall).remote.contains(target.uri))
            #expect(try await phone.info(newCall).isOutgoing)
            // The transferor hangs up its call with us once we report 200.
            try await log.state(incoming.call, .disconnected)
            #expect(try await transferor.waitForExit(timeout: .seconds(15)) == 0, "\(transferor.output)")
            let statuses = softphoneEvents(transferor.output, "transfer", kind: "status").compactMap { $0["code"] as? Int }
            #expect(statuses.last == 200, "\(transferor.output)")
            #expect(try await phone.activeCalls() == [newCall])
            try await phone.hangUp(newCall)
            try await log.state(newCall, .disconnected)
        }
        #expect(try await target.process.waitForExit(timeout: .seconds(15)) == 0, "\(target.process.output)")
    }

    /// Attended transfer by us (B): A (a softphone) calls us and is put on hold, we consult C (a
    /// softphone) on a second call, then transfer A replacing that call. A's INVITE with
    /// Replaces takes over C's call with us; C ends it, we end ours with A once A reports 200.
    @Test func attendedTransferReplacesOurConsultationCall() async throws {
        let target = try await answeringSoftphone("carol", ["--exit-after", "1"])
        try await withEngine { phone, transport, log in
            let transferee = try ChildProcess(try softphone(), ["call", transport.uri(user: "bob").description, "--listen", "udp:127.0.0.1:0",
                                                               "--seconds", "6", "--json"], name: "softphone-alice")
            let first = try await log.incomingCall(timeout: ChildProcess.startTimeout).call
            try await phone.answer(first)
            // Media turns active at CONNECTING; a re-INVITE (hold) needs the ACK first.
            try await log.state(first, .confirmed)
            try await phone.hold(first)
            let consultation = try await phone.makeCall(to: PJSUA.SIPURI(target.uri))
            try await log.state(consultation, .confirmed)
            try await phone.transfer(first, replacing: consultation)
            let outcome = try await log.transferOutcome(first)
            #expect(outcome.code == 200, "\(log.transferStatuses(of: first))")
            try await log.state(first, .disconnected)
            try await log.state(consultation, .disconnected)
            // DISCONNECTED is published from pjsua's callback, before pjsua frees the call's slot.
            let deadline = ContinuousClock.now.advanced(by: .seconds(5))
            while try await !phone.activeCalls().isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            let left = try await phone.activeCalls()
            var leftInfo: PJSUA.CallInfo?
            if let first = left.first { leftInfo = try await phone.info(first) }
            #expect(left.isEmpty, "\(left) \(String(describing: leftInfo))")
            #expect(try await transferee.waitForExit(timeout: .seconds(20)) == 0, "\(transferee.output)")
            let requested = try #require(softphoneEvents(transferee.output, "transfer", kind: "requested").first, "\(transferee.output)")
            #expect((requested["to"] as? String)?.contains("Replaces=") == true, "\(requested)")
            let placed = try #require(softphoneEvents(transferee.output, "transfer", kind: "placed").first?["newCall"] as? String)
            #expect(softphoneSaw(transferee.output, call: placed, state: "CONFIRMED"), "\(transferee.output)")
        }
        #expect(try await target.process.waitForExit(timeout: .seconds(15)) == 0, "\(target.process.output)")
        let replaced = try #require(softphoneEvents(target.process.output, "transfer", kind: "replaced").first, "\(target.process.output)")
        let newCall = try #require(replaced["newCall"] as? String)
        #expect(softphoneSaw(target.process.output, call: newCall, state: "CONFIRMED"), "\(target.process.output)")
        #expect(softphoneSaw(target.process.output, call: replaced["call"] as? String ?? "", state: "DISCONNECTED"))
    }

    /// We are the target (C): B (a softphone) calls A (a softphone) and transfers A to us. A's
    /// INVITE is an ordinary incoming call that carries `Referred-By` (B), copied from B's REFER.
    @Test func asTheTargetWeGetAnOrdinaryCallThatSaysWhoReferredIt() async throws {
        let transferee = try await answeringSoftphone("alice", ["--exit-after", "1"])
        try await withEngine { phone, transport, log in
            let transferor = try ChildProcess(try softphone(), ["call", transferee.uri, "--listen", "udp:127.0.0.1:0",
                                                               "--transfer-to", transport.uri(user: "carol").description, "--transfer-after", "0.5", "--json"],
                                              name: "softphone-bob")
            let incoming = try await log.incomingCall(timeout: ChildProcess.startTimeout)
            let headers = try #require(phone.incomingCallHeaders(incoming.call))
            try await phone.answer(incoming.call)
            try await log.state(incoming.call, .confirmed)
            let referredBy = try #require(headers.value(named: "Referred-By"), "\(headers)")
            #expect(referredBy.contains("127.0.0.1"))
            #expect(try await transferor.waitForExit(timeout: .seconds(15)) == 0, "\(transferor.output)")
            try await phone.hangUp(incoming.call)
            try await log.state(incoming.call, .disconnected)
        }
        #expect(try await transferee.process.waitForExit(timeout: .seconds(15)) == 0, "\(transferee.process.output)")
    }

    /// A transferee that refuses REFER (`softphone --refuse-transfer`): our transfer ends with
    /// a final 603 and the call stays up.
    @Test func aRefusedTransferLeavesTheCallUp() async throws {
        try await withEngine { phone, transport, log in
            let caller = try ChildProcess(try softphone(), ["call", transport.uri(user: "bob").description, "--listen", "udp:127.0.0.1:0",
                                                           "--seconds", "30", "--refuse-transfer", "--json"], name: "softphone-refusing")
            let incoming = try await log.incomingCall(timeout: ChildProcess.startTimeout)
            try await phone.answer(incoming.call)
            try await log.state(incoming.call, .confirmed)
            try await phone.transfer(incoming.call, to: "sip:carol@127.0.0.1:9")
            let outcome = try await log.transferOutcome(incoming.call)
            #expect(outcome.code == 603)
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await phone.info(incoming.call).state == .confirmed)
            try await phone.hangUp(incoming.call)
            try await log.state(incoming.call, .disconnected)
            #expect(try await caller.waitForExit(timeout: .seconds(10)) == 0, "\(caller.output)")
            #expect(softphoneEvents(caller.output, "transfer", kind: "requested").first?["accepted"] as? Bool == false, "\(caller.output)")
        }
    }

    /// The transferee accepts, but the target is busy (sipp answering 486): the NOTIFY carries the
    /// failure, our transfer ends with 486, and the call with the transferee stays up.
    @Test func aTransferToABusyTargetFailsWithItsStatusAndKeepsTheCall() async throws {
        try await withEngine { phone, transport, log in
            let busy = try await sipp(["-sf", scenario("uas-busy.xml")], name: "sipp-busy-target", lifetime: sippLifetimeForAChildClient)
            let caller = try ChildProcess(try softphone(), ["call", transport.uri(user: "bob").description, "--listen", "udp:127.0.0.1:0",
                                                           "--seconds", "30", "--json"], name: "softphone-alice")
            let incoming = try await log.incomingCall(timeout: ChildProcess.startTimeout)
            try await phone.answer(incoming.call)
            try await log.state(incoming.call, .confirmed)
            try await phone.transfer(incoming.call, to: PJSUA.SIPURI("sip:busy@127.0.0.1:\(busy.sippPort)"))
            let outcome = try await log.transferOutcome(incoming.call)
            #expect(outcome.code == 486, "\(log.transferStatuses(of: incoming.call))")
            #expect(try await phone.info(incoming.call).state == .confirmed)
            #expect(try await busy.waitForExit() == 0, "\(busy.output.suffix(2000))")
            try await phone.hangUp(incoming.call)
            try await log.state(incoming.call, .disconnected)
            #expect(try await caller.waitForExit(timeout: .seconds(10)) == 0, "\(caller.output)")
        }
    }

    /// `call --transfer-to` against `answer --refuse-transfer`: the REFER gets 603, the
    /// transferring softphone says so and exits 1; the answering one reports the refusal.
    @Test func aCLITransferRefusedByTheFarEndExitsWith1() async throws {
        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        let refusing = try await answeringSoftphone("alice", ["--refuse-transfer", "--exit-after", "1"])
        let result = try await runSoftphone(["call", refusing.uri, "--listen", "udp:127.0.0.1:0", "--transfer-to", "sip:carol@127.0.0.1:9",
                                             "--transfer-after", "0.3", "--json"])
        #expect(result.status == 1, "\(result.output)")
        #expect(softphoneEvents(result.output, "failed").first?["reason"] as? String == "transfer failed: 603 Decline", "\(result.output)")
        #expect(try await refusing.process.waitForExit(timeout: .seconds(10)) == 0, "\(refusing.process.output)")
        #expect(softphoneEvents(refusing.process.output, "transfer", kind: "requested").first?["accepted"] as? Bool == false)
    }

    @Test(arguments: [
        (["--transfer-after", "1"], "--transfer-after needs --transfer-to"),
        (["--transfer-to", "http://x"], "transfer target"),
        (["--accept-transfer", "--refuse-transfer"], "exclude each other"),
        (["--transfer-to", "sip:x@127.0.0.1", "--transfer-after", "-1"], "--transfer-after"),
    ])
    func badTransferFlagsExitWith2AndOneLine(extra: [String], mention: String) async throws {
        let result = try await runSoftphone(["call", "sip:nobody@127.0.0.1:9", "--timeout", "1"] + extra)
        #expect(result.status == 2, "\(result.output)")
        #expect(result.output.contains(mention), "\(result.output)")
        #expect(result.output.split(separator: "\n").count <= 2, "\(result.output)")
    }

    /// sipp answers our call and sends REFER: the engine answers 202, calls the target (a second
    /// sipp), reports the new call's progress in NOTIFYs ending with 200 (the scenario fails
    /// otherwise), and the transferor's BYE ends the original call.
    @Test func aReferFromSippIsHonouredAndNotifiedAsSucceeded() async throws {
        try await withEngine { phone, _, log in
            let target = try await sipp(["-sn", "uas"], name: "sipp-target")
            let targetURI = "sip:carol@127.0.0.1:\(target.sippPort)"
            let transferor = try await sipp(["-sf", scenario("uas-refer.xml"), "-key", "target", targetURI], name: "sipp-refer")
            let call = try await phone.makeCall(to: PJSUA.SIPURI("sip:bob@127.0.0.1:\(transferor.sippPort)"))
            let request = try await log.transferRequest(on: call)
            #expect(request.to == "<\(targetURI)>")
            // The scenario's Referred-By, not the dialog's remote party (sip:bob@...).
            #expect(request.by == "<sip:transferor@127.0.0.1:\(transferor.sippPort)>")
            #expect(request.accepted)
            let newCall = try await log.transferredCall(from: call)
            try await log.state(newCall, .confirmed)
            try await log.state(call, .disconnected)
            #expect(try await transferor.waitForExit() == 0, "\(transferor.output.suffix(3000))")
            try await phone.hangUp(newCall)
            try await log.state(newCall, .disconnected)
            #expect(try await target.waitForExit() == 0, "\(target.output.suffix(2000))")
        }
    }

    static let refusingPolicies: [(String, PJSUA.TransferPolicy)] = [
        ("refuse", .refuse()),
        ("decide", .decide { request in !request.target.contains("carol") }),
    ]

    /// With a refusing policy (set in the configuration, or at run time) the REFER gets 603
    /// (the scenario requires it), no call is placed, and the original call stays up until
    /// the transferor hangs up.
    @Test(arguments: [false, true], [0, 1])
    func aReferIsRefusedWhenThePolicySaysSo(atRunTime: Bool, policyIndex: Int) async throws {
        let policy = Self.refusingPolicies[policyIndex].1
        var configuration = PJSUA.Configuration(port: 0, transport: .udp, bindAddress: "127.0.0.1", audioDevice: .null)
        if !atRunTime { configuration.transferPolicy = policy }
        try await withEngine(configuration) { phone, _, log in
            if atRunTime { try await phone.setTransferPolicy(policy) }
            let transferor = try await sipp(["-sf", scenario("uas-refer-refused.xml"), "-key", "target", "sip:carol@127.0.0.1:9"], name: "sipp-refer-refused")
            let call = try await phone.makeCall(to: PJSUA.SIPURI("sip:bob@127.0.0.1:\(transferor.sippPort)"))
            let request = try await log.transferRequest(on: call)
            #expect(!request.accepted)
            #expect(request.by == "<sip:transferor@127.0.0.1:\(transferor.sippPort)>")
            let end = try await log.state(call, .disconnected)
            #expect(end.status.code == 200)
            #expect(try await transferor.waitForExit() == 0, "\(transferor.output.suffix(3000))")
            #expect(!log.all.contains { if case .transferCallPlaced = $0 { true } else { false } })
            #expect(log.all.filter { if case .callState(_, .calling, _, _) = $0 { true } else { false } }.count == 1)
        }
    }

    @Test func transferInputIsValidated() async throws {
        try await withEngine { phone, transport, log in
            let caller = try await phone.makeCall(to: transport.uri(user: "validate"))
            let callee = try await log.incomingCall().call
            // Not established yet: a typed error, nothing sent.
            await #expect(throws: PJSUAError.self) { try await phone.transfer(caller, to: "sip:x@127.0.0.1") }
            try await phone.answer(callee)
            try await log.state(caller, .confirmed)
            for bad in ["", "http://x", "sip:a b@c", "sip:\u{0}x@127.0.0.1"] {
                do {
                    try await phone.transfer(caller, to: PJSUA.SIPURI(stringLiteral: bad))
                    Issue.record("transfer to \(bad.debugDescription) was accepted")
                } catch {
                    #expect((error as? PJSUAError)?.code == .invalidURI, "\(error)")
                }
            }
            await #expect(throws: PJSUAError.self) { try await phone.transfer(caller, replacing: caller) }
            await #expect(throws: PJSUAError.self) { try await phone.setTransferPolicy(.refuse(code: 202)) }
            try await phone.hangUp(caller)
            try await log.state(caller, .disconnected)
            do {
                try await phone.transfer(caller, to: "sip:x@127.0.0.1")
                Issue.record("transfer of an ended call was accepted")
            } catch {
                #expect((error as? PJSUAError)?.code == .staleHandle, "\(error)")
            }
        }
        await #expect(throws: PJSUAError.self) {
            try await withEngine(PJSUA.Configuration(port: 0, bindAddress: "127.0.0.1", audioDevice: .null)
                                    .with { $0.transferPolicy = .refuse(code: 99) }) { _, _, _ in }
        }
    }
}


@Suite("Call transfer against the reference pjsua app")
struct PjsuaAppTransferTests {
    /// The pjsua app calls us and blind-transfers us (console `x`) to a softphone: we follow the
    /// REFER, and the app hangs up its call with us when our NOTIFY says 200.
    @Test func thePjsuaAppTransfersUsAndWeFollow() async throws {
        let target = try await answeringSoftphone("carol", ["--exit-after", "1"])
        try await withEngine { phone, transport, log in
            let answered = PjsuaApp.Gate()
            let app = try await PjsuaApp(arguments: [transport.uri(user: "alice").description],
                                   console: [.when(answered, "x"), .init(after: 0.3, target.uri)])
            let incoming = try await log.incomingCall()
            try await phone.answer(incoming.call)
            try await log.state(incoming.call, .confirmed)
            answered.open()
            let request = try await log.transferRequest(on: incoming.call, timeout: .seconds(20))
            #expect(request.to.contains(target.uri), "\(request)")
            let newCall = try await log.transferredCall(from: incoming.call)
            try await log.state(newCall, .confirmed)
            try await log.state(incoming.call, .disconnected)
            try await app.waitForLog("transferred successfully")
            try await phone.hangUp(newCall)
            try await log.state(newCall, .disconnected)
            app.stop()
        }
        #expect(try await target.process.waitForExit(timeout: .seconds(15)) == 0, "\(target.process.output)")
    }

    /// We call the pjsua app (auto-answer) and transfer it to a softphone: the app follows the
    /// REFER (pjsua-lib's default), our transfer reports 200 and our call ends.
    @Test func weTransferThePjsuaAppToASoftphone() async throws {
        let target = try await answeringSoftphone("carol", ["--exit-after", "1"])
        let app = try await PjsuaApp(arguments: ["--auto-answer=200", "--duration=4"])
        try await withEngine { phone, _, log in
            try await Task.sleep(for: .milliseconds(500))
            let call = try await phone.makeCall(to: PJSUA.SIPURI(app.uri()))
            try await log.state(call, .confirmed)
            try await phone.transfer(call, to: PJSUA.SIPURI(target.uri))
            let outcome = try await log.transferOutcome(call)
            #expect(outcome.code == 200, "\(log.transferStatuses(of: call))\n\(app.process.output.suffix(3000))")
            try await log.state(call, .disconnected)
        }
        // The app's call to the target ends after --duration; the target then exits.
        #expect(try await target.process.waitForExit(timeout: .seconds(15)) == 0, "\(target.process.output)")
        #expect(softphoneEvents(target.process.output, "callState").contains { $0["state"] as? String == "CONFIRMED" })
        app.stop()
    }

    /// The pjsua app calls a softphone (A), then us (C), and transfers A to us with Replaces
    /// (console `X`): A's INVITE with Replaces takes over the app's call with us. We report
    /// ``PJSUA/Event/callReplaced(call:newCall:)``, answer it in place and end the old call.
    @Test func aReplacesInviteFromAnAttendedTransferTakesOverOurCall() async throws {
        let transferee = try await answeringSoftphone("alice", ["--exit-after", "1"])
        try await withEngine { phone, transport, log in
            let answered = PjsuaApp.Gate()
            let app = try await PjsuaApp(arguments: [transferee.uri],
                                   console: [.init(after: 2, "m"), .init(after: 0.3, transport.uri(user: "carol").description),
                                             .when(answered, "["), .init(after: 0.5, "X"), .init(after: 0.3, "1")])
            let incoming = try await log.incomingCall(timeout: .seconds(15))
            try await phone.answer(incoming.call)
            try await log.state(incoming.call, .confirmed)
            answered.open()
            let newCall = try await log.first("the replacing call", timeout: .seconds(15)) { event -> PJSUA.Call? in
                if case let .callReplaced(old, new) = event, old == incoming.call { return new }
                return nil
            }
            #expect(newCall != incoming.call)
            try await log.state(newCall, .confirmed)
            try await log.state(incoming.call, .disconnected)
            #expect(try await phone.info(newCall).remote.contains("127.0.0.1"))
            #expect(try await phone.activeCalls() == [newCall])
            // No incomingCall event for the replacing INVITE: it is answered in place.
            #expect(log.all.filter { if case .incomingCall = $0 { true } else { false } }.count == 1)
            try await app.waitForLog("transferred successfully")
            try await phone.hangUp(newCall)
            try await log.state(newCall, .disconnected)
            app.stop()
        }
        #expect(try await transferee.process.waitForExit(timeout: .seconds(15)) == 0, "\(transferee.process.output)")
        let requested = try #require(softphoneEvents(transferee.process.output, "transfer", kind: "requested").first)
        #expect((requested["to"] as? String)?.contains("Replaces=") == true)
    }

    /// With `acceptsReplaces` off, the transferee's INVITE with Replaces gets 603: our call with
    /// the app stays up, no call replaces it, and the app hears of the failure in its NOTIFY.
    @Test func aReplacesInviteIsRefusedWhenNotAccepted() async throws {
        let transferee = try await answeringSoftphone("alice", ["--exit-after", "1"])
        var configuration = PJSUA.Configuration(port: 0, transport: .udp, bindAddress: "127.0.0.1", audioDevice: .null)
        configuration.acceptsReplaces = false
        try await withEngine(configuration) { phone, transport, log in
            let answered = PjsuaApp.Gate()
            let app = try await PjsuaApp(arguments: [transferee.uri],
                                   console: [.init(after: 2, "m"), .init(after: 0.3, transport.uri(user: "carol").description),
                                             .when(answered, "["), .init(after: 0.5, "X"), .init(after: 0.3, "1")])
            let incoming = try await log.incomingCall(timeout: .seconds(15))
            try await phone.answer(incoming.call)
            try await log.state(incoming.call, .confirmed)
            answered.open()
            try await app.waitForLog("transfer status=603")
            #expect(try await phone.info(incoming.call).state == .confirmed)
            #expect(try await phone.activeCalls() == [incoming.call])
            #expect(!log.all.contains { if case .callReplaced = $0 { true } else { false } })
            #expect(log.all.filter { if case .incomingCall = $0 { true } else { false } }.count == 1)
            try await phone.hangUp(incoming.call)
            try await log.state(incoming.call, .disconnected)
            app.stop()
        }
        transferee.process.stop()
    }
}

extension PJSUA.Configuration {
    /// A copy changed by `change`.
    func with(_ change: (inout PJSUA.Configuration) -> Void) -> PJSUA.Configuration {
        var copy = self
        change(&copy)
        return copy
    }
}