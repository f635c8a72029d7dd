# KL-57.12: a video window whose capture or renderer port could not join the video conference
# aborted the process (upstream d3cf933df, #4996, 2026-05-28, not an advisory; after our base).
# create_vid_win creates the window's video port and then adds it to the video conference; when
# the add fails (PJ_ETOOMANY once the conference's 32 slots are taken, about 11 simultaneous video
# calls, which a peer can place), it frees the window, and free_vid_win removes the window's slots
# from the conference whether they were ever added or not: the slot that failed is still -1, and
# pjsua_vid_conf_remove_port(-1) fails PJ_ASSERT_RETURN(id >= 0), which aborts our builds (they do
# not define NDEBUG).
# free_vid_win now removes a capture or renderer slot only when it is a valid one (>= 0), and
# still stops and destroys the video port either way (upstream tests for PJSUA_INVALID_ID).
# Test: Tests/Peers/probes/vid_win_add_fail.c (fails the capture port's add for the window a
# loopback video call creates, and reports whether free_vid_win then removed slot -1).
KL57_12_FILE="$SRC/pjsip/src/pjsua-lib/pjsua_vid.c"
if ! upstream_has KL-57.12 "$KL57_12_FILE" 'cap_slot != PJSUA_INVALID_ID)'; then
    hunk KL-57.12 "$KL57_12_FILE" replace '        pjsua_vid_conf_remove_port(w->cap_slot);' \
'        /* swift-pjsua: KL-57.12, no slot when the add to the conf failed */
        if (w->cap_slot >= 0)
            pjsua_vid_conf_remove_port(w->cap_slot);'
    hunk KL-57.12 "$KL57_12_FILE" replace '        pjsua_vid_conf_remove_port(w->rend_slot);' \
'        /* swift-pjsua: KL-57.12, no slot when the add to the conf failed */
        if (w->rend_slot >= 0)
            pjsua_vid_conf_remove_port(w->rend_slot);'
    applied KL-57.12
fi
