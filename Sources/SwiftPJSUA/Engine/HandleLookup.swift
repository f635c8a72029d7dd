import PJSIP

// From pjsua slots to handles and back: the tokens in the slots' user data tell calls and
// accounts that reuse a slot apart.

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

/// The handle of the call in `slot` if the slot still holds a call with a token; unlike
/// `callHandle`, never gives a token to a slot (a status can arrive after its call ended).
func existingCallHandle(_ slot: pjsua_call_id) -> PJSUA.Call? {
    guard slot >= 0, slot < pjsua_call_get_max_count() else { return nil }
    let token = HandleToken.token(pjsua_call_get_user_data(slot))
    return token == 0 ? nil : PJSUA.Call(slot: slot, token: token)
}

/// Whether `call` is still the call pjsua holds in its slot (pjsua reuses slots; the token in
/// the slot's user data tells calls apart).
func isLive(_ call: PJSUA.Call) -> Bool {
    call.slot >= 0 && call.slot < Int32(pjsua_call_get_max_count()) && pjsua_call_is_active(call.slot) != 0
        && HandleToken.token(pjsua_call_get_user_data(call.slot)) == call.token
}
