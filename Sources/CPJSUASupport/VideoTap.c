/*
 * Video taps: an I420 sink port on pjsua's video bridge (vid_conf), connected from a call's
 * decoding port. It counts the pictures decoded for the call's statistics and, when the app
 * asked for them, hands each picture to a Swift notify function (PJSUA.VideoFrames).
 *
 * Why C: the video bridge calls put_frame on its own clock thread (a PJLIB thread) at the sink's
 * frame rate. That thread must never wait on Swift concurrency: it takes a plain mutex for the
 * counters and calls notify, which copies the picture and does a non-blocking AsyncStream yield.
 * The bridge calls put_frame with an empty frame when the call decoded nothing new since the last
 * tick (vid_conf.c on_clock_tick: got_frame is false), so only full frames are counted.
 *
 * Lifetime: the bridge removes ports asynchronously (an op queue run in its clock tick), so the
 * port has a group lock; the bridge holds a reference until the removal completed, the tap holds
 * one until detach. on_destroy, after the last, releases the Swift context and the pool. detach
 * closes the tap under the mutex first, so notify is never called after detach returned.
 */
#ifndef PJ_AUTOCONF
#  define PJ_AUTOCONF 1
#endif
#include <pjsua.h>
#include <pthread.h>
#include <stdlib.h>
#include "CPJSUASupport.h"

#if defined(PJMEDIA_HAS_VIDEO) && PJMEDIA_HAS_VIDEO != 0

typedef struct video_tap_port {
    pjmedia_port base;
    pj_pool_t *pool;
    struct cpjsua_video_tap *tap;
} video_tap_port;

struct cpjsua_video_tap {
    pthread_mutex_t lock;
    uint64_t frames;            /* full frames put (guarded by lock) */
    int closed;                 /* guarded by lock */
    cpjsua_video_frame_notify notify;
    void *ctx;
    cpjsua_video_release release;
    uint32_t width, height;
    /* Engine thread only. */
    video_tap_port *port;
    int32_t slot;
    int32_t source;
};

static pj_status_t tap_put_frame(pjmedia_port *this_port, pjmedia_frame *frame)
{
    struct cpjsua_video_tap *tap = ((video_tap_port *)this_port)->tap;
    if (frame->type != PJMEDIA_FRAME_TYPE_VIDEO || frame->size == 0 || !frame->buf) return PJ_SUCCESS;
    pthread_mutex_lock(&tap->lock);
    if (!tap->closed) {
        tap->frames++;
        /* Under the lock, so that detach waits for a notify in flight; notify never blocks. */
        if (tap->notify)
            tap->notify(tap->ctx, (const uint8_t *)frame->buf, (uint32_t)frame->size, tap->width, tap->height,
                        frame->timestamp.u64);
    }
    pthread_mutex_unlock(&tap->lock);
    return PJ_SUCCESS;
}

static pj_status_t tap_get_frame(pjmedia_port *this_port, pjmedia_frame *frame)
{
    PJ_UNUSED_ARG(this_port);
    frame->type = PJMEDIA_FRAME_TYPE_NONE;
    frame->size = 0;
    return PJ_SUCCESS;
}

static pj_status_t tap_on_destroy(pjmedia_port *this_port)
{
    video_tap_port *port = (video_tap_port *)this_port;
    struct cpjsua_video_tap *tap = port->tap;
    pj_pool_t *pool = port->pool;
    if (tap->release) tap->release(tap->ctx);
    pthread_mutex_destroy(&tap->lock);
    free(tap);
    pj_pool_safe_release(&pool);
    return PJ_SUCCESS;
}

