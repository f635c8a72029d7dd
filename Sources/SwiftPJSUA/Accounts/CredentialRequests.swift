import CPJSUASupport
import Foundation
import PJSIP

/// Digest challenges of accounts that have a ``PJSUA/CredentialProvider``, from pjsua's
/// `on_auth_challenge` to the answer (see `AuthChallenge.c` for the C side).
///
/// The path of one challenge, and which thread takes each step:
/// 1. pjsua's worker thread, in `onAuthChallenge` (a file-private free function holding no
///    reference to the actor): when the account has a provider, it clones what it needs of the
///    challenge, records it here, claims it (`handled`), starts the provider's task and a timer,
///    and returns. It never waits and never enters the actor.
/// 2. The Swift concurrency pool: the provider runs; its result, or the timer, is handed to the
///    engine's executor thread (`EngineRun.onEngineThread(_:)`).
/// 3. The executor thread (registered with PJLIB), in ``finish(_:_:in:)``: the first outcome takes
///    the record and answers (`pjsip_auth_clt_async_send_req`) or gives up
///    (`pjsip_auth_clt_async_abandon`); later ones find nothing.
///
/// Every token is consumed exactly once, and while its owner exists: the engine gives up a
/// call's pending challenges before it hangs the call up (the INVITE session is the token's
/// owner), an account's before `pjsua_acc_del` (its registration client is), and all of them
/// before `pjsua_destroy` (``close()``), after which challenges fall back to pjsua's own path.
///
/// One per run (``EngineRun/credentials``): pjsua's callback finds it through the run's anchor,
/// ``EngineRun/current``, so a run's providers, pending challenges and refusal counts go with the
/// run, and the next `start` begins with none.
final class CredentialRequests: Sendable {
    /// The four tables, under a lock never held across a pjsip call or a provider.
    private struct Tables {
        /// The providers of the run's accounts, by account token (the account's `user_data`,
        /// known before `pjsua_acc_add` sends its first REGISTER).
        var providers: [UInt: PJSUA.CredentialProvider] = [:]
        var pending: [UInt64: Pending] = [:]
        /// Refused answers in a row per account, call and realm (see ``PJSUA/CredentialProvider``).
        var refusals: [RefusalKey: Int] = [:]
        var nextID: UInt64 = 0
    }
    private let tables = LockedValueBox(Tables())

    /// How many refused answers in a row a provider is asked about (with `isRetry`).
    static let retriesAfterRefusal = 1

    /// A challenge waiting for its provider. The pointers are pjsip's: the account's shared
    /// auth session, the single-use token, and what `cpjsua_auth_challenge_capture` kept.
    private struct Pending {
        let session: UnsafeMutableRawPointer
        let token: UnsafeMutableRawPointer
        var captured: cpjsua_auth_challenge
        let account: UInt
        let call: PJSUA.Call?
        let realm: String
        let method: String
        var tasks: [Task<Void, Never>] = []
    }

    private struct RefusalKey: Hashable {
        let account: UInt
        let call: Int32
        let realm: String
    }

    enum Outcome: Sendable {
        case answer(PJSUA.Credential)
        case declined
        case failed(String)
        case timedOut
        case refusedAgain

        var reason: String {
            switch self {
            case .answer: "the provider's credential could not be sent"
            case .declined: "the credential provider returned nil"
            case let .failed(error): "the credential provider threw \(error)"
            case .timedOut: "the credential provider did not answer in time"
            case .refusedAgain: "the server refused the provider's credential \(retriesAfterRefusal + 1) times in a row"
            }
        }
    }

    static func install(into config: inout pjsua_config) {
        config.cb.on_auth_challenge = onAuthChallenge
    }

    /// Gives the account with `token` a provider, before `pjsua_acc_add` can send a REGISTER.
    func register(_ provider: PJSUA.CredentialProvider, forAccount token: UInt) {
        tables.withLockedValue { $0.providers[token] = provider }
    }

    func provider(forAccount token: UInt) -> PJSUA.CredentialProvider? {
        tables.withLockedValue { $0.providers[token] }
    }

