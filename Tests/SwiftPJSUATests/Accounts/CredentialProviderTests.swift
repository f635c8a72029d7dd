import Foundation
import PJSUATestSupport
@testable import SwiftPJSUA
import Synchronization
import Testing

/// The challenges a provider was asked, and a switch for how it answers.
private final class ProviderProbe: Sendable {
    private let asked = Mutex<[PJSUA.CredentialChallenge]>([])
    private let cancelled = Mutex(0)

    func record(_ challenge: PJSUA.CredentialChallenge) { asked.withLock { $0.append(challenge) } }
    func recordCancellation() { cancelled.withLock { $0 += 1 } }
    var challenges: [PJSUA.CredentialChallenge] { asked.withLock { $0 } }
    var cancellations: Int { cancelled.withLock { $0 } }

    /// A provider that records each challenge and answers with `answer`.
    func provider(timeout: Duration = .seconds(5),
                  _ answer: @escaping @Sendable (PJSUA.CredentialChallenge) async throws -> PJSUA.Credential?) -> PJSUA.Account.Credentials {
        .provider(.init(timeout: timeout) { [self] challenge in
            record(challenge)
            return try await answer(challenge)
        })
    }
}

private struct KeychainLocked: Error {}

/// The running engine's credential table (each run has its own).
private func runningCredentials() throws -> CredentialRequests {
    try #require(EngineRun.current?.credentials, "no engine is running")
}

@Suite("Credential providers against kamailio's digest registrar and proxy")
struct CredentialProviderTests {
    @Test func theProviderIsAskedWithTheRealmAndItsAnswerRegisters() async throws {
        let kamailio = try await Kamailio()
        defer { kamailio.stop() }
        let probe = ProviderProbe()
        try await withEngine { phone, _, log in
            let account = try await phone.addAccount(id: "sip:alice@127.0.0.1", registrar: PJSUA.SIPURI(kamailio.uri),
                                                     credentials: probe.provider { _ in .init(username: "alice", password: "alice-secret") })
            let registered = try await log.registration(account, "registration")
            #expect(registered.isRegistered, "\(registered)")
            #expect(registered.status.code == 200)
            let first = try #require(probe.challenges.first)
            #expect(first == PJSUA.CredentialChallenge(account: account, realm: "127.0.0.1", scheme: "Digest", algorithm: "MD5",
                                                       method: "REGISTER", isProxyChallenge: false, isRetry: false))
            #expect(probe.challenges.count == 1)

