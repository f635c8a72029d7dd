/*
 * Frame ports: the pjmedia ports behind PJSUA.AudioFrames (audio received from a call) and
 * PJSUA.AudioFrameWriter (audio sent into a call). See include/CPJSUASupport.h.
 *
 * Why C: the conference bridge calls put_frame/get_frame on its clock thread (the sound device's
 * or the null device's), every 10 or 20 ms. That thread must never wait on Swift concurrency.
 * Here it only takes a plain mutex held for a memcpy, and calls the owner's notify function
 * after unlocking (which, in Swift, does a non-blocking AsyncStream yield).
 *
 * Lifetime: the buffer is owned by the Swift object (`ctx`), freed when that object is; the
 * pjmedia port keeps the Swift object alive through a retained context that it releases from
 * on_destroy. The port has a group lock (pjmedia_port_init_grp_lock) because the bridge removes
 * ports asynchronously: the bridge keeps its own reference until the removal has completed,
 * so the last get_frame/put_frame always finds a live buffer.
 */
#ifndef PJ_AUTOCONF
#  define PJ_AUTOCONF 1
#endif
#include <pjsua.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "CPJSUASupport.h"

#define MAX_SAMPLES_PER_FRAME 960  /* 48 kHz x 20 ms */
#define MARKS_PER_TICK 16

typedef struct pending_mark {
    uint64_t id;
    uint64_t position;
} pending_mark;

struct cpjsua_frame_buffer {
    pthread_mutex_t lock;
    int16_t *ring;
    uint32_t capacity;        /* samples */
    uint32_t head;            /* index of the oldest queued sample */
    uint32_t count;           /* samples queued */
    uint32_t samples_per_frame;
    uint64_t written;         /* stream position after the last queued sample */
    uint64_t consumed;        /* stream position of the next sample to go out */
    uint64_t played;          /* samples of app audio sent (no silence, nothing dropped) */
    uint64_t underruns;
    uint64_t silent_frames;
    uint64_t dropped;         /* samples dropped to make room (drop-oldest) */
    int playing;              /* the previous frame was all app audio */
    /* Standing-queue trim (cpjsua_frame_buffer_set_trim; 0: off). */
    uint32_t trim_window;     /* frames in a window */
    uint32_t window_ticks;    /* frames of the current window so far */
    uint32_t window_min, window_max, window_first;  /* queued samples at those frames */
    int stalled;              /* an underrun's silence is playing (it ran dry while playing) */
    uint64_t stall_silence;   /* silence underruns inserted and no trim has taken back */
    uint64_t stall_silence_total;  /* silence underruns inserted, all of it */
    uint64_t trimmed;         /* samples skipped by trims */
    uint32_t space_wanted;    /* a writer waits for this much room (0: none) */
    uint32_t external;        /* paced sources taking the frames (MediaPace.c): the port sends none */
    int closed;
    pending_mark marks[CPJSUA_FRAME_MAX_MARKS];
    uint32_t mark_count;
    cpjsua_frame_notify notify;
    void *ctx;
    /* Engine thread only. */
    pjmedia_port *port;
    int32_t slot;
};

typedef struct frame_port {
    pjmedia_port base;
    pj_pool_t *pool;
    cpjsua_frame_buffer *buffer;
    void *retained;
    cpjsua_frame_release release;
} frame_port;

static const int16_t zeros[MAX_SAMPLES_PER_FRAME];

cpjsua_frame_buffer *cpjsua_frame_buffer_create(uint32_t samples_per_frame, uint32_t capacity_frames,
                                                cpjsua_frame_notify notify, void *ctx)
{
    if (samples_per_frame == 0 || samples_per_frame > MAX_SAMPLES_PER_FRAME || capacity_frames == 0 ||
        capacity_frames > 100000)
        return NULL;
    cpjsua_frame_buffer *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    b->capacity = samples_per_frame * capacity_frames;
    b->ring = calloc(b->capacity, sizeof(int16_t));
    if (!b->ring) {
        free(b);
        return NULL;
    }
    pthread_mutex_init(&b->lock, NULL);
    b->samples_per_frame = samples_per_frame;
    b->notify = notify;
    b->ctx = ctx;
    b->slot = -1;
    return b;
}

void cpjsua_frame_buffer_free(cpjsua_frame_buffer *b)
{
    if (!b) return;
    pthread_mutex_destroy(&b->lock);
    free(b->ring);
    free(b);
}

void cpjsua_frame_buffer_set_context(cpjsua_frame_buffer *b, void *ctx)
{
    pthread_mutex_lock(&b->lock);
    b->ctx = ctx;
    pthread_mutex_unlock(&b->lock);
}

