# KL-59: a second stop of a call's video transmission aborted the process while another call shared
# its capture device (not fixed upstream: master b7317ffca, 2026-08-20, has the same code; a
# pjproject upgrade reviews this, the build stops if the anchor moved).
# pjsua_call_set_vid_strm(PJSUA_CALL_VID_STRM_STOP_TRANSMIT) runs call_set_tx_video, which pauses
# the call's encoding and then looks up the capture window to let go of by the call's capture
# DEVICE (vid_preview_get_win(cap_dev)), not by the window the call holds (cap_win_id), and lets go
# of it: unsubscribes, disconnects, dec_vid_win(cap_win_id), cap_win_id = -1. On a call already
# stopped (cap_win_id -1) whose device's window another call (or a preview) keeps alive, it finds
# that window again and runs dec_vid_win(-1): pj_assert(wid >= 0) aborts our builds (no NDEBUG).
# Reached by an app stopping a call's video twice with two video calls on one camera, and by the
# engine's own pair of stops (VideoWiring holdBack on the worker, then apply) in that setting.
# The stop now takes the call's own window, cap_win_id: nothing is unsubscribed, disconnected or
# released when the call holds none; the encoding is still paused either way. cap_win_id is also
# the right window when the call holds one: it is the window this call took a count on and
# connected to its encoding port (setup_vid_capture, call_change_cap_dev), which the device
# lookup can miss after a CHANGE_CAP_DEV by fast switching (PJMEDIA_VID_DEV_CAP_SWITCH: Darwin,
# Android) on another call sharing the window (the window moves to the new device, this call's
# cap_dev does not), so the stop found no window (the count and the connection stayed) or another
# window of the old device (disconnected and unsubscribed from the wrong one, released its own).
# pjsua_vid_stop_stream already releases by cap_win_id. Same lock as before: PJSUA_LOCK, taken
# inside the dialog lock acquire_call holds, and cap_win_id is written only under PJSUA_LOCK.
# Test: Tests/Peers/probes/vid_stop_twice.c (a loopback video call, two calls on one colour-bar
# window: stops one twice and reports whether the second stop touched the shared window; then
# checks the other call still sends and the first one can start again).
KL59_FILE="$SRC/pjsip/src/pjsua-lib/pjsua_vid.c"
hunk KL-59 "$KL59_FILE" replace '        wid = vid_preview_get_win(call_med->strm.v.cap_dev, PJ_FALSE);' \
'        /* swift-pjsua: KL-59, let go of the window this call holds, if any
         * (by device, a second stop released a shared window with -1).
         */
        wid = call_med->strm.v.cap_win_id;'
applied KL-59
