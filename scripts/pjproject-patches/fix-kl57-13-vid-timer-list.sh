# KL-57.13: a video call's hang-up could walk pjsua's timer free list for ever, holding PJSUA_LOCK
# (upstream bfa54d082, #5094, 2026-07-17, not an advisory; after our base).
# pjsua keeps its scheduled callbacks (pjsua_schedule_timer2) on pjsua_var.active_timer_list and
# recycles their nodes through the free pjsua_var.timer_list, both changed only under
# pjsua_var.timer_mutex: pjsua_schedule_timer2 moves a node from the free list to the active one,
# and timer_cb, on whichever thread polls the timers (pjsua's worker), moves it back after its
# callback. pjsua_vid_stop_stream (ending a call's video: a hang-up, the remote's BYE, a re-INVITE
# that drops the video) walks active_timer_list for its stream's pending media-event timers
# (call_med_event_cb, which the video threads' events schedule) holding PJSUA_LOCK only. A node
# that fires while the walk stands on it goes to the free list, and the walk follows it there: the
# free list never leads back to the active list's head, so the walk spins for ever holding
# PJSUA_LOCK and the call's dialog lock (every pjsua call then waits: the engine stops); or it
# reads a node being reused.
# The walk now holds timer_mutex, and lets it go before it lets PJSUA_LOCK go to handle events
# while its stream's timer is pending (timer_cb takes timer_mutex). Lock order: PJSUA_LOCK (and the
# call's dialog lock) before timer_mutex, as pjsua_schedule_timer2's callers under PJSUA_LOCK;
# nothing takes PJSUA_LOCK or a dialog lock holding timer_mutex (timer_cb runs the callback before
# it takes timer_mutex; under it are only the timer heap's lock and the list moves), so this cannot
# deadlock. Upstream chose the same order (it scans under timer_mutex with a found flag and handles
# events after the scan, holding neither).
# Test: Security/UpstreamFixTests (VideoTimerListTests runs Tests/Peers/probes/vid_timer_list.c,
# which holds the walk at a node with a guard page while the node's timer fires: before the patch
# the node went to the free list under the walk, which then never ended).
KL57_13_FILE="$SRC/pjsip/src/pjsua-lib/pjsua_vid.c"
if ! upstream_has KL-57.13 "$KL57_13_FILE" 'pj_mutex_lock(pjsua_var.timer_mutex);'; then
    hunk KL-57.13 "$KL57_13_FILE" before '        act_timer = pjsua_var.active_timer_list.next;' \
'        /* swift-pjsua: KL-57.13, the active timer list is guarded by
         * timer_mutex, which the timer threads hold to move its nodes
         */
        pj_mutex_lock(pjsua_var.timer_mutex);'
    hunk KL-57.13 "$KL57_13_FILE" before '                    num_locks = PJSUA_RELEASE_LOCK();' \
'                    /* swift-pjsua: KL-57.13, timer_cb takes timer_mutex */
                    pj_mutex_unlock(pjsua_var.timer_mutex);'
    hunk KL-57.13 "$KL57_13_FILE" before '        if (act_timer == &pjsua_var.active_timer_list)' \
'        /* swift-pjsua: KL-57.13, the walk ended (a match let it go) */
        if (act_timer == &pjsua_var.active_timer_list)
            pj_mutex_unlock(pjsua_var.timer_mutex);'
    applied KL-57.13
fi
