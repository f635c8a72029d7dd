import SwiftPJSUA

/// pjsua is a process-wide singleton and every test target runs in one test process, so tests
/// (of every target) that start an engine take turns.
public actor EngineTurns {
    public static let shared = EngineTurns()
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    public func acquire() async {
        if !busy {
            busy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    public func release() {
        if waiting.isEmpty {
            busy = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}

/// Runs `body` with a started engine, holding the engine turn, and always shuts the engine down
/// and gives the turn back, even when `body` throws.
public func withStartedEngine<T>(
    _ configuration: PJSUA.Configuration = .init(port: 0, transport: .udp, bindAddress: "127.0.0.1", audioDevice: .null),
    _ body: (PJSUA, PJSUA.Transport) async throws -> T
) async throws -> T {
    await EngineTurns.shared.acquire()
    let phone = PJSUA()
    do {
        let transport = try await phone.start(configuration)
        let result = try await body(phone, transport)
        await phone.shutdown()
        await EngineTurns.shared.release()
        return result
    } catch {
        await phone.shutdown()
        await EngineTurns.shared.release()
        throw error
    }
}
