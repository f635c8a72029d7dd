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
 * The null side is our own port rather than pjmedia's null port, because it sees both ends of
 * every tick: the master port reads it first (tick start: it hands the bridge a silent "mic"
 * frame) and writes it last (tick end: the bridge has run every port). Frame readers use that to
 * wake the app's tasks for a tick's frames from one job at the tick's end (ReceivedFrames.swift's
 * FrameWakeUps), instead of waking a Swift task from inside the tick once per call.
 *
 * Threading: start/stop run on the engine's (PJLIB-registered) thread only; the clock thread is
 * created by pjmedia (pj_thread_create registers it). State is therefore not locked: the hook
 * is set before the clock thread starts, `in_tick` is the clock thread's own.
 */
#ifndef PJ_AUTOCONF
#  define PJ_AUTOCONF 1
#endif
#include <pjsua.h>
#include "CPJSUASupport.h"

static pj_pool_t *null_clock_pool;
static cpjsua_tick_hook tick_hook;
static _Thread_local int in_tick;
static pjmedia_port *null_clock_port;
static pjmedia_master_port *null_clock_master;

/* Tick start: the bridge's "microphone" gets silence. */
static pj_status_t tick_get_frame(pjmedia_port *this_port, pjmedia_frame *frame) {
    in_tick = 1;
    unsigned samples = PJMEDIA_PIA_SPF(&this_port->info);
    frame->type = PJMEDIA_FRAME_TYPE_AUDIO;
    frame->size = samples * sizeof(pj_int16_t);
    frame->timestamp.u64 += samples;
    pjmedia_zero_samples((pj_int16_t *)frame->buf, samples);
    return PJ_SUCCESS;
}

/* Tick end: what the bridge mixed for the "speaker" is dropped; the hook runs. */
static pj_status_t tick_put_frame(pjmedia_port *this_port, pjmedia_frame *frame) {
    PJ_UNUSED_ARG(this_port);
    PJ_UNUSED_ARG(frame);
    in_tick = 0;
    if (tick_hook != NULL) tick_hook();
    return PJ_SUCCESS;
}

int32_t cpjsua_null_clock_in_tick(void) {
    return in_tick;
}

void cpjsua_null_clock_stop(void) {
    if (null_clock_master != NULL) {
        /* Stops and joins the clock thread; PJ_FALSE keeps both ports (port 0 is the bridge's). */
        pjmedia_master_port_destroy(null_clock_master, PJ_FALSE);
        null_clock_master = NULL;
    }
    null_clock_port = NULL;  /* pool memory, no destructor */
    if (null_clock_pool != NULL) {
        pj_pool_release(null_clock_pool);
        null_clock_pool = NULL;
    }
}

int cpjsua_null_clock_start(cpjsua_tick_hook hook) {
    cpjsua_null_clock_stop();
    pjmedia_port *bridge = pjsua_set_no_snd_dev();
    if (bridge == NULL) return PJ_EINVALIDOP;
    const pjmedia_audio_format_detail *format = pjmedia_format_get_audio_format_detail(&bridge->info.fmt, PJ_TRUE);
    if (format == NULL) return PJ_EINVAL;

    null_clock_pool = pjsua_pool_create("swiftpjsua-nullclock", 512, 512);
    if (null_clock_pool == NULL) return PJ_ENOMEM;
    null_clock_port = PJ_POOL_ZALLOC_T(null_clock_pool, pjmedia_port);
    pj_str_t name = pj_str("swiftpjsua-tick");
    pjmedia_port_info_init(&null_clock_port->info, &name, PJMEDIA_SIG_CLASS_PORT_AUD('T', 'K'), format->clock_rate,
                           format->channel_count, format->bits_per_sample, PJMEDIA_PIA_SPF(&bridge->info));
    null_clock_port->get_frame = &tick_get_frame;
    null_clock_port->put_frame = &tick_put_frame;
    tick_hook = hook;
    pj_status_t status = pjmedia_master_port_create(null_clock_pool, null_clock_port, bridge, PJMEDIA_CLOCK_NO_HIGHEST_PRIO,
                                                    &null_clock_master);
    if (status == PJ_SUCCESS) status = pjmedia_master_port_start(null_clock_master);
    if (status != PJ_SUCCESS) cpjsua_null_clock_stop();
    return status;
}
