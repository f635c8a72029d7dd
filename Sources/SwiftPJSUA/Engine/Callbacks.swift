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
        CredentialRequests.install(into: &config)
        Self.installPresenceCallbacks(into: &config)
        logging.cb = onLog
    }
}

extension PJSUA {
    /// Installs the configuration's media hooks after the engine's callbacks: a hook that
    /// replaced one of the engine's is refused (the run would lose events).
    static func installMediaHooks(_ hooks: [MediaHooks], into config: inout pjsua_config) throws(PJSUAError) {
        for hook in hooks {
            let before = callbackWords(config.cb)
            hook.install(&config)
            let after = callbackWords(config.cb)
            guard zip(before, after).allSatisfy({ $0 == 0 || $0 == $1 }) else {
                throw PJSUAError(.invalidArgument, "the media hooks \(Validation.quoted(hook.name)) replace a callback the engine installs")
            }
        }
    }

    /// pjsua's callback table as words: it holds function pointers only.
    private static func callbackWords(_ callbacks: pjsua_callback) -> [UInt] {
        withUnsafeBytes(of: callbacks) { bytes in
            (0..<bytes.count / MemoryLayout<UInt>.size).map { bytes.loadUnaligned(fromByteOffset: $0 * MemoryLayout<UInt>.size, as: UInt.self) }
        }
    }
}

private func onLog(_ level: Int32, _ data: UnsafePointer<CChar>?, _ length: Int32) {
    guard let data, length > 0 else { return }
    var message = String(decoding: UnsafeRawBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    while message.hasSuffix("\n") { message.removeLast() }
    EngineRun.current?.log(level: Int(level), message: message)
}
