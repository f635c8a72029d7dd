/*
 * Media taps: in an engine started with media streams enabled, every call's media transport is
 * wrapped in a thin adapter (pjsua's on_create_media_transport, which pjsua calls after it
 * stacked SRTP on the socket transport, so the adapter sees RTP decrypted). The adapter forwards everything both ways unchanged; when a
 * consumer is set on it (cpjsua_media_tap_set), each RTP packet received is also handed to the
 * consumer, on the thread that received it (pjsua's worker), before the stream gets it. A media
 * stream (WebSocketLink.c) uses that to send a PCMU or PCMA caller's audio to its agent the
 * moment it arrives, without waiting for the jitter buffer and the bridge's next tick.
 *
 * Cost when no consumer is set: one indirect call and two atomic loads per received packet; with
 * one, the tap's own mutex (no lock is shared between calls on the packet path). Only an engine
 * started with media streams enabled installs the adapter at all.
 *
 * Lifetime: the adapter shares the wrapped transport's group lock (one reference held from
 * creation to destroy) and is freed by that lock's destroy handler, after the last callback of
 * the transport below. An adapter whose group lock has not reached zero when pjsua_destroy
 * releases the pools wholesale (or whose transport pjsua never closed) would leak: one ASan
 * pass of the engine's suites found two, which of the two causes is not known. So every adapter
 * stays on one list until it is freed, and cpjsua_media_tap_release_all, after pjsua_destroy,
 * frees what is left. The consumer (ctx) is
 * retained by the tap while set and released when it is replaced, cleared or the adapter is
 * destroyed. Taps are found by (call, media index) on that list, under one mutex (`taps_lock`);
 * each tap's consumer is under the tap's own mutex. Lock order: taps_lock, a tap's lock.
 */
#ifndef PJ_AUTOCONF
#  define PJ_AUTOCONF 1
#endif
#include <pjsua.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "CPJSUAStreams.h"

typedef struct media_tap {
    pjmedia_transport base;
    pjmedia_transport *member;
    int close_member;
    int32_t call_id;
    uint32_t media_index;
    struct media_tap *next;          /* in `taps`, under `taps_lock`, until freed */
    int retired;                     /* destroyed: no longer found by set or clear (under `taps_lock`) */
    /* What the stream attached: set by attach and cleared by detach on the engine's thread, read
     * on the worker's packet path, each callback loaded once per packet (a detach between a check
     * and a call would otherwise call NULL). */
    void *stream_user_data;
    _Atomic(void (*)(void *, void *, pj_ssize_t)) stream_rtp_cb;
    _Atomic(void (*)(pjmedia_tp_cb_param *)) stream_rtp_cb2;
    _Atomic(void (*)(void *, void *, pj_ssize_t)) stream_rtcp_cb;
    /* The consumer, under `lock` (the tap's own: a packet takes no lock shared with other
     * calls); `has_consumer` mirrors it for the packet path of a tap without one. */
    pthread_mutex_t lock;
    atomic_int has_consumer;
    cpjsua_rtp_consumer consumer;
    void *consumer_ctx;
    cpjsua_tap_release consumer_release;
} media_tap;

static pthread_mutex_t taps_lock = PTHREAD_MUTEX_INITIALIZER;
static media_tap *taps;  /* the list and `next`, `retired`: under taps_lock */

/* MARK: Received packets (pjsua's worker threads) */

static void consume(media_tap *tap, const void *packet, pj_ssize_t size)
{
    if (size <= 0 || !atomic_load_explicit(&tap->has_consumer, memory_order_acquire)) return;
    /* The tap is alive: its transport is delivering. Only its own lock, which a swap takes too:
     * a consumer cleared meanwhile is not released while it runs. */
    pthread_mutex_lock(&tap->lock);
    cpjsua_rtp_consumer consumer = tap->consumer;
    void *ctx = tap->consumer_ctx;
    if (consumer) consumer(ctx, (const uint8_t *)packet, (uint32_t)size);
    pthread_mutex_unlock(&tap->lock);
}

