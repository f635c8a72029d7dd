/* KL-59 probe (not fixed upstream). pjsua_call_set_vid_strm(PJSUA_CALL_VID_STRM_STOP_TRANSMIT)
 * (pjsua_vid.c call_set_tx_video) pauses the call's encoding and then finds the capture window to
 * let go of by the call's capture DEVICE, not by the window the call holds (its cap_win_id). On a
 * call whose transmission is already stopped (cap_win_id -1) while another call keeps that
 * device's capture window alive, the second stop unsubscribes from and disconnects the shared
 * window again and runs dec_vid_win(-1), whose pj_assert(wid >= 0) aborts our builds (they do not
 * define NDEBUG; without assertions it would decrement memory before the window table).
 *
 * Set up as the engine sets pjsua up (vid_loopback_call.h: one worker thread, null audio, the
 * colour-bar generator as the account's capture device), a call to itself gives two calls on one endpoint (video only);
 * both start transmitting (START_TRANSMIT, as the engine does for a call whose VideoOptions hold
 * transmission back) and so share one capture window. The program stops call A's transmission,
 * checks that call B's encoding port is still fed by the capture, and stops A's again. It defines
 * pjmedia_event_unsubscribe and pjsua_vid_conf_disconnect, and pjmedia_vid_conf_disconnect_port
 * for a build that inlines the latter (libpjsua calls them through its PLT, so these definitions
 * interpose on the library's) and __assert_fail (dec_vid_win's assertion
 * reaches it through the PLT): during the second stop, any of them called on the main thread
 * means the stop touched the shared window, and the program says so and exits 3 before the
 * abort. The first stop must reach the first two (proof that the hooks see this build's calls).
 * Patched (a stop lets go of a window only when the call holds one, and of that window): the
 * second stop only pauses the encoding again; then B must still be connected to the capture and
 * send RTP, A's START_TRANSMIT must connect A again and A must send RTP, and the window's count
 * must be intact: stopping A keeps the window (B holds it), stopping B frees it.
 *
 * Prints "second stop touched the shared capture window: NO|YES (...)". Exit 0: not touched and
 * the checks above hold; 1: setup failed; 2: the shared window was never reached (no two calls
 * on one capture, the hooks did not see the first stop, another assertion failed, or a step
 * outlived the 20 s alarm); 3: touched (or the second stop hung), or a check after the double
 * stop failed (B lost its capture, A could not restart, the window count went wrong). */
#include "vid_loopback_call.h"
#include <signal.h>

typedef pj_status_t (*unsubscribe_fn)(pjmedia_event_mgr *, pjmedia_event_cb *, void *, void *);
typedef pj_status_t (*disconnect_fn)(pjsua_conf_port_id, pjsua_conf_port_id);

static volatile int watching;            /* 1 during the first stop, 2 during the second */
static volatile int first_unsubscribes, first_disconnects;
static const char *volatile step = "setup";

static void touched(const char *how)
{
    printf("second stop touched the shared capture window: YES (%s)\n", how);
    fflush(stdout);
    _exit(3);
}

static void on_main_thread_call(const char *what, volatile int *first_count)
{
    if (!pthread_equal(pthread_self(), main_pthread)) return;
    if (watching == 1) ++*first_count;
    else if (watching == 2) touched(what);
}

pj_status_t pjmedia_event_unsubscribe(pjmedia_event_mgr *mgr, pjmedia_event_cb *cb, void *user_data,
                                      void *epub)
{
    static unsubscribe_fn real;
    if (real == NULL) real = (unsubscribe_fn)dlsym(RTLD_NEXT, "pjmedia_event_unsubscribe");
    on_main_thread_call("unsubscribed from it again", &first_unsubscribes);
    return real(mgr, cb, user_data, epub);
}

pj_status_t pjsua_vid_conf_disconnect(pjsua_conf_port_id source, pjsua_conf_port_id sink)
{
    static disconnect_fn real;
    if (real == NULL) real = (disconnect_fn)dlsym(RTLD_NEXT, "pjsua_vid_conf_disconnect");
    on_main_thread_call("disconnected it again", &first_disconnects);
    return real(source, sink);
}

/* Where the build inlines pjsua_vid_conf_disconnect into call_set_tx_video (the ASan build, made
 * by clang), libpjsua calls pjmedia's disconnect through its PLT instead; the gcc build calls both
 * (the first calls the second). Either is the stop disconnecting the shared window. */
typedef pj_status_t (*port_disconnect_fn)(pjmedia_vid_conf *, unsigned, unsigned);