int32_t cpjsua_video_tap_attach(int32_t source_slot, uint32_t width, uint32_t height, uint32_t fps,
                                cpjsua_video_frame_notify notify, void *ctx, cpjsua_video_release release,
                                cpjsua_video_tap **out)
{
    *out = NULL;
    if (width == 0 || height == 0 || width > 8192 || height > 8192 || fps == 0 || fps > 120) {
        if (release) release(ctx);
        return PJ_EINVAL;
    }
    struct cpjsua_video_tap *tap = calloc(1, sizeof(*tap));
    pj_pool_t *pool = tap ? pjsua_pool_create("vtap%p", 512, 512) : NULL;
    if (!pool) {
        free(tap);
        if (release) release(ctx);
        return PJ_ENOMEM;
    }
    pthread_mutex_init(&tap->lock, NULL);
    tap->notify = notify;
    tap->ctx = ctx;
    tap->release = release;
    tap->width = width;
    tap->height = height;
    tap->source = source_slot;

    video_tap_port *port = PJ_POOL_ZALLOC_T(pool, video_tap_port);
    pj_str_t name = pj_str("video-tap");
    pjmedia_format format;
    pjmedia_format_init_video(&format, PJMEDIA_FORMAT_I420, width, height, fps, 1);
    pjmedia_port_info_init2(&port->base.info, &name, PJMEDIA_SIG_CLASS_PORT_VID('V', 'T'), PJMEDIA_DIR_DECODING,
                            &format);
    port->pool = pool;
    port->tap = tap;
    port->base.put_frame = &tap_put_frame;
    port->base.get_frame = &tap_get_frame;
    port->base.on_destroy = &tap_on_destroy;
    pj_status_t status = pjmedia_port_init_grp_lock(&port->base, pool, NULL);
    if (status != PJ_SUCCESS) {
        /* No group lock: nothing will call on_destroy. */
        if (release) release(ctx);
        pthread_mutex_destroy(&tap->lock);
        free(tap);
        pj_pool_release(pool);
        return status;
    }
    pjsua_conf_port_id id = PJSUA_INVALID_ID;
    status = pjsua_vid_conf_add_port(pool, &port->base, NULL, &id);
    if (status != PJ_SUCCESS) {
        pjmedia_port_dec_ref(&port->base);
        return status;
    }
    status = pjsua_vid_conf_connect(source_slot, id, NULL);
    if (status != PJ_SUCCESS) {
        pjsua_vid_conf_remove_port(id);
        pjmedia_port_dec_ref(&port->base);
        return status;
    }
    tap->port = port;
    tap->slot = id;
    *out = tap;
    return PJ_SUCCESS;
}

void cpjsua_video_tap_detach(cpjsua_video_tap *tap)
{
    video_tap_port *port = tap->port;
    if (!port) return;
    pthread_mutex_lock(&tap->lock);
    tap->closed = 1;
    pthread_mutex_unlock(&tap->lock);
    tap->port = NULL;
    pjsua_vid_conf_remove_port(tap->slot);
    /* May destroy the tap (if the bridge already let go): touch it no more. */
    pjmedia_port_dec_ref(&port->base);
}

uint64_t cpjsua_video_tap_frames(cpjsua_video_tap *tap)
{
    pthread_mutex_lock(&tap->lock);
    uint64_t frames = tap->frames;
    pthread_mutex_unlock(&tap->lock);
    return frames;
}

int32_t cpjsua_video_tap_source(const cpjsua_video_tap *tap)
{
    return tap->source;
}

#else /* A library built without video: nothing can be tapped. */

int32_t cpjsua_video_tap_attach(int32_t source_slot, uint32_t width, uint32_t height, uint32_t fps,
                                cpjsua_video_frame_notify notify, void *ctx, cpjsua_video_release release,
                                cpjsua_video_tap **out)
{
    *out = NULL;
    if (release) release(ctx);
    return PJ_ENOTSUP;
}
void cpjsua_video_tap_detach(cpjsua_video_tap *tap) { (void)tap; }
uint64_t cpjsua_video_tap_frames(cpjsua_video_tap *tap) { (void)tap; return 0; }
int32_t cpjsua_video_tap_source(const cpjsua_video_tap *tap) { (void)tap; return -1; }

#endif