static void on_rtp2(pjmedia_tp_cb_param *param)
{
    media_tap *tap = param->user_data;
    consume(tap, param->pkt, param->size);
    void (*rtp_cb2)(pjmedia_tp_cb_param *) = atomic_load_explicit(&tap->stream_rtp_cb2, memory_order_acquire);
    if (rtp_cb2) {
        pjmedia_tp_cb_param forwarded = *param;
        forwarded.user_data = tap->stream_user_data;
        rtp_cb2(&forwarded);
        param->rem_switch = forwarded.rem_switch;
        return;
    }
    void (*rtp_cb)(void *, void *, pj_ssize_t) = atomic_load_explicit(&tap->stream_rtp_cb, memory_order_acquire);
    if (rtp_cb) rtp_cb(tap->stream_user_data, param->pkt, param->size);
}

static void on_rtcp(void *user_data, void *packet, pj_ssize_t size)
{
    media_tap *tap = user_data;
    void (*rtcp_cb)(void *, void *, pj_ssize_t) = atomic_load_explicit(&tap->stream_rtcp_cb, memory_order_acquire);
    if (rtcp_cb) rtcp_cb(tap->stream_user_data, packet, size);
}

/* MARK: The transport's operations: forwarded to the member */

static pj_status_t tap_get_info(pjmedia_transport *tp, pjmedia_transport_info *info)
{
    return pjmedia_transport_get_info(((media_tap *)tp)->member, info);
}

/* The stream's callbacks cleared: packets still arriving go nowhere. */
static void stream_detached(media_tap *tap)
{
    atomic_store_explicit(&tap->stream_rtp_cb, NULL, memory_order_release);
    atomic_store_explicit(&tap->stream_rtp_cb2, NULL, memory_order_release);
    atomic_store_explicit(&tap->stream_rtcp_cb, NULL, memory_order_release);
}

static pj_status_t tap_attach2(pjmedia_transport *tp, pjmedia_transport_attach_param *param)
{
    media_tap *tap = (media_tap *)tp;
    tap->stream_user_data = param->user_data;
    atomic_store_explicit(&tap->stream_rtp_cb, param->rtp_cb, memory_order_release);
    atomic_store_explicit(&tap->stream_rtp_cb2, param->rtp_cb2, memory_order_release);
    atomic_store_explicit(&tap->stream_rtcp_cb, param->rtcp_cb, memory_order_release);
    pjmedia_transport_attach_param below = *param;
    below.user_data = tap;
    below.rtp_cb = NULL;
    below.rtp_cb2 = &on_rtp2;
    below.rtcp_cb = &on_rtcp;
    pj_status_t status = pjmedia_transport_attach2(tap->member, &below);
    if (status != PJ_SUCCESS) {
        stream_detached(tap);
    }
    return status;
}

static pj_status_t tap_attach(pjmedia_transport *tp, void *user_data, const pj_sockaddr_t *rem_addr,
                              const pj_sockaddr_t *rem_rtcp, unsigned addr_len,
                              void (*rtp_cb)(void *, void *, pj_ssize_t), void (*rtcp_cb)(void *, void *, pj_ssize_t))
{
    pjmedia_transport_attach_param param;
    pj_bzero(&param, sizeof param);
    param.user_data = user_data;
    if (rem_addr) pj_sockaddr_cp(&param.rem_addr, rem_addr);
    if (rem_rtcp) pj_sockaddr_cp(&param.rem_rtcp, rem_rtcp);
    param.addr_len = addr_len;
    param.rtp_cb = rtp_cb;
    param.rtcp_cb = rtcp_cb;
    return tap_attach2(tp, &param);
}

static void tap_detach(pjmedia_transport *tp, void *user_data)
{
    media_tap *tap = (media_tap *)tp;
    PJ_UNUSED_ARG(user_data);
    pjmedia_transport_detach(tap->member, tap);
    stream_detached(tap);
}

static pj_status_t tap_send_rtp(pjmedia_transport *tp, const void *packet, pj_size_t size)
{
    return pjmedia_transport_send_rtp(((media_tap *)tp)->member, packet, size);
}

static pj_status_t tap_send_rtcp(pjmedia_transport *tp, const void *packet, pj_size_t size)
{
    return pjmedia_transport_send_rtcp(((media_tap *)tp)->member, packet, size);
}

