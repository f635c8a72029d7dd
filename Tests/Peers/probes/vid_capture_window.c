/* KL-57.14 probe (upstream dad6e1d0d). pjsua's video calls share their capture through a window
 * of the preview type, one per capture device, found by device (vid_preview_get_win) and counted
 * (ref_cnt). When the last call using it lets go (a hang-up's pjsua_vid_stop_stream, a
 * STOP_TRANSMIT or a capture-device change), dec_vid_win frees it: free_vid_win lets PJSUA_LOCK go
 * while it removes the capture port from the video conference and stops and destroys it, and
 * resets the window's slot only once it has the lock back. In between the window is still of the
 * preview type for its device: a thread taking up the capture for a call (setup_vid_capture: a
 * new video call's media, a START_TRANSMIT; or a capture-device change) finds it there, connects
 * the call's encoder to the capture port that is being destroyed and counts the window. The
 * teardown then resets the slot under it: the call keeps the id of a freed window (its video
 * stops; its hang-up's dec_vid_win fails pj_assert(type != NONE), which aborts our builds, or
 * decrements whichever window has taken the slot since, freeing it under its own call).
 *
 * The window, made deterministic: this program defines pjsua_vid_conf_remove_port and
 * pjmedia_vid_conf_remove_port (vid_conf_remove_hook.h), so PJSIP's calls to them come here first
 * (libpjsua calls the first through its PLT, and the second, in libpjmedia, from the first). A
 * loopback video call (vid_loopback_call.h: pjsua as the engine sets it up, one worker thread, null
 * audio, the colour-bar capture; video only, both ends told to send once both are up) gives two
 * calls sharing one capture window. The main thread stops the incoming call's sending (one count
 * left), arms the wrapper, and stops the outgoing call's: the last count, so free_vid_win lets
 * PJSUA_LOCK go and removes the capture slot, the first step of its teardown. The wrapper holds
 * the main thread there while a second registered thread starts the incoming call's sending again
 * (PJSUA_CALL_VID_STRM_START_TRANSMIT), then looks (pjsua_get_var, pjsua_internal.h) at which
 * window that call counts.
 * Patched (a window being freed is no device's preview any more): the call creates its own capture
 * window (a second colour-bar stream), the teardown finishes, the old slot is reset, the call keeps
 * its new window and sends from it. Unpatched: the call counts the window being freed, and the
 * program says so and exits 3 inside the window, before the teardown frees anything (let go on,
 * the call's hang-up aborts in dec_vid_win).
 *
 * Prints "take-up inside the teardown: YES; took the window being freed: NO|YES ...". Exit 0: the
 * call took its own window, keeps it after the teardown and sends from it; 1: setup failed; 2: the
 * window was not reached, the take-up did not return within 5 s (blocked behind the teardown), or
 * another outcome; 3: the call took the window being freed. */
#include "vid_loopback_call.h"
#include "vid_conf_remove_hook.h"

static volatile int armed, window_reached, taker_go, taker_done;
static volatile pj_status_t taker_status = PJ_EUNKNOWN;
static int old_wid = PJSUA_INVALID_ID, old_cap_slot = PJSUA_INVALID_ID;
static int taker_med = -1;

static int cap_win_of(pjsua_call_id call, int med)
{
    return var->calls[call].media[med].strm.v.cap_win_id;
}

/* In free_vid_win of the shared capture window, PJSUA_LOCK let go, the capture slot not yet
 * removed: let the other thread take up the capture for calls[1] and see what it took. */
static void hold_window(void)
{
    int waited, wid;

    armed = 0;
    window_reached = 1;
    taker_go = 1;
    for (waited = 0; waited < 500 && !taker_done; ++waited) usleep(10000);
    if (!taker_done) {
        printf("take-up inside the teardown: did not return within 5 s (blocked behind it)\n");
        _exit(2);
    }
    wid = cap_win_of(calls[1], taker_med);
    if (taker_status == PJ_SUCCESS && wid == old_wid) {
        printf("take-up inside the teardown: YES; took the window being freed: YES (window %d, "
               "counted %u while its teardown runs)\n", wid, var->win[wid].ref_cnt);
        _exit(3);
    }
}

static int sends_to(int source, int sink)
{
    pjsua_vid_conf_port_info info;
    unsigned i;

    if (source < 0 || sink < 0 || pjsua_vid_conf_get_port_info(source, &info) != PJ_SUCCESS)
        return 0;
    for (i = 0; i < info.listener_cnt; ++i)
        if ((int)info.listeners[i] == sink) return 1;
    return 0;
}

