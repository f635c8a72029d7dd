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
 * (pjsua as the engine sets it up: one worker thread, null audio, the account sending video at
 * once). It also defines pjsua_vid_conf_remove_port (called through the PLT where it is not
 * inlined) and __assert_fail (where it is, PJ_ASSERT_RETURN's failure reaches it through the PLT),
 * and reports a removal of slot -1 from either before anything aborts.
 * Patched (free_vid_win removes only valid slots): the add fails, the window is freed, slot -1 is
 * not removed, and the call goes on without video until the program hangs up. Unpatched:
 * free_vid_win removes slot -1, and the program says so and exits 3 instead of aborting.
 *
 * Prints "capture add failed: N; removed slot -1: NO|YES". Exit 0: the add failed and no slot -1
 * was removed; 1: setup failed; 2: the capture port was never added (no video window), or an
 * assertion other than the removal's failed; 3: slot -1 removed. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pjsua-lib/pjsua.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static void on_incoming_call(pjsua_acc_id account, pjsua_call_id call, pjsip_rx_data *rdata)
{
    (void)account;
    (void)rdata;
    pjsua_call_answer(call, 200, NULL, NULL);
}

int main(void)
{
    pjsua_config config;
    pjsua_logging_config logging;
    pjsua_media_config media;
    pjsua_transport_config transport;
    pjsua_transport_id transport_id;
    pjsua_transport_info transport_info;
    pjsua_acc_config account_config;
    pjsua_acc_id account;
    pjsua_call_id call;
    pjmedia_vid_dev_index capture = PJMEDIA_VID_INVALID_DEV;
    pjmedia_vid_dev_info info;
    char uri_text[64];
    pj_str_t uri;
    unsigned i;
    int waited;

    /* pjsua_init starts SDL for video, which wants a display and takes SIGTERM and SIGINT: the
     * engine's hints. */
    setenv("SDL_VIDEODRIVER", "dummy", 1);
    setenv("SDL_NO_SIGNAL_HANDLERS", "1", 1);
    pj_log_set_level(0);  /* quiet from the start: the one printed line is the verdict */
    if (pjsua_create() != PJ_SUCCESS) return 1;
    pjsua_config_default(&config);
    config.thread_cnt = 1;  /* the engine's: one worker polls the SIP sockets and the timers */
    config.cb.on_incoming_call = &on_incoming_call;
    pjsua_logging_config_default(&logging);
    logging.level = 0;
    logging.console_level = 0;
    pjsua_media_config_default(&media);
    if (pjsua_init(&config, &logging, &media) != PJ_SUCCESS) return 1;
    if (pjsua_set_null_snd_dev() != PJ_SUCCESS) return 1;
    for (i = 0; i < pjsua_vid_dev_count(); ++i) {
        if (pjsua_vid_dev_get_info((pjmedia_vid_dev_index)i, &info) == PJ_SUCCESS
            && (info.dir & PJMEDIA_DIR_CAPTURE) && strcmp(info.name, "Colorbar generator") == 0)
            capture = info.id;
    }
    if (capture == PJMEDIA_VID_INVALID_DEV) return 1;
    pjsua_transport_config_default(&transport);
    transport.bound_addr = pj_str("127.0.0.1");
    transport.public_addr = pj_str("127.0.0.1");
    if (pjsua_transport_create(PJSIP_TRANSPORT_UDP, &transport, &transport_id) != PJ_SUCCESS) return 1;
    if (pjsua_transport_get_info(transport_id, &transport_info) != PJ_SUCCESS) return 1;
    pjsua_acc_config_default(&account_config);
    account_config.id = pj_str("sip:probe@127.0.0.1");
    account_config.transport_id = transport_id;
    account_config.vid_out_auto_transmit = PJ_TRUE;
    account_config.vid_in_auto_show = PJ_FALSE;
    account_config.vid_cap_dev = capture;
    if (pjsua_acc_add(&account_config, PJ_TRUE, &account) != PJ_SUCCESS) return 1;
    if (pjsua_start() != PJ_SUCCESS) return 1;

    /* A call to itself: both ends set up video capture, through create_vid_win. */
    snprintf(uri_text, sizeof uri_text, "sip:probe@127.0.0.1:%u",
             (unsigned)pj_sockaddr_get_port(&transport_info.local_addr));
    uri = pj_str(uri_text);
    if (pjsua_call_make_call(account, &uri, NULL, NULL, NULL, &call) != PJ_SUCCESS) return 1;
    /* Up to 5 s for the capture window; then a second for anything that follows its failure. */
    for (waited = 0; waited < 500 && failed_adds == 0; ++waited) usleep(10000);
    if (failed_adds > 0) usleep(1000000);
    printf("capture add failed: %d; removed slot -1: NO\n", failed_adds);
    fflush(stdout);
    pjsua_call_hangup_all();
    usleep(200000);
    pjsua_destroy();
    return failed_adds > 0 ? 0 : 2;
}