static pj_status_t tap_send_rtcp2(pjmedia_transport *tp, const pj_sockaddr_t *addr, unsigned addr_len, const void *packet,
                                  pj_size_t size)
{
    return pjmedia_transport_send_rtcp2(((media_tap *)tp)->member, addr, addr_len, packet, size);
}

static pj_status_t tap_media_create(pjmedia_transport *tp, pj_pool_t *pool, unsigned options,
                                    const pjmedia_sdp_session *remote, unsigned media_index)
{
    return pjmedia_transport_media_create(((media_tap *)tp)->member, pool, options, remote, media_index);
}

static pj_status_t tap_encode_sdp(pjmedia_transport *tp, pj_pool_t *pool, pjmedia_sdp_session *local,
                                  const pjmedia_sdp_session *remote, unsigned media_index)
{
    return pjmedia_transport_encode_sdp(((media_tap *)tp)->member, pool, local, remote, media_index);
}

static pj_status_t tap_media_start(pjmedia_transport *tp, pj_pool_t *pool, const pjmedia_sdp_session *local,
                                   const pjmedia_sdp_session *remote, unsigned media_index)
{
    return pjmedia_transport_media_start(((media_tap *)tp)->member, pool, local, remote, media_index);
}

static pj_status_t tap_media_stop(pjmedia_transport *tp)
{
    return pjmedia_transport_media_stop(((media_tap *)tp)->member);
}

static pj_status_t tap_simulate_lost(pjmedia_transport *tp, pjmedia_dir dir, unsigned percent)
{
    return pjmedia_transport_simulate_lost(((media_tap *)tp)->member, dir, percent);
}

/* Puts `consumer` (NULL: none) on the tap and hands back the one it replaces, for its owner to
 * release outside the locks. Under `taps_lock` (which finds the tap alive); takes the tap's lock. */
static void swap_consumer_locked(media_tap *tap, cpjsua_rtp_consumer consumer, void *ctx, cpjsua_tap_release release,
                                 cpjsua_tap_release *old_release, void **old_ctx)
{
    pthread_mutex_lock(&tap->lock);
    *old_release = tap->consumer_release;
    *old_ctx = tap->consumer_ctx;
    tap->consumer = consumer;
    tap->consumer_ctx = consumer ? ctx : NULL;
    tap->consumer_release = consumer ? release : NULL;
    atomic_store_explicit(&tap->has_consumer, consumer != NULL, memory_order_release);
    pthread_mutex_unlock(&tap->lock);
}

/* Drops the tap's consumer and hides it from set and clear; the memory goes with the group lock. */
static void retire(media_tap *tap)
{
    cpjsua_tap_release release = NULL;
    void *ctx = NULL;
    pthread_mutex_lock(&taps_lock);
    tap->retired = 1;
    swap_consumer_locked(tap, NULL, NULL, NULL, &release, &ctx);
    pthread_mutex_unlock(&taps_lock);
    if (release) release(ctx);
}

/* Takes the tap off the list and frees it. */
static void free_tap(media_tap *tap)
{
    pthread_mutex_lock(&taps_lock);
    for (media_tap **p = &taps; *p; p = &(*p)->next) {
        if (*p == tap) {
            *p = tap->next;
            break;
        }
    }
    pthread_mutex_unlock(&taps_lock);
    pthread_mutex_destroy(&tap->lock);
    free(tap);
}

static void on_group_lock_destroyed(void *member)
{
    free_tap(member);
}

static pj_status_t tap_destroy(pjmedia_transport *tp)
{
    media_tap *tap = (media_tap *)tp;
    retire(tap);
    pjmedia_transport *member = tap->member;
    pj_grp_lock_t *group = tap->base.grp_lock;
    if (tap->close_member) pjmedia_transport_close(member);
    if (group) {
        pj_grp_lock_dec_ref(group);  /* the adapter is freed by on_group_lock_destroyed */
    } else {
        free_tap(tap);
    }
    return PJ_SUCCESS;
}

