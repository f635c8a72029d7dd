import Dispatch
import Foundation
@_spi(Locking) import SwiftPJSUA

/// SIGINT and SIGTERM as an async wait, so commands shut the engine down cleanly on either.
///
/// The first signal starts the clean shutdown (BYE to live calls, unregistration). A second one
/// means the user will not wait for it, say for an unregistration the registrar never answers:
/// the process exits at once with ``exitStatus(for:)`` of the first signal. After a clean
/// shutdown the status is ``exitStatus(for:)`` too, except for a command that serves until it is
/// stopped (`answer`), for which SIGTERM is the expected way to stop (``isStopRequest(_:)``).
final class Signals: @unchecked Sendable {
    // @unchecked Sendable: the dispatch sources are created once in init and never released
    // (the instance lives as long as the process).
    /// The first signal received, and the tasks waiting for one.
    private let state = LockedValueBox<(received: Int32?, waiters: [CheckedContinuation<Int32, Never>])>((nil, []))
    private var sources: [DispatchSourceSignal] = []

    /// The process's one instance (signal dispositions are process-wide). Commands that run until
    /// a signal take it when they start; before that, a signal ends the process the default way,
    /// which a shell reports with the same status.
    static let shared = Signals()

    /// The exit status after `signal`: 128 + its number (130 for SIGINT, 143 for SIGTERM), what a
    /// shell reports for a process the signal killed.
    static func exitStatus(for signal: Int32) -> Int32 { 128 + signal }

    /// Whether `signal` is the stop a service manager sends (SIGTERM: systemd, Kubernetes,
    /// `docker stop`), which a command that serves until stopped answers with a clean shutdown
    /// and status 0: 143 would read as a failure to them. SIGINT (Ctrl-C) stays an interruption.
    static func isStopRequest(_ signal: Int32) -> Bool { signal == SIGTERM }

    static func name(of signal: Int32) -> String {
        switch signal {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        default: "signal \(signal)"
        }
    }

    private init() {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in self?.deliver(number) }
            source.resume()
            sources.append(source)
        }
    }

    private func deliver(_ number: Int32) {
        let (first, pending) = state.withLockedValue { state in
            let first = state.received
            if first == nil { state.received = number }
            defer { state.waiters = [] }
            return (first, state.waiters)
        }
        if let first {
            // Runs on a dispatch queue, not in a signal handler, so writing is safe; _exit skips
            // atexit handlers, which could wait on the very engine threads that are stuck.
            FileHandle.standardError.write(Data("softphone: \(Self.name(of: number)) again: exiting without a clean shutdown\n".utf8))
            _exit(Self.exitStatus(for: first))
        }
        pending.forEach { $0.resume(returning: number) }
    }

    /// The signal received so far, if any.
    var pending: Int32? {
        state.withLockedValue { $0.received }
    }

    /// Waits for SIGINT or SIGTERM.
    func wait() async -> Int32 {
        await withCheckedContinuation { continuation in
            let received: Int32? = state.withLockedValue { state in
                if state.received == nil { state.waiters.append(continuation) }
                return state.received
            }
            if let received { continuation.resume(returning: received) }
        }
    }

    /// Reports that a signal cut the command short; returns the exit status for it.
    func interrupted(_ output: Output) -> Int32 {
        let number = pending ?? SIGINT
        output.emit("interrupted", ["signal": Self.name(of: number)], human: "softphone: interrupted (\(Self.name(of: number)))")
        return Self.exitStatus(for: number)
    }
}