static int in_window_call(int slot)
{
    return armed && slot == old_cap_slot && pthread_equal(pthread_self(), main_pthread);
}

/* The hook of vid_conf_remove_hook.h, before each removal of a video conference slot. */
static void before_vid_conf_remove(int slot)
{
    if (in_window_call(slot)) hold_window();
}

static int taker(void *arg)
{
    int waited;

    (void)arg;
    for (waited = 0; waited < 3000 && !taker_go; ++waited) usleep(10000);
    if (!taker_go) return 0;
    taker_status = pjsua_call_set_vid_strm(calls[1], PJSUA_CALL_VID_STRM_START_TRANSMIT, NULL);
    taker_done = 1;
    return 0;
}

int main(void)
{
    pj_pool_t *pool;
    pj_thread_t *thread;
    int waited, med[2] = { -1, -1 }, med0, new_wid, enc_slot;

    /* A video call to itself (vid_loopback_call.h); once both ends are up, both send from the
     * colour bars, through one capture window (the first START_TRANSMIT creates it, the second
     * counts it). */
    if (loopback_video_call(med) != 0) return 1;
    med0 = med[0];
    taker_med = med[1];

    /* The thread that takes up the capture inside the window (registered with pjlib). */
    pool = pjsua_pool_create("probe", 1000, 1000);
    if (pool == NULL || pj_thread_create(pool, "taker", &taker, NULL, 0, 0, &thread) != PJ_SUCCESS)
        finish(1);

    if (pjsua_call_set_vid_strm(calls[0], PJSUA_CALL_VID_STRM_START_TRANSMIT, NULL) != PJ_SUCCESS
        || pjsua_call_set_vid_strm(calls[1], PJSUA_CALL_VID_STRM_START_TRANSMIT, NULL)
               != PJ_SUCCESS) {
        printf("setup: the two ends could not start sending video\n");
        finish(1);
    }
    old_wid = cap_win_of(calls[0], med0);
    if (cap_win_of(calls[1], taker_med) != old_wid
        || var->win[old_wid].type != PJSUA_WND_TYPE_PREVIEW || var->win[old_wid].ref_cnt != 2) {
        printf("setup: the two ends do not share one capture window\n");
        finish(1);
    }
    old_cap_slot = var->win[old_wid].cap_slot;

    /* One count left, then the last one goes: free_vid_win, with the wrapper armed. */
    if (pjsua_call_set_vid_strm(calls[1], PJSUA_CALL_VID_STRM_STOP_TRANSMIT, NULL) != PJ_SUCCESS
        || var->win[old_wid].ref_cnt != 1) {
        printf("setup: the first STOP_TRANSMIT did not leave one count\n");
        finish(1);
    }
    armed = 1;
    pjsua_call_set_vid_strm(calls[0], PJSUA_CALL_VID_STRM_STOP_TRANSMIT, NULL);
    armed = 0;
    if (!window_reached) {
        printf("take-up inside the teardown: NO (free_vid_win never removed the capture slot)\n");
        finish(2);
    }

    /* Patched: the call has a window of its own, still counted, and the old slot was reset. */
    new_wid = cap_win_of(calls[1], taker_med);
    if (taker_status != PJ_SUCCESS || new_wid == PJSUA_INVALID_ID || new_wid == old_wid
        || var->win[new_wid].type != PJSUA_WND_TYPE_PREVIEW || var->win[new_wid].ref_cnt != 1
        || var->win[old_wid].type != PJSUA_WND_TYPE_NONE) {
        printf("take-up inside the teardown: YES; took the window being freed: NO; but status %d, "
               "window %d (old %d, freed: %s)\n", taker_status, new_wid, old_wid,
               var->win[old_wid].type == PJSUA_WND_TYPE_NONE ? "YES" : "NO");
        finish(2);
    }
    /* ... and its capture feeds the call's encoder (the conference connects on its next tick). */
    enc_slot = var->calls[calls[1]].media[taker_med].strm.v.strm_enc_slot;
    for (waited = 0; waited < 100 && !sends_to(var->win[new_wid].cap_slot, enc_slot); ++waited)
        usleep(10000);
    if (waited == 100) {
        printf("take-up inside the teardown: YES; took the window being freed: NO; but its own "
               "window %d does not feed the call\n", new_wid);
        finish(2);
    }
    printf("take-up inside the teardown: YES; took the window being freed: NO (own window %d, "
           "counted once, sending; old window %d freed)\n", new_wid, old_wid);
    finish(0);
    return 0;
}
