import Foundation
import PJSIP

/// What the transfer callbacks keep, in the run: the calls to end once their transfer succeeded
/// (``CallRecord/hangsUpOnTransferSuccess``), and the call whose REFER is being followed right
/// now (``EngineRun/State/followedTransfer``).
///
/// pjsua gives a call it creates for a REFER (`on_call_transferred`) or for an INVITE with
/// Replaces the user data of the call it comes from, so both calls would carry the same handle
/// token. The engine gives the new call a token of its own the first time it sees it: in
/// `on_call_state` (CALLING, fired inside the `pjsua_call_make_call` that follows the REFER, on
/// the same thread) and in `on_call_replaced`.
enum TransferContext {
    /// Marks `call` to be hung up when its transfer reports a 2xx final status (or not).
    static func setHangUpOnSuccess(_ call: PJSUA.Call, _ hangUp: Bool, in run: EngineRun) {
        run.withCall(call) { $0.hangsUpOnTransferSuccess = hangUp }
    }

    static func takeHangUpOnSuccess(_ call: PJSUA.Call, in run: EngineRun) -> Bool {
        run.withState { state in
            guard state.calls[call]?.hangsUpOnTransferSuccess == true else { return false }
            state.calls[call]?.hangsUpOnTransferSuccess = false
            return true
        }
    }

    static func follow(_ call: PJSUA.Call?, in run: EngineRun) {
        run.withState { $0.followedTransfer = call }
    }

    /// Gives the call in `slot` a token of its own if it inherited the token of the call whose
    /// REFER is being followed, and says so with ``PJSUA/Event/transferCallPlaced(call:newCall:)``.
    /// Called first thing in `on_call_state`.
    static func adoptReferredCall(_ slot: pjsua_call_id, in run: EngineRun) {
        let token = HandleToken.token(pjsua_call_get_user_data(slot))
        let origin: PJSUA.Call? = run.withState { state in
            guard let source = state.followedTransfer, source.slot != slot, source.token == token, token != 0 else { return nil }
            state.followedTransfer = nil
            return source
        }
        guard let origin else { return }
        let fresh = HandleToken.next()
        pjsua_call_set_user_data(slot, HandleToken.pointer(fresh))
        run.publish(.transferCallPlaced(call: origin, newCall: PJSUA.Call(slot: slot, token: fresh)))
    }

    static func install(into config: inout pjsua_config) {
        config.cb.on_call_transfer_request2 = onTransferRequest
        config.cb.on_call_transfer_status = onTransferStatus
        config.cb.on_call_replace_request2 = onReplaceRequest
        config.cb.on_call_replaced = onCallReplaced
    }
}

/// Reads the `Referred-By` of every incoming REFER before the dialog layer hands the REFER to
/// pjsua, whose `on_call_transfer_request2` gives only the call and the Refer-To value: a pjsip
/// module one step ahead of the UA layer (after the transaction layer), that only looks and
/// never answers. The transfer callback that follows, on the same thread, picks the value up by
/// the dialog's Call-ID.
enum ReferWatcher {
    /// The module, allocated once for the process: PJSIP keeps a pointer to it while an endpoint
    /// lives, and each engine run registers it with its new endpoint (as admission's module).
    /// A global because the module is C memory PJSIP holds across runs, not run state.
    nonisolated(unsafe) private static let module: UnsafeMutablePointer<pjsip_module> = {
        let module = UnsafeMutablePointer<pjsip_module>.allocate(capacity: 1)
        module.initialize(to: pjsip_module())
        let name = strdup("mod-swiftpjsua-refer-watcher")
        module.pointee.name = pj_str_t(ptr: name, slen: pj_ssize_t(strlen(name!)))
        module.pointee.id = -1
        module.pointee.priority = Int32(PJSIP_MOD_PRIORITY_UA_PROXY_LAYER.rawValue) - 1
        module.pointee.on_rx_request = onReferRequest
        return module
    }()

    /// Registers the module with the running engine's endpoint (after `pjsua_init`).
    static func install() throws(PJSUAError) {
        try check(pjsip_endpt_register_module(pjsua_get_pjsip_endpt(), module), "pjsip_endpt_register_module (REFER watcher)")
    }

    fileprivate static func remember(sipCallID: String, referredBy: String, in run: EngineRun) {
        run.withState { $0.lastReferredBy = (sipCallID, referredBy) }
    }

    /// The `Referred-By` of the last REFER received in the dialog with this Call-ID, taken.
    static func takeReferredBy(sipCallID: String, in run: EngineRun) -> String? {
        run.withState { state in
            guard let last = state.lastReferredBy, last.sipCallID == sipCallID else { return nil }
            state.lastReferredBy = nil
            return last.referredBy
        }
    }
}