static pjmedia_transport_op tap_op = {
    .get_info = &tap_get_info,
    .attach = &tap_attach,
    .detach = &tap_detach,
    .send_rtp = &tap_send_rtp,
    .send_rtcp = &tap_send_rtcp,
    .send_rtcp2 = &tap_send_rtcp2,
    .media_create = &tap_media_create,
    .encode_sdp = &tap_encode_sdp,
    .media_start = &tap_media_start,
    .media_stop = &tap_media_stop,
    .simulate_lost = &tap_simulate_lost,
    .destroy = &tap_destroy,
    .attach2 = &tap_attach2,
};

/* pjsua's on_create_media_transport: the call's transport (SRTP already on it), wrapped. */
static pjmedia_transport *wrap(pjsua_call_id call_id, unsigned media_index, pjmedia_transport *base, unsigned flags)
{
    media_tap *tap = calloc(1, sizeof *tap);
    if (!tap) return base;  /* untapped, but the call goes on */
    pj_ansi_snprintf(tap->base.name, sizeof tap->base.name, "tap%d.%u", call_id, media_index);
    tap->base.type = base->type;
    tap->base.op = &tap_op;
    tap->member = base;
    tap->close_member = (flags & PJSUA_MED_TP_CLOSE_MEMBER) != 0;
    tap->call_id = call_id;
    tap->media_index = media_index;
    pthread_mutex_init(&tap->lock, NULL);
    atomic_init(&tap->has_consumer, 0);
    if (base->grp_lock) {
        tap->base.grp_lock = base->grp_lock;
        pj_grp_lock_add_ref(base->grp_lock);
        pj_grp_lock_add_handler(base->grp_lock, NULL, tap, &on_group_lock_destroyed);
    }
    pthread_mutex_lock(&taps_lock);
    tap->next = taps;
    taps = tap;
    pthread_mutex_unlock(&taps_lock);
    return &tap->base;
}

void cpjsua_media_tap_install(void *config)
{
    ((pjsua_config *)config)->cb.on_create_media_transport = &wrap;
}

int32_t cpjsua_media_tap_set(int32_t call_id, uint32_t media_index, cpjsua_rtp_consumer consumer, void *ctx,
                             cpjsua_tap_release release)
{
    cpjsua_tap_release old_release = NULL;
    void *old_ctx = NULL;
    int found = 0;
    pthread_mutex_lock(&taps_lock);
    for (media_tap *tap = taps; tap; tap = tap->next) {
        if (tap->retired || tap->call_id != call_id || tap->media_index != media_index) continue;
        found = 1;
        swap_consumer_locked(tap, consumer, ctx, release, &old_release, &old_ctx);
        break;
    }
    pthread_mutex_unlock(&taps_lock);
    if (old_release) old_release(old_ctx);
    if (!found && consumer && release) release(ctx);
    return found;
}

int32_t cpjsua_media_tap_clear(int32_t call_id, uint32_t media_index, void *ctx)
{
    cpjsua_tap_release release = NULL;
    void *old_ctx = NULL;
    pthread_mutex_lock(&taps_lock);
    for (media_tap *tap = taps; tap; tap = tap->next) {
        if (tap->retired || tap->call_id != call_id || tap->media_index != media_index || tap->consumer_ctx != ctx ||
            !tap->consumer)
            continue;
        swap_consumer_locked(tap, NULL, NULL, NULL, &release, &old_ctx);
        break;
    }
    pthread_mutex_unlock(&taps_lock);
    if (release) release(old_ctx);
    return release != NULL;
}

int32_t cpjsua_media_tap_exists(int32_t call_id, uint32_t media_index)
{
    int32_t found = 0;
    pthread_mutex_lock(&taps_lock);
    for (media_tap *tap = taps; tap && !found; tap = tap->next)
        found = !tap->retired && tap->call_id == call_id && tap->media_index == media_index;
    pthread_mutex_unlock(&taps_lock);
    return found;
}

void cpjsua_media_tap_release_all(void)
{
    pthread_mutex_lock(&taps_lock);
    media_tap *list = taps;
    taps = NULL;
    pthread_mutex_unlock(&taps_lock);
    while (list) {
        media_tap *next = list->next;
        if (list->consumer_release) list->consumer_release(list->consumer_ctx);
        pthread_mutex_destroy(&list->lock);
        free(list);
        list = next;
    }
}
