import CPJSUASupport
import Foundation
import PJSIP

/// The table of pjsua's callbacks: each capability's live in its folder (Calls/CallCallbacks,
/// Accounts/RegistrationCallbacks, Calls/IPChangeCallbacks, Calls/RedirectCallbacks,
/// DTMF/DTMFCallbacks, Messaging/MessageCallbacks, Presence/PresenceCallbacks,
/// Security/TransportCallbacks, Calls/TransferCallbacks, Accounts/CredentialRequests); the log's
/// is here. Every one is a free function (a C function pointer) that holds no reference to the
/// `PJSUA` actor, never re-enters it and never blocks: it reads pjsua's state, publishes an
/// event to the current run (``EngineRun/current``) and returns.
extension PJSUA {
    /// Installs the callbacks into a pjsua configuration.
    func installCallbacks(into config: inout pjsua_config, logging: inout pjsua_logging_config) {
        config.cb.on_incoming_call = onIncomingCall
        config.cb.on_call_state = onCallState
        config.cb.on_call_media_state = onCallMediaState
        config.cb.on_reg_state2 = onRegState
        TransferContext.install(into: &config)
        config.cb.on_ip_change_progress = onIPChangeProgress
        config.cb.on_pager2 = onPagerReceived
        config.cb.on_pager_status2 = onPagerStatus
        config.cb.on_transport_state = onTransportState
        config.cb.on_dtmf_event = onDTMFEvent
        config.cb.on_call_redirected = onCallRedirected
        // Every call's media transport gets a tap (MediaTap.c): media streams pass the caller's
        // RTP through to their agent from it.
        withUnsafeMutablePointer(to: &config) { cpjsua_media_tap_install($0) }
        // Every call's audio stream port gets a paced wrapper (MediaPace.c): media streams send
        // their agent's audio into the call through it as it arrives.
        withUnsafeMutablePointer(to: &config) { cpjsua_media_pace_install($0) }
        CredentialRequests.install(into: &config)
        Self.installPresenceCallbacks(into: &config)
        logging.cb = onLog
    }
}

private func onLog(_ level: Int32, _ data: UnsafePointer<CChar>?, _ length: Int32) {
    guard let data, length > 0 else { return }
    var message = String(decoding: UnsafeRawBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    while message.hasSuffix("\n") { message.removeLast() }
    EngineRun.current?.log(level: Int(level), message: message)
}
