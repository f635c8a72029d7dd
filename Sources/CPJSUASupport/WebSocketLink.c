/*
 * WebSocket links: the wire of a media stream (PJSUA.MediaStream), on pjproject 2.17's RFC 6455
 * client (pj_websock, pjlib-util/websock.h). See include/CPJSUASupport.h.
 *
 * Why C: the call's audio goes out from the conference bridge's clock thread, one message per
 * 20 ms frame. Encoding it (mu-law, base64, a JSON text frame with its sequence number) and
 * handing it to the socket here keeps that thread away from Swift concurrency and allocations:
 * it takes the link's mutex for a memcpy-sized job and a non-blocking send. Messages to the agent
 * made in Swift (start, dtmf, mark, stop) take the same mutex, so one counter numbers every
 * message in the order it goes out.
 *
 * Threads: every function that enters PJLIB runs on a PJLIB-registered thread: open/close/destroy
 * on the engine's executor thread; send on the clock thread, pjsua's worker threads (websocket
 * and SIP callbacks) or the executor thread. pj_websock calls its callbacks on pjsua's worker
 * threads (the endpoint's ioqueue), without its own lock held.
 *
 * Lifetime: a link is plain memory with an atomic reference count, held by its Swift owner
 * (until the stream ends), by the WebSocket (released by a destroy handler on the group lock
 * pj_websock shares with us, so no callback can come after it), and by the reader port (released
 * when the bridge destroys the port). The owner's context (`ctx`) is kept retained by the link
 * and released when the last reference goes: callbacks always find it alive.
 */
#ifndef PJ_AUTOCONF
#  define PJ_AUTOCONF 1
#endif
#include <pjsua.h>
#include <pjlib-util/base64.h>
#include <pjlib-util/websock.h>
#include <pjmedia/alaw_ulaw.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "CPJSUASupport.h"

#define QUEUE_CAPACITY 256
#define MEDIA_SAMPLES 160           /* 20 ms at 8 kHz */
#define MEDIA_MESSAGE_SIZE 640      /* the JSON around 216 base64 characters and a stream id */

struct cpjsua_ws_link {
    atomic_int refs;
    pthread_mutex_t lock;
    /* Guarded by `lock`. */
    pj_websock *ws;                 /* NULL once destroyed */
    int open;                       /* the handshake is done and no close was seen */
    uint64_t sequence;              /* the last sequence number given out */
    char *queue[QUEUE_CAPACITY];    /* messages waiting for the socket (pj_websock sends one at a time) */
    uint32_t queue_length[QUEUE_CAPACITY];
    uint32_t queue_head, queue_count;
    char *media_sid;                /* media goes out once set (after `start`) */
    uint64_t chunk;
    cpjsua_ws_stats stats;
    /* Set once at creation. */
    pj_grp_lock_t *grp_lock;
    cpjsua_frame_buffer *reader;
    cpjsua_ws_notify notify;
    void *ctx;
    cpjsua_ws_release release;
};

static void link_unref(cpjsua_ws_link *link)
{
    if (atomic_fetch_sub(&link->refs, 1) != 1) return;
    for (uint32_t i = 0; i < link->queue_count; i++)
        free(link->queue[(link->queue_head + i) % QUEUE_CAPACITY]);
    free(link->media_sid);
    cpjsua_frame_buffer_free(link->reader);
    pthread_mutex_destroy(&link->lock);
    void *ctx = link->ctx;
    cpjsua_ws_release release = link->release;
    free(link);
    release(ctx);
}

static void link_release_cb(void *retained)
{
    if (retained) link_unref((cpjsua_ws_link *)retained);
}

/* The WebSocket's group lock is going: no callback can come any more. */
static void on_grp_lock_destroy(void *arg)
{
    link_unref((cpjsua_ws_link *)arg);
}

/* Sends what waits, in order, while the socket takes it. Under `lock`. */
static void drain_locked(cpjsua_ws_link *link)
{
    while (link->queue_count && link->ws && link->open) {
        uint32_t head = link->queue_head;
        pj_status_t status = pj_websock_send(link->ws, PJ_WEBSOCK_OP_TEXT, link->queue[head], link->queue_length[head]);
        if (status == PJ_EBUSY) return;
        if (status == PJ_SUCCESS) {
            link->stats.sent++;
            link->stats.sent_bytes += link->queue_length[head];
        } else {
            link->stats.send_errors++;
        }
        free(link->queue[head]);
        link->queue[head] = NULL;
        link->queue_head = (head + 1) % QUEUE_CAPACITY;
        link->queue_count--;
    }
}

