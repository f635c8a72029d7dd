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
