/* KL-60 probe (not fixed upstream). pjsua renders a call's incoming video in a window of its own
 * (the stream window: the call's rdr_win_id, a renderer video port), freed when the call ends. Its
 * teardown, free_vid_win, lets PJSUA_LOCK go while it removes the renderer port from the video
 * conference and stops and destroys it, and resets the window's slot only once it has the lock
 * back. In between, the window is still open to pjsua's window API: pjsua_vid_enum_wins lists it
 * (its type is still set), and pjsua_vid_win_set_show, _get_info, _set_pos, _set_size, _set_win,
 * _rotate and _set_fullscreen take PJSUA_LOCK, which free_vid_win has let go, and use
 * w->vp_rend (or vp_cap): the port being destroyed, and the device stream it is destroying; once
 * the destroy has run, memory that is freed. An app moving, showing or reading a call's window as
 * the call ends (a remote BYE tears the call down on pjsua's worker; the engine's window calls run
 * on the app's thread, after checking the id with pjsua_vid_enum_wins) meets this. Upstream
 * (dad6e1d0d, after 2.17) takes the ports off the window before letting the lock go and hides it
 * from pjsua_vid_enum_wins, but its set_show, set_pos, set_size, set_win, rotate and set_fullscreen
 * then pass the NULL port to pjmedia_vid_port_get_stream, whose PJ_ASSERT_RETURN aborts a build
 * with assertions (this program says so, exit 3); get_info checks for it.
 *
 * The window, made deterministic: a loopback video call (vid_loopback_call.h) gives two calls, each
 * with its stream window. The main thread hangs up the call it placed; the BYE ends the other call
 * on pjsua's worker, whose free_vid_win of that call's stream window removes the renderer's
 * conference slot (the first step of the teardown, with PJSUA_LOCK let go): the hook
 * (vid_conf_remove_hook.h) holds the worker there, before anything is stopped or freed, while a
 * second registered thread calls pjsua_vid_win_set_show, _get_info, _set_pos and _set_size on that
 * window. This program also defines pjmedia_vid_port_get_stream, _is_running, _start and _destroy
 * (libpjsua calls them through its PLT into libpjmedia) and notes whether the window calls pass
 * them the renderer port being destroyed (its address read from the window before the hang-up), and
 * __assert_fail (an assertion is an abort in our builds).
 * Patched (free_vid_win takes the ports off the window under PJSUA_LOCK, and the window functions
 * refuse a window without ports): each call returns an error without touching the port, the
 * teardown finishes, and the same calls on the freed window return errors too. Unpatched: the
 * first call (set_show) reaches the port being destroyed; the program says so and exits 3 there,
 * before the teardown frees it (let go on, it would use freed memory once the destroy runs).
 *
 * Prints "window API reached a port being destroyed: NO|YES ...". Exit 0: every call on the window
 * being freed, and after, returned an error without touching its port; 1: setup failed; 2: the
 * window was not reached, the calls did not return within 5 s, or another outcome; 3: a call
 * reached the port being destroyed, or asserted. */
#include "vid_loopback_call.h"
#include "vid_conf_remove_hook.h"

typedef pjmedia_vid_dev_stream *(*get_stream_fn)(pjmedia_vid_port *);
typedef pj_bool_t (*is_running_fn)(pjmedia_vid_port *);
typedef pj_status_t (*start_fn)(pjmedia_vid_port *);
typedef void (*destroy_fn)(pjmedia_vid_port *);

#define CALLS 4
static const char *const call_names[CALLS] = {
    "pjsua_vid_win_set_show", "pjsua_vid_win_get_info", "pjsua_vid_win_set_pos",
    "pjsua_vid_win_set_size"
};

static int dying_wid = PJSUA_INVALID_ID, dying_slot = PJSUA_INVALID_ID;
static pjmedia_vid_port *volatile dying_port;    /* the stream window's renderer port */
static volatile int armed, window_reached, port_destroyed;
static pthread_t api_pthread;
static volatile int api_ready, api_go[3], api_done[3], listed_in_window = -1;
static volatile int round_now;                   /* 1: inside the teardown, 2: after it */
static const char *volatile call_now;            /* the window call the API thread is in */
static const char *volatile reached_by, *volatile reached_in;
static volatile pj_status_t statuses[3][CALLS];

static int in_api_thread(void)
{
    return api_ready && pthread_equal(pthread_self(), api_pthread) && round_now != 0;
}

/* A window call passing the renderer port being destroyed (or freed) to libpjmedia. */
static void note_use(pjmedia_vid_port *vp, const char *fn)
{
    if (vp != NULL && vp == dying_port && in_api_thread() && reached_by == NULL) {
        reached_in = fn;
        reached_by = call_now;
    }
}