/* Sends `message` now, or queues a copy behind those waiting. Under `lock`. */
static int32_t send_locked(cpjsua_ws_link *link, const char *message, uint32_t length)
{
    if (!link->ws || !link->open) return -1;
    drain_locked(link);
    if (link->queue_count == 0) {
        pj_status_t status = pj_websock_send(link->ws, PJ_WEBSOCK_OP_TEXT, message, length);
        if (status == PJ_SUCCESS) {
            link->stats.sent++;
            link->stats.sent_bytes += length;
            return 0;
        }
        if (status != PJ_EBUSY) {
            link->stats.send_errors++;
            return status;
        }
    }
    if (link->queue_count == QUEUE_CAPACITY) {
        link->stats.dropped++;
        return -2;
    }
    char *copy = malloc(length);
    if (!copy) {
        link->stats.dropped++;
        return -2;
    }
    memcpy(copy, message, length);
    uint32_t tail = (link->queue_head + link->queue_count) % QUEUE_CAPACITY;
    link->queue[tail] = copy;
    link->queue_length[tail] = length;
    link->queue_count++;
    return 0;
}

static void on_connect(pj_websock *ws, pj_status_t status)
{
    cpjsua_ws_link *link = pj_websock_get_user_data(ws);
    if (!link) return;
    pthread_mutex_lock(&link->lock);
    link->open = status == PJ_SUCCESS;
    pthread_mutex_unlock(&link->lock);
    link->notify(link->ctx, link, status == PJ_SUCCESS ? CPJSUA_WS_EVENT_OPEN : CPJSUA_WS_EVENT_FAILED, status, NULL, 0);
}

static void on_rx_msg(pj_websock *ws, pj_websock_opcode opcode, const void *data, pj_size_t len)
{
    cpjsua_ws_link *link = pj_websock_get_user_data(ws);
    if (!link) return;
    pthread_mutex_lock(&link->lock);
    link->stats.received++;
    link->stats.received_bytes += len;
    pthread_mutex_unlock(&link->lock);
    link->notify(link->ctx, link, opcode == PJ_WEBSOCK_OP_TEXT ? CPJSUA_WS_EVENT_TEXT : CPJSUA_WS_EVENT_BINARY, 0,
                 (const char *)data, (uint64_t)len);
}

static void on_close(pj_websock *ws, pj_uint16_t code, const pj_str_t *reason)
{
    cpjsua_ws_link *link = pj_websock_get_user_data(ws);
    if (!link) return;
    pthread_mutex_lock(&link->lock);
    link->open = 0;
    pthread_mutex_unlock(&link->lock);
    link->notify(link->ctx, link, CPJSUA_WS_EVENT_CLOSED, code, reason ? reason->ptr : NULL,
                 reason && reason->slen > 0 ? (uint64_t)reason->slen : 0);
}

/* The reader port's notify: one frame of the call's audio, on the bridge's clock thread. */
static void reader_notify(void *ctx, int32_t event, const int16_t *samples, uint32_t count, uint64_t position,
                          uint64_t handed)
{
    (void)handed;
    cpjsua_ws_link *link = ctx;
    if (event != CPJSUA_FRAME_EVENT_RECEIVED || !samples || count != MEDIA_SAMPLES) return;
    uint8_t ulaw[MEDIA_SAMPLES];
    for (uint32_t i = 0; i < count; i++) ulaw[i] = pjmedia_linear2ulaw(samples[i]);
    char payload[PJ_BASE256_TO_BASE64_LEN(MEDIA_SAMPLES) + 1];
    int payload_length = (int)sizeof payload;
    if (pj_base64_encode(ulaw, MEDIA_SAMPLES, payload, &payload_length) != PJ_SUCCESS) return;
    char message[MEDIA_MESSAGE_SIZE];
    pthread_mutex_lock(&link->lock);
    if (link->media_sid && link->open) {
        link->chunk++;
        int length = snprintf(message, sizeof message,
                              "{\"event\":\"media\",\"sequenceNumber\":\"%llu\",\"media\":{\"track\":\"inbound\","
                              "\"chunk\":\"%llu\",\"timestamp\":\"%llu\",\"payload\":\"%.*s\"},\"streamSid\":\"%s\"}",
                              (unsigned long long)(link->sequence + 1), (unsigned long long)link->chunk,
                              (unsigned long long)(position / 8), payload_length, payload, link->media_sid);
        if (length > 0 && length < (int)sizeof message && send_locked(link, message, (uint32_t)length) != -1) {
            link->sequence++;
            link->stats.media_sent++;
        }
    } else {
        drain_locked(link);
    }
    pthread_mutex_unlock(&link->lock);
}

