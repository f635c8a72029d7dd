import PJSIP

extension PJSUA {
    /// The pjsua slot of a live call, or a typed error for a stale or unknown handle.
    func resolve(_ call: Call) throws(PJSUAError) -> pjsua_call_id {
        try requireRunning()
        guard isLive(call) else {
            throw PJSUAError(.staleHandle, "\(call) is not a live call (it ended, or belongs to an earlier engine run)")
        }
        return call.slot
    }

    /// The pjsua slot of a live account, or a typed error for a stale or unknown handle.
    func resolve(_ account: Account) throws(PJSUAError) -> pjsua_acc_id {
        try requireRunning()
        guard account.slot >= 0, account.slot < Int32(PJSUA.maxAccountsLimit), pjsua_acc_is_valid(account.slot) != 0,
              HandleToken.token(pjsua_acc_get_user_data(account.slot)) == account.token
        else {
            throw PJSUAError(.staleHandle, "\(account) is not a live account (removed, or from an earlier engine run)")
        }
        return account.slot
    }

    /// The slot of `account` (callers pass `account ?? defaultAccount`: nil means no account was
    /// given and the local account was removed).
    func resolve(_ account: Account?) throws(PJSUAError) -> pjsua_acc_id {
        guard let account else {
            try requireRunning()
            throw PJSUAError(.invalidArgument, "no account given and the local account was removed")
        }
        return try resolve(account)
    }
}
