import Foundation
import SwiftPJSUA
import Testing

/// Reads a focused sequence to its end in a task of its own, so the test can act meanwhile.
private func collect<Element: Sendable>(_ stream: PJSUA.EventStream<Element>) -> Task<[Element], Never> {
    Task {
        var seen: [Element] = []
        for await element in stream { seen.append(element) }
        return seen
    }
}

/// The value of `task`, or a failure after `timeout` (a sequence that should have finished).
private func value<T: Sendable>(of task: Task<T, Never>, within timeout: Duration = .seconds(10)) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { await task.value }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            task.cancel()
            throw TimedOut(what: "the sequence to finish")
        }
        return value
    }
}

@Suite("Focused event sequences: one call's states, incoming calls, digits, registrations")
struct EventStreamTests {
    @Test func aCallsStatesStartWithTheStateItIsInAndFinishAfterItsEnd() async throws {
        try await withEngine { phone, transport, log in
            let outgoing = try await phone.makeCall(to: transport.uri(user: "states"))
            // CALLING was published inside makeCall, before this subscription: it comes first.
            let states = collect(phone.stateChanges(of: outgoing))
            let incoming = try await log.incomingCall()
            try await phone.answer(incoming.call, code: 180)
            try await log.state(outgoing, .early)
            try await phone.answer(incoming.call)
            let confirmed = try await log.state(outgoing, .confirmed)
            // A subscription made once the call is up starts at CONFIRMED.
            let late = collect(phone.stateChanges(of: outgoing))
            try await phone.hangUp(outgoing)

            let changes = try await value(of: states)
            #expect(changes.map(\.state) == [.calling, .early, .connecting, .confirmed, .disconnected])
            #expect(changes.allSatisfy { $0.call == outgoing && $0.sipCallID == confirmed.sipCallID })
            #expect(changes.last?.lastStatus.code == 200)
            #expect(try await value(of: late).map(\.state) == [.confirmed, .disconnected])
            // After the end, the sequence is the end: DISCONNECTED, then finished.
            #expect(try await value(of: collect(phone.stateChanges(of: outgoing))).map(\.state) == [.disconnected])
        }
    }

    @Test func incomingCallsAndCallEventsCarryOnlyCallsAsValues() async throws {
        try await withEngine { phone, transport, log in
            let arrivals = phone.incomingCalls
            let everything = collect(phone.callEvents)
            let outgoing = try await phone.makeCall(to: transport.uri(user: "arrivals"))
            var iterator = arrivals.makeAsyncIterator()
            let arrived = try #require(await iterator.next())
            #expect(arrived.call != outgoing)
            #expect(arrived.from.contains("127.0.0.1"))
            try await phone.answer(arrived.call)
            try await log.mediaActive(arrived.call)
            // The caller's audio comes up after the callee's (with the 200's arrival): a digit
            // sent before it has no stream to go out on (PJ_EINVALIDOP on a loaded machine).
            try await log.mediaActive(outgoing)
            try await phone.sendDTMF("5", on: outgoing)  // a DTMF event: not a call event
            try await phone.hangUp(outgoing)
            try await log.state(arrived.call, .disconnected)
            await phone.shutdown()

            let events = try await value(of: everything)
            let incoming = events.compactMap { if case let .incoming(call) = $0 { call } else { nil } }
            #expect(incoming == [arrived])
            let states = events.compactMap { if case let .state(change) = $0, change.call == outgoing { change.state } else { nil } }
            #expect(states == [.calling, .connecting, .confirmed, .disconnected])
            #expect(events.contains { if case .media(arrived.call, .active, false) = $0 { true } else { false } })
            // Exactly the call events the firehose published, in its order.
            #expect(events.map(key) == log.all.compactMap(key))
        }
    }

    @Test func digitsOfACallArriveInOrderAndFinishWhenTheCallEnds() async throws {
        try await withEngine { phone, transport, log in
            let outgoing = try await phone.makeCall(to: transport.uri(user: "digits"))
            let incoming = try await log.incomingCall()
            let digits = collect(phone.digits(of: incoming.call))
            try await phone.answer(incoming.call)
            try await log.mediaActive(outgoing)
            try await phone.sendDTMF("1#9", on: outgoing, duration: .milliseconds(80))
            try await log.first("three digits") { _ in
                log.all.filter { if case .dtmf(incoming.call, _) = $0 { true } else { false } }.count == 3 ? () : nil
            }
            try await phone.hangUp(outgoing)
            #expect(try await value(of: digits).map(\.digit) == ["1", "#", "9"])
            // A call that ended has no digits to come: the sequence is over at once.
            #expect(try await value(of: collect(phone.digits(of: incoming.call))).isEmpty)
        }
    }

    @Test func registrationStatesStartWithTheNewestOutcome() async throws {
        try await withEngine { phone, transport, log in
            // The engine's own address is no registrar: its REGISTER gets a final failure.
            let account = try await phone.addAccount(id: "sip:reg@127.0.0.1", registrar: transport.uri(user: nil))
            let outcome = try await log.registration(account, "a registration outcome")
            #expect(!outcome.isRegistered)
            var iterator = phone.registrationStates(of: account).makeAsyncIterator()
            #expect(await iterator.next() == outcome)
            // A sequence of another account does not replay this one's.
            let other = try await phone.addAccount(id: "sip:other@127.0.0.1")
            let others = collect(phone.registrationStates(of: other))
            await phone.shutdown()
            #expect(try await value(of: others).isEmpty)
        }
    }
}

/// A call event, and the firehose's call events, read as the same words (the test's own
/// reading of the firehose's cases, to compare the two).
private func key(_ event: PJSUA.CallEvent) -> String {
    switch event {
    case let .incoming(call): "incoming \(call.call) \(call.sipCallID) \(call.from) \(call.offeredVideo)"
    case let .state(change): "state \(change.call) \(change.state) \(change.lastStatus)"
    case let .media(call, state, hasVideo): "media \(call) \(state) \(hasVideo)"
    }
}

private func key(_ event: PJSUA.Event) -> String? {
    switch event {
    case let .incomingCall(_, call, sipCallID, from, offeredVideo): "incoming \(call) \(sipCallID) \(from) \(offeredVideo)"
    case let .callState(call, state, _, lastStatus): "state \(call) \(state) \(lastStatus)"
    case let .callMedia(call, state, hasVideo): "media \(call) \(state) \(hasVideo)"
    default: nil
    }
}
