# KL-60: pjsua's video window functions used the ports of a window being freed (not fixed upstream:
# master b7317ffca, 2026-08-20, takes the ports off the window (dad6e1d0d, #5002) but its window
# functions then assert; a pjproject upgrade reviews this, the build stops if an anchor moved).
# free_vid_win lets PJSUA_LOCK go while it removes a window's capture and renderer ports from the
# video conference and stops and destroys them (w->vp_cap, w->vp_rend), and resets the window only
# once it has the lock back. In between the window is still open: pjsua_vid_enum_wins lists it,
# and pjsua_vid_win_set_show, _get_info, _set_pos, _set_size, _set_win, _rotate and
# _set_fullscreen take PJSUA_LOCK and use w->vp_rend (or vp_cap) and its device stream: ports
# being destroyed, then freed (a use after free). Reached by an app showing, moving or reading a
# call window while the call ends (a remote BYE frees the window on the worker; the engine checks
# the id with pjsua_vid_enum_wins, which still listed it, then calls on the app thread). A window
# freed between such a check and the call has no ports: pjmedia_vid_port_get_stream(NULL) fails
# its PJ_ASSERT_RETURN, an abort in our builds (no NDEBUG); upstream now has that in the window.
# free_vid_win now takes the ports and slots off the window under PJSUA_LOCK before letting it go
# and tears down a copy (the window keeps its type, so its slot is not reused until the reset);
# pjsua_vid_enum_wins takes PJSUA_LOCK and leaves out a window with neither port; and each window
# function runs under PJSUA_LOCK (recursive: the function takes it again) only for a window with a
# port: one with neither (being freed, or freed) is PJ_ENOTFOUND, never an assertion. Other readers
# of the ports meet no such window: vid_preview_get_win (device settings, preview, a call taking
# up the capture) no longer matches it (KL-57.14); a call only uses windows it counts (one being
# freed has no count left); call_media_on_event compares w->vp_rend with the event publisher
# (never NULL). Lock order: PJSUA_LOCK only, taken in free_vid_win as KL-57.14 takes it (inside
# the dialog lock and PJSUA_LOCK its callers may hold: recursive), and by the app-facing functions
# holding nothing else; no new lock.
# Test: Tests/Peers/probes/vid_win_op_teardown.c (a loopback video call: the BYE frees a call
# window on the worker, held inside free_vid_win before anything is freed, while another thread
# calls set_show, get_info, set_pos and set_size on it; reports whether they reached its port).
KL60_FILE="$SRC/pjsip/src/pjsua-lib/pjsua_vid.c"
if grep -qF 'w->is_destroying = PJ_TRUE;' "$KL60_FILE"; then
    step "KL-60: this pjproject takes the ports off a window being freed (upstream dad6e1d0d); only the window functions are patched"
else
    hunk KL-60 "$KL60_FILE" before '    PJ_LOG(4,(THIS_FILE, "Window %d: destroying..", wid));' \
'    /* swift-pjsua: KL-60, the window as it was, for the teardown below */
    pjsua_vid_win teardown;'
    hunk KL-60 "$KL60_FILE" before \
'    /* Release locks before unsubscribing/destroying, to avoid deadlock. */' \
'    /* swift-pjsua: KL-60, take the ports off the window before the lock is
     * let go: while they are destroyed, the window functions and the other
     * readers find none to use (before, they used the ports being destroyed),
     * and pjsua_vid_enum_wins no longer lists the window. The teardown below
     * works on the copy; the slot stays taken (its type) until
     * pjsua_vid_win_reset below.
     */
    PJSUA_LOCK();
    teardown = *w;
    w->vp_cap = NULL;
    w->vp_rend = NULL;
    w->cap_slot = PJSUA_INVALID_ID;
    w->rend_slot = PJSUA_INVALID_ID;
    PJSUA_UNLOCK();
    w = &teardown;
'
    hunk KL-60 "$KL60_FILE" replace '    for (i=0; i<PJSUA_MAX_VID_WINS && cnt <*count; ++i) {' \
