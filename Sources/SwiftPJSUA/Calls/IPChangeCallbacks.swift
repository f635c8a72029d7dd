import PJSIP

// pjsua's IP change callback (`on_ip_change_progress`). The table that installs it, and what
// every callback may and may not do, are in Engine/Callbacks.swift.

func onIPChangeProgress(_ operation: pjsua_ip_change_op, _ status: pj_status_t,
                                _ info: UnsafePointer<pjsua_ip_change_op_info>?) {
    let step: PJSUA.IPChangeStep
    switch operation {
    case PJSUA_IP_CHANGE_OP_SHUTDOWN_TP: step = .transportsShutDown
    case PJSUA_IP_CHANGE_OP_RESTART_LIS: step = .listenerRestarted
    case PJSUA_IP_CHANGE_OP_ACC_SHUTDOWN_TP:
        guard let info else { return }
        step = .accountTransportShutDown(account: accountHandle(info.pointee.acc_shutdown_tp.acc_id))
    case PJSUA_IP_CHANGE_OP_ACC_UPDATE_CONTACT:
        guard let info else { return }
        step = .accountContactUpdated(account: accountHandle(info.pointee.acc_update_contact.acc_id))
    case PJSUA_IP_CHANGE_OP_ACC_HANGUP_CALLS:
        guard let info else { return }
        let ids = info.pointee.acc_hangup_calls
        step = .callHungUp(account: accountHandle(ids.acc_id), call: callHandle(ids.call_id))
    case PJSUA_IP_CHANGE_OP_ACC_REINVITE_CALLS:
        guard let info else { return }
        let ids = info.pointee.acc_reinvite_calls
        step = .callReinvited(account: accountHandle(ids.acc_id), call: callHandle(ids.call_id))
    case PJSUA_IP_CHANGE_OP_COMPLETED: step = .completed
    default: return
    }
    let error = status == pjSuccess ? nil : PJSUAError(status: status, operation: "IP change (\(step))")
    EngineRun.current?.publish(.ipChange(step: step, error: error))
}
