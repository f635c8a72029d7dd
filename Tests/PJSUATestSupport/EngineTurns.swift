import Foundation
import SwiftPJSUA

/// pjsua is a process-wide singleton and every test target runs in one test process, so tests
/// (of every target) that start an engine take turns.
///
/// With `SWIFT_PJSUA_TURN_LOG` set to a file path, every turn appends one line to that file: how
/// long it was held, in seconds, and by which test (file and function). The turns are the test
/// run's serial chain, so the sum of these lines is the floor of the run's wall time; sort them to
/// see which tests make a slow run slow.
public actor EngineTurns {
    public static let shared = EngineTurns()
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var holder = ""
    private var since = ContinuousClock.now
    private static let logPath = ProcessInfo.processInfo.environment["SWIFT_PJSUA_TURN_LOG"]

    public func acquire(file: String = #fileID, function: String = #function) async {
        if busy {
            await withCheckedContinuation { waiting.append($0) }
        }
        busy = true
        holder = "\(file) \(function)"
        since = .now
    }

    public func release() {
        if let path = Self.logPath {
            let held = since.duration(to: .now)
            let seconds = Double(held.components.seconds) + Double(held.components.attoseconds) / 1e18
            let line = String(format: "%.3f", seconds) + " \(holder)\n"
            if let handle = FileHandle(forWritingAtPath: path) ?? {
                _ = FileManager.default.createFile(atPath: path, contents: nil)
                return FileHandle(forWritingAtPath: path)
            }() {
                handle.seekToEndOfFile()
                handle.write(Data(line.utf8))
                try? handle.close()
            }
        }
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
    file: String = #fileID, function: String = #function,
    _ body: (PJSUA, PJSUA.Transport) async throws -> T
) async throws -> T {
    await EngineTurns.shared.acquire(file: file, function: function)
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
