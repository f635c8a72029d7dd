/* pjsua as the engine sets it up, for the pjsua probes (evsub_abandon_lock.c, and the video ones
 * through vid_loopback_call.h): SDL's hints, logging off from the start, the probe's callbacks,
 * one worker thread unless the probe polls pjsua itself, null audio; then a UDP transport on
 * 127.0.0.1 and an account sip:probe@127.0.0.1 on it, and pjsua started.
 *
 * One .c file per probe (Tests/PJSUATestSupport/PJSIPProbe.swift): this header is included with
 * quotes and defines its functions static. */
#ifndef PJSUA_PROBE_H
#define PJSUA_PROBE_H

#include <pjsua-lib/pjsua.h>
#include <stdlib.h>

static pjsua_transport_info probe_transport_info;   /* the UDP transport's (its port) */
static pjsua_acc_id probe_account = PJSUA_INVALID_ID;

/* pjsua created and initialised: `thread_cnt` workers (1, the engine's: one worker polls the SIP
 * sockets and the timers; 0 when the probe polls), the callbacks in `cb`, null audio. 0, or 1 when
 * a step failed. */
static int probe_pjsua_init(unsigned thread_cnt, const pjsua_callback *cb)
{
    pjsua_config config;
    pjsua_logging_config logging;
    pjsua_media_config media;

    /* pjsua_init starts SDL for video, which wants a display and takes SIGTERM and SIGINT: the
     * engine's hints. */
    setenv("SDL_VIDEODRIVER", "dummy", 1);
    setenv("SDL_NO_SIGNAL_HANDLERS", "1", 1);
    pj_log_set_level(0);  /* quiet from the start: the one printed line is the verdict */
    if (pjsua_create() != PJ_SUCCESS) return 1;
    pjsua_config_default(&config);
    config.thread_cnt = thread_cnt;
    config.cb = *cb;
    pjsua_logging_config_default(&logging);
    logging.level = 0;
    logging.console_level = 0;
    pjsua_media_config_default(&media);
    if (pjsua_init(&config, &logging, &media) != PJ_SUCCESS) return 1;
    return pjsua_set_null_snd_dev() != PJ_SUCCESS;
}

/* After probe_pjsua_init: the UDP transport on 127.0.0.1 (probe_transport_info), the account
 * (probe_account; `account_config` from pjsua_acc_config_default, with the probe's fields: its id
 * and transport are set here), pjsua started. 0, or 1 when a step failed. */
static int probe_pjsua_start(pjsua_acc_config *account_config)
{
    pjsua_transport_config transport;
    pjsua_transport_id transport_id;

    pjsua_transport_config_default(&transport);
    transport.bound_addr = pj_str("127.0.0.1");
    transport.public_addr = pj_str("127.0.0.1");
    if (pjsua_transport_create(PJSIP_TRANSPORT_UDP, &transport, &transport_id) != PJ_SUCCESS) return 1;
    if (pjsua_transport_get_info(transport_id, &probe_transport_info) != PJ_SUCCESS) return 1;
    account_config->id = pj_str("sip:probe@127.0.0.1");
    account_config->transport_id = transport_id;
    if (pjsua_acc_add(account_config, PJ_TRUE, &probe_account) != PJ_SUCCESS) return 1;
    return pjsua_start() != PJ_SUCCESS;
}

#endif
