# KL-57.14: a call could take up a capture window that another thread was freeing (upstream
# dad6e1d0d, #5002, 2026-06-04, not an advisory; after our base).
# pjsua shares a capture device among its video calls through one window of the preview type,
# found by device (vid_preview_get_win) and counted. When the last call using it lets go (a
# hang-up, a STOP_TRANSMIT, a capture-device change), free_vid_win lets PJSUA_LOCK go while it
# removes the capture port from the video conference and stops and destroys it, and resets the
# slot only once it has the lock back. In between the window is still the device preview: a
# thread taking up the capture for a call (setup_vid_capture: a new video call or a re-INVITE on
# the worker, a START_TRANSMIT; a capture-device change) finds it, connects the call encoder to the
# port being destroyed and counts the window; the reset then leaves the call with the id of a freed
# window (no more video; at its hang-up dec_vid_win fails pj_assert(type != NONE), an abort in our
# builds, or, once the slot is reused, frees another call window under it).
# free_vid_win now takes the window off its device (preview_cap_id = invalid) under PJSUA_LOCK
# before letting the lock go, and vid_preview_get_win never matches the invalid device, so a call
# taking up the capture meanwhile creates a window of its own (the slot stays taken by its type
# until the reset). Upstream adds an is_destroying flag to pjsua_vid_win instead (and guards
# inc/dec and other readers); this keeps the struct layout. Lock order: free_vid_win callers hold
# the call dialog lock and PJSUA_LOCK (recursive) or nothing (pjsua_vid_subsys_destroy); no other
# lock is taken. A second capture stream on the device while the first is being destroyed: the
# colour bars allow any number; a V4L2 camera refuses the second format set (EBUSY) until the
# first descriptor closes, so that take-up fails cleanly (no video sent) instead.
# Test: Security/UpstreamFixTests (VideoCaptureWindowTests runs
# Tests/Peers/probes/vid_capture_window.c, which holds free_vid_win inside the window and starts
# another call sending there: that call counted the window being freed before the patch).
KL57_14_FILE="$SRC/pjsip/src/pjsua-lib/pjsua_vid.c"
if ! upstream_has KL-57.14 "$KL57_14_FILE" 'w->is_destroying = PJ_TRUE;'; then
    hunk KL-57.14 "$KL57_14_FILE" replace \
'        if (w->type == PJSUA_WND_TYPE_PREVIEW && w->preview_cap_id == id) {' \
'        /* swift-pjsua: KL-57.14, a window being freed has no device */
        if (w->type == PJSUA_WND_TYPE_PREVIEW && w->preview_cap_id == id &&
            id != PJMEDIA_VID_INVALID_DEV)
        {'
    hunk KL-57.14 "$KL57_14_FILE" before \
'    /* Release locks before unsubscribing/destroying, to avoid deadlock. */' \
'    /* swift-pjsua: KL-57.14, take the window off its device before the lock
     * is let go: vid_preview_get_win then no longer finds it, so no call
     * takes it up and counts it while its ports are destroyed (a call taking
     * up the capture meanwhile creates a window of its own). The slot stays
     * taken (its type) until pjsua_vid_win_reset below.
     */
    PJSUA_LOCK();
    w->preview_cap_id = PJMEDIA_VID_INVALID_DEV;
    PJSUA_UNLOCK();
'
    applied KL-57.14
fi
