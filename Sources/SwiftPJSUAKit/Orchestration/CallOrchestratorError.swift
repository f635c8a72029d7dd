import Foundation

/// Why the orchestration core could not carry out a provider action.
public enum CallOrchestratorError: Error, Sendable, Hashable, CustomStringConvertible {
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
    /// The engine refused the operation; the text is the engine's error.
    case engineFailure(String)
    /// The audio session could not be configured; the text is the platform's error.
    case audioSessionFailure(String)
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
        case let .engineFailure(message): "engine: \(message)"
        case let .audioSessionFailure(message): "audio session: \(message)"
        case let .videoNotSupported(uuid): "call \(uuid): video is not enabled (supportsVideo is false)"
        }
    }
}
