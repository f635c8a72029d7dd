import Foundation
import PJSIP

// pjsua's instant-message callbacks (installed by `PJSUA.installCallbacks`). Like every
// callback, they read what pjsua hands them, publish an event and return.

/// An incoming MESSAGE (`on_pager2`), which pjsua has already answered with 200 OK.
func onPagerReceived(_ callID: pjsua_call_id, _ from: UnsafePointer<pj_str_t>?, _ to: UnsafePointer<pj_str_t>?,
                     _ contact: UnsafePointer<pj_str_t>?, _ mimeType: UnsafePointer<pj_str_t>?, _ body: UnsafePointer<pj_str_t>?,
                     _ rdata: UnsafeMutablePointer<pjsip_rx_data>?, _ accID: pjsua_acc_id) {
    let headers = rdata?.pointee.msg_info.msg.map(receivedHeaders) ?? []
    let bytes = body.flatMap { value -> Data? in
        guard let pointer = value.pointee.ptr, value.pointee.slen > 0 else { return nil }
        return Data(bytes: pointer, count: Int(value.pointee.slen))
    } ?? Data()
    // pjsua reduces the type to `type/subtype`; the header keeps its parameters (charset).
    let contentType = headers.value(named: "Content-Type") ?? mimeType.map { String(pj: $0.pointee) } ?? ""
    let contactURI = contact.map { String(pj: $0.pointee) } ?? ""
    let message = PJSUA.Message(
        call: callID == PJSUA_INVALID_ID.rawValue ? nil : callHandle(callID),
        account: accID == PJSUA_INVALID_ID.rawValue ? nil : accountHandle(accID),
        from: from.map { String(pj: $0.pointee) } ?? "", to: to.map { String(pj: $0.pointee) } ?? "",
        contact: contactURI.isEmpty ? nil : contactURI, contentType: contentType, body: bytes, headers: headers)
    let run = EngineRun.current
    // With a responder, pjsua left the answer to us (`auto_repond_sip_message` off) and made a
    // UAS transaction for it; it answers in-dialog messages itself (no transaction here).
    if callID == PJSUA_INVALID_ID.rawValue, let rdata, let transaction = pjsip_rdata_get_tsx(rdata),
       let responder = run?.messageResponder {
        let chosen = responder(message)
        let code = (200...699).contains(chosen.rawValue) ? chosen : .internalServerError
        pjsua_acc_send_response(accID, rdata, transaction, Int32(code.rawValue), nil, nil)
    }
    run?.publish(.message(message))
}

/// The final outcome of a MESSAGE we sent (`on_pager_status2`); `userData` carries its
/// ``PJSUA/MessageID``.
func onPagerStatus(_ callID: pjsua_call_id, _ to: UnsafePointer<pj_str_t>?, _ body: UnsafePointer<pj_str_t>?,
                   _ userData: UnsafeMutableRawPointer?, _ status: pjsip_status_code, _ reason: UnsafePointer<pj_str_t>?,
                   _ tdata: UnsafeMutablePointer<pjsip_tx_data>?, _ rdata: UnsafeMutablePointer<pjsip_rx_data>?, _ accID: pjsua_acc_id) {
    let token = HandleToken.token(userData)
    // Every MESSAGE the engine sends carries its identifier; there are no others.
    guard token != 0, let run = EngineRun.current else { return }
    let result = PJSUA.MessageStatus(
        id: PJSUA.MessageID(rawValue: token), call: existingCallHandle(callID), to: to.map { String(pj: $0.pointee) } ?? "",
        status: PJSUA.SIPStatus(code: .init(status), reason: reason.map { String(pj: $0.pointee) } ?? "", in: run))
    run.publish(.messageStatus(result))
}
