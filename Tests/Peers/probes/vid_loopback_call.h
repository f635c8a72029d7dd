/* A loopback video call for the video window probes (vid_capture_window.c, vid_win_op_teardown.c):
 * pjsua as the engine sets it up (one worker thread, null audio, the colour-bar capture, SDL with
 * its dummy driver), an account on 127.0.0.1 calling itself with video only, both ends told to
 * send only when the probe says so; and a hook on the removal of a video conference slot, the
 * first step of free_vid_win's teardown of a window, which it runs with PJSUA_LOCK let go.
 *
 * The hook: this file defines pjsua_vid_conf_remove_port and pjmedia_vid_conf_remove_port, so
 * PJSIP's calls to them come here first (libpjsua calls the first through its PLT, and the second,
 * in libpjmedia, from the first); each calls the probe's before_vid_conf_remove(slot), then the
 * real function (dlsym(RTLD_NEXT)). A probe holds the thread that frees a window there.
 *
 * One .c file per probe (Tests/PJSUATestSupport/PJSIPProbe.swift): this header is included with
 * quotes and defines its functions static. */
#ifndef VID_LOOPBACK_CALL_H
#define VID_LOOPBACK_CALL_H

#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <pjsua-lib/pjsua.h>
#include <pjsua-lib/pjsua_internal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef pj_status_t (*pjsua_remove_fn)(pjsua_conf_port_id);
typedef pj_status_t (*pjmedia_remove_fn)(pjmedia_vid_conf *, unsigned);

static struct pjsua_data *var;               /* pjsua's state (pjsua_get_var) */
static pthread_t main_pthread;               /* the thread that ran loopback_video_call */
/* The call placed (calls[0]) and the call it became at the other end (calls[1]). */
static volatile pjsua_call_id calls[2] = { PJSUA_INVALID_ID, PJSUA_INVALID_ID };

/* The probe's: called before every removal of a video conference slot, on the removing thread. */
static void before_vid_conf_remove(int slot);

pj_status_t pjsua_vid_conf_remove_port(pjsua_conf_port_id id)
{
    static pjsua_remove_fn real;

    if (real == NULL) real = (pjsua_remove_fn)dlsym(RTLD_NEXT, "pjsua_vid_conf_remove_port");
    before_vid_conf_remove(id);
    return real(id);
}

/* Where pjsua_vid_conf_remove_port is inlined into free_vid_win. */
pj_status_t pjmedia_vid_conf_remove_port(pjmedia_vid_conf *conf, unsigned slot)
{
    static pjmedia_remove_fn real;

    if (real == NULL) real = (pjmedia_remove_fn)dlsym(RTLD_NEXT, "pjmedia_vid_conf_remove_port");
    before_vid_conf_remove((int)slot);
    return real(conf, slot);
}

/* Video only: no audio stream sends RTP while the other end's streams attach (see below). */
static void video_only(pjsua_call_setting *setting)
{
    pjsua_call_setting_default(setting);
    setting->aud_cnt = 0;
    setting->vid_cnt = 1;
}

static void on_incoming_call(pjsua_acc_id account, pjsua_call_id call, pjsip_rx_data *rdata)
{
    pjsua_call_setting setting;

    (void)account;
    (void)rdata;
    calls[1] = call;
    video_only(&setting);
    pjsua_call_answer2(call, &setting, 200, NULL, NULL);
}

/* Both ends confirmed, each with an active video stream; its index in *med. */
static int video_up(pjsua_call_id call, int *med)
{
    pjsua_call_info info;

    if (call == PJSUA_INVALID_ID || pjsua_call_get_info(call, &info) != PJ_SUCCESS
        || info.state != PJSIP_INV_STATE_CONFIRMED)
        return 0;
    *med = pjsua_call_get_vid_stream_idx(call);
    return *med >= 0 && (unsigned)*med < info.media_cnt
        && info.media[*med].status == PJSUA_CALL_MEDIA_ACTIVE;
}

static void finish(int code)
{
    pjsua_call_hangup_all();
    usleep(200000);
    pjsua_destroy();
    exit(code);
}

/* Starts pjsua and places the call. Returns 0 once both ends are up, with each end's video stream
 * index in med[0] (calls[0]) and med[1] (calls[1]); 1 when pjsua or the call could not be set up
 * (nothing printed); when the call never comes up within 5 s, says so and finish(1). Neither end
 * sends video yet (PJSUA_CALL_VID_STRM_START_TRANSMIT); each has its window for the incoming video
 * (hidden). */
static int loopback_video_call(int med[2])
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
    pjsua_call_setting setting;
    pjmedia_vid_dev_index capture = PJMEDIA_VID_INVALID_DEV;
    pjmedia_vid_dev_info info;
    char uri_text[64];
    pj_str_t uri;
    unsigned i;
    int waited;

    setvbuf(stdout, NULL, _IONBF, 0);
    /* pjsua_init starts SDL for video, which wants a display and takes SIGTERM and SIGINT: the
     * engine's hints. */
    setenv("SDL_VIDEODRIVER", "dummy", 1);
    setenv("SDL_NO_SIGNAL_HANDLERS", "1", 1);
    main_pthread = pthread_self();
    pj_log_set_level(0);  /* quiet from the start: the one printed line is the verdict */
    if (pjsua_create() != PJ_SUCCESS) return 1;
    var = pjsua_get_var();
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
    /* Not sending until both ends are up: RTP arriving while a stream attaches its transport
     * meets another 2.17 race (upstream 469151c48: the receive callback reads the source address
     * that transport_attach zeroes; pj_sockaddr_cp asserts), which aborted about one run in ten of
     * this setup under load. */
    account_config.vid_out_auto_transmit = PJ_FALSE;
    account_config.vid_in_auto_show = PJ_FALSE;
    account_config.vid_cap_dev = capture;
    if (pjsua_acc_add(&account_config, PJ_TRUE, &account) != PJ_SUCCESS) return 1;
    if (pjsua_start() != PJ_SUCCESS) return 1;

    /* A video call to itself. */
    snprintf(uri_text, sizeof uri_text, "sip:probe@127.0.0.1:%u",
             (unsigned)pj_sockaddr_get_port(&transport_info.local_addr));
    uri = pj_str(uri_text);
    video_only(&setting);
    if (pjsua_call_make_call(account, &uri, &setting, NULL, NULL, &call) != PJ_SUCCESS) return 1;
    calls[0] = call;
    for (waited = 0; waited < 500 && !(video_up(calls[0], &med[0]) && video_up(calls[1], &med[1]));
         ++waited)
        usleep(10000);
    if (waited == 500) {
        printf("setup: the loopback video call never came up\n");
        finish(1);
    }
    return 0;
}

#endif