    /// Called in `onAuthChallenge`: records the challenge and starts its provider and timer,
    /// whose outcome goes back to `run` (this table's run).
    fileprivate func begin(_ captured: cpjsua_auth_challenge, session: UnsafeMutableRawPointer,
                           token: UnsafeMutableRawPointer, challenge: PJSUA.CredentialChallenge,
                           provider: PJSUA.CredentialProvider, of run: EngineRun) {
        let key = RefusalKey(account: challenge.account.token, call: challenge.call?.slot ?? -1, realm: challenge.realm)
        // Unchecked: the pending entry keeps pjsip's pointers, used on the engine thread only.
        let (id, refusedAgain) = tables.withLockedValueUnchecked { tables in
            tables.nextID += 1
            tables.pending[tables.nextID] = Pending(session: session, token: token, captured: captured, account: key.account,
                                                    call: challenge.call, realm: challenge.realm, method: challenge.method)
            var refusedAgain = false
            if challenge.isRetry {
                let count = tables.refusals[key, default: 0] + 1
                tables.refusals[key] = count
                refusedAgain = count > Self.retriesAfterRefusal
            } else {
                tables.refusals[key] = nil
            }
            return (tables.nextID, refusedAgain)
        }
        if refusedAgain {
            Self.settle(id, .refusedAgain, in: run)
            return
        }
        // Weak: a provider that ignores cancellation must not keep an ended run alive.
        let work = Task.detached { [weak run] in
            let outcome: Outcome
            do {
                outcome = try await provider.answer(challenge).map(Outcome.answer) ?? .declined
            } catch {
                outcome = .failed(String(describing: error))
            }
            if let run { Self.settle(id, outcome, in: run) }
        }
        let timer = Task.detached { [weak run] in
            try? await Task.sleep(for: provider.timeout)
            if !Task.isCancelled, let run { Self.settle(id, .timedOut, in: run) }
        }
        tables.withLockedValue { $0.pending[id]?.tasks = [work, timer] }
    }

    /// Hands an outcome to the engine's thread; nothing happens if `run` has ended (its
    /// teardown gave every pending challenge up already, and a later run has its own table).
    private static func settle(_ id: UInt64, _ outcome: Outcome, in run: EngineRun) {
        run.onEngineThread { run.credentials.finish(id, outcome, in: run) }
    }

