/*
 * Paced sending: in an engine started with media streams enabled, every call's audio stream
 * port is wrapped before pjsua puts it on the conference bridge (pjsua's on_stream_created2).
 * See include/CPJSUAStreams.h.
 *
 * Why: the bridge's clock thread ticks every port every 20 ms, and a frame written for the call
 * between two ticks waits for the next one: 0 to 20 ms, plus a frame whenever the writer's
 * arrivals drift across the tick. A media stream's agent (WebSocketLink.c) sends its audio at its
 * own clock, so most of what it says waited. With a source set, the stream's frames are taken
 * here instead: a frame goes into the stream (encoded and sent as RTP at once, by pjmedia) the
 * moment it arrives, when the stream's budget allows, and otherwise once it is due.
 *
 * The budget keeps the stream at one frame per frame period over time, as the bridge did, so
 * the far end's jitter buffer sees the rate it expects, while passing on the agent's jitter:
 * - credit accrues at real time plus 1 %, capped at one period (lateness is forgiven), and each
 *   frame sent, silence included, spends one period;
 * - on arrival, every queued frame goes while the credit is at least minus two periods: the
 *   agent's audio runs at most 40 ms ahead of the stream's real-time position (a burst, the
 *   agent's jitter, a stall's inserted silence), which the far end's jitter buffer takes up; the
 *   extra 1 % lets a stream pushed ahead by stalls catch up (a frame in about 2 s), so the far
 *   end sees at most 1 % more packets than real time, and only then;
 * - a frame that may not go yet is sent by a pjsua timer set for when it may: a burst plays at
 *   one frame per period on that timer, not at the bridge's ticks (which would pull every later
 *   frame onto the tick's phase);
 * - at a tick with nothing queued, silence goes when the stream is idle (the last frame was
 *   silence) or its last frame is half a period overdue (the agent is late): an arrival just
 *   after the tick still goes at once.
 * DTMF, RTCP and keep-alives stay pjmedia's: they go out from the stream's put_frame, which runs
 * as often as before. The bridge's own frame for the call (anything else connected to it) is
 * kept from its tick and mixed into the next frame sent.
 *
 * Threads: put_frame and get_frame on the bridge's clock thread; kick on pjsua's worker thread
 * that received the agent's message, timers on pjsua's worker threads; set, clear and stats on
 * the engine's thread. Timers are set with no lock of ours held (pjsua_schedule_timer2 takes
 * pjsua's lock, which pjsua holds when it calls on_stream_created2), never from the clock thread,
 * and name the wrapper by (call, media index): one that finds it gone does nothing. One mutex per
 * wrapper serialises the stream's put_frame between the clock thread and the kicks (pjmedia's
 * stream expects one sender at a time); get_frame (the receiving side) is not under it.
 *
 * Lifetime: the wrapper has its own group lock (pjsua drops its reference when the stream stops,
 * destroy_port; the bridge drops its own when the asynchronous removal is done) and holds a
 * reference on the stream port's group lock until it is freed, so a late tick or kick finds a
 * live stream, as a late tick of the bridge would without the wrapper. Wrappers are found by
 * (call, media index) on one list under one mutex (`paces_lock`), held only to find one: a kick
 * or a timer that found a wrapper counts itself among its users there and sends under the
 * wrapper's own lock alone, so no lock is shared between calls while a frame is encoded and
 * sent. The group lock's destroy handler takes paces_lock too: it takes the wrapper off the list
 * and frees it, or, while a kick still uses it, leaves the freeing to the last user. A wrapper
 * whose (call, media index) got a newer stream is retired: no longer found, its source released.
 * Lock order: paces_lock, a wrapper's lock, the source's.
 */
#ifndef PJ_AUTOCONF
#  define PJ_AUTOCONF 1
#endif
#include <pjsua.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "CPJSUAStreams.h"

#define MAX_SAMPLES_PER_FRAME 960
/* How far ahead of the stream's real-time position the agent's audio may go, in frame periods:
 * the jitter (and a start's catch-up) passed on to the far end's jitter buffer rather than
 * absorbed here. One period left the bench's echo at 50 calls with a standing frame in most
 * streams (p50 8 ms, p99 27 ms WebSocket in -> RTP out); two passed everything (1.4 / 3.5 ms). */
