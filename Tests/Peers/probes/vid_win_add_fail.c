/* KL-57.12 probe (upstream d3cf933df). create_vid_win creates a video window's capture (and
 * renderer) video port and adds it to the video conference; when the add fails (PJ_ETOOMANY once
 * the conference's 32 slots are taken: about 11 simultaneous video calls, which a peer can place),
 * it frees the window, and free_vid_win removes the window's slots whether they were added or not.
 * The slot whose add failed is still -1, and pjsua_vid_conf_remove_port(-1) fails
 * PJ_ASSERT_RETURN(id >= 0): our builds do not define NDEBUG, so the process aborts.
 *
 * The failure, made deterministic: this program defines pjmedia_vid_conf_add_port, so PJSIP's
 * calls to it come here first (the executable's definition interposes on the library's; libpjsua
 * calls it through its PLT, from pjsua_vid_conf_add_port or, where that is inlined into
 * create_vid_win, from there). The wrapper fails, with PJ_ETOOMANY, the add of the colour-bar
 * capture port, which only create_vid_win adds: the capture window a loopback video call creates
 * (vid_loopback_call.h: pjsua as the engine sets it up, one worker thread, null audio; the account
 * sending video at once). It also defines pjsua_vid_conf_remove_port (called through the PLT where it is not
 * inlined) and __assert_fail (where it is, PJ_ASSERT_RETURN's failure reaches it through the PLT),
 * and reports a removal of slot -1 from either before anything aborts.
 * Patched (free_vid_win removes only valid slots): the add fails, the window is freed, slot -1 is
 * not removed, and the call goes on without video until the program hangs up. Unpatched:
 * free_vid_win removes slot -1, and the program says so and exits 3 instead of aborting.
 *
 * Prints "capture add failed: N; removed slot -1: NO|YES". Exit 0: the add failed and no slot -1
 * was removed; 1: setup failed; 2: the capture port was never added (no video window), or an
 * assertion other than the removal's failed; 3: slot -1 removed. */
#include "vid_loopback_call.h"

typedef pj_status_t (*add_port_fn)(pjmedia_vid_conf *, pj_pool_t *, pjmedia_port *, const pj_str_t *,
                                   void *, unsigned *);
typedef pj_status_t (*remove_port_fn)(pjsua_conf_port_id);

static volatile int failed_adds;

static void report_removed(void)
{
    printf("capture add failed: %d; removed slot -1: YES\n", failed_adds);
    fflush(stdout);
    _exit(3);
}

pj_status_t pjmedia_vid_conf_add_port(pjmedia_vid_conf *conf, pj_pool_t *pool, pjmedia_port *port,
                                      const pj_str_t *name, void *opt, unsigned *p_slot)
{
    static add_port_fn real;

    if (real == NULL) real = (add_port_fn)dlsym(RTLD_NEXT, "pjmedia_vid_conf_add_port");
    /* The capture video port's passive port is named after its device. */
    if (port != NULL && port->info.name.slen >= 8 && strncmp(port->info.name.ptr, "Colorbar", 8) == 0) {
        ++failed_adds;
        return PJ_ETOOMANY;  /* what vid_conf.c answers when its slots are all taken */
    }
    return real(conf, pool, port, name, opt, p_slot);
}

pj_status_t pjsua_vid_conf_remove_port(pjsua_conf_port_id id)
{
    static remove_port_fn real;

    if (real == NULL) real = (remove_port_fn)dlsym(RTLD_NEXT, "pjsua_vid_conf_remove_port");
    if (id < 0) report_removed();
    return real(id);
}

void __assert_fail(const char *assertion, const char *file, unsigned line, const char *function)
{
    if (function != NULL && strstr(function, "pjsua_vid_conf_remove_port") != NULL) report_removed();
    printf("capture add failed: %d; other assertion: %s (%s:%u)\n", failed_adds, assertion, file, line);
    fflush(stdout);
    _exit(2);
}

int main(void)
{
    /* Both ends send video at once, and the call has audio too (pjsua's default call setting). */
    static const struct loopback_options options = {
        .thread_cnt = 1, .auto_transmit = PJ_TRUE, .answer_default = PJ_TRUE
    };
    int waited;

    if (loopback_pjsua_start(&options) != 0) return 1;

    /* A call to itself: both ends set up video capture, through create_vid_win. */
    if (loopback_call_place(NULL) != 0) return 1;
    /* Up to 5 s for the capture window; then a second for anything that follows its failure. */
    for (waited = 0; waited < 500 && failed_adds == 0; ++waited) usleep(10000);
    if (failed_adds > 0) usleep(1000000);
    printf("capture add failed: %d; removed slot -1: NO\n", failed_adds);
    fflush(stdout);
    finish(failed_adds > 0 ? 0 : 2);
    return 0;
}