pjmedia_vid_dev_stream *pjmedia_vid_port_get_stream(pjmedia_vid_port *vp)
{
    static get_stream_fn real;

    if (real == NULL) real = (get_stream_fn)dlsym(RTLD_NEXT, "pjmedia_vid_port_get_stream");
    note_use(vp, "pjmedia_vid_port_get_stream");
    return real(vp);
}

pj_bool_t pjmedia_vid_port_is_running(pjmedia_vid_port *vp)
{
    static is_running_fn real;

    if (real == NULL) real = (is_running_fn)dlsym(RTLD_NEXT, "pjmedia_vid_port_is_running");
    note_use(vp, "pjmedia_vid_port_is_running");
    return real(vp);
}

pj_status_t pjmedia_vid_port_start(pjmedia_vid_port *vp)
{
    static start_fn real;

    if (real == NULL) real = (start_fn)dlsym(RTLD_NEXT, "pjmedia_vid_port_start");
    note_use(vp, "pjmedia_vid_port_start");
    return real(vp);
}

void pjmedia_vid_port_destroy(pjmedia_vid_port *vp)
{
    static destroy_fn real;

    if (real == NULL) real = (destroy_fn)dlsym(RTLD_NEXT, "pjmedia_vid_port_destroy");
    if (vp != NULL && vp == dying_port) port_destroyed = 1;
    real(vp);
}

/* Our builds keep assertions: an assertion is an abort. */
void __assert_fail(const char *expr, const char *file, unsigned int line, const char *function)
{
    if (in_api_thread()) {
        printf("window API reached a port being destroyed: NO, but %s asserted on window %d %s "
               "(%s, %s:%u in %s): an abort\n", call_now ? call_now : "?", dying_wid,
               round_now == 1 ? "while it was freed" : "once freed", expr, file, line, function);
        _exit(3);
    }
    printf("window API reached a port being destroyed: undecided; an assertion failed elsewhere "
           "(%s, %s:%u in %s)\n", expr, file, line, function);
    _exit(2);
}

static void report_reached(void)
{
    printf("window API reached a port being destroyed: YES (%s on window %d %s passed its renderer "
           "port to %s)\n", reached_by, dying_wid,
           round_now == 2 ? "once freed" : "while free_vid_win destroys it", reached_in);
    _exit(3);
}

/* In free_vid_win of the stream window, PJSUA_LOCK let go, the renderer slot not yet removed
 * (nothing stopped or freed yet): let the other thread call the window API on it. */
static void hold_window(void)
{
    int waited;

    armed = 0;
    window_reached = 1;
    api_go[1] = 1;
    for (waited = 0; waited < 500 && !api_done[1] && reached_by == NULL; ++waited) usleep(10000);
    if (reached_by != NULL) report_reached();
    if (!api_done[1]) {
        printf("window API reached a port being destroyed: undecided; the calls on the window "
               "being freed did not return within 5 s (blocked behind its teardown)\n");
        _exit(2);
    }
}

/* The hook of vid_conf_remove_hook.h, before each removal of a video conference slot: the stream
 * window's renderer slot, on whichever thread frees it (pjsua's worker, on the BYE). */
static void before_vid_conf_remove(int slot)
{
    if (armed && slot == dying_slot) hold_window();
}

static void window_calls(int round)
{
    pjsua_vid_win_info info;
    pjmedia_coord pos;
    pjmedia_rect_size size;

    pos.x = 10;
    pos.y = 20;
    size.w = 320;
    size.h = 240;
    round_now = round;
    call_now = call_names[0];
    statuses[round][0] = pjsua_vid_win_set_show(dying_wid, PJ_TRUE);
    call_now = call_names[1];
    statuses[round][1] = pjsua_vid_win_get_info(dying_wid, &info);
    call_now = call_names[2];
    statuses[round][2] = pjsua_vid_win_set_pos(dying_wid, &pos);
    call_now = call_names[3];
    statuses[round][3] = pjsua_vid_win_set_size(dying_wid, &size);
    call_now = NULL;
    round_now = 0;
}

static int listed(pjsua_vid_win_id wid)
{
    pjsua_vid_win_id wids[PJSUA_MAX_VID_WINS];
    unsigned count = PJSUA_MAX_VID_WINS, i;

    if (pjsua_vid_enum_wins(wids, &count) != PJ_SUCCESS) return -1;
    for (i = 0; i < count; ++i)
        if (wids[i] == wid) return 1;
    return 0;
}

/* The app's thread (registered with pjlib): the window calls inside the teardown (round 1), then
 * on the freed window (round 2). */
