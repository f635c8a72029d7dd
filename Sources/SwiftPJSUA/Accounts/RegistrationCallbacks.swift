import PJSIP

// pjsua's registration callback (`on_reg_state2`). The table that installs it, and what every
// callback may and may not do, are in Engine/Callbacks.swift.

func onRegState(_ accID: pjsua_acc_id, _ info: UnsafeMutablePointer<pjsua_reg_info>?) {
    guard let info, let param = info.pointee.cbparam?.pointee, let run = EngineRun.current else { return }
    var state = PJSUA.RegistrationState(
        status: PJSUA.SIPStatus(code: .init(rawValue: Int(param.code)), reason: String(pj: param.reason), in: run),
        expires: .seconds(param.expiration == UInt32.max ? 0 : Int(param.expiration)),
        isUnregistration: info.pointee.renew == 0,
        transportStatus: param.status)
    state.certificateError = CertificateRefusals.error(status: param.status, code: state.status.code, reason: state.status.reason, in: run)
    run.publish(.registration(account: accountHandle(accID), state: state))
}