'    /* swift-pjsua: KL-60, under the lock; a window being freed (its ports
     * taken off by free_vid_win) is not listed
     */
    PJSUA_LOCK();
    for (i=0; i<PJSUA_MAX_VID_WINS && cnt <*count; ++i) {'
    hunk KL-60 "$KL60_FILE" replace '        if (w->type != PJSUA_WND_TYPE_NONE)' \
'        /* swift-pjsua: KL-60, open: a type and a port */
        if (w->type != PJSUA_WND_TYPE_NONE && (w->vp_rend || w->vp_cap))'
    hunk KL-60 "$KL60_FILE" before '    *count = cnt;' \
'    /* swift-pjsua: KL-60, the lock taken above */
    PJSUA_UNLOCK();'
fi
# The window functions, renamed: the public ones are defined below, after them.
for kl60_fn in get_info set_show set_pos set_size set_win rotate; do
    hunk KL-60 "$KL60_FILE" replace "PJ_DEF(pj_status_t) pjsua_vid_win_${kl60_fn}( pjsua_vid_win_id wid," \
"/* swift-pjsua: KL-60, called by pjsua_vid_win_${kl60_fn} for a window with a port */
static pj_status_t vid_win_${kl60_fn}( pjsua_vid_win_id wid,"
done
hunk KL-60 "$KL60_FILE" replace 'PJ_DEF(pj_status_t) pjsua_vid_win_set_fullscreen(' \
'/* swift-pjsua: KL-60, called by pjsua_vid_win_set_fullscreen for a window with a port */
static pj_status_t vid_win_set_fullscreen('
hunk KL-60 "$KL60_FILE" before 'static void call_get_vid_strm_info(pjsua_call *call,' \
'/* swift-pjsua: KL-60, the window functions refuse a window without ports.
 * free_vid_win takes a window ports off it (under PJSUA_LOCK) before it
 * lets the lock go to destroy them, and resets the window only once it has
 * the lock back: in between the window has neither port, like a window
 * never created or already reset. The functions above would pass NULL to
 * pjmedia_vid_port_get_stream (an assertion); they now run under PJSUA_LOCK
 * (recursive: they take it again) only for a window with a port, and a
 * window without one is PJ_ENOTFOUND. An id out of range is left to their
 * own check.
 */
static pj_bool_t vid_win_gone(pjsua_vid_win_id wid)
{
    return wid >= 0 && wid < PJSUA_MAX_VID_WINS &&
           pjsua_var.win[wid].vp_rend == NULL &&
           pjsua_var.win[wid].vp_cap == NULL;
}

PJ_DEF(pj_status_t) pjsua_vid_win_get_info( pjsua_vid_win_id wid,
                                            pjsua_vid_win_info *wi)
{
    pj_status_t status;

    PJSUA_LOCK();
    if (vid_win_gone(wid)) {
        if (wi)
            pj_bzero(wi, sizeof(*wi));
        status = PJ_ENOTFOUND;
    } else {
        status = vid_win_get_info(wid, wi);
    }
    PJSUA_UNLOCK();
    return status;
}

PJ_DEF(pj_status_t) pjsua_vid_win_set_show( pjsua_vid_win_id wid,
                                            pj_bool_t show)
{
    pj_status_t status;

    PJSUA_LOCK();
    status = vid_win_gone(wid) ? PJ_ENOTFOUND : vid_win_set_show(wid, show);
    PJSUA_UNLOCK();
    return status;
}

PJ_DEF(pj_status_t) pjsua_vid_win_set_pos( pjsua_vid_win_id wid,
                                           const pjmedia_coord *pos)
{
    pj_status_t status;

    PJSUA_LOCK();
    status = vid_win_gone(wid) ? PJ_ENOTFOUND : vid_win_set_pos(wid, pos);
    PJSUA_UNLOCK();
    return status;
}

PJ_DEF(pj_status_t) pjsua_vid_win_set_size( pjsua_vid_win_id wid,
                                            const pjmedia_rect_size *size)
{
    pj_status_t status;

    PJSUA_LOCK();
    status = vid_win_gone(wid) ? PJ_ENOTFOUND : vid_win_set_size(wid, size);
    PJSUA_UNLOCK();
    return status;
}

PJ_DEF(pj_status_t) pjsua_vid_win_set_win( pjsua_vid_win_id wid,
                                           const pjmedia_vid_dev_hwnd *win)
{
    pj_status_t status;

    PJSUA_LOCK();
    status = vid_win_gone(wid) ? PJ_ENOTFOUND : vid_win_set_win(wid, win);
    PJSUA_UNLOCK();
    return status;
}

PJ_DEF(pj_status_t) pjsua_vid_win_rotate( pjsua_vid_win_id wid,
                                          int angle)
{
    pj_status_t status;

    PJSUA_LOCK();
    status = vid_win_gone(wid) ? PJ_ENOTFOUND : vid_win_rotate(wid, angle);
    PJSUA_UNLOCK();
    return status;
}

PJ_DEF(pj_status_t) pjsua_vid_win_set_fullscreen(
                                        pjsua_vid_win_id wid,
                                        pjmedia_vid_dev_fullscreen_flag mode)
{
    pj_status_t status;

    PJSUA_LOCK();
    status = vid_win_gone(wid) ? PJ_ENOTFOUND :
                                 vid_win_set_fullscreen(wid, mode);
    PJSUA_UNLOCK();
    return status;
}
'
applied KL-60
