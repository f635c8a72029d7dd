import PJSIP

// The table that installs it, and what every callback may and may not do, are in
// Engine/Callbacks.swift.

/// `on_call_redirected`: reports the target and answers with the configured policy.
func onCallRedirected(_ callID: pjsua_call_id, _ target: UnsafePointer<pjsip_uri>?, _ event: UnsafePointer<pjsip_event>?) -> pjsip_redirect_op {
    let run = EngineRun.current
    let policy = run?.redirectPolicy ?? .follow
    var status = PJSUA.SIPStatus(code: 0, reason: "")
    if let event, event.pointee.type == PJSIP_EVENT_TSX_STATE, let transaction = event.pointee.body.tsx_state.tsx {
        status = PJSUA.SIPStatus(code: .init(rawValue: Int(transaction.pointee.status_code)), reason: String(pj: transaction.pointee.status_text), in: run)
    }
    var uri = ""
    if let target {
        var buffer = [CChar](repeating: 0, count: 1024)
        let length = buffer.withUnsafeMutableBufferPointer { out in
            pjsip_uri_print(PJSIP_URI_IN_CONTACT_HDR, UnsafeRawPointer(target), out.baseAddress, out.count - 1)
        }
        if length > 0 {
            uri = buffer.withUnsafeBufferPointer { raw in
                String(decoding: UnsafeRawBufferPointer(raw).prefix(Int(length)), as: UTF8.self)
            }
        }
    }
    run?.publish(.redirected(PJSUA.Redirect(call: callHandle(callID), target: uri, status: status, isFollowed: policy == .follow)))
    switch policy {
    case .follow: return PJSIP_REDIRECT_ACCEPT
    // REJECT rather than STOP: pjsip_inv_process_redirect ends a STOPped call with 487 Request
    // Terminated, while rejecting every target (each reported) lets it end with the 3xx itself.
    case .report: return PJSIP_REDIRECT_REJECT
    case .ask: return PJSIP_REDIRECT_PENDING
    }
}
