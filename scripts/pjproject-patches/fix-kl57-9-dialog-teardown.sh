# KL-57.9: two threads could both destroy one dialog (upstream 18e80e398, #5101, 2026-07-21, not an
# advisory; after our base). When pjsip_dlg_dec_lock drops the last session with no transaction
# left, it releases the dialog's group lock and takes it again before unregistering and destroying
# the dialog. The dialog is still in the user agent's table in between, and its counts are zero: a
# thread that locks it there (the worker's mod_ua on an in-dialog request or response, a
# transaction's state callback, or the engine's own thread sending in the dialog or hanging up
# while the worker lets go of it) also counts down to zero and destroys it, and the first thread
# then re-locks and destroys freed memory (a double unregister, a double pool release).
# The first thread now holds a session count of its own across the release and re-acquire (so no
# other thread sees zero there), drops it once it has the lock back, and destroys the dialog only
# if the counts are still zero; otherwise it unlocks and leaves the teardown to the thread that
# took the dialog (upstream adds a `destroying` flag to pjsip_dialog instead; this keeps the
# struct's layout).
# Test: Security/UpstreamFixTests (DialogTeardownTests runs Tests/Peers/probes/dialog_dec_lock.c,
# which holds the window open and locks the dialog inside it: that thread destroyed the dialog
# before the patch).
KL57_9_FILE="$SRC/pjsip/src/pjsip/sip_dialog.c"
if ! upstream_has KL-57.9 "$KL57_9_FILE" 'dlg->destroying = PJ_TRUE;'; then
    hunk KL-57.9 "$KL57_9_FILE" after '    if (dlg->sess_count==0 && dlg->tsx_count==0) {' \
'        /* swift-pjsua: KL-57.9, keep a count while the lock is let go, so
         * that a thread locking the dialog meanwhile does not destroy it.
         */
        ++dlg->sess_count;'
    hunk KL-57.9 "$KL57_9_FILE" replace '        unregister_and_destroy_dialog(dlg, PJ_TRUE);' \
'        /* swift-pjsua: KL-57.9, destroy it only if nobody took it meanwhile */
        --dlg->sess_count;
        if (dlg->sess_count==0 && dlg->tsx_count==0)
            unregister_and_destroy_dialog(dlg, PJ_TRUE);
        else
            pj_grp_lock_release(dlg->grp_lock_);'
    applied KL-57.9
fi