int32_t cpjsua_ws_link_open(const char *url, const char *const *header_names, const char *const *header_values,
                            uint32_t header_count, uint32_t max_message, cpjsua_ws_notify notify, void *ctx,
                            cpjsua_ws_release release, cpjsua_ws_link **out)
{
    *out = NULL;
    if (header_count > PJ_WEBSOCK_MAX_HEADERS) {
        release(ctx);
        return PJ_ETOOMANY;
    }
    cpjsua_ws_link *link = calloc(1, sizeof *link);
    if (!link) {
        release(ctx);
        return PJ_ENOMEM;
    }
    pthread_mutex_init(&link->lock, NULL);
    link->notify = notify;
    link->ctx = ctx;
    link->release = release;
    atomic_init(&link->refs, 1);  /* the owner's */
    link->reader = cpjsua_frame_buffer_create(MEDIA_SAMPLES, 1, reader_notify, link);
    if (!link->reader) {
        link_unref(link);
        return PJ_ENOMEM;
    }

    /* The group lock pj_websock will use: it releases its pool itself when the last reference
     * goes, after our destroy handler. */
    pj_pool_t *pool = pjsua_pool_create("wslink%p", 512, 512);
    if (!pool) {
        link_unref(link);
        return PJ_ENOMEM;
    }
    pj_status_t status = pj_grp_lock_create(pool, NULL, &link->grp_lock);
    if (status != PJ_SUCCESS) {
        pj_pool_release(pool);
        link_unref(link);
        return status;
    }
    pj_grp_lock_add_ref(link->grp_lock);  /* ours, until the WebSocket holds its own */
    atomic_fetch_add(&link->refs, 1);     /* the WebSocket's, released by on_grp_lock_destroy */
    pj_grp_lock_add_handler(link->grp_lock, pool, link, &on_grp_lock_destroy);

    pjsip_endpoint *endpoint = pjsua_get_pjsip_endpt();
    pj_websock_param param;
    pj_websock_param_default(&param);
    param.ioqueue = pjsip_endpt_get_ioqueue(endpoint);
    param.timer_heap = pjsip_endpt_get_timer_heap(endpoint);
    param.cb.on_connect = &on_connect;
    param.cb.on_rx_msg = &on_rx_msg;
    param.cb.on_close = &on_close;
    param.user_data = link;
    param.grp_lock = link->grp_lock;
    if (max_message) param.max_rx_msg_size = max_message;
    pj_websock *ws = NULL;
    status = pj_websock_create(pool, &param, &ws);
    if (status != PJ_SUCCESS) {
        pj_grp_lock_dec_ref(link->grp_lock);  /* runs the handler: drops the WebSocket's reference */
        link_unref(link);
        return status;
    }
    link->ws = ws;
    pj_grp_lock_dec_ref(link->grp_lock);  /* the WebSocket holds it now */

    pj_websock_connect_param cparam;
    pj_websock_connect_param_default(&cparam);
    for (uint32_t i = 0; i < header_count; i++) {
        cparam.extra_hdr.header[i].name = pj_str((char *)header_names[i]);
        cparam.extra_hdr.header[i].value = pj_str((char *)header_values[i]);
    }
    cparam.extra_hdr.count = header_count;
    pj_str_t target = pj_str((char *)url);
    status = pj_websock_connect(ws, &target, &cparam);
    if (status != PJ_SUCCESS) {
        cpjsua_ws_link_destroy(link);
        return status;
    }
    *out = link;
    return PJ_SUCCESS;
}