    /// Answers or gives up challenge `id`, if nothing did so before. Engine thread only.
    private func finish(_ id: UInt64, _ outcome: Outcome, in run: EngineRun) {
        guard var entry = tables.withLockedValue({ $0.pending.removeValue(forKey: id) }) else { return }
        for task in entry.tasks { task.cancel() }
        if case let .answer(credential) = outcome, Self.isUsable(credential) {
            let status = entry.realm.withCString { realm in
                credential.username.withCString { username in
                    credential.password.withCString { password in
                        cpjsua_auth_challenge_answer(entry.session, entry.token, &entry.captured, realm, username, password)
                    }
                }
            }
            if status != pjSuccess {
                run.log(level: PJSUA.LogLevel.warning.rawValue,
                                    message: "credentials: \(outcome.reason): \(PJSUAError(status: status, operation: "answer").message)")
            }
            return
        }
        run.log(level: PJSUA.LogLevel.info.rawValue,
                message: "credentials: gave up a challenge for realm \"\(entry.realm)\": \(Self.isAnswer(outcome) ? "the provider's credential is not usable (at most 255 bytes each, no NUL or line break)" : outcome.reason)")
        cpjsua_auth_challenge_abandon(entry.session, entry.token, &entry.captured)
    }

    private static func isAnswer(_ outcome: Outcome) -> Bool {
        if case .answer = outcome { return true }
        return false
    }

    /// A credential pjsip can send: pjsip's strings are lengths, but these go through C strings
    /// and into a header.
    private static func isUsable(_ credential: PJSUA.Credential) -> Bool {
        let username = credential.username.utf8, password = credential.password.utf8
        return !username.isEmpty && username.count <= 255 && password.count <= 255 && !password.contains(0)
            && !username.contains(where: { $0 == 0 || $0 == 10 || $0 == 13 })
    }

    /// Gives up every pending challenge `matching` (engine thread only); returns how many.
    @discardableResult
    private func abandon(where matching: @Sendable (Pending) -> Bool) -> Int {
        let taken = tables.withLockedValue { tables in
            let taken = tables.pending.filter { matching($0.value) }
            for id in taken.keys { tables.pending[id] = nil }
            return taken
        }
        for var entry in taken.values {
            for task in entry.tasks { task.cancel() }
            cpjsua_auth_challenge_abandon(entry.session, entry.token, &entry.captured)
        }
        return taken.count
    }

    /// Before a call is hung up (its INVITE session owns a pending token). Returns whether a
    /// challenge was given up: that ends the call by itself (`DISCONNECTED`, 401).
    func abandon(call: PJSUA.Call) -> Bool {
        abandon(where: { $0.call == call }) > 0
    }

    /// Before `pjsua_acc_del`: gives up the account's challenges and forgets its provider.
    func accountRemoved(_ token: UInt) {
        tables.withLockedValue { tables in
            tables.providers[token] = nil
            tables.refusals = tables.refusals.filter { $0.key.account != token }
        }
        abandon(where: { $0.account == token })
    }

    /// Before pjsua replaces the account's registration client (`pjsua_acc_set_registration`,
    /// `pjsua_acc_modify`), the owner of its pending REGISTER challenges: gives those up.
    func registrationRestarts(_ token: UInt) {
        abandon(where: { $0.account == token && $0.call == nil && $0.method == "REGISTER" })
    }

    /// Gives up every pending challenge (before `pjsua_call_hangup_all` and
    /// `pjsua_handle_ip_change`); providers stay, so the un-REGISTERs of shutdown and the
    /// REGISTERs after a network change are still answered.
    func abandonAll() {
        abandon(where: { _ in true })
    }

    /// Before `pjsua_destroy`: gives up every pending challenge and forgets every provider, so
    /// that a challenge arriving later falls back to pjsua's own (password-less) path.
    func close() {
        tables.withLockedValue { tables in
            tables.providers = [:]
            tables.refusals = [:]
        }
        abandonAll()
    }

    /// Challenges waiting for a provider (for tests).
    var pendingCount: Int {
        tables.withLockedValue { $0.pending.count }
    }
}

/// pjsua's `on_auth_challenge`, on its worker thread. Challenges of accounts without a provider
/// are left to pjsua (`handled` stays false: it answers from the account's stored password).
private func onAuthChallenge(_ param: UnsafeMutablePointer<pjsua_on_auth_challenge_param>?) {
    guard let param, let session = param.pointee.auth_sess, let token = param.pointee.token,
          let rdata = param.pointee.rdata, let tdata = param.pointee.tdata else { return }
    let accountToken = HandleToken.token(pjsua_acc_get_user_data(param.pointee.acc_id))
    guard let run = EngineRun.current, let provider = run.credentials.provider(forAccount: accountToken) else { return }
    var captured = cpjsua_auth_challenge()
    // Not capturable (no digest challenge, no memory): pjsua's path refuses it, with no password.
    guard cpjsua_auth_challenge_capture(rdata, tdata, &captured) == pjSuccess else { return }
    let callID = param.pointee.call_id
    let challenge = PJSUA.CredentialChallenge(
        account: PJSUA.Account(slot: param.pointee.acc_id, token: accountToken),
        call: callID == PJSUA_INVALID_ID.rawValue ? nil : existingCallHandle(callID),
        realm: String(captured.realm), scheme: String(captured.scheme),
        algorithm: captured.algorithm.length > 0 ? String(captured.algorithm) : "MD5",
        method: String(captured.method), isProxyChallenge: captured.status_code == 407,
        isRetry: captured.is_retry != 0)
    param.pointee.handled = 1
    run.credentials.begin(captured, session: UnsafeMutableRawPointer(session), token: token,
                          challenge: challenge, provider: provider, of: run)
}

extension String {
    /// Copies text that `cpjsua_auth_challenge_capture` pointed into the cloned response.
    fileprivate init(_ text: cpjsua_auth_text) {
        guard let pointer = text.ptr, text.length > 0 else {
            self = ""
            return
        }
        self = String(decoding: UnsafeRawBufferPointer(start: pointer, count: Int(text.length)), as: UTF8.self)
    }
}
