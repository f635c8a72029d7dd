/*
 * Realtime streams: a call connected to OpenAI Realtime through pjproject 2.17's AI media port
 * (pjmedia/ai_port.h, experimental) and its OpenAI backend. See include/CPJSUASupport.h.
 *
 * Why the AI port here (and not for Twilio Media Streams): OpenAI Realtime has no marks and no
 * clear to honour; the port's own buffers, its backend's PCM16 24 kHz encoding and its event
 * parsing are all the protocol needs, and the bridge resamples to the port's rate.
 *
 * Threads: open and close on the engine's executor thread; the port's event callback on pjsua's
 * worker threads (the endpoint's ioqueue), which only forwards to the owner's notify.
 *
 * Lifetime: the port has a group lock (the bridge removes ports asynchronously and holds a
 * reference until done). Our handler on that lock runs after the port's own destroy handler:
 * it releases the owner's context, the pool the backend lives in, and this struct.
 */
#ifndef PJ_AUTOCONF
#  define PJ_AUTOCONF 1
#endif
#include <pjsua.h>
#include <pjmedia/ai_port.h>
#include <stdatomic.h>
#include <stdlib.h>
#include "CPJSUASupport.h"

struct cpjsua_rt_stream {
    pj_pool_t *pool;             /* the backend's memory, released after the port is gone */
    pjmedia_ai_port *ai_port;
    pjmedia_port *port;
    int32_t slot;
    atomic_int closed;
    cpjsua_rt_notify notify;
    void *ctx;
    cpjsua_ws_release release;
};

static void on_event(pjmedia_ai_port *ai_port, const pjmedia_ai_event *event)
{
    cpjsua_rt_stream *s = pjmedia_ai_port_get_user_data(ai_port);
    if (!s || atomic_load(&s->closed)) return;
    const char *text = event->type == PJMEDIA_AI_EVENT_TRANSCRIPT ? event->text.ptr : NULL;
    uint64_t length = text && event->text.slen > 0 ? (uint64_t)event->text.slen : 0;
    s->notify(s->ctx, (int32_t)event->type, event->status, text, length);
}

/* The port's group lock is going, after the port's own destroy handler. */
static void on_port_gone(void *arg)
{
    cpjsua_rt_stream *s = arg;
    void *ctx = s->ctx;
    cpjsua_ws_release release = s->release;
    pj_pool_t *pool = s->pool;
    free(s);
    release(ctx);
    pj_pool_release(pool);
}

int32_t cpjsua_rt_stream_open(const char *url, const char *token, cpjsua_rt_notify notify, void *ctx,
                              cpjsua_ws_release release, int32_t *slot, cpjsua_rt_stream **out)
{
    *out = NULL;
    cpjsua_rt_stream *s = calloc(1, sizeof *s);
    if (!s) {
        release(ctx);
        return PJ_ENOMEM;
    }
    s->notify = notify;
    s->ctx = ctx;
    s->release = release;
    s->slot = PJSUA_INVALID_ID;
    s->pool = pjsua_pool_create("rtstream%p", 1024, 1024);
    if (!s->pool) {
        free(s);
        release(ctx);
        return PJ_ENOMEM;
    }
    pjmedia_ai_backend *backend = NULL;
    pj_status_t status = pjmedia_ai_openai_backend_create(s->pool, &backend);
    if (status != PJ_SUCCESS) {
        pj_pool_release(s->pool);
        free(s);
        release(ctx);
        return status;
    }
    pjsip_endpoint *endpoint = pjsua_get_pjsip_endpt();
    pjmedia_ai_port_param param;
    pjmedia_ai_port_param_default(&param);
    param.ioqueue = pjsip_endpt_get_ioqueue(endpoint);
    param.timer_heap = pjsip_endpt_get_timer_heap(endpoint);
    param.cb.on_event = &on_event;
    param.user_data = s;
    param.backend = backend;
    status = pjmedia_ai_port_create(s->pool, &param, &s->ai_port);
    if (status != PJ_SUCCESS) {
        if (backend->op && backend->op->destroy) backend->op->destroy(backend);
        pj_pool_release(s->pool);
        free(s);
        release(ctx);
        return status;
    }
    s->port = pjmedia_ai_port_get_port(s->ai_port);
    /* From here the port's destruction releases everything (on_port_gone). */
    pj_grp_lock_add_handler(s->port->grp_lock, s->pool, s, &on_port_gone);
    pjsua_conf_port_id id = PJSUA_INVALID_ID;
    status = pjsua_conf_add_port(s->pool, s->port, &id);
    if (status != PJ_SUCCESS) {
        atomic_store(&s->closed, 1);
        pjmedia_port_destroy(s->port);
        return status;
    }
    s->slot = id;
    pj_str_t target = pj_str((char *)url);
    pj_str_t key = pj_str((char *)token);
    status = pjmedia_ai_port_connect(s->ai_port, &target, &key);
    if (status != PJ_SUCCESS) {
        cpjsua_rt_stream_close(s);
        return status;
    }
    *slot = id;
    *out = s;
    return PJ_SUCCESS;
}

void cpjsua_rt_stream_close(cpjsua_rt_stream *s)
{
    if (atomic_exchange(&s->closed, 1)) return;
    pjmedia_ai_port_disconnect(s->ai_port);
    if (s->slot != PJSUA_INVALID_ID) pjsua_conf_remove_port(s->slot);
    s->slot = PJSUA_INVALID_ID;
    pjmedia_port_destroy(s->port);
}