            // The engine kept nothing to answer with: the next REGISTER asks the provider again.
            try await phone.reRegister(account)
            try await waitUntil("a second question") { probe.challenges.count == 2 }
            try await waitUntil("a second registration") { log.registrations(of: account).count >= 2 }
            #expect(log.registrations(of: account).allSatisfy { $0.isRegistered })
            #expect(try runningCredentials().pendingCount == 0)
        }
    }

    @Test func aRefusedAnswerIsAskedOnceMoreAsARetryThenFailsTheRegistration() async throws {
        let kamailio = try await Kamailio()
        defer { kamailio.stop() }
        let probe = ProviderProbe()
        try await withEngine { phone, _, log in
            let account = try await phone.addAccount(id: "sip:alice@127.0.0.1", registrar: PJSUA.SIPURI(kamailio.uri),
                                                     credentials: probe.provider { _ in .init(username: "alice", password: "wrong") })
            let failed = try await log.registration(account, "failed registration")
            #expect(!failed.isRegistered)
            #expect(failed.status.code == 401, "\(failed)")
            // Asked for the first challenge, told that the answer was refused, then not again.
            #expect(probe.challenges.map(\.isRetry) == [false, true])
            #expect(probe.challenges.allSatisfy { $0.realm == "127.0.0.1" && $0.method == "REGISTER" })
        }
    }

    @Test func aProviderThatThrowsGivesTheRegistrationUpAtOnce() async throws {
        let kamailio = try await Kamailio()
        defer { kamailio.stop() }
        let probe = ProviderProbe()
        try await withEngine { phone, _, log in
            let started = ContinuousClock.now
            let account = try await phone.addAccount(id: "sip:alice@127.0.0.1", registrar: PJSUA.SIPURI(kamailio.uri),
                                                     credentials: probe.provider { _ in throw KeychainLocked() })
            let failed = try await log.registration(account, "failed registration", timeout: .seconds(3))
            #expect(!failed.isRegistered)
            #expect(failed.status.code == 401, "\(failed)")
            #expect(ContinuousClock.now - started < .seconds(2))
            #expect(probe.challenges.count == 1)
            #expect(try runningCredentials().pendingCount == 0)
        }
    }

    @Test func aProviderThatNeverAnswersIsGivenUpAfterItsTimeoutAndCancelled() async throws {
        let kamailio = try await Kamailio()
        defer { kamailio.stop() }
        let probe = ProviderProbe()
        try await withEngine { phone, _, log in
            let started = ContinuousClock.now
            let account = try await phone.addAccount(
                id: "sip:alice@127.0.0.1", registrar: PJSUA.SIPURI(kamailio.uri),
                credentials: probe.provider(timeout: .milliseconds(300)) { _ in
                    do { try await Task.sleep(for: .seconds(3600)) } catch { probe.recordCancellation() }
                    return .init(username: "alice", password: "alice-secret")
                })
            let failed = try await log.registration(account, "failed registration", timeout: .seconds(5))
            let elapsed = ContinuousClock.now - started
            #expect(!failed.isRegistered)
            #expect(failed.status.code == 401, "\(failed)")
            #expect(elapsed >= .milliseconds(300) && elapsed < .seconds(3), "\(elapsed)")
            try await waitUntil("the provider's task cancelled") { probe.cancellations == 1 }
            // The late answer (after its cancellation) found nothing to send.
            try await Task.sleep(for: .milliseconds(100))
            #expect(log.registrations(of: account).allSatisfy { !$0.isRegistered })
        }
    }

    @Test func aProxyChallengeOnAnInviteIsAnsweredAndTheCallGoesThrough() async throws {
        let kamailio = try await Kamailio()
        defer { kamailio.stop() }
        let probe = ProviderProbe()
        try await withEngine { phone, _, log in
            // bob answers from a stored password, in the same engine; alice's INVITE is challenged
            // by kamailio's proxy (407) and routed to bob's registered contact.
            let bob = try await phone.addAccount(id: "sip:bob@127.0.0.1", registrar: PJSUA.SIPURI(kamailio.uri),
                                                 username: "bob", password: "bob-secret")
            try await log.registration(bob, "bob registered", where: \.isRegistered)
            let alice = try await phone.addAccount(id: "sip:alice@127.0.0.1",
                                                   credentials: probe.provider { _ in .init(username: "alice", password: "alice-secret") })
            let call = try await phone.makeCall(to: PJSUA.SIPURI("sip:bob@127.0.0.1:\(kamailio.port)"), from: alice)
            let incoming = try await log.incomingCall()
            #expect(incoming.from.contains("alice@127.0.0.1"))
            let challenge = try #require(probe.challenges.first)
            #expect(challenge == PJSUA.CredentialChallenge(account: alice, call: call, realm: "127.0.0.1", method: "INVITE",
                                                           isProxyChallenge: true, isRetry: false))
            #expect(probe.challenges.count == 1)
            try await phone.hangUp(call)
            try await log.state(call, .disconnected)
        }
    }

    @Test func anInviteWhoseProviderDeclinesEndsTheCall() async throws {
        let kamailio = try await Kamailio()
        defer { kamailio.stop() }
        let probe = ProviderProbe()
        try await withEngine { phone, _, log in
            let alice = try await phone.addAccount(id: "sip:alice@127.0.0.1", credentials: probe.provider { _ in nil })
            let call = try await phone.makeCall(to: PJSUA.SIPURI("sip:bob@127.0.0.1:\(kamailio.port)"), from: alice)
            let ended = try await log.state(call, .disconnected, timeout: .seconds(3))
            #expect([401, 407].contains(ended.status.code.rawValue), "\(ended.status)")
            #expect(probe.challenges.map(\.method) == ["INVITE"])
            #expect(try runningCredentials().pendingCount == 0)
        }
    }

    @Test func hangingUpACallWaitingForItsProviderEndsItAndShutdownGivesUpTheRest() async throws {
        let kamailio = try await Kamailio()
        defer { kamailio.stop() }
        let probe = ProviderProbe()
        let held = try await withEngine { phone, _, log in
            let waiting = probe.provider(timeout: .seconds(60)) { _ in
                try await Task.sleep(for: .seconds(3600))
                return nil
            }
            let alice = try await phone.addAccount(id: "sip:alice@127.0.0.1", credentials: waiting)
            let call = try await phone.makeCall(to: PJSUA.SIPURI("sip:bob@127.0.0.1:\(kamailio.port)"), from: alice)
            try await waitUntil("the provider asked") { probe.challenges.count == 1 }
            let credentials = try runningCredentials()
            #expect(credentials.pendingCount == 1)
            try await phone.hangUp(call)
            try await log.state(call, .disconnected, timeout: .seconds(3))
            #expect(try runningCredentials().pendingCount == 0)

            // A registration still waiting at shutdown is given up before pjsua is destroyed.
            let carol = try await phone.addAccount(id: "sip:alice@127.0.0.1", registrar: PJSUA.SIPURI(kamailio.uri), credentials: waiting)
            try await waitUntil("the provider asked for the REGISTER") { probe.challenges.count == 2 }
            #expect(probe.challenges.last?.account == carol)
            #expect(credentials.pendingCount == 1)
            return credentials
        }
        #expect(held.pendingCount == 0)
    }

    /// A registrar that refuses every answer with a nonce it never sent before: pjsip alone
    /// would answer for ever (no nonce repeats), so only the engine's limit
    /// (``CredentialRequests/retriesAfterRefusal``) stops it: the provider is asked for the first
    /// challenge and once more as a retry, then the registration fails with 401 and nothing more
    /// is sent (sipp ends once no REGISTER has come for 3 s).
    @Test func aRegistrarRefusingEveryAnswerWithFreshNoncesIsAskedABoundedNumberOfTimes() async throws {
        let probe = ProviderProbe()
        try await withEngine { phone, _, log in
            let registrar = try await sipp(["-sf", scenario("uas-register-401-fresh-nonce.xml")], name: "sipp-register-401")
            defer { registrar.stop() }
            var configuration = PJSUA.Account.Configuration(
                id: "sip:alice@127.0.0.1", registrar: try PJSUA.SIPURI("sip:127.0.0.1:\(registrar.sippPort)"),
                credentials: probe.provider { _ in .init(username: "alice", password: "refused-anyway") })
            configuration.registrationRetry = .init(firstAfter: .seconds(600), interval: .seconds(600), jitter: .zero)
            let account = try await phone.addAccount(configuration)
            let failed = try await log.registration(account, "the registration given up", timeout: .seconds(10))
            #expect(!failed.isRegistered)
            #expect(failed.status.code == .unauthorized, "\(failed)")
            #expect(probe.challenges.map(\.isRetry) == [false, true])
            #expect(probe.challenges.allSatisfy { $0.realm == "sipp.test" && $0.method == "REGISTER" })
            // Nothing more: sipp sees its 3 s of quiet and ends its scenario successfully.
            #expect(try await registrar.waitForExit(timeout: .seconds(15)) == 0, "\(registrar.output.suffix(1500))")
            #expect(probe.challenges.count == 2)
            #expect(log.registrations(of: account).count == 1)
            #expect(try runningCredentials().pendingCount == 0)
        }
    }

    /// `handleIPChange` while a REGISTER challenge waits for its provider: the challenge is
    /// given up first (its registration fails with 401 and the provider's task is cancelled), the
    /// change completes, and the account registers again when asked, with the provider's answer.
    @Test func anIPChangeWithAChallengePendingGivesItUpAndTheAccountRegistersAgain() async throws {
        let kamailio = try await Kamailio()
        defer { kamailio.stop() }
        let probe = ProviderProbe()
        try await withEngine { phone, _, log in
            let credentials = probe.provider(timeout: .seconds(60)) { challenge in
                if probe.challenges.count == 1 {
                    do { try await Task.sleep(for: .seconds(3600)) } catch { probe.recordCancellation() }
                }
                return .init(username: "alice", password: "alice-secret")
            }
            let account = try await phone.addAccount(id: "sip:alice@127.0.0.1", registrar: PJSUA.SIPURI(kamailio.uri), credentials: credentials)
            try await waitUntil("the provider asked") { probe.challenges.count == 1 }
            #expect(try runningCredentials().pendingCount == 1)
            try await phone.handleIPChange()
            #expect(try runningCredentials().pendingCount == 0, "a challenge outlived the IP change's start")
            let failed = try await log.registration(account, "the pending registration given up")
            #expect(failed.status.code == .unauthorized, "\(failed)")
            try await waitUntil("the provider's task cancelled") { probe.cancellations == 1 }
            let completion = try await log.first("the IP change completed") { event -> Result<Void, PJSUAError>? in
                guard case let .ipChange(.completed, error) = event else { return nil }
                return error.map { .failure($0) } ?? .success(())
            }
            #expect(throws: Never.self, "the IP change") { try completion.get() }
            try await phone.reRegister(account)
            try await log.registration(account, "alice registered again", where: \.isRegistered)
            #expect(probe.challenges.count >= 2)
        }
    }

    /// Removing a registered provider account un-REGISTERs it with the provider's answer to the
    /// registrar's challenge, so kamailio drops the binding: a call to alice then finds no one.
    @Test func removingAProviderAccountUnregistersItWithTheProvidersAnswer() async throws {
        let kamailio = try await Kamailio()
        defer { kamailio.stop() }
        let probe = ProviderProbe()
        try await withEngine { phone, _, log in
            let alice = try await phone.addAccount(id: "sip:alice@127.0.0.1", registrar: PJSUA.SIPURI(kamailio.uri),
                                                   credentials: probe.provider { _ in .init(username: "alice", password: "alice-secret") })
            try await log.registration(alice, "alice registered", where: \.isRegistered)
            let bob = try await phone.addAccount(id: "sip:bob@127.0.0.1", registrar: PJSUA.SIPURI(kamailio.uri),
                                                 username: "bob", password: "bob-secret")
            try await log.registration(bob, "bob registered", where: \.isRegistered)
            try await phone.removeAccount(alice)
            let unregistered = try await log.registration(alice, "alice unregistered", where: \.isUnregistration)
            #expect(unregistered.isUnregistration && unregistered.status.code == .ok, "\(unregistered)")
            #expect(probe.challenges.map(\.method) == ["REGISTER", "REGISTER"])
            let call = try await phone.makeCall(to: PJSUA.SIPURI("sip:alice@127.0.0.1:\(kamailio.port)"), from: bob)
            let ended = try await log.state(call, .disconnected)
            #expect(ended.status.code == .notFound, "\(ended.status)")
            #expect(!log.all.contains { if case .incomingCall = $0 { true } else { false } }, "alice's binding outlived her account")
        }
    }

    /// shutdown() un-REGISTERs a provider account with the provider's answer too (its provider
    /// stays until the un-REGISTERs are done).
    @Test func shutdownUnregistersAProviderAccountWithTheProvidersAnswer() async throws {
        let kamailio = try await Kamailio()
        defer { kamailio.stop() }
        let probe = ProviderProbe()
        let (log, alice) = try await withEngine { phone, _, log in
            let alice = try await phone.addAccount(id: "sip:alice@127.0.0.1", registrar: PJSUA.SIPURI(kamailio.uri),
                                                   credentials: probe.provider { _ in .init(username: "alice", password: "alice-secret") })
            try await log.registration(alice, "alice registered", where: \.isRegistered)
            return (log, alice)
        }
        try await waitUntil("the event sequence finished") { log.isFinished }
        let last = try #require(log.registrations(of: alice).last)
        #expect(last.isUnregistration && last.status.code == .ok, "\(last)")
        #expect(probe.challenges.map(\.method) == ["REGISTER", "REGISTER"])
    }

    @Test func anAccountWithAProviderHoldsNoPasswordAndNeverLogsTheAnswer() async throws {
        var configuration = PJSUA.Account.Configuration(id: "sip:alice@127.0.0.1", credentials: .provider(.init { _ in nil }))
        #expect(configuration.username == nil && configuration.password == nil)
        guard case .provider = configuration.credentials else {
            Issue.record("credentials read back as \(String(describing: configuration.credentials))")
            return
        }
        // The old spelling is the .password form of the same property.
        configuration.credentials = .password(username: "alice", password: "alice-secret")
        #expect(configuration.username == "alice" && configuration.password == "alice-secret" && configuration.realm == "*")

        let kamailio = try await Kamailio()
        defer { kamailio.stop() }
        let lines = LineLog()
        var engine = PJSUA.Configuration(port: 0, bindAddress: "127.0.0.1", audioDevice: .null, logLevel: .trace, logSIPMessages: true)
        engine.logHandler = { _, message in lines.append(message) }
        let secret = "provider-secret-\(UUID().uuidString.prefix(8))"
        try await withEngine(engine) { phone, _, log in
            // kamailio knows alice's password only; a wrong one is enough to see what is logged.
            let account = try await phone.addAccount(id: "sip:alice@127.0.0.1", registrar: PJSUA.SIPURI(kamailio.uri),
                                                     credentials: .provider(.init { _ in .init(username: "alice", password: secret) }))
            try await log.registration(account, "failed registration")
            #expect(lines.values.contains { $0.contains("Authorization: Digest") })
            #expect(!lines.values.contains { $0.contains(secret) })
            let described = String(describing: PJSUA.Credential(username: "alice", password: secret))
            #expect(!described.contains(secret))
            var dumped = ""
            dump(PJSUA.Credential(username: "alice", password: secret), to: &dumped)
            #expect(!dumped.contains(secret))
        }
    }

    @Test func badProviderSettingsAreTypedErrors() async throws {
        try await withEngine { phone, _, _ in
            let noTime = await #expect(throws: PJSUAError.self) {
                try await phone.addAccount(id: "sip:alice@127.0.0.1", credentials: .provider(.init(timeout: .zero) { _ in nil }))
            }
            #expect(noTime?.code == .invalidArgument)
            var both = PJSUA.Account.Configuration(id: "sip:alice@127.0.0.1", credentials: .provider(.init { _ in nil }))
            both.username = "alice"
            both.password = "secret"
            let twoWays = await #expect(throws: PJSUAError.self) { try await phone.addAccount(both) }
            #expect(twoWays?.code == .invalidArgument)
        }
    }
}