#define EARLY_PERIODS 2
/* Credit accrues 1/CATCH_UP_DIVISOR faster than real time (see send_paced_locked). */
#define CATCH_UP_DIVISOR 100

typedef struct media_pace {
    pjmedia_port base;               /* what the bridge sees: the stream's port info */
    pj_pool_t *pool;                 /* the group lock's parent; released with the wrapper */
    pjmedia_port *stream;            /* the stream's port, a reference held on its group lock */
    int32_t call_id;
    uint32_t media_index;
    uint32_t samples_per_frame;
    uint32_t clock_rate;
    int64_t period_us;
    struct media_pace *next;         /* on `paces` until its group lock is destroyed (paces_lock) */
    int retired;                     /* (call, media) has a newer stream (paces_lock) */
    int users;                       /* kicks and timers sending through it now (paces_lock) */
    int destroyed;                   /* its group lock is gone: the last user frees it (paces_lock) */
    pthread_mutex_t lock;            /* the stream's sending, and everything below */
    cpjsua_frame_buffer *source;     /* NULL: the bridge's frames go through unchanged */
    void *source_ctx;
    cpjsua_tap_release source_release;
    int64_t credit_us;
    uint64_t last_us;
    int timer_pending;               /* a pjsua timer will look at the queue again */
    uint64_t last_send_us;           /* when the last frame went into the stream */
    int idle;                        /* the last frame was silence (or none was sent yet) */
    uint64_t position;               /* samples sent: the frames' timestamps */
    int16_t bridge[MAX_SAMPLES_PER_FRAME];  /* the bridge's last frame for the call, not sent yet */
    int has_bridge;
    cpjsua_pace_stats stats;
} media_pace;

static pthread_mutex_t paces_lock = PTHREAD_MUTEX_INITIALIZER;
static media_pace *paces;  /* the list, and each wrapper's next, retired, users, destroyed: under paces_lock */

static uint64_t now_us(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000u + (uint64_t)now.tv_nsec / 1000u;
}

/* The live wrapper of (call, media). Under paces_lock. */
static media_pace *find_locked(int32_t call_id, uint32_t media_index)
{
    for (media_pace *p = paces; p; p = p->next) {
        if (!p->retired && p->call_id == call_id && p->media_index == media_index) return p;
    }
    return NULL;
}

/* MARK: Sending */

enum { AT_ARRIVAL, AT_TIMER, AT_TICK };

/* Puts one frame into the stream, with the bridge's frame for the call mixed in. */
static void put_locked(media_pace *p, int16_t *samples, uint64_t now)
{
    if (p->has_bridge) {
        for (uint32_t i = 0; i < p->samples_per_frame; i++) {
            int32_t mixed = (int32_t)samples[i] + p->bridge[i];
            samples[i] = (int16_t)(mixed > 32767 ? 32767 : mixed < -32768 ? -32768 : mixed);
        }
        p->has_bridge = 0;
    }
    p->last_send_us = now;
    pjmedia_frame frame;
    memset(&frame, 0, sizeof frame);
    frame.type = PJMEDIA_FRAME_TYPE_AUDIO;
    frame.buf = samples;
    frame.size = p->samples_per_frame * sizeof(int16_t);
    frame.timestamp.u64 = p->position;
    p->position += p->samples_per_frame;
    pjmedia_port_put_frame(p->stream, &frame);
}

/* Sends what the budget allows of the source's queue (one frame at a tick); at a tick with
 * nothing sent and nothing queued, silence when the stream is idle or its last frame is half a
 * period overdue. Returns in how many milliseconds a frame left queued may go: a timer to set
 * (arrivals and timers only; 0: none needed, or one is set). */