private func onReferRequest(_ rdata: UnsafeMutablePointer<pjsip_rx_data>?) -> pj_bool_t {
    guard let rdata, let message = rdata.pointee.msg_info.msg, let callID = rdata.pointee.msg_info.cid,
          pjsip_method_cmp(&message.pointee.line.req.method, pjsip_get_refer_method()) == 0 else { return 0 }
    // `Referred-By`, or its compact form `b`.
    let header = "Referred-By".withCString { long in
        "b".withCString { short in
            var name = pj_str_t(ptr: UnsafeMutablePointer(mutating: long), slen: 11)
            var compact = pj_str_t(ptr: UnsafeMutablePointer(mutating: short), slen: 1)
            return pjsip_msg_find_hdr_by_names(message, &name, &compact, nil)
        }
    }
    guard let header, let run = EngineRun.current else { return 0 }
    let value = String(pj: UnsafeMutableRawPointer(header).assumingMemoryBound(to: pjsip_generic_string_hdr.self).pointee.hvalue)
    ReferWatcher.remember(sipCallID: String(pj: callID.pointee.id), referredBy: value, in: run)
    return 0
}

private func onTransferRequest(_ callID: pjsua_call_id, _ destination: UnsafePointer<pj_str_t>?,
                               _ code: UnsafeMutablePointer<pjsip_status_code>?, _ setting: UnsafeMutablePointer<pjsua_call_setting>?) {
    guard let destination, let code, let run = EngineRun.current else { return }
    let call = callHandle(callID)
    // Who asked: the REFER's Referred-By when it has one, else the party that sent it.
    let identity = withCallInfo(callID) { info in callIdentity(call, info, in: run) }
    let requester = identity.flatMap { ReferWatcher.takeReferredBy(sipCallID: $0.sipCallID, in: run) } ?? identity?.remote ?? ""
    let request = PJSUA.TransferRequest(call: call, target: String(pj: destination.pointee), requester: requester)
    let verdict = run.withState { $0.transferPolicy }.responseCode(for: request)
    let accepted = verdict.isSuccess
    code.pointee = pjsip_status_code(rawValue: UInt32(verdict.rawValue))
    // The new call is audio-only like every call the engine places.
    if accepted, let setting { setting.pointee = PJSUA.callSetting() }
    run.publish(.transferRequested(PJSUA.TransferDecision(request: request, isAccepted: accepted)))
    TransferContext.follow(accepted ? call : nil, in: run)
}

private func onTransferStatus(_ callID: pjsua_call_id, _ code: Int32, _ text: UnsafePointer<pj_str_t>?, _ final: pj_bool_t,
                              _ keepReporting: UnsafeMutablePointer<pj_bool_t>?) {
    guard let run = EngineRun.current else { return }
    let call = callHandle(callID)
    let status = PJSUA.SIPStatus(code: .init(rawValue: Int(code)), reason: text.map { String(pj: $0.pointee) } ?? "", in: run)
    let isFinal = final != 0
    run.publish(.transferStatus(PJSUA.TransferProgress(call: call, status: status, isFinal: isFinal)))
    // A NOTIFY with 2xx ends the transfer even when the subscription is still active (pjsua then
    // unsubscribes): the transferee is talking to the target, so our leg has done its work.
    guard (200..<300).contains(Int(code)) || isFinal else { return }
    if TransferContext.takeHangUpOnSuccess(call, in: run) && (200..<300).contains(Int(code)) {
        // What pjsua's own app does here: end the transferred call from inside the callback, on
        // pjsua's thread, and stop listening to the subscription.
        keepReporting?.pointee = 0
        pjsua_call_hangup(callID, 0, nil, nil)
    }
}

private func onReplaceRequest(_ callID: pjsua_call_id, _ rdata: UnsafeMutablePointer<pjsip_rx_data>?, _ code: UnsafeMutablePointer<Int32>?,
                              _ text: UnsafeMutablePointer<pj_str_t>?, _ setting: UnsafeMutablePointer<pjsua_call_setting>?) {
    guard let code else { return }
    if EngineRun.current?.acceptsReplaces ?? true {
        if let setting { setting.pointee = PJSUA.callSetting() }
    } else {
        // pjsua replaces the default reason ("OK") with the code's own text.
        code.pointee = 603
    }
}

private func onCallReplaced(_ oldCallID: pjsua_call_id, _ newCallID: pjsua_call_id) {
    let old = callHandle(oldCallID)
    // pjsua copied the replaced call's user data (our token) into the new call.
    let fresh = HandleToken.next()
    pjsua_call_set_user_data(newCallID, HandleToken.pointer(fresh))
    EngineRun.current?.publish(.callReplaced(call: old, newCall: PJSUA.Call(slot: newCallID, token: fresh)))
}
