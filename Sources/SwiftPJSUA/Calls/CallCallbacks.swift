import CPJSUASupport
import Foundation
import PJSIP

// pjsua's call callbacks (`on_incoming_call`, `on_call_state`, `on_call_media_state`). The
// table that installs them, and what every callback may and may not do, are in
// Engine/Callbacks.swift.

/// A call's identity as its INVITE carried it: `pjsua_call_info` keeps only 127 characters of a
/// Call-ID (`call_id[128]`) and prints a From longer than `PJSIP_MAX_URL_SIZE` (256) as
/// "<-error: uri too long->", so incoming calls' are read from the INVITE itself and kept in the
/// call's record.
struct InviteIdentity {
    let sipCallID: String
    let remote: String
}

func onIncomingCall(_ accID: pjsua_acc_id, _ callID: pjsua_call_id, _ rdata: UnsafeMutablePointer<pjsip_rx_data>?) {
    guard let run = EngineRun.current else { return }
    let call = callHandle(callID)
    if let whole = rdata.flatMap(identity(of:)) { run.withCall(call) { $0.identity = whole } }
    let headers = rdata?.pointee.msg_info.msg.map(receivedHeaders) ?? []
    run.withState { $0.inviteHeaders[callID] = (call.token, headers) }
    let event = withCallInfo(callID) { info in
        let identity = callIdentity(call, info, in: run)
        return PJSUA.Event.incomingCall(account: accountHandle(accID), call: call, sipCallID: identity.sipCallID,
                                        from: identity.remote, offeredVideo: info.pointee.rem_vid_cnt > 0)
    }
    if let event { run.publish(event) }
    // Configuration.autoAnswerCode: answered here, on pjsua's thread, after the event (so that
    // subscribers see the call before its state changes). pjsua's own app answers the same way.
    if let code = run.autoAnswerCode {
        if code.isError {
            pjsua_call_hangup(callID, UInt32(code.rawValue), nil, nil)
        } else {
            var setting = PJSUA.callSetting()
            pjsua_call_answer2(callID, &setting, UInt32(code.rawValue), nil, nil)
        }
    }
}

/// The Call-ID and remote party of `call`: whole from its INVITE when it came in, otherwise
/// pjsua's (for our own calls, whose Call-ID pjsua made and whose remote URI we validated).
func callIdentity(_ call: PJSUA.Call, _ info: UnsafePointer<pjsua_call_info>, in run: EngineRun?) -> InviteIdentity {
    (run?.record(of: call) { $0.identity } ?? nil)
        ?? InviteIdentity(sipCallID: String(pj: info.pointee.call_id), remote: String(pj: info.pointee.remote_info))
}

/// The Call-ID and the printed From header URI of an INVITE, whole.
private func identity(of rdata: UnsafeMutablePointer<pjsip_rx_data>) -> InviteIdentity? {
    guard let callID = rdata.pointee.msg_info.cid, let from = rdata.pointee.msg_info.from else { return nil }
    // A From that fit the received message prints within PJSIP_MAX_PKT_LEN (16000 on Linux and
    // in the iOS binary); pjsua's own copy cuts longer ones to 256 characters.
    // The buffer is not zeroed first (pjsip_uri_print writes what it returns): every incoming
    // call prints one.
    let remote = withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(cpjsua_max_pkt_len) + 1) { out -> String? in
        let length = pjsip_uri_print(PJSIP_URI_IN_FROMTO_HDR, UnsafeRawPointer(from.pointee.uri), out.baseAddress, out.count - 1)
        guard length > 0, length < out.count else { return nil }
        return String(decoding: UnsafeRawBufferPointer(out).prefix(Int(length)), as: UTF8.self)
    }
    guard let remote else { return nil }
    return InviteIdentity(sipCallID: String(pj: callID.pointee.id), remote: remote)
}

func onCallState(_ callID: pjsua_call_id, _ event: UnsafeMutablePointer<pjsip_event>?) {
    guard let run = EngineRun.current else { return }
    TransferContext.adoptReferredCall(callID, in: run)
    let call = callHandle(callID)
    let published = withCallInfo(callID) { info in
        PJSUA.Event.callState(
            call: call, state: PJSUA.CallState(info.pointee.state), sipCallID: callIdentity(call, info, in: run).sipCallID,
            lastStatus: PJSUA.SIPStatus(code: .init(info.pointee.last_status), reason: String(pj: info.pointee.last_status_text), in: run))
    }
    guard let published else { return }
    if case .callState(_, .disconnected, _, _) = published {
        run.endCall(call)
    }
    run.publish(published)
}

func onCallMediaState(_ callID: pjsua_call_id) {
    let call = callHandle(callID)
    let read = withCallInfo(callID) { info in
        (event: PJSUA.Event.callMedia(call: call, state: PJSUA.MediaState(info.pointee.media_status), hasVideo: hasActiveVideo(info)),
         hasVideoMedia: !media(PJMEDIA_TYPE_VIDEO, of: info).isEmpty)
    }
    guard let (published, hasVideoMedia) = read else { return }
    // The one pjsua call made here: a video the app asked not to send at once is stopped before
    // pjsua's delayed start of encoding (see VideoWiring).
    guard let run = EngineRun.current else { return }
    VideoWiring.holdBackTransmission(of: call, in: run)
    run.scheduleRewire(call)
    run.publish(published)
    // Calls that never had a video stream publish no video event (and read pjsua's call info
    // once: this callback runs in every call's setup).
    guard hasVideoMedia else { return }
    let streams = withCallInfo(callID) { info in readVideoStreams(callID, info) } ?? []
    if !streams.isEmpty {
        DelayedVideoStarts.noteVideoMediaUpdate(in: run)
        run.publish(.videoMedia(call: call, streams: streams))
    }
}