static unsigned send_paced_locked(media_pace *p, int when)
{
    uint64_t now = now_us();
    int64_t early = EARLY_PERIODS * p->period_us;
    /* Real time, plus 1 %: a stream held ahead by its stalls' silence catches up by one frame
     * in about two seconds of the agent's audio. */
    int64_t elapsed = (int64_t)(now - p->last_us);
    p->credit_us += elapsed + elapsed / CATCH_UP_DIVISOR;
    p->last_us = now;
    if (p->credit_us > p->period_us) p->credit_us = p->period_us;
    int16_t samples[MAX_SAMPLES_PER_FRAME];
    int sent = 0;
    while (p->credit_us >= -early && cpjsua_frame_buffer_take(p->source, samples, 1) > 0) {
        if (when == AT_ARRIVAL) {
            p->stats.on_arrival++;
        } else {
            p->stats.held_back++;
        }
        p->credit_us -= p->period_us;
        p->idle = 0;
        put_locked(p, samples, now);
        sent = 1;
        if (when == AT_TICK) break;
    }
    if (when == AT_TICK) {
        if (!sent && (p->idle || now - p->last_send_us >= (uint64_t)(p->period_us + p->period_us / 2))) {
            /* Nothing queued: silence, with a sent frame's accounting (an underrun when the
             * agent's audio ran dry). It spends the budget like any frame: the stream's rate
             * stays one frame per period, and the agent's next frames run that much ahead. */
            int32_t taken = cpjsua_frame_buffer_take(p->source, samples, 0);
            if (taken < 0) memset(samples, 0, p->samples_per_frame * sizeof(int16_t));
            if (taken > 0) p->stats.held_back++;
            p->idle = taken <= 0;
            p->credit_us -= p->period_us;
            put_locked(p, samples, now);
        }
        /* A tick sets no timer: the clock thread must not take pjsua's lock (the next tick,
         * arrival or timer goes on with what is queued). */
        return 0;
    }
    if (p->timer_pending || cpjsua_frame_buffer_stats(p->source).queued == 0) return 0;
    int64_t wait = -early - p->credit_us;
    p->timer_pending = 1;
    return wait < 1000 ? 1 : (unsigned)((wait + 999) / 1000);
}

static void on_timer(void *key);

/* Sets the timer of (call, media) in `ms`; no lock held (pjsua's is taken). */
static void schedule(int32_t call_id, uint32_t media_index, unsigned ms)
{
    void *key = (void *)(intptr_t)(((intptr_t)call_id << 8) | (intptr_t)(media_index & 0xFF));
    if (pjsua_schedule_timer2(&on_timer, key, ms) == PJ_SUCCESS) return;
    pthread_mutex_lock(&paces_lock);
    media_pace *p = find_locked(call_id, media_index);
    if (p) {
        pthread_mutex_lock(&p->lock);
        p->timer_pending = 0;
        pthread_mutex_unlock(&p->lock);
    }
    pthread_mutex_unlock(&paces_lock);
}

static void free_pace(media_pace *p);

/* Sends what the source holds of (call, media) on arrival or timer, then sets the timer asked.
 * paces_lock only to find the wrapper and to count this send among its users. */
static void send_now(int32_t call_id, uint32_t media_index, int when)
{
    unsigned again = 0;
    pthread_mutex_lock(&paces_lock);
    media_pace *p = find_locked(call_id, media_index);
    if (p) p->users++;
    pthread_mutex_unlock(&paces_lock);
    if (!p) return;
    pthread_mutex_lock(&p->lock);
    if (when == AT_TIMER) p->timer_pending = 0;
    if (p->source) again = send_paced_locked(p, when);
    pthread_mutex_unlock(&p->lock);
    pthread_mutex_lock(&paces_lock);
    int last = --p->users == 0 && p->destroyed;
    pthread_mutex_unlock(&paces_lock);
    if (last) {
        free_pace(p);
        return;
    }
    if (again) schedule(call_id, media_index, again);
}

/* pjsua's timer (a worker thread). The key names the wrapper, which may be gone or replaced. */
static void on_timer(void *key)
{
    intptr_t value = (intptr_t)key;
    send_now((int32_t)(value >> 8), (uint32_t)(value & 0xFF), AT_TIMER);
}

/* MARK: The port the bridge sees (its clock thread) */

static pj_status_t pace_put_frame(pjmedia_port *this_port, pjmedia_frame *frame)
{
    media_pace *p = (media_pace *)this_port;
    pj_status_t status;
    pthread_mutex_lock(&p->lock);
    if (!p->source) {
        status = pjmedia_port_put_frame(p->stream, frame);
    } else {
        p->has_bridge = frame->type == PJMEDIA_FRAME_TYPE_AUDIO && frame->buf &&
                        frame->size == p->samples_per_frame * sizeof(int16_t);
        if (p->has_bridge) memcpy(p->bridge, frame->buf, frame->size);
        send_paced_locked(p, AT_TICK);
        status = PJ_SUCCESS;
    }
    pthread_mutex_unlock(&p->lock);
    return status;
}

