import Foundation
import PJSIP

/// What pjsua's C callbacks may reach: the event hub of the running engine and the log handler.
///
/// pjsua is a process-wide singleton, so this is too. The callbacks below are file-private free
/// functions (C function pointers) that hold no reference to the `PJSUA` actor, never re-enter
/// it and never block: they read pjsua's state, publish an event and return.
enum CallbackContext {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var hub: EventHub?  // guarded by `lock`
    nonisolated(unsafe) private static var logHandler: PJSUA.LogHandler?  // guarded by `lock`
    nonisolated(unsafe) private static var muted: Set<PJSUA.Call> = []  // guarded by `lock`

    static func activate(hub: EventHub, logHandler: PJSUA.LogHandler?) {
        lock.lock()
        defer { lock.unlock() }
        self.hub = hub
        self.logHandler = logHandler
    }

    static func deactivate() {
        lock.lock()
        defer { lock.unlock() }
        hub = nil
        logHandler = nil
        muted = []
    }

    /// Calls whose microphone path (sound device -> call) stays disconnected; read by the media
    /// callback, which rewires calls whenever their media changes.
    static func setMuted(_ call: PJSUA.Call, _ isMuted: Bool) {
        lock.lock()
        defer { lock.unlock() }
        if isMuted { muted.insert(call) } else { muted.remove(call) }
    }

    static func isMuted(_ call: PJSUA.Call) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return muted.contains(call)
    }

    static func publish(_ event: PJSUA.Event) {
        lock.lock()
        let hub = self.hub
        lock.unlock()
        hub?.publish(event)
    }

    static func log(level: Int, message: String) {
        lock.lock()
        let handler = logHandler
        lock.unlock()
        handler?(PJSUA.LogLevel(rawValue: level) ?? .trace, message)
    }

    /// Installs the callbacks into a pjsua configuration.
    static func install(into config: inout pjsua_config, logging: inout pjsua_logging_config) {
        config.cb.on_incoming_call = onIncomingCall
        config.cb.on_call_state = onCallState
        config.cb.on_call_media_state = onCallMediaState
        config.cb.on_reg_state2 = onRegState
        config.cb.on_dtmf_digit2 = onDTMFDigit
        logging.cb = onLog
    }
}

/// The handle of the call in `slot`, giving the slot a fresh token if it has none yet.
///
/// Outgoing calls carry their token from `pjsua_call_make_call`; incoming ones get it here on
/// first sight. pjsua clears the user data when it frees the slot.
func callHandle(_ slot: pjsua_call_id) -> PJSUA.Call {
    var token = HandleToken.token(pjsua_call_get_user_data(slot))
    if token == 0 {
        token = HandleToken.next()
        pjsua_call_set_user_data(slot, HandleToken.pointer(token))
    }
    return PJSUA.Call(slot: slot, token: token)
}

func accountHandle(_ slot: pjsua_acc_id) -> PJSUA.Account {
    PJSUA.Account(slot: slot, token: HandleToken.token(pjsua_acc_get_user_data(slot)))
}

/// A call's media of one type (`pjsua_call_info.media`, a fixed C array), with their indices.
func media(_ type: pjmedia_type, of info: pjsua_call_info) -> [(index: Int, media: pjsua_call_media_info)] {
    withUnsafeBytes(of: info.media) { raw in
        let media = raw.bindMemory(to: pjsua_call_media_info.self)
        return (0..<min(Int(info.media_cnt), media.count))
            .filter { media[$0].type == type }
            .map { ($0, media[$0]) }
    }
}

/// A call's audio media, with their indices.
func audioMedia(_ info: pjsua_call_info) -> [(index: Int, media: pjsua_call_media_info)] {
    media(PJMEDIA_TYPE_AUDIO, of: info)
}

/// Whether a call has an active video stream.
func hasActiveVideo(_ info: pjsua_call_info) -> Bool {
    media(PJMEDIA_TYPE_VIDEO, of: info).contains { $0.media.status == PJSUA_CALL_MEDIA_ACTIVE && $0.media.dir != PJMEDIA_DIR_NONE }
}