pj_status_t pjmedia_vid_conf_disconnect_port(pjmedia_vid_conf *conf, unsigned source, unsigned sink)
{
    static port_disconnect_fn real;
    if (real == NULL) real = (port_disconnect_fn)dlsym(RTLD_NEXT, "pjmedia_vid_conf_disconnect_port");
    on_main_thread_call("disconnected it again", &first_disconnects);
    return real(conf, source, sink);
}

void __assert_fail(const char *assertion, const char *file, unsigned line, const char *function)
{
    if (watching == 2)
        touched(function != NULL && strstr(function, "dec_vid_win") != NULL
                    ? "dec_vid_win assertion" : assertion);
    printf("second stop touched the shared capture window: not reached (assertion %s, %s:%u, "
           "at %s)\n", assertion, file, line, step);
    fflush(stdout);
    _exit(2);
}

static void on_alarm(int sig)
{
    static const char prefix[] = "second stop touched the shared capture window: hang at ";
    (void)sig;
    if (write(1, prefix, sizeof prefix - 1) < 0) _exit(2);
    if (write(1, step, strlen(step)) < 0) _exit(2);
    if (write(1, "\n", 1) < 0) _exit(2);
    _exit(watching == 2 ? 3 : 2);
}

static int video_index(pjsua_call_id call)
{
    pjsua_call_info ci;
    unsigned i;
    if (pjsua_call_get_info(call, &ci) != PJ_SUCCESS) return -1;
    for (i = 0; i < ci.media_cnt; ++i)
        if (ci.media[i].type == PJMEDIA_TYPE_VIDEO && ci.media[i].status == PJSUA_CALL_MEDIA_ACTIVE)
            return (int)ci.media[i].index;
    return -1;
}

/* The one port feeding the call's encoding port in the video conference, or -1 (none or several).
 * The conference applies connections and disconnections on its clock's thread: see has_capture. */
static pjsua_conf_port_id capture_of(pjsua_call_id call)
{
    static pjsua_vid_conf_port_info info;
    pjsua_conf_port_id enc = pjsua_call_get_vid_conf_port(call, PJMEDIA_DIR_ENCODING);
    if (enc < 0 || pjsua_vid_conf_get_port_info(enc, &info) != PJ_SUCCESS) return -1;
    return info.transmitter_cnt == 1 ? info.transmitters[0] : -1;
}

/* Whether, within 2 s, the call's encoding port is fed by `slot` (or by nothing, for -1). */
static int has_capture(pjsua_call_id call, pjsua_conf_port_id slot)
{
    int waited;
    for (waited = 0; waited < 200; ++waited) {
        if (capture_of(call) == slot) return 1;
        usleep(10000);
    }
    return 0;
}

static pj_uint32_t rtp_sent(pjsua_call_id call, int med)
{
    pjsua_stream_stat stat;
    if (med < 0 || pjsua_call_get_stream_stat(call, (unsigned)med, &stat) != PJ_SUCCESS) return 0;
    return stat.rtcp.tx.pkt;
}

/* Whether the call sends more RTP within 3 s. */
static int sends(pjsua_call_id call, int med)
{
    pj_uint32_t before = rtp_sent(call, med);
    int waited;
    for (waited = 0; waited < 300; ++waited) {
        usleep(10000);
        if (rtp_sent(call, med) > before) return 1;
    }
    return 0;
}

static unsigned window_count(void)
{
    pjsua_vid_win_id wids[PJSUA_MAX_VID_WINS];
    unsigned count = PJSUA_MAX_VID_WINS;
    pjsua_vid_enum_wins(wids, &count);
    return count;
}

static pj_status_t set_tx(pjsua_call_id call, pjsua_call_vid_strm_op op)
{
    pjsua_call_vid_strm_op_param param;
    pjsua_call_vid_strm_op_param_default(&param);
    param.med_idx = -1;
    return pjsua_call_set_vid_strm(call, op, &param);
}

static int verdict(const char *failed)
{
    printf("second stop touched the shared capture window: NO%s%s\n", failed ? "; but " : "",
           failed ? failed : "");
    fflush(stdout);
    return failed ? 3 : 0;
}