static pj_status_t pace_get_frame(pjmedia_port *this_port, pjmedia_frame *frame)
{
    return pjmedia_port_get_frame(((media_pace *)this_port)->stream, frame);
}

/* Hands the source back: the writer port takes its frames again. The wrapper's lock held. */
static void drop_source_locked(media_pace *p, cpjsua_tap_release *release, void **ctx)
{
    *release = p->source_release;
    *ctx = p->source_ctx;
    if (p->source) cpjsua_frame_buffer_set_external(p->source, 0);
    p->source = NULL;
    p->source_ctx = NULL;
    p->source_release = NULL;
}

static void unlink_locked(media_pace *p)
{
    for (media_pace **q = &paces; *q; q = &(*q)->next) {
        if (*q == p) {
            *q = p->next;
            return;
        }
    }
}

/* The group lock's last reference went: the bridge and pjsua are done with the wrapper. It goes
 * now, or when the last kick or timer sending through it is done. */
static pj_status_t pace_on_destroy(pjmedia_port *this_port)
{
    media_pace *p = (media_pace *)this_port;
    pthread_mutex_lock(&paces_lock);
    unlink_locked(p);
    p->destroyed = 1;
    int in_use = p->users > 0;
    pthread_mutex_unlock(&paces_lock);
    if (!in_use) free_pace(p);
    return PJ_SUCCESS;
}

/* Frees a wrapper off the list with no user left: its source released, the stream's reference
 * dropped. (Its group lock has its own pool.) */
static void free_pace(media_pace *p)
{
    cpjsua_tap_release release;
    void *ctx;
    pthread_mutex_lock(&p->lock);
    drop_source_locked(p, &release, &ctx);
    pthread_mutex_unlock(&p->lock);
    if (release) release(ctx);
    pjmedia_port_dec_ref(p->stream);
    pthread_mutex_destroy(&p->lock);
    pj_pool_safe_release(&p->pool);
    free(p);
}

/* MARK: pjsua's on_stream_created2 (the engine's or a worker thread, under pjsua's call lock) */

static void on_stream_created2(pjsua_call_id call_id, pjsua_on_stream_created_param *param)
{
    pjmedia_port *stream = param->port;
    if (!stream || !stream->grp_lock || stream->info.fmt.type != PJMEDIA_TYPE_AUDIO ||
        stream->info.fmt.id != PJMEDIA_FORMAT_L16)
        return;
    uint32_t spf = PJMEDIA_PIA_SPF(&stream->info), rate = PJMEDIA_PIA_SRATE(&stream->info);
    if (PJMEDIA_PIA_CCNT(&stream->info) != 1 || spf == 0 || spf > MAX_SAMPLES_PER_FRAME || rate == 0) return;
    media_pace *p = calloc(1, sizeof *p);
    if (!p) return;  /* unwrapped: the call goes on without paced sending */
    p->pool = pjsua_pool_create("pace%p", 256, 256);
    if (!p->pool) {
        free(p);
        return;
    }
    p->base.info = stream->info;
    pj_strdup2_with_null(p->pool, &p->base.info.name, "paced");
    p->base.info.signature = PJMEDIA_SIG_CLASS_PORT_AUD('P', 'C');
    p->base.put_frame = &pace_put_frame;
    p->base.get_frame = &pace_get_frame;
    p->base.on_destroy = &pace_on_destroy;
    p->stream = stream;
    p->call_id = call_id;
    p->media_index = param->stream_idx;
    p->samples_per_frame = spf;
    p->clock_rate = rate;
    p->period_us = (int64_t)spf * 1000000 / rate;
    pthread_mutex_init(&p->lock, NULL);
    if (pjmedia_port_init_grp_lock(&p->base, p->pool, NULL) != PJ_SUCCESS) {
        pthread_mutex_destroy(&p->lock);
        pj_pool_release(p->pool);
        free(p);
        return;
    }
    pjmedia_port_add_ref(stream);
    /* An older wrapper of (call, media) belongs to a stream pjsua has stopped. */
    media_pace *older = NULL;
    pthread_mutex_lock(&paces_lock);
    for (media_pace *q = paces; q; q = q->next) {
        if (!q->retired && q->call_id == call_id && q->media_index == p->media_index) {
            q->retired = 1;
            older = q;
        }
    }
    p->next = paces;
    paces = p;
    if (older) {
        cpjsua_tap_release release;
        void *ctx;
        pthread_mutex_lock(&older->lock);
        drop_source_locked(older, &release, &ctx);
        pthread_mutex_unlock(&older->lock);
        pthread_mutex_unlock(&paces_lock);
        if (release) release(ctx);
    } else {
        pthread_mutex_unlock(&paces_lock);
    }
    param->port = &p->base;
    param->destroy_port = PJ_TRUE;
}

