/*
 * The null audio device's clock, at normal thread priority.
 *
 * Why: with no sound card (servers, bots, tests) something must clock the conference bridge
 * every frame. pjsua_set_null_snd_dev() does it with a pjmedia master port whose clock thread
 * raises itself to the highest real-time priority. Once the bridge's work (mostly resampling)
 * outgrows a core, that thread takes the core and pjsua's SIP worker starves: measured, an engine
 * on one core stopped answering even BYEs (docs/KNOWN-LIMITS.md KL-26). Here the same master
 * port (a null port on one side, the bridge's port 0 on the other) is created with
 * PJMEDIA_CLOCK_NO_HIGHEST_PRIO, through pjsua's documented way to clock the bridge yourself:
 * pjsua_set_no_snd_dev() returns the bridge's port. Under media overload audio then degrades
 * while signalling keeps its share of the CPU.
 *
 * Threading: called on the engine's (PJLIB-registered) thread only; the clock thread is created
 * by pjmedia (pj_thread_create registers it). State is therefore not locked.
 */
#ifndef PJ_AUTOCONF
#  define PJ_AUTOCONF 1
#endif
#include <pjsua.h>
#include "CPJSUASupport.h"

static pj_pool_t *null_clock_pool;
static pjmedia_port *null_clock_port;
static pjmedia_master_port *null_clock_master;

void cpjsua_null_clock_stop(void) {
    if (null_clock_master != NULL) {
        /* Stops and joins the clock thread; PJ_FALSE keeps both ports (port 0 is the bridge's). */
        pjmedia_master_port_destroy(null_clock_master, PJ_FALSE);
        null_clock_master = NULL;
    }
    if (null_clock_port != NULL) {
        pjmedia_port_destroy(null_clock_port);
        null_clock_port = NULL;
    }
    if (null_clock_pool != NULL) {
        pj_pool_release(null_clock_pool);
        null_clock_pool = NULL;
    }
}

int cpjsua_null_clock_start(void) {
    cpjsua_null_clock_stop();
    pjmedia_port *bridge = pjsua_set_no_snd_dev();
    if (bridge == NULL) return PJ_EINVALIDOP;
    const pjmedia_audio_format_detail *format = pjmedia_format_get_audio_format_detail(&bridge->info.fmt, PJ_TRUE);
    if (format == NULL) return PJ_EINVAL;

    null_clock_pool = pjsua_pool_create("swiftpjsua-nullclock", 512, 512);
    if (null_clock_pool == NULL) return PJ_ENOMEM;
    pj_status_t status = pjmedia_null_port_create(null_clock_pool, format->clock_rate, format->channel_count,
                                                  PJMEDIA_PIA_SPF(&bridge->info), format->bits_per_sample,
                                                  &null_clock_port);
    if (status == PJ_SUCCESS) {
        status = pjmedia_master_port_create(null_clock_pool, null_clock_port, bridge, PJMEDIA_CLOCK_NO_HIGHEST_PRIO,
                                            &null_clock_master);
    }
    if (status == PJ_SUCCESS) status = pjmedia_master_port_start(null_clock_master);
    if (status != PJ_SUCCESS) cpjsua_null_clock_stop();
    return status;
}