int main(void)
{
    pjsua_call_id ids[PJSUA_MAX_CALLS], a = PJSUA_INVALID_ID, b = PJSUA_INVALID_ID;
    pjsua_conf_port_id cap_slot = -1;
    pjsua_call_setting setting;
    unsigned i, count, windows;
    int waited, med_a = -1, med_b = -1, rc;
    const char *failed = NULL;

    signal(SIGALRM, on_alarm);
    alarm(20);  /* a backstop: a run takes 1-3 s */
    /* pjsua as the engine sets it up (vid_loopback_call.h); neither end sends yet. */
    if (loopback_pjsua_start(&loopback_engine) != 0) return 1;

    /* A call to itself: two calls on one endpoint. Video only, and neither end transmits until
     * both are up (a media transport that receives RTP while its stream attaches trips an
     * unrelated 2.17 race, upstream 469151c48); then both start transmitting (as the engine does
     * for a call whose VideoOptions hold transmission back), each taking up the one colour-bar
     * capture window (setup_vid_capture). */
    step = "call setup";
    video_only(&setting);
    if (loopback_call_place(&setting) != 0) return 1;
    a = calls[0];
    for (waited = 0; waited < 500; ++waited) {
        usleep(10000);
        count = PJSUA_MAX_CALLS;
        if (pjsua_enum_calls(ids, &count) != PJ_SUCCESS) continue;
        b = PJSUA_INVALID_ID;
        for (i = 0; i < count; ++i)
            if (ids[i] != a) b = ids[i];
        if (b == PJSUA_INVALID_ID) continue;
        med_a = video_index(a);
        med_b = video_index(b);
        if (med_a >= 0 && med_b >= 0 && pjsua_call_get_vid_conf_port(a, PJMEDIA_DIR_ENCODING) >= 0
            && pjsua_call_get_vid_conf_port(b, PJMEDIA_DIR_ENCODING) >= 0)
            break;
    }
    if (waited == 500) {
        printf("second stop touched the shared capture window: not reached (no video call)\n");
        return 2;
    }
    step = "transmission start";
    if (set_tx(a, PJSUA_CALL_VID_STRM_START_TRANSMIT) != PJ_SUCCESS
        || set_tx(b, PJSUA_CALL_VID_STRM_START_TRANSMIT) != PJ_SUCCESS) return 1;
    for (waited = 0; waited < 300; ++waited) {
        cap_slot = capture_of(a);
        if (cap_slot >= 0 && capture_of(b) == cap_slot && rtp_sent(a, med_a) > 0
            && rtp_sent(b, med_b) > 0)
            break;
        usleep(10000);
    }
    if (waited == 300) {
        printf("second stop touched the shared capture window: not reached (no two calls sending "
               "from one capture)\n");
        return 2;
    }
    windows = window_count();

    /* The first stop: A lets go of the shared window; B keeps it. */
    step = "first stop";
    watching = 1;
    if (set_tx(a, PJSUA_CALL_VID_STRM_STOP_TRANSMIT) != PJ_SUCCESS) return 1;
    watching = 0;
    if (first_unsubscribes == 0 || first_disconnects == 0) {
        printf("second stop touched the shared capture window: not reached (the first stop was not "
               "seen: %d unsubscribes, %d disconnects)\n", first_unsubscribes, first_disconnects);
        return 2;
    }
    if (!has_capture(a, -1) || capture_of(b) != cap_slot || window_count() != windows) {
        printf("second stop touched the shared capture window: not reached (the first stop did not "
               "leave B alone on the window)\n");
        return 2;
    }

    /* The second stop of the same call. */
    step = "second stop";
    watching = 2;
    set_tx(a, PJSUA_CALL_VID_STRM_STOP_TRANSMIT);
    watching = 0;

    /* B still transmits from the capture; A can start again; the window's count is right. */
    step = "checks after the second stop";
    usleep(100000);  /* for the conference to apply anything the stop asked of it */
    if (!has_capture(b, cap_slot) || window_count() != windows)
        failed = "B lost the capture window";
    else if (!sends(b, med_b))
        failed = "B no longer sends";
    else if (set_tx(a, PJSUA_CALL_VID_STRM_START_TRANSMIT) != PJ_SUCCESS
             || !has_capture(a, cap_slot))
        failed = "A could not start again";
    else if (!sends(a, med_a))
        failed = "A does not send after starting again";
    else if (set_tx(a, PJSUA_CALL_VID_STRM_STOP_TRANSMIT) != PJ_SUCCESS || !has_capture(a, -1)
             || capture_of(b) != cap_slot || window_count() != windows)
        failed = "stopping A again took the window from B";
    else if (set_tx(b, PJSUA_CALL_VID_STRM_STOP_TRANSMIT) != PJ_SUCCESS
             || window_count() != windows - 1)
        failed = "stopping both did not free the capture window once";
    rc = verdict(failed);

    step = "teardown";
    finish(rc);
    return rc;
}