void cpjsua_media_pace_install(void *config)
{
    ((pjsua_config *)config)->cb.on_stream_created2 = &on_stream_created2;
}

int32_t cpjsua_media_pace_set(int32_t call_id, uint32_t media_index, cpjsua_frame_buffer *source, uint32_t clock_rate,
                              void *ctx, cpjsua_tap_release release)
{
    cpjsua_tap_release old_release = NULL;
    void *old_ctx = NULL;
    int found = 0;
    pthread_mutex_lock(&paces_lock);
    media_pace *p = find_locked(call_id, media_index);
    if (p && clock_rate == p->clock_rate && cpjsua_frame_buffer_samples_per_frame(source) == p->samples_per_frame) {
        found = 1;
        pthread_mutex_lock(&p->lock);
        if (p->source != source) {
            drop_source_locked(p, &old_release, &old_ctx);
            cpjsua_frame_buffer_set_external(source, 1);
            p->source = source;
            p->source_ctx = ctx;
            p->source_release = release;
            p->credit_us = p->period_us;  /* a first arrival goes at once */
            p->idle = 1;
            p->last_us = now_us();
            p->has_bridge = 0;
        } else {
            old_release = release;  /* already set: the new reference is not kept */
            old_ctx = ctx;
        }
        pthread_mutex_unlock(&p->lock);
    }
    pthread_mutex_unlock(&paces_lock);
    if (old_release) old_release(old_ctx);
    if (!found && release) release(ctx);
    return found;
}

int32_t cpjsua_media_pace_clear(int32_t call_id, uint32_t media_index, cpjsua_frame_buffer *source)
{
    cpjsua_tap_release release = NULL;
    void *ctx = NULL;
    int cleared = 0;
    pthread_mutex_lock(&paces_lock);
    media_pace *p = find_locked(call_id, media_index);
    if (p) {
        pthread_mutex_lock(&p->lock);
        if (p->source == source) {
            drop_source_locked(p, &release, &ctx);
            cleared = 1;
        }
        pthread_mutex_unlock(&p->lock);
    }
    pthread_mutex_unlock(&paces_lock);
    if (release) release(ctx);
    return cleared;
}

void cpjsua_media_pace_kick(int32_t call_id, uint32_t media_index)
{
    send_now(call_id, media_index, AT_ARRIVAL);
}

int32_t cpjsua_media_pace_stats_of(int32_t call_id, uint32_t media_index, cpjsua_pace_stats *stats)
{
    memset(stats, 0, sizeof *stats);
    pthread_mutex_lock(&paces_lock);
    media_pace *p = find_locked(call_id, media_index);
    if (p) {
        pthread_mutex_lock(&p->lock);
        *stats = p->stats;
        pthread_mutex_unlock(&p->lock);
    }
    pthread_mutex_unlock(&paces_lock);
    return p != NULL;
}

void cpjsua_media_pace_release_all(void)
{
    pthread_mutex_lock(&paces_lock);
    media_pace *list = paces;
    paces = NULL;
    pthread_mutex_unlock(&paces_lock);
    while (list) {
        media_pace *next = list->next;
        /* pjsua_destroy released the pools and group locks: only our own memory is left. */
        if (list->source) cpjsua_frame_buffer_set_external(list->source, 0);
        if (list->source_release) list->source_release(list->source_ctx);
        pthread_mutex_destroy(&list->lock);
        free(list);
        list = next;
    }
}