void cpjsua_frame_buffer_close(cpjsua_frame_buffer *b)
{
    pthread_mutex_lock(&b->lock);
    b->closed = 1;
    b->space_wanted = 0;
    pthread_mutex_unlock(&b->lock);
}

int32_t cpjsua_frame_buffer_write(cpjsua_frame_buffer *b, const int16_t *samples, uint32_t count, int32_t drop_oldest)
{
    int32_t result = 1;
    pthread_mutex_lock(&b->lock);
    if (b->closed) {
        result = -1;
    } else if (count > b->capacity) {
        result = -2;
    } else {
        uint32_t room = b->capacity - b->count;
        if (room < count) {
            if (drop_oldest) {
                uint32_t drop = count - room;
                b->head = (b->head + drop) % b->capacity;
                b->count -= drop;
                b->consumed += drop;
                b->dropped += drop;
            } else {
                b->space_wanted = count;
                result = 0;
            }
        }
        if (result == 1) {
            uint32_t tail = (b->head + b->count) % b->capacity;
            uint32_t first = count < b->capacity - tail ? count : b->capacity - tail;
            memcpy(b->ring + tail, samples, first * sizeof(int16_t));
            memcpy(b->ring, samples + first, (count - first) * sizeof(int16_t));
            b->count += count;
            b->written += count;
        }
    }
    pthread_mutex_unlock(&b->lock);
    return result;
}

void cpjsua_frame_buffer_set_trim(cpjsua_frame_buffer *b, uint32_t window_frames)
{
    pthread_mutex_lock(&b->lock);
    b->trim_window = window_frames;
    b->window_ticks = 0;
    b->stall_silence = 0;
    pthread_mutex_unlock(&b->lock);
}

uint64_t cpjsua_frame_buffer_flush(cpjsua_frame_buffer *b)
{
    pending_mark flushed[CPJSUA_FRAME_MAX_MARKS];
    pthread_mutex_lock(&b->lock);
    uint32_t discarded = b->count;
    b->head = (b->head + b->count) % b->capacity;
    b->count = 0;
    b->consumed = b->written;
    b->playing = 0;
    /* A clear starts the agent's audio afresh: what stalls inserted before it is not owed. */
    b->stall_silence = 0;
    b->window_ticks = 0;
    uint32_t marks = b->mark_count;
    memcpy(flushed, b->marks, marks * sizeof(pending_mark));
    b->mark_count = 0;
    int space = b->space_wanted != 0;
    b->space_wanted = 0;
    uint64_t played = b->played;
    int closed = b->closed;
    pthread_mutex_unlock(&b->lock);
    if (!closed) {
        for (uint32_t i = 0; i < marks; i++)
            b->notify(b->ctx, CPJSUA_FRAME_EVENT_MARK_FLUSHED, NULL, 0, flushed[i].id, played);
        if (space) b->notify(b->ctx, CPJSUA_FRAME_EVENT_SPACE, NULL, 0, 0, played);
    }
    return discarded;
}

int32_t cpjsua_frame_buffer_mark(cpjsua_frame_buffer *b, uint64_t id)
{
    int32_t result = 0;
    pthread_mutex_lock(&b->lock);
    if (b->closed) {
        result = -1;
    } else if (b->mark_count == CPJSUA_FRAME_MAX_MARKS) {
        result = -2;
    } else {
        b->marks[b->mark_count].id = id;
        b->marks[b->mark_count].position = b->written;
        b->mark_count++;
    }
    pthread_mutex_unlock(&b->lock);
    return result;
}

cpjsua_frame_stats cpjsua_frame_buffer_stats(cpjsua_frame_buffer *b)
{
    cpjsua_frame_stats stats;
    pthread_mutex_lock(&b->lock);
    stats.queued = b->count;
    stats.played = b->played;
    stats.underruns = b->underruns;
    stats.silent_frames = b->silent_frames;
    stats.dropped = b->dropped;
    stats.position = b->consumed;
    stats.trimmed = b->trimmed;
    stats.stall_silence = b->stall_silence_total;
    pthread_mutex_unlock(&b->lock);
    return stats;
}

/* The bridge sends this port what the call received (reader). */
static pj_status_t reader_put_frame(pjmedia_port *this_port, pjmedia_frame *frame)
{
    cpjsua_frame_buffer *b = ((frame_port *)this_port)->buffer;
    uint32_t spf = b->samples_per_frame;
    pthread_mutex_lock(&b->lock);
    int closed = b->closed;
    uint64_t position = b->consumed;
    b->consumed += spf;
    pthread_mutex_unlock(&b->lock);
    if (closed) return PJ_SUCCESS;
    /* The bridge hands a frame of type NONE (or a short one) when nothing was heard: the
     * stream stays continuous with silence in its place. */
    const int16_t *samples = zeros;
    if (frame->type == PJMEDIA_FRAME_TYPE_AUDIO && frame->buf && frame->size >= spf * sizeof(int16_t))
        samples = (const int16_t *)frame->buf;
    b->notify(b->ctx, CPJSUA_FRAME_EVENT_RECEIVED, samples, spf, position, 0);
    return PJ_SUCCESS;
}

