import CPJSUASupport
import PJSIP

extension PJSUA {
    /// Decides a redirect held by ``RedirectPolicy/ask``: `follow: true` re-sends the INVITE to
    /// the target the ``Event/redirected(_:)`` event named; otherwise the target is rejected and the next one (if the 3xx named several) is reported, or the call
    /// ends (pjsip gives it 487 Request Terminated as its last status).
    ///
    /// Drives `pjsua_call_process_redirect()` with `PJSIP_REDIRECT_ACCEPT` or `PJSIP_REDIRECT_REJECT`.
    public func decideRedirect(_ call: Call, follow: Bool) throws {
        let slot = try resolve(call)
        let status = pjsua_call_process_redirect(slot, follow ? PJSIP_REDIRECT_ACCEPT : PJSIP_REDIRECT_REJECT)
        // Refusing the last target ends the session, which pjsip reports as ESESSIONTERMINATED.
        guard status == pjSuccess || (!follow && status == cpjsua_status_sip_esessionterminated) else {
            throw PJSUAError(status: status, operation: "cannot \(follow ? "follow" : "refuse") the redirect of \(call)")
        }
    }
}