static int api_thread(void *arg)
{
    int round, waited;

    (void)arg;
    api_pthread = pthread_self();
    api_ready = 1;
    for (round = 1; round <= 2; ++round) {
        for (waited = 0; waited < 3000 && !api_go[round]; ++waited) usleep(10000);
        if (!api_go[round]) return 0;
        if (round == 1) listed_in_window = listed(dying_wid);
        window_calls(round);
        api_done[round] = 1;
    }
    return 0;
}

static int all_refused(int round)
{
    int i;

    for (i = 0; i < CALLS; ++i)
        if (statuses[round][i] == PJ_SUCCESS) return 0;
    return 1;
}

int main(void)
{
    pj_pool_t *pool;
    pj_thread_t *thread;
    pjsua_vid_win *w;
    int waited, med[2] = { -1, -1 };

    if (loopback_video_call(med) != 0) return 1;

    /* The window showing the incoming call's incoming video, and its renderer port. */
    dying_wid = var->calls[calls[1]].media[med[1]].strm.v.rdr_win_id;
    if (dying_wid < 0 || dying_wid >= PJSUA_MAX_VID_WINS) {
        printf("setup: the incoming call has no window for its incoming video\n");
        finish(1);
    }
    w = &var->win[dying_wid];
    if (w->type != PJSUA_WND_TYPE_STREAM || w->vp_rend == NULL || w->rend_slot < 0
        || listed(dying_wid) != 1 || pjsua_vid_win_set_show(dying_wid, PJ_FALSE) != PJ_SUCCESS) {
        printf("setup: window %d is not an open stream window with a renderer\n", dying_wid);
        finish(1);
    }
    dying_port = w->vp_rend;
    dying_slot = w->rend_slot;

    /* The app's thread. */
    pool = pjsua_pool_create("probe", 1000, 1000);
    if (pool == NULL || pj_thread_create(pool, "app", &api_thread, NULL, 0, 0, &thread) != PJ_SUCCESS)
        finish(1);
    for (waited = 0; waited < 500 && !api_ready; ++waited) usleep(10000);
    if (!api_ready) finish(1);

    /* The call placed ends here; its BYE ends the other call on pjsua's worker, which frees the
     * window (the hold runs there). */
    armed = 1;
    if (pjsua_call_hangup(calls[0], 0, NULL, NULL) != PJ_SUCCESS) {
        printf("setup: the hang-up failed\n");
        finish(1);
    }
    for (waited = 0; waited < 500 && !window_reached; ++waited) usleep(10000);
    if (!window_reached) {
        armed = 0;
        printf("window API reached a port being destroyed: undecided; free_vid_win never removed "
               "the renderer slot of window %d within 5 s of the hang-up\n", dying_wid);
        finish(2);
    }

    /* Patched: the teardown finishes (the port destroyed, the slot reset) ... */
    for (waited = 0; waited < 500 && !(port_destroyed && var->win[dying_wid].type
                                       == PJSUA_WND_TYPE_NONE); ++waited)
        usleep(10000);
    if (waited == 500) {
        printf("window API reached a port being destroyed: NO; but the teardown of window %d did "
               "not finish within 5 s (port destroyed: %s)\n", dying_wid,
               port_destroyed ? "YES" : "NO");
        finish(2);
    }
    /* ... and the same calls on the freed window (an app checking the id first can meet that
     * too: the window can go between its check and its call). */
    api_go[2] = 1;
    for (waited = 0; waited < 500 && !api_done[2] && reached_by == NULL; ++waited) usleep(10000);
    if (reached_by != NULL) report_reached();
    if (!api_done[2]) {
        printf("window API reached a port being destroyed: NO; but the calls on the freed window "
               "did not return within 5 s\n");
        finish(2);
    }
    if (!all_refused(1) || !all_refused(2)) {
        printf("window API reached a port being destroyed: NO; but a call succeeded on window %d "
               "(while freed: %d %d %d %d; once freed: %d %d %d %d)\n", dying_wid,
               statuses[1][0], statuses[1][1], statuses[1][2], statuses[1][3],
               statuses[2][0], statuses[2][1], statuses[2][2], statuses[2][3]);
        finish(2);
    }
    printf("window API reached a port being destroyed: NO (set_show, get_info, set_pos, set_size "
           "refused window %d while it was freed, %d %d %d %d, and once freed, %d %d %d %d; "
           "listed while freed: %s)\n", dying_wid,
           statuses[1][0], statuses[1][1], statuses[1][2], statuses[1][3],
           statuses[2][0], statuses[2][1], statuses[2][2], statuses[2][3],
           listed_in_window == 1 ? "YES" : listed_in_window == 0 ? "NO" : "?");
    finish(0);
    return 0;
}