static pj_status_t reader_get_frame(pjmedia_port *this_port, pjmedia_frame *frame)
{
    PJ_UNUSED_ARG(this_port);
    frame->type = PJMEDIA_FRAME_TYPE_NONE;
    frame->size = 0;
    return PJ_SUCCESS;
}

/* The standing-queue trim, once per frame before it is taken (lock held). A stall (the
 * agent's audio late, then caught up in a burst while later audio keeps coming at the real-time
 * rate) leaves the queue at a standing depth: every sample after it plays that much later, for
 * as long as the agent keeps talking. When the queue's depth stayed within two frames of itself
 * for a whole window and never fell under two frames, whole frames are skipped down to one
 * frame of slack, but never more than the silence underruns inserted (stall_silence): the
 * timeline the agent meant is restored, never shortened. A burst (more audio than real time,
 * draining) moves the depth by a frame each tick and is never trimmed. Skipped samples advance
 * the stream position like played ones, so marks behind them fire when they would have. */
static void trim_standing(cpjsua_frame_buffer *b)
{
    uint32_t spf = b->samples_per_frame, depth = b->count;
    if (b->window_ticks == 0) {
        b->window_min = b->window_max = b->window_first = depth;
    } else {
        if (depth < b->window_min) b->window_min = depth;
        if (depth > b->window_max) b->window_max = depth;
    }
    if (++b->window_ticks < b->trim_window) return;
    b->window_ticks = 0;
    int standing = b->window_min >= 2 * spf && b->window_max - b->window_min <= 2 * spf &&
                   depth + spf >= b->window_first;
    if (!standing || b->stall_silence < spf) return;
    uint64_t excess = b->window_min - spf;
    if (excess > b->stall_silence) excess = b->stall_silence;
    uint32_t skip = (uint32_t)(excess / spf) * spf;
    if (skip == 0) return;
    b->head = (b->head + skip) % b->capacity;
    b->count -= skip;
    b->consumed += skip;
    b->trimmed += skip;
    b->stall_silence -= skip;
}

/* One frame of what goes into the call, taken as it is sent: `spf` samples into `out` (what is
 * queued, then silence), with the accounting of a sent frame (played, underruns, trim, marks
 * reached). -1 and nothing taken when `audio_only` and nothing is queued, or when `external` and
 * a paced source takes the frames instead; otherwise the queued samples taken. */
static int32_t take_frame(cpjsua_frame_buffer *b, int16_t *out, int audio_only, int external)
{
    uint32_t spf = b->samples_per_frame;
    pending_mark reached[MARKS_PER_TICK];
    uint32_t reached_count = 0;
    int underrun = 0, space = 0, closed;

    pthread_mutex_lock(&b->lock);
    if ((audio_only && (b->closed || b->count == 0)) || (!external && b->external)) {
        pthread_mutex_unlock(&b->lock);
        return -1;
    }
    closed = b->closed;
    if (!closed && b->trim_window) trim_standing(b);
    uint32_t n = closed ? 0 : (b->count < spf ? b->count : spf);
    uint32_t first = n < b->capacity - b->head ? n : b->capacity - b->head;
    memcpy(out, b->ring + b->head, first * sizeof(int16_t));
    memcpy(out + first, b->ring, (n - first) * sizeof(int16_t));
    memset(out + n, 0, (spf - n) * sizeof(int16_t));
    b->head = (b->head + n) % b->capacity;
    b->count -= n;
    b->consumed += n;
    b->played += n;
    if (!closed) {
        if (n < spf) {
            if (n == 0) b->silent_frames++;
            if (b->playing) {
                b->underruns++;
                underrun = 1;
                b->stalled = 1;
            }
            /* Silence inserted while the agent's audio is late (from an underrun until audio
             * flows again): what a trim may take back later. */
            if (b->stalled) {
                b->stall_silence += spf - n;
                b->stall_silence_total += spf - n;
            }
            b->playing = 0;
        } else {
            b->playing = 1;
            b->stalled = 0;
        }
        while (reached_count < b->mark_count && reached_count < MARKS_PER_TICK &&
               b->marks[reached_count].position <= b->consumed) {
            reached[reached_count] = b->marks[reached_count];
            reached_count++;
        }
        if (reached_count) {
            b->mark_count -= reached_count;
            memmove(b->marks, b->marks + reached_count, b->mark_count * sizeof(pending_mark));
        }
        if (b->space_wanted && b->capacity - b->count >= b->space_wanted) {
            b->space_wanted = 0;
            space = 1;
        }
    }
    uint64_t played = b->played;
    pthread_mutex_unlock(&b->lock);

    if (closed) return 0;
    for (uint32_t i = 0; i < reached_count; i++)
        b->notify(b->ctx, CPJSUA_FRAME_EVENT_MARK_PLAYED, NULL, 0, reached[i].id, played);
    if (underrun) b->notify(b->ctx, CPJSUA_FRAME_EVENT_UNDERRUN, NULL, 0, 0, played);
    if (space) b->notify(b->ctx, CPJSUA_FRAME_EVENT_SPACE, NULL, 0, 0, played);
    return (int32_t)n;
}

