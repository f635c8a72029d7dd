# KL-57.7: pjsip_endpt_send_request worked on a transaction it held no reference to (upstream
# 2da6cf3e3, #5164, 2026-08-10, not an advisory; after our base). When the send fails at once (an
# address the socket refuses, no transport to it), the transaction ends inside pjsip_tsx_send_msg,
# which arms its 0 ms destroy timer and releases its lock; the caller then read its status code and
# terminated it. A thread polling the timers in between (pjsua's SIP worker, while the engine sends
# a MESSAGE, a REGISTER or another request from its own thread) destroys it first: the caller reads
# and locks freed memory. The caller now holds a reference from before the send until it is done.
# (pjsip_endpt_respond has the same shape, but answers are sent by the worker that polls the
# timers, the only one with the engine's one worker: not patched, not reachable here.)
# Test: Engine/ClosedSocketSendTests (Tests/Peers/probes/send_failure_tsx.c holds the window open:
# the transaction's pool was released inside it before the patch).
KL57_7_FILE="$SRC/pjsip/src/pjsip/sip_util_statefull.c"
if ! upstream_has KL-57.7 "$KL57_7_FILE" 'pj_grp_lock_add_ref(tsx->grp_lock);'; then
    hunk KL-57.7 "$KL57_7_FILE" replace '    status = pjsip_tsx_send_msg(tsx, NULL);' \
'    /* swift-pjsua: KL-57.7, the transaction is kept until its sender has terminated it */
    pj_grp_lock_add_ref(tsx->grp_lock);
    status = pjsip_tsx_send_msg(tsx, NULL);
    if (status != PJ_SUCCESS) {
        pjsip_tx_data_dec_ref(tdata);
        pjsip_tsx_terminate(tsx, tsx->status_code? tsx->status_code:
                            PJSIP_SC_SERVICE_UNAVAILABLE);
        pj_grp_lock_dec_ref(tsx->grp_lock);
        return status;
    }
    pj_grp_lock_dec_ref(tsx->grp_lock);'
    applied KL-57.7
fi
