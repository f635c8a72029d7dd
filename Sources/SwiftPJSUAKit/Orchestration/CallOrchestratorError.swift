import Foundation

/// Why the orchestration core could not carry out a provider action.
///
/// A failure of the engine or of the audio session carries that error itself, unchanged, so an
/// app can still tell a refused request from a gone call: with ``PJSUACallEngine``, match
/// `case let .engine(error as PJSUAError)`. The payload is `any Error` rather than a generic
/// parameter because these errors cross ``CallActionHandling``, which the Apple adapters use
/// without knowing the core's engine type.
public enum CallOrchestratorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No live call has this UUID.
    case unknownCall(UUID)
    /// A call with this UUID already exists (or existed).
    case duplicateCall(UUID)
    /// The action waited for the call's INVITE longer than the configured timeout.
    case timedOut(UUID)
    /// The call ended before the action could be carried out.
    case callEnded(UUID)
    /// The call's engine handle is not known yet (the action cannot be queued).
    case callNotReady(UUID)
    /// The action does not apply to a call in this direction (answering an outgoing call).
    case wrongDirection(UUID)
    /// The engine refused the operation; the payload is the error the engine threw
    /// (a `PJSUAError` from ``PJSUACallEngine``).
    case engine(any Error)
    /// The audio session could not be configured; the payload is the error
    /// ``AudioSessionControl/configureForVoiceCall()`` threw.
    case audioSession(any Error)
    /// Video was asked for, but ``OrchestratorConfiguration/supportsVideo`` is false.
    case videoNotSupported(UUID)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case let .unknownCall(uuid): "no call \(uuid)"
        case let .duplicateCall(uuid): "call \(uuid) already exists"
        case let .timedOut(uuid): "call \(uuid): its INVITE did not arrive in time"
        case let .callEnded(uuid): "call \(uuid) ended first"
        case let .callNotReady(uuid): "call \(uuid) has no engine call yet"
        case let .wrongDirection(uuid): "call \(uuid) is in the wrong direction for this action"
        case let .engine(error): "engine: \(error)"
        case let .audioSession(error): "audio session: \(error)"
        case let .videoNotSupported(uuid): "call \(uuid): video is not enabled (supportsVideo is false)"
        }
    }

    /// Equal cases with equal payloads. Two wrapped errors are equal when they have the same type
    /// and, for an `Equatable` type (`PJSUAError` is one), are equal by it; for any
    /// other type, when they describe themselves the same way.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case let (.unknownCall(a), .unknownCall(b)), let (.duplicateCall(a), .duplicateCall(b)),
             let (.timedOut(a), .timedOut(b)), let (.callEnded(a), .callEnded(b)),
             let (.callNotReady(a), .callNotReady(b)), let (.wrongDirection(a), .wrongDirection(b)),
             let (.videoNotSupported(a), .videoNotSupported(b)):
            a == b
        case let (.engine(a), .engine(b)), let (.audioSession(a), .audioSession(b)):
            sameError(a, b)
        default:
            false
        }
    }

    private static func sameError(_ lhs: any Error, _ rhs: any Error) -> Bool {
        guard type(of: lhs) == type(of: rhs) else { return false }
        // Through `Any`: cast straight from `any Error`, the compiler wrongly calls this cast
        // one that always succeeds (Swift 6.3).
        let boxed: Any = lhs
        if let equatable = boxed as? any Equatable { return isEqual(equatable, rhs) }
        return String(describing: lhs) == String(describing: rhs)
    }

    private static func isEqual<Value: Equatable>(_ lhs: Value, _ rhs: Any) -> Bool {
        (rhs as? Value) == lhs
    }
}
