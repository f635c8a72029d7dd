extension PJSUA {
    /// A REFER that arrived on a call: the remote party asks us to call someone else
    /// (RFC 3515 call transfer). What ``TransferPolicy/decide(_:)`` is asked about.
    public struct TransferRequest: Sendable, Hashable {
        /// The call the REFER arrived on (the call being transferred).
        public let call: Call
        /// Where we are asked to call: the REFER's `Refer-To` value, as sent (it may carry a
        /// `Replaces` parameter for an attended transfer).
        public let target: String
        /// Who asked: the REFER's `Referred-By` value when it carries one (pjsua and most phones
        /// put the transferor's own address there), otherwise the remote party of ``call``, who
        /// sent the REFER.
        public let requester: String

        /// Creates a request (the engine makes these; public for testing policies).
        public init(call: Call, target: String, requester: String) {
            self.call = call
            self.target = target
            self.requester = requester
        }
    }

    /// What the engine did with an incoming REFER: the payload of ``Event/transferRequested(_:)``.
    public struct TransferDecision: Sendable, Hashable, CustomStringConvertible {
        /// The REFER, as the ``TransferPolicy`` saw it.
        public let request: TransferRequest
        /// The policy's verdict: true when the REFER was answered 202 Accepted and the engine
        /// places the call to ``TransferRequest/target`` (``Event/transferCallPlaced(call:newCall:)``
        /// follows, unless pjsua cannot place it: the transferor is then told 500 in a NOTIFY).
        public let isAccepted: Bool

        /// Creates a decision (the engine makes these; public for testing event handlers).
        public init(request: TransferRequest, isAccepted: Bool) {
            self.request = request
            self.isAccepted = isAccepted
        }

        public var description: String {
            "\(request.requester) asks \(request.call) to call \(request.target): \(isAccepted ? "accepted" : "refused")"
        }
    }

    /// How the engine answers an incoming REFER: accept (202, then call the target) or refuse
    /// with a final error status. Set it in ``Configuration/transferPolicy`` or at run time with
    /// ``PJSUA/setTransferPolicy(_:)``.
    ///
    /// The verdict is given inside pjsua's `on_call_transfer_request2` callback, on pjsua's
    /// thread, before the REFER is answered; the engine then publishes
    /// ``Event/transferRequested(_:)`` either way.
    public enum TransferPolicy: Sendable {
        /// Accept every REFER (pjsua's own default): answer 202 Accepted and place the new call,
        /// reporting its progress to the transferor in NOTIFYs.
        case accept
        /// Refuse every REFER with `code` (300...699, checked when the policy is set;
        /// ``SIPResponseCode/decline`` by default, ``SIPResponseCode/forbidden`` is the other
        /// common choice). The call it arrived on stays up.
        case refuse(code: SIPResponseCode = .decline)
        /// Ask `decide` for each REFER: true accepts, false refuses with 603 Decline. Runs on
        /// pjsua's thread while the REFER waits for its answer: return at once, never block and
        /// never call into the engine from it.
        case decide(@Sendable (TransferRequest) -> Bool)

        /// The response status for `request`: 202 to accept, otherwise the refusal code.
        func responseCode(for request: TransferRequest) -> SIPResponseCode {
            switch self {
            case .accept: .accepted
            case let .refuse(code): code
            case let .decide(decide): decide(request) ? .accepted : .decline
            }
        }

        func validate() throws(PJSUAError) {
            if case let .refuse(code) = self {
                try code.require(PJSUA.refusalCodes, for: "transfer refusal", "a final error status")
            }
        }
    }
}