int32_t cpjsua_ws_link_send(cpjsua_ws_link *link, const char *head, uint32_t head_length, const char *tail,
                            uint32_t tail_length, int32_t numbered, uint64_t *sequence)
{
    char number[24];
    pthread_mutex_lock(&link->lock);
    int number_length = numbered ? snprintf(number, sizeof number, "%llu", (unsigned long long)(link->sequence + 1)) : 0;
    uint32_t length = head_length + (uint32_t)number_length + tail_length;
    char stack[1024];
    char *message = length <= sizeof stack ? stack : malloc(length);
    int32_t result = -2;
    if (message) {
        memcpy(message, head, head_length);
        memcpy(message + head_length, number, (size_t)number_length);
        memcpy(message + head_length + number_length, tail, tail_length);
        result = send_locked(link, message, length);
        if (result != -1 && numbered) link->sequence++;
        if (sequence) *sequence = numbered ? link->sequence : 0;
        if (message != stack) free(message);
    }
    pthread_mutex_unlock(&link->lock);
    return result;
}

void cpjsua_ws_link_start_media(cpjsua_ws_link *link, const char *stream_sid)
{
    char *copy = strdup(stream_sid);
    pthread_mutex_lock(&link->lock);
    free(link->media_sid);
    link->media_sid = copy;
    pthread_mutex_unlock(&link->lock);
}

void cpjsua_ws_link_stop_media(cpjsua_ws_link *link)
{
    pthread_mutex_lock(&link->lock);
    free(link->media_sid);
    link->media_sid = NULL;
    pthread_mutex_unlock(&link->lock);
}

int32_t cpjsua_ws_link_attach_reader(cpjsua_ws_link *link, int32_t *slot)
{
    atomic_fetch_add(&link->refs, 1);  /* the port's, released when the bridge destroys it */
    return cpjsua_frame_port_attach(link->reader, 0, 8000, link, link_release_cb, slot);
}

void cpjsua_ws_link_detach_reader(cpjsua_ws_link *link)
{
    cpjsua_frame_buffer_close(link->reader);
    cpjsua_frame_port_detach(link->reader);
}

void cpjsua_ws_link_close(cpjsua_ws_link *link, uint16_t code)
{
    pthread_mutex_lock(&link->lock);
    drain_locked(link);
    pj_websock *ws = link->open ? link->ws : NULL;
    link->open = 0;
    free(link->media_sid);
    link->media_sid = NULL;
    pthread_mutex_unlock(&link->lock);
    if (ws) pj_websock_close(ws, code, NULL);
}

void cpjsua_ws_link_destroy(cpjsua_ws_link *link)
{
    pthread_mutex_lock(&link->lock);
    pj_websock *ws = link->ws;
    link->ws = NULL;
    link->open = 0;
    pthread_mutex_unlock(&link->lock);
    if (ws) {
        pj_websock_set_user_data(ws, NULL);
        pj_websock_destroy(ws);
    }
    link_unref(link);  /* the owner's */
}

cpjsua_ws_stats cpjsua_ws_link_stats(cpjsua_ws_link *link)
{
    pthread_mutex_lock(&link->lock);
    cpjsua_ws_stats stats = link->stats;
    stats.queued = link->queue_count;
    pthread_mutex_unlock(&link->lock);
    return stats;
}

int32_t cpjsua_ulaw_base64_decode(const char *base64, uint32_t length, int16_t *samples, uint32_t capacity)
{
    if (length == 0) return 0;
    /* pj_base64_decode skips what is not base64; a payload with anything else is refused. */
    for (uint32_t i = 0; i < length; i++) {
        char c = base64[i];
        int ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/' ||
                 (c == '=' && i + 2 >= length);
        if (!ok) return -1;
    }
    uint32_t bytes_capacity = PJ_BASE64_TO_BASE256_LEN(length) + 3;
    uint8_t stack[4096];
    uint8_t *bytes = bytes_capacity <= sizeof stack ? stack : malloc(bytes_capacity);
    if (!bytes) return -2;
    pj_str_t input = {(char *)base64, (pj_ssize_t)length};
    int out_length = (int)bytes_capacity;
    int32_t result;
    if (pj_base64_decode(&input, bytes, &out_length) != PJ_SUCCESS || out_length < 0) {
        result = -1;
    } else if ((uint32_t)out_length > capacity) {
        result = -2;
    } else {
        for (int i = 0; i < out_length; i++) samples[i] = (int16_t)pjmedia_ulaw2linear(bytes[i]);
        result = out_length;
    }
    if (bytes != stack) free(bytes);
    return result;
}
