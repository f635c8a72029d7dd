import SwiftPJSUA

/// Why a call ended, as reported to the system call UI (mirrors `CXCallEndedReason`).
public enum CallEndReason: String, Sendable, Hashable, CaseIterable {
    /// The call could not be completed (network, server or protocol failure).
    case failed
    /// The remote party ended the call.
    case remoteEnded
    /// Nobody answered (includes busy, timeouts and calls the caller gave up on: a missed call).
    case unanswered
    /// Another device of the user answered the call.
    case answeredElsewhere
    /// Another device of the user (or the callee) declined the call.
    case declinedElsewhere

    /// Maps the last SIP status of a call that ended without being ended by the user.
    ///
    /// - A call that was established ended normally: ``remoteEnded``, whatever the code.
    /// - 408 Request Timeout, 480 Temporarily Unavailable, 486 Busy Here, 600 Busy Everywhere,
    ///   487 Request Terminated (the caller cancelled before an answer): ``unanswered``.
    /// - 603 Decline, 607 Unwanted: ``declinedElsewhere``.
    /// - 2xx on a call never established (answered by another fork): ``answeredElsewhere``.
    /// - Anything else, including 0 (no response at all): ``failed``.
    public init(sipStatusCode code: PJSUA.SIPResponseCode, wasConnected: Bool) {
        if wasConnected {
            self = .remoteEnded
            return
        }
        switch code {
        case .requestTimeout, .temporarilyUnavailable, .busyHere, .requestTerminated, .busyEverywhere:
            self = .unanswered
        case .decline, .unwanted:
            self = .declinedElsewhere
        case _ where code.isSuccess:
            self = .answeredElsewhere
        default:
            self = .failed
        }
    }
}
