# KL-53.2: a 2xx to our INVITE whose target cannot be reached aborted the process (not fixed
# upstream). The dialog takes the 2xx's Contact as its target and its Record-Route as its route
# set; when either is not a SIP URI (a tel: Contact, say), the ACK cannot be sent and sip_inv.c
# inv_send_ack stops on pj_assert(!"Unable to send ACK!"): any callee or proxy answering our call.
# An ACK that cannot be sent means the call cannot go on (a BYE could not be sent either, RFC 3261
# 13.2.2.4's ACK-then-BYE is out of reach): end the session here, as its callers end it for a
# failed final response (cause 502, the answer was unusable). A session already confirmed (a
# re-INVITE's 2xx) or ended keeps its state, as before, without the assert.
# Test: Tests/SwiftPJSUATests/Security/FuzzFindingTests.swift and the seed Fuzz/corpus/sip_endpoint/kl53-2xx-contact-tel.
KL53_2_FILE="$SRC/pjsip/src/pjsip-ua/sip_inv.c"
if ! upstream_has KL-53.2 "$KL53_2_FILE" 'PJSIP_SC_BAD_GATEWAY, NULL);  /* unusable 2xx */'; then
    hunk KL-53.2 "$KL53_2_FILE" replace '        pj_assert(!"Unable to send ACK!");' \
'        /* swift-pjsua: KL-53.2, a peer'"'"'s unroutable 2xx, not a bug: end the call, no assert */
        PJ_PERROR(2, (inv->obj_name, status, "Unable to send ACK, ending the session"));
        if (inv->state < PJSIP_INV_STATE_CONFIRMED) {
            inv_set_cause(inv, PJSIP_SC_BAD_GATEWAY, NULL);
            inv_set_state(inv, PJSIP_INV_STATE_DISCONNECTED, e);
        }'
    applied KL-53.2
fi