/// The audio conference slots of a call whose audio is flowing (active or held by the peer).
func activeAudioSlots(_ info: pjsua_call_info) -> [pjsua_conf_port_id] {
    audioMedia(info).compactMap { item in
        let flowing = item.media.status == PJSUA_CALL_MEDIA_ACTIVE || item.media.status == PJSUA_CALL_MEDIA_REMOTE_HOLD
        let slot = item.media.stream.aud.conf_slot
        return flowing && slot != PJSUA_INVALID_ID.rawValue ? slot : nil
    }
}

/// Wires a call's active audio to the conference bridge's slot 0 (the sound device, or nothing
/// until the app activates one: the engine never opens a device on its own): both ways, or only
/// speaker-wards when the call is muted.
func connectToSoundDevice(_ call: PJSUA.Call, _ info: pjsua_call_info) {
    let muted = CallbackContext.isMuted(call)
    for slot in activeAudioSlots(info) {
        pjsua_conf_connect(slot, 0)
        if muted {
            pjsua_conf_disconnect(0, slot)
        } else {
            pjsua_conf_connect(0, slot)
        }
    }
}

private func onIncomingCall(_ accID: pjsua_acc_id, _ callID: pjsua_call_id, _ rdata: UnsafeMutablePointer<pjsip_rx_data>?) {
    let call = callHandle(callID)
    var info = pjsua_call_info()
    guard pjsua_call_get_info(callID, &info) == pjSuccess else { return }
    CallbackContext.publish(.incomingCall(
        account: accountHandle(accID), call: call, sipCallID: String(pj: info.call_id),
        from: String(pj: info.remote_info), offeredVideo: info.rem_vid_cnt > 0))
}

private func onCallState(_ callID: pjsua_call_id, _ event: UnsafeMutablePointer<pjsip_event>?) {
    let call = callHandle(callID)
    var info = pjsua_call_info()
    guard pjsua_call_get_info(callID, &info) == pjSuccess else { return }
    if info.state == PJSIP_INV_STATE_DISCONNECTED { CallbackContext.setMuted(call, false) }
    CallbackContext.publish(.callState(
        call: call, state: PJSUA.CallState(info.state), sipCallID: String(pj: info.call_id),
        lastStatus: PJSUA.SIPStatus(code: Int(info.last_status.rawValue), reason: String(pj: info.last_status_text))))
}

private func onCallMediaState(_ callID: pjsua_call_id) {
    let call = callHandle(callID)
    var info = pjsua_call_info()
    guard pjsua_call_get_info(callID, &info) == pjSuccess else { return }
    connectToSoundDevice(call, info)
    CallbackContext.publish(.callMedia(call: call, state: PJSUA.MediaState(info.media_status), hasVideo: hasActiveVideo(info)))
}

private func onRegState(_ accID: pjsua_acc_id, _ info: UnsafeMutablePointer<pjsua_reg_info>?) {
    guard let info, let param = info.pointee.cbparam?.pointee else { return }
    let state = PJSUA.RegistrationState(
        status: PJSUA.SIPStatus(code: Int(param.code), reason: String(pj: param.reason)),
        expires: Int(param.expiration == UInt32.max ? 0 : param.expiration),
        isUnregistration: info.pointee.renew == 0,
        transportStatus: param.status)
    CallbackContext.publish(.registration(account: accountHandle(accID), state: state))
}

private func onDTMFDigit(_ callID: pjsua_call_id, _ info: UnsafePointer<pjsua_dtmf_info>?) {
    guard let info else { return }
    let scalar = Unicode.Scalar(UInt8(truncatingIfNeeded: info.pointee.digit))
    CallbackContext.publish(.dtmf(call: callHandle(callID), digit: Character(scalar)))
}

private func onLog(_ level: Int32, _ data: UnsafePointer<CChar>?, _ length: Int32) {
    guard let data, length > 0 else { return }
    var message = String(decoding: UnsafeRawBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    while message.hasSuffix("\n") { message.removeLast() }
    CallbackContext.log(level: Int(level), message: message)
}
