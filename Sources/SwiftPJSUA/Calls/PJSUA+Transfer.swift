import PJSIP

extension PJSUA {
    /// Blind transfer: asks the remote party of `call` to call `uri` instead (REFER, RFC 3515).
    ///
    /// Progress arrives as ``Event/transferStatus(_:)``: 100 once the REFER is
    /// accepted, then what the transferee reports of its new call (180, 200, or the failure).
    /// When a 2xx arrives, the engine hangs up `call` if `hangUpWhenDone` (the default), as a
    /// phone does once the transferee is talking to the target; on failure `call` stays up.
    ///
    /// Drives `pjsua_call_xfer()`.
    /// - Parameters:
    ///   - call: an established call.
    ///   - uri: the transfer target, e.g. `sip:carol@example.com`; validated before PJSIP sees it.
    ///   - hangUpWhenDone: whether to end `call` once the transfer succeeded.
    public func transfer(_ call: Call, to uri: SIPURI, hangUpWhenDone: Bool = true) throws {
        let slot = try resolveEstablished(call, for: "transfer")
        try Validation.sipURI(uri, what: "transfer target")
        let run = try requireRunning()
        TransferContext.setHangUpOnSuccess(call, hangUpWhenDone, in: run)
        do {
            try withCStringArena { arena throws(PJSUAError) in
                var destination = arena.pj(uri.text)
                try check(pjsua_call_xfer(slot, &destination, nil), "cannot transfer \(call) to \(Validation.quoted(uri.text))")
            }
        } catch {
            TransferContext.setHangUpOnSuccess(call, false, in: run)
            throw error
        }
    }

    /// Attended transfer: asks the remote party of `call` to call the remote party of `other`
    /// with `Replaces` (RFC 3891), so that its new call takes the place of `other`.
    ///
    /// The usual flow: talk to the transferee on `call`, put it on hold, call the target
    /// (`other`) and consult, then `transfer(call, replacing: other)`. The target ends `other`
    /// itself when the replacing INVITE arrives; `call` is hung up by the engine when the
    /// transfer reports 2xx (if `hangUpWhenDone`). Progress as for ``transfer(_:to:hangUpWhenDone:)``.
    ///
    /// Drives `pjsua_call_xfer_replaces()`.
    /// - Parameters:
    ///   - call: the call to transfer.
    ///   - other: the call whose remote party is the target; must be another established call.
    ///   - requireReplaces: whether the transferee's INVITE carries `Require: replaces` (a target
    ///     that cannot replace then refuses instead of ringing as a new call).
    ///   - hangUpWhenDone: whether to end `call` once the transfer succeeded.
    public func transfer(_ call: Call, replacing other: Call, requireReplaces: Bool = true, hangUpWhenDone: Bool = true) throws {
        let slot = try resolveEstablished(call, for: "transfer")
        let otherSlot = try resolveEstablished(other, for: "be the target of an attended transfer")
        guard slot != otherSlot else {
            throw PJSUAError(.invalidArgument, "cannot transfer \(call) to itself")
        }
        let run = try requireRunning()
        TransferContext.setHangUpOnSuccess(call, hangUpWhenDone, in: run)
        let options = requireReplaces ? 0 : UInt32(PJSUA_XFER_NO_REQUIRE_REPLACES)
        do {
            try check(pjsua_call_xfer_replaces(slot, otherSlot, options, nil), "cannot transfer \(call) replacing \(other)")
        } catch {
            TransferContext.setHangUpOnSuccess(call, false, in: run)
            throw error
        }
    }

    /// Changes how incoming REFERs are answered from now on (see ``Configuration/transferPolicy``).
    public func setTransferPolicy(_ policy: TransferPolicy) throws {
        let run = try requireRunning()
        try policy.validate()
        run.withState { $0.transferPolicy = policy }
    }

    /// The slot of a call that is established (CONFIRMED), or a typed error.
    func resolveEstablished(_ call: Call, for what: String) throws(PJSUAError) -> pjsua_call_id {
        let slot = try resolve(call)
        let state = try withLiveCallInfo(call) { info in CallState(info.pointee.state) }
        guard state == .confirmed else {
            throw PJSUAError(.invalidArgument, "\(call) cannot \(what): it is \(state), not CONFIRMED")
        }
        return slot
    }
}