int32_t cpjsua_frame_buffer_take(cpjsua_frame_buffer *b, int16_t *samples, int32_t audio_only)
{
    return take_frame(b, samples, audio_only, 1);
}

void cpjsua_frame_buffer_set_external(cpjsua_frame_buffer *b, int32_t on)
{
    pthread_mutex_lock(&b->lock);
    if (on) {
        b->external++;
    } else if (b->external) {
        b->external--;
    }
    pthread_mutex_unlock(&b->lock);
}

uint32_t cpjsua_frame_buffer_samples_per_frame(const cpjsua_frame_buffer *b)
{
    return b->samples_per_frame;
}

/* The bridge takes from this port what goes into the call (writer); nothing while a paced source
 * takes the frames. */
static pj_status_t writer_get_frame(pjmedia_port *this_port, pjmedia_frame *frame)
{
    cpjsua_frame_buffer *b = ((frame_port *)this_port)->buffer;
    if (take_frame(b, (int16_t *)frame->buf, 0, 0) < 0) {
        frame->type = PJMEDIA_FRAME_TYPE_NONE;
        frame->size = 0;
        return PJ_SUCCESS;
    }
    frame->type = PJMEDIA_FRAME_TYPE_AUDIO;
    frame->size = b->samples_per_frame * sizeof(int16_t);
    return PJ_SUCCESS;
}

static pj_status_t writer_put_frame(pjmedia_port *this_port, pjmedia_frame *frame)
{
    PJ_UNUSED_ARG(this_port);
    PJ_UNUSED_ARG(frame);
    return PJ_SUCCESS;
}

static pj_status_t frame_port_on_destroy(pjmedia_port *this_port)
{
    frame_port *port = (frame_port *)this_port;
    pj_pool_t *pool = port->pool;
    /* May free the buffer (the Swift owner's last reference): touch it no more. */
    port->release(port->retained);
    pj_pool_safe_release(&pool);
    return PJ_SUCCESS;
}

int32_t cpjsua_frame_port_attach(cpjsua_frame_buffer *b, int32_t is_writer, uint32_t clock_rate,
                                 void *retained, cpjsua_frame_release release, int32_t *slot)
{
    pj_pool_t *pool = pjsua_pool_create(is_writer ? "framew%p" : "framer%p", 512, 512);
    if (!pool) {
        release(retained);
        return PJ_ENOMEM;
    }
    frame_port *port = PJ_POOL_ZALLOC_T(pool, frame_port);
    pj_str_t name = pj_str(is_writer ? "frame-writer" : "frame-reader");
    pjmedia_port_info_init(&port->base.info, &name, PJMEDIA_SIG_CLASS_PORT_AUD('F', is_writer ? 'W' : 'R'),
                           clock_rate, 1, 16, b->samples_per_frame);
    port->pool = pool;
    port->buffer = b;
    port->retained = retained;
    port->release = release;
    port->base.get_frame = is_writer ? &writer_get_frame : &reader_get_frame;
    port->base.put_frame = is_writer ? &writer_put_frame : &reader_put_frame;
    port->base.on_destroy = &frame_port_on_destroy;
    pj_status_t status = pjmedia_port_init_grp_lock(&port->base, pool, NULL);
    if (status != PJ_SUCCESS) {
        /* No group lock: nothing will call on_destroy. */
        release(retained);
        pj_pool_release(pool);
        return status;
    }
    pjsua_conf_port_id id = PJSUA_INVALID_ID;
    status = pjsua_conf_add_port(pool, &port->base, &id);
    if (status != PJ_SUCCESS) {
        pjmedia_port_dec_ref(&port->base);
        return status;
    }
    b->port = &port->base;
    b->slot = id;
    *slot = id;
    return PJ_SUCCESS;
}

void cpjsua_frame_port_detach(cpjsua_frame_buffer *b)
{
    pjmedia_port *port = b->port;
    if (!port) return;
    b->port = NULL;
    pjsua_conf_remove_port(b->slot);
    b->slot = -1;
    pjmedia_port_dec_ref(port);
}
