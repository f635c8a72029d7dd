import SwiftPJSUA

/// One loopback self-call cycle through the engine: make -> both legs CONFIRMED -> hangup ->
/// both DISCONNECTED, driven by the events as an application would.
struct SelfCaller {
    let phone: PJSUA
    let uri: PJSUA.SIPURI
    private var iterator: PJSUA.Events.Iterator

    init(phone: PJSUA, uri: PJSUA.SIPURI) {
        self.phone = phone
        self.uri = uri
        iterator = phone.events.makeAsyncIterator()
    }

    /// Runs one cycle; returns the time to both legs CONFIRMED and the whole cycle's duration,
    /// in milliseconds.
    mutating func cycle() async throws -> (setup: Double, total: Double) {
        let start = nanoseconds()
        let outgoing = try await phone.makeCall(to: uri)
        var incoming: PJSUA.Call?
        var confirmed = 0
        while confirmed < 2 {
            guard let event = await iterator.next() else { throw BenchError("events ended") }
            switch event {
            case let .incomingCall(_, call, _, _, _):
                incoming = call
                try await phone.answer(call)
            case let .callState(call, .confirmed, _, _) where call == outgoing || call == incoming:
                confirmed += 1
            case let .callState(call, .disconnected, _, status) where call == outgoing || call == incoming:
                throw BenchError("\(call) ended early: \(status)")
            default:
                break
            }
        }
        let setup = Double(nanoseconds() - start) / 1e6
        try await phone.hangUp(outgoing)
        var disconnected = 0
        while disconnected < 2 {
            guard let event = await iterator.next() else { throw BenchError("events ended") }
            if case let .callState(call, .disconnected, _, _) = event, call == outgoing || call == incoming {
                disconnected += 1
            }
        }
        return (setup, Double(nanoseconds() - start) / 1e6)
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
