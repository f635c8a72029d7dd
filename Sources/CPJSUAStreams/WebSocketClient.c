/*
 * An RFC 6455 WebSocket client on PJLIB sockets: pj_activesock for ws://, pj_ssl_sock for wss://,
 * on the engine's ioqueue and timer heap. See WebSocketClient.h; why not pj_websock: KL-39/KL-40.
 *
 * Locks. Two, always taken in this order: the group lock (`grp`, recursive, also the ioqueue
 * key's lock of the socket) serializes everything that touches the socket objects (connect,
 * close, pj_activesock/pj_ssl_sock sends, the receive parser, the callbacks); the mutex (`mu`)
 * guards the send queue and the phase, and is held for a few instructions or one non-blocking
 * send(2). pj_ssl_sock reads with the key (our group lock) held, and our rx callbacks call the
 * link, which calls Swift, which takes its own locks; a Swift thread holding those may send at
 * the same moment. So a send from outside never waits for the group lock. ws://: it queues and
 * writes with send(2) under `mu` (direct_flush_locked), never touching grp. wss://: it queues
 * under `mu`, then *tries* the group lock; when another thread holds it, a zero-delay timer
 * ("kick") finishes the job on a worker thread. Either way, a full socket or a failed send is
 * left to the kick. The holder of grp also flushes the queue before it lets go, so the kick only
 * matters in a narrow race. No callback to the user is ever made from a send: only from socket
 * or timer callbacks, with the group lock held, which is how destroy (which takes it) knows no
 * callback is running or can start after it.
 *
 * Buffers. Every queued message is one malloc'd frame (header and masked payload). The one at
 * the head is handed to the socket in chunks of at most CHUNK bytes, one chunk at a time; while
 * a chunk is pending (PJ_EPENDING) nothing else is sent and the frame stays allocated until
 * on_data_sent says the socket is done with it (KL-40: pj_websock reused its one buffer). A
 * frame the socket has started on is never dropped.
 *
 * Reads. pjlib's epoll ioqueue takes a socket out of the epoll set when its last pending read
 * completes and puts it back when the next one is queued: with one read pending, that is four
 * epoll_ctl calls (DEL+ADD twice: EPOLLEXCLUSIVE cannot be modified) and a recv that finds
 * nothing, for every 20 ms media message. So the socket keeps two reads pending (READS): no
 * epoll_ctl. ws:// also re-queues each read without trying it first (PJ_IOQUEUE_ALWAYS_ASYNC;
 * pj_ssl_sock cannot pass that down): one recv per arrival. Two pending reads of one TCP stream
 * deliver in order only when one thread polls the ioqueue (PJSUA.workerThreadCount, passed in
 * as `pollers`); with more, one read is kept.
 *
 * Drop policy (a full queue: QUEUE_MESSAGES frames or QUEUE_BYTES bytes). Media frames are
 * dropped oldest first (the newest audio is what matters to an agent); a control message (mark,
 * stop, dtmf, pong, close) evicts queued media to get in, and is refused to its caller (-2) only
 * when the queue holds nothing but control messages. Both are counted in the stats.
 */
#ifndef PJ_AUTOCONF
#  define PJ_AUTOCONF 1
#endif
#include <pjsua.h>
#include <pj/activesock.h>
#include <pj/ssl_sock.h>
#include <pjlib-util/base64.h>
#include <pjlib-util/sha1.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "WebSocketClient.h"
#include "CPJSUAStreams.h"

#define QUEUE_MESSAGES 512            /* ~10 s of 20 ms media */
#define QUEUE_BYTES (8u << 20)
#define CHUNK 16384                   /* the most handed to the socket at once */
#define READ_SIZE 16384
#define READS 2                       /* reads kept pending with one poller (see Reads) */
#define HTTP_MAX 16384                /* the largest upgrade answer read */
#define DEFAULT_MAX_MESSAGE (1u << 20)
#define DEFAULT_TIMEOUT_MS 10000
#define WS_GUID "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

enum phase { CONNECTING, HANDSHAKING, OPEN, CLOSING, DEAD };
enum rx_state { RX_HTTP, RX_HEADER, RX_PAYLOAD };

typedef struct item {
    uint32_t length, offset;   /* frame bytes, bytes the socket has taken */
    uint32_t payload;          /* payload bytes, for the stats */
    uint8_t kind;              /* CPJSUA_WSC_MEDIA or _CONTROL */
    uint8_t counted;           /* a message (the upgrade request is not) */
    uint8_t data[];
} item;

struct cpjsua_wsc {
    pj_pool_t *pool;
    pj_grp_lock_t *grp;
    pj_timer_heap_t *timer_heap;
    pj_ioqueue_t *ioqueue;
    pthread_mutex_t mu;
    cpjsua_wsc_callbacks cb;
    void *user;
    int secure, verify;
    unsigned reads;            /* reads kept pending: READS with one poller, else 1 */
    char host[256];            /* as in the URL, without brackets */
    char accept[32];           /* the Sec-WebSocket-Accept we expect */
    uint64_t max_message;

    /* ws:// only: the socket, for sends from any thread with send(2) under mu (see
     * direct_flush_locked); PJ_INVALID_SOCKET once it is closing. Written under mu. */
    pj_sock_t fd;

    /* Guarded by grp. */
    pj_activesock_t *asock;
    pj_ssl_sock_t *ssock;
    /* The host's addresses, tried in order (see start_next), and the next one to try; when the
     * connect timeout ends (pj_gettickcount's clock); wss:// the authorities, loaded once. */
    pj_sockaddr addresses[CPJSUA_WSC_MAX_ADDRESSES];
    unsigned address_count, address_next;
    pj_time_val deadline;
    pj_ssl_cert_t *authorities;
    int destroy_handler_added;
    pj_ioqueue_op_key_t send_key;
    pj_timer_entry timeout, kick;
    int open_notified, close_notified, destroyed, gone_silently;
    enum rx_state rx;
    char http[HTTP_MAX];
    size_t http_len;
    uint8_t hdr[14];
    size_t hdr_len;
    int frame_op, frame_fin;
    uint64_t frame_left;
    uint8_t ctrl[125];
    size_t ctrl_len;
    int msg_active, msg_op, msg_oversized;
    uint8_t *msg;
    uint64_t msg_len, msg_cap, msg_total;

    /* Guarded by mu. */
    enum phase phase;
    int close_queued;          /* no message can follow */
    int pending;               /* a chunk of the head frame is with the socket (PJ_EPENDING) */
    int in_flight;             /* the head frame was handed (partly) to the socket */
    uint32_t chunk;            /* the size of that chunk */
    int failed;                /* a send failed: the kick ends the connection */
    int kick_scheduled;
    item *ring[QUEUE_MESSAGES];
    uint32_t head, count;
    uint64_t bytes;
    cpjsua_wsc_stats stats;
};

/* MARK: Queue (mu held) */

static item *at(cpjsua_wsc *c, uint32_t i) { return c->ring[(c->head + i) % QUEUE_MESSAGES]; }

static void remove_at(cpjsua_wsc *c, uint32_t i)
{
    item *it = at(c, i);
    c->bytes -= it->length;
    for (uint32_t j = i; j + 1 < c->count; j++)
        c->ring[(c->head + j) % QUEUE_MESSAGES] = c->ring[(c->head + j + 1) % QUEUE_MESSAGES];
    c->count--;
    free(it);
}

static void pop_head(cpjsua_wsc *c)
{
    item *it = c->ring[c->head];
    c->bytes -= it->length;
    c->ring[c->head] = NULL;
    c->head = (c->head + 1) % QUEUE_MESSAGES;
    c->count--;
    c->in_flight = 0;
    free(it);
}

/* Drops the oldest media frame the socket has not started on; 0 when there is none. */
static int evict_media(cpjsua_wsc *c)
{
    for (uint32_t i = 0; i < c->count; i++) {
        item *it = at(c, i);
        if (i == 0 && (c->in_flight || it->offset)) continue;
        if (it->kind != CPJSUA_WSC_MEDIA) continue;
        remove_at(c, i);
        c->stats.dropped++;
        return 1;
    }
    return 0;
}

/* Queues `it` by the drop policy: 0 queued, -2 refused (and freed). `force`: a close frame,
 * which always gets in. */
static int32_t enqueue(cpjsua_wsc *c, item *it, int force)
{
    if (!force) {
        while (c->count == QUEUE_MESSAGES || c->bytes + it->length > QUEUE_BYTES) {
            if (evict_media(c)) continue;
            c->stats.dropped++;
            if (it->kind == CPJSUA_WSC_CONTROL) c->stats.dropped_control++;
            free(it);
            return -2;
        }
    } else if (c->count == QUEUE_MESSAGES && !evict_media(c)) {
        free(it);
        return -2;
    }
    c->ring[(c->head + c->count) % QUEUE_MESSAGES] = it;
    c->count++;
    c->bytes += it->length;
    return 0;
}

/* The socket took `n` more bytes of the head frame. */
static void advance(cpjsua_wsc *c, uint32_t n)
{
    item *it = c->ring[c->head];
    it->offset += n;
    if (it->offset < it->length) return;
    if (it->counted) {
        c->stats.sent++;
        c->stats.sent_bytes += it->payload;
    }
    pop_head(c);
}

/* MARK: Frames */

/* A frame's masking key (RFC 6455 5.3: unpredictable, from a strong source). Taken 4 bytes at
 * a time from a per-thread pool that one arc4random_buf fills for 64 frames: glibc's
 * arc4random_buf is a getrandom(2) system call each time, one per 20 ms media frame and call. */
static void masking_key(uint8_t key[4])
{
    static _Thread_local uint8_t pool[256];
    static _Thread_local uint32_t left;
    if (left < 4) {
        arc4random_buf(pool, sizeof pool);
        left = sizeof pool;
    }
    left -= 4;
    memcpy(key, pool + left, 4);
    memset(pool + left, 0, 4);  /* a key is used once */
}

/* One masked client frame (RFC 6455 5.2-5.3). */
static item *make_frame(int opcode, const void *data, uint64_t length, int kind)
{
    if (length > QUEUE_BYTES) return NULL;
    size_t header = length < 126 ? 2 : length < 65536 ? 4 : 10;
    item *it = malloc(sizeof *it + header + 4 + length);
    if (!it) return NULL;
    uint8_t *p = it->data;
    p[0] = (uint8_t)(0x80 | opcode);
    if (length < 126) {
        p[1] = (uint8_t)(0x80 | length);
    } else if (length < 65536) {
        p[1] = 0x80 | 126;
        p[2] = (uint8_t)(length >> 8);
        p[3] = (uint8_t)length;
    } else {
        p[1] = 0x80 | 127;
        for (int i = 0; i < 8; i++) p[2 + i] = (uint8_t)(length >> (56 - 8 * i));
    }
    uint8_t *mask = p + header;
    masking_key(mask);
    const uint8_t *in = data;
    uint8_t *out = mask + 4;
    for (uint64_t i = 0; i < length; i++) out[i] = in[i] ^ mask[i & 3];
    it->length = (uint32_t)(header + 4 + length);
    it->offset = 0;
    it->payload = (uint32_t)length;
    it->kind = (uint8_t)kind;
    it->counted = 1;
    return it;
}

/* A control frame of the WebSocket itself (close, pong): not a message in the stats. */
static item *make_control(int opcode, const void *data, uint64_t length)
{
    item *it = make_frame(opcode, data, length, CPJSUA_WSC_CONTROL);
    if (it) it->counted = 0;
    return it;
}

static item *make_close(uint16_t code)
{
    uint8_t body[2] = {(uint8_t)(code >> 8), (uint8_t)code};
    return make_control(8, body, code ? 2 : 0);
}

/* MARK: Socket (grp held) */

static pj_status_t sock_send(cpjsua_wsc *c, const void *data, pj_ssize_t *size)
{
#if PJ_HAS_SSL_SOCK
    if (c->ssock) return pj_ssl_sock_send(c->ssock, &c->send_key, data, size, 0);
#endif
    if (c->asock) return pj_activesock_send(c->asock, &c->send_key, data, size, 0);
    return PJ_EINVALIDOP;
}

/* Closes the socket, if there is one, and nothing else: the phase, the queue and the timeout
 * stay, so that start_next can try the host's next address on a new socket. */
static void drop_socket(cpjsua_wsc *c)
{
    /* No direct send can be using the socket after this (they hold mu throughout). */
    pthread_mutex_lock(&c->mu);
    c->fd = PJ_INVALID_SOCKET;
    pthread_mutex_unlock(&c->mu);
    if (c->asock) {
        pj_activesock_close(c->asock);
        c->asock = NULL;
    }
#if PJ_HAS_SSL_SOCK
    if (c->ssock) {
        pj_ssl_sock_close(c->ssock);
        c->ssock = NULL;
    }
#endif
}

static void close_socket(cpjsua_wsc *c)
{
    pj_timer_heap_cancel_if_active(c->timer_heap, &c->timeout, 0);
    drop_socket(c);
    pthread_mutex_lock(&c->mu);
    c->phase = DEAD;
    pthread_mutex_unlock(&c->mu);
}

static void schedule_kick(cpjsua_wsc *c, long delay_ms)
{
    pthread_mutex_lock(&c->mu);
    int go = !c->kick_scheduled && c->phase != DEAD;
    if (go) c->kick_scheduled = 1;
    pthread_mutex_unlock(&c->mu);
    if (!go) return;
    pj_time_val delay = {0, delay_ms};
    if (pj_timer_heap_schedule_w_grp_lock(c->timer_heap, &c->kick, &delay, 1, c->grp) != PJ_SUCCESS) {
        pthread_mutex_lock(&c->mu);
        c->kick_scheduled = 0;
        pthread_mutex_unlock(&c->mu);
    }
}

/* Hands the queue to the socket, one chunk at a time, until it is empty or a chunk is pending.
 * Never calls the user. */
static void flush(cpjsua_wsc *c)
{
    for (;;) {
        pthread_mutex_lock(&c->mu);
        if (c->pending || c->failed || c->count == 0 || c->phase == CONNECTING || c->phase == DEAD) {
            pthread_mutex_unlock(&c->mu);
            return;
        }
        item *it = c->ring[c->head];
        uint32_t left = it->length - it->offset;
        c->chunk = left < CHUNK ? left : CHUNK;
        c->in_flight = 1;
        const uint8_t *data = it->data + it->offset;
        pj_ssize_t size = c->chunk;
        pthread_mutex_unlock(&c->mu);
        /* The frame cannot go meanwhile: only this thread (holding grp) pops the head, and the
         * drop policy skips a head in flight. */
        pj_status_t status = sock_send(c, data, &size);
        pthread_mutex_lock(&c->mu);
        if (status == PJ_EPENDING) {
            c->pending = 1;
            pthread_mutex_unlock(&c->mu);
            return;
        }
        if (status == PJ_SUCCESS && size > 0) {
            /* Possibly less than asked: with whole_data off pj_activesock_send returns the
             * socket's partial write as it is. */
            advance(c, (uint32_t)size <= c->chunk ? (uint32_t)size : c->chunk);
            pthread_mutex_unlock(&c->mu);
            continue;
        }
        if (status == PJ_SUCCESS || (status == PJ_EBUSY && it->offset == 0)) {
            /* Nothing taken, or pj_ssl_sock is renegotiating: try again shortly. */
            c->in_flight = 0;
            pthread_mutex_unlock(&c->mu);
            schedule_kick(c, 10);
            return;
        }
        c->stats.send_errors++;
        c->failed = 1;
        pthread_mutex_unlock(&c->mu);
        schedule_kick(c, 0);
        return;
    }
}

/* ws:// from any thread (mu held): hands the queue to the socket with send(2), without grp,
 * while no chunk is with pj_activesock (pending or in flight: flush owns the head then, and
 * picks up what is queued behind it). Returns 1 when a worker must take over: the socket is
 * full (the kick's flush then waits for room through the ioqueue) or a send failed.
 *
 * Why not through grp like wss://: grp is also the socket's ioqueue key lock, and the ioqueue
 * only *tries* that lock when the socket is readable (ioqueue_dispatch_read_event); while a
 * sender held it, the worker that epoll woke found the read event again at once and went round
 * epoll_wait without sleeping. wss:// keeps that window: pj_ssl_sock_send needs grp. */
static int direct_flush_locked(cpjsua_wsc *c)
{
    while (c->count && !c->pending && !c->in_flight && !c->failed && c->fd != PJ_INVALID_SOCKET &&
           (c->phase == OPEN || c->phase == CLOSING)) {
        item *it = c->ring[c->head];
        pj_ssize_t size = it->length - it->offset;
        pj_status_t status = pj_sock_send(c->fd, it->data + it->offset, &size, 0);
        if (status == PJ_SUCCESS && size > 0) {
            advance(c, (uint32_t)size);
            continue;
        }
        if (status == PJ_SUCCESS || status == PJ_STATUS_FROM_OS(PJ_BLOCKING_ERROR_VAL)) return 1;
        c->stats.send_errors++;
        c->failed = 1;
        return 1;
    }
    return 0;
}

/* Sends what waits, from a thread that may hold any lock: never waits for grp. */
static void send_soon(cpjsua_wsc *c)
{
    if (pj_grp_lock_tryacquire(c->grp) == PJ_SUCCESS) {
        flush(c);
        pj_grp_lock_release(c->grp);
    } else {
        schedule_kick(c, 0);
    }
}

/* After a message was queued, or not (mu held on entry, released here): ws:// hands it to the
 * socket at once and leaves a full socket to a worker; wss:// sends it as soon as grp is free. */
static void send_queued_and_unlock(cpjsua_wsc *c, int queued)
{
    int kick = queued && !c->secure && direct_flush_locked(c);
    pthread_mutex_unlock(&c->mu);
    if (queued && c->secure) send_soon(c);
    if (kick) schedule_kick(c, 0);
}

/* MARK: Ending (grp held; the only places that call the user besides the rx path) */

static void fail_open(cpjsua_wsc *c, pj_status_t status, uint32_t problems, const char *detail)
{
    close_socket(c);
    if (c->open_notified || c->destroyed) return;
    c->open_notified = 1;
    c->close_notified = 1;
    c->cb.on_open(c->user, status, problems, detail);
}

/* MARK: Connecting, address after address (grp held) */

static pj_status_t start_connect(cpjsua_wsc *c, const pj_sockaddr *address);

/* What is left of the connect timeout, in milliseconds (0: none). */
static uint32_t remaining_ms(const cpjsua_wsc *c)
{
    pj_time_val now;
    pj_gettickcount(&now);
    if (PJ_TIME_VAL_GTE(now, c->deadline)) return 0;
    pj_time_val left = c->deadline;
    PJ_TIME_VAL_SUB(left, now);
    uint32_t ms = (uint32_t)PJ_TIME_VAL_MSEC(left);
    return ms ? ms : 1;
}

/* Starts connecting to the next address that takes it, on a new socket (the previous one, if
 * any, closed first): PJ_SUCCESS once an attempt is under way (or connected), PJ_ETIMEDOUT when
 * the timeout has passed, else the last address's failure (`status` when none is left). Only
 * before the upgrade request went out (phase CONNECTING): the queue still holds it whole. One
 * attempt at a time: one that never completes holds the rest until the timeout (KL-47). */
static pj_status_t start_next(cpjsua_wsc *c, pj_status_t status)
{
    while (c->address_next < c->address_count) {
        if (c->address_next > 0 && remaining_ms(c) == 0) return PJ_ETIMEDOUT;
        drop_socket(c);
        status = start_connect(c, &c->addresses[c->address_next++]);
        if (status == PJ_SUCCESS) return status;
    }
    return status;
}

/* The connect (TCP, or TCP and TLS) to the current address failed: the next one is tried; when
 * none is left the connection fails with the last reason, naming how many were tried. */
static void attempt_failed(cpjsua_wsc *c, pj_status_t status, const char *detail)
{
    pj_status_t next = start_next(c, status);
    if (next == PJ_SUCCESS) return;
    if (next != status) detail = next == PJ_ETIMEDOUT ? "the connect timeout passed" : NULL;
    char why[320];
    if (c->address_count > 1) {
        snprintf(why, sizeof why, "%s%s%u of %u addresses of %s tried", detail ? detail : "", detail ? "; " : "", c->address_next,
                 c->address_count, c->host);
        detail = why;
    }
    fail_open(c, next, 0, detail);
}

/* The connection ended without (more of) a close handshake: code 0 to the user. */
static void connection_lost(cpjsua_wsc *c, pj_status_t status, const char *detail)
{
    if (!c->open_notified) {
        fail_open(c, status, 0, detail);
        return;
    }
    close_socket(c);
    if (c->close_notified || c->destroyed) return;
    c->close_notified = 1;
    c->cb.on_close(c->user, 0, NULL, 0);
}

/* MARK: Handshake */

static int header_is(const char *line, size_t length, const char *name, const char **value, size_t *value_length)
{
    size_t n = strlen(name);
    if (length <= n || strncasecmp(line, name, n) != 0 || line[n] != ':') return 0;
    const char *v = line + n + 1, *end = line + length;
    while (v < end && (*v == ' ' || *v == '\t')) v++;
    while (end > v && (end[-1] == ' ' || end[-1] == '\t')) end--;
    *value = v;
    *value_length = (size_t)(end - v);
    return 1;
}

static int contains_token(const char *value, size_t length, const char *token)
{
    size_t n = strlen(token);
    for (size_t i = 0; i + n <= length; i++)
        if (strncasecmp(value + i, token, n) == 0) return 1;
    return 0;
}

/* Checks the server's answer (RFC 6455 4.1, the client's checks): 0 when it upgraded. */
static int check_upgrade(cpjsua_wsc *c, size_t length, char *why, size_t why_size)
{
    const char *p = c->http, *end = c->http + length;
    const char *eol = memchr(p, '\r', (size_t)(end - p));
    if (!eol) eol = end;
    int status_length = (int)(eol - p > 120 ? 120 : eol - p);
    if ((size_t)(eol - p) < 12 || strncmp(p, "HTTP/1.", 7) != 0 || strncmp(p + 8, " 101", 4) != 0 ||
        (p + 12 < eol && p[12] != ' ')) {
        snprintf(why, why_size, "the agent answered the upgrade with \"%.*s\", not 101", status_length, p);
        return -1;
    }
    int upgrade = 0, connection = 0, accepted = 0;
    for (p = eol + 2; p < end;) {
        eol = memchr(p, '\r', (size_t)(end - p));
        if (!eol) eol = end;
        const char *value;
        size_t value_length;
        size_t line = (size_t)(eol - p);
        if (header_is(p, line, "Upgrade", &value, &value_length)) {
            upgrade = contains_token(value, value_length, "websocket");
        } else if (header_is(p, line, "Connection", &value, &value_length)) {
            connection = contains_token(value, value_length, "upgrade");
        } else if (header_is(p, line, "Sec-WebSocket-Accept", &value, &value_length)) {
            accepted = value_length == strlen(c->accept) && memcmp(value, c->accept, value_length) == 0;
        }
        p = eol + 2;
    }
    if (!upgrade || !connection) {
        snprintf(why, why_size, "the agent's 101 lacks Upgrade: websocket or Connection: Upgrade");
        return -1;
    }
    if (!accepted) {
        snprintf(why, why_size, "the agent's Sec-WebSocket-Accept does not match our key");
        return -1;
    }
    return 0;
}

/* MARK: Receiving (grp held; the rx callbacks never run two at once: one read is pending) */

/* Whether `s` is well-formed UTF-8 (RFC 3629 4: no overlong forms, no surrogates, nothing past
 * U+10FFFF). Eight ASCII bytes at a time: agents' JSON is mostly ASCII. */
static int is_utf8(const uint8_t *s, uint64_t n)
{
    uint64_t i = 0;
    while (i < n) {
        if (n - i >= 8) {
            uint64_t word;
            memcpy(&word, s + i, 8);
            if (!(word & 0x8080808080808080ull)) {
                i += 8;
                continue;
            }
        }
        uint8_t b = s[i];
        if (b < 0x80) {
            i++;
            continue;
        }
        uint64_t more;
        uint8_t low = 0x80, high = 0xBF;  /* the second byte's range */
        if (b >= 0xC2 && b <= 0xDF) more = 1;
        else if (b == 0xE0) more = 2, low = 0xA0;
        else if (b == 0xED) more = 2, high = 0x9F;
        else if (b >= 0xE1 && b <= 0xEF) more = 2;
        else if (b == 0xF0) more = 3, low = 0x90;
        else if (b == 0xF4) more = 3, high = 0x8F;
        else if (b >= 0xF1 && b <= 0xF3) more = 3;
        else return 0;
        if (n - i - 1 < more || s[i + 1] < low || s[i + 1] > high) return 0;
        for (uint64_t k = 2; k <= more; k++)
            if ((s[i + k] & 0xC0) != 0x80) return 0;
        i += more + 1;
    }
    return 1;
}

static void queue_control(cpjsua_wsc *c, item *it, int force);

/* A message is complete. 0: go on; -1: the socket is closed (a text message that is not UTF-8:
 * RFC 6455 8.1 fails the connection, with close code 1007 to the agent, 5.5.1/7.4.1). */
static int deliver(cpjsua_wsc *c)
{
    c->msg_active = 0;
    if (c->destroyed) return 0;
    if (c->msg_oversized) {
        c->cb.on_oversized(c->user, c->msg_op, c->msg_total);
    } else if (c->msg_op == 1 && !is_utf8(c->msg, c->msg_len)) {
        queue_control(c, make_close(1007), 1);  /* best effort: sent now unless the socket is full */
        connection_lost(c, PJ_EINVALIDOP, "a text message that is not UTF-8");
        return -1;
    } else {
        c->cb.on_message(c->user, c->msg_op, (const char *)(c->msg ? c->msg : (uint8_t *)""), c->msg_len);
    }
    return 0;
}

static void queue_control(cpjsua_wsc *c, item *it, int force)
{
    if (!it) return;
    pthread_mutex_lock(&c->mu);
    if (c->close_queued || c->phase == DEAD) {
        free(it);
    } else {
        int is_close = it->data[0] == 0x88;
        if (enqueue(c, it, force) == 0 && is_close) c->close_queued = 1;
    }
    pthread_mutex_unlock(&c->mu);
    flush(c);
}

/* A control frame has arrived whole. 0: go on; -1: the socket is closed. */
static int control_frame(cpjsua_wsc *c)
{
    switch (c->frame_op) {
    case 9:  /* ping: answered with the same payload */
        queue_control(c, make_control(10, c->ctrl, c->ctrl_len), 0);
        return 0;
    case 10:  /* pong */
        return 0;
    default: {  /* close */
        if (c->ctrl_len == 1) {
            connection_lost(c, PJ_EINVALIDOP, "a close frame of one byte");
            return -1;
        }
        int32_t code = c->ctrl_len >= 2 ? (c->ctrl[0] << 8 | c->ctrl[1]) : 1005;
        queue_control(c, make_close(code == 1005 ? 0 : (uint16_t)code), 1);
        pthread_mutex_lock(&c->mu);
        if (c->phase == OPEN) c->phase = CLOSING;
        pthread_mutex_unlock(&c->mu);
        if (!c->close_notified && !c->destroyed) {
            c->close_notified = 1;
            c->cb.on_close(c->user, code, c->ctrl_len > 2 ? (const char *)c->ctrl + 2 : NULL,
                           c->ctrl_len > 2 ? c->ctrl_len - 2 : 0);
        }
        return 0;
    }
    }
}

static void frame_done(cpjsua_wsc *c)
{
    c->rx = RX_HEADER;
    c->hdr_len = 0;
}

/* Reads the frame header in c->hdr (complete). 0: go on; -1: the socket is closed. */
static int frame_header(cpjsua_wsc *c)
{
    uint8_t b0 = c->hdr[0], b1 = c->hdr[1];
    int fin = b0 >> 7, op = b0 & 0x0F;
    uint64_t length = b1 & 0x7F;
    if (length == 126) {
        length = (uint64_t)c->hdr[2] << 8 | c->hdr[3];
    } else if (length == 127) {
        length = 0;
        for (int i = 0; i < 8; i++) length = length << 8 | c->hdr[2 + i];
    }
    const char *error = NULL;
    if (b0 & 0x70) error = "a frame with reserved bits set (no extension was agreed)";
    else if (b1 & 0x80) error = "a masked frame from the server";
    else if (op >= 8 && (op > 10 || !fin || length > 125)) error = "a bad control frame";
    else if ((op >= 3 && op <= 7) || (op == 0 && !c->msg_active) || ((op == 1 || op == 2) && c->msg_active))
        error = "a data frame out of sequence";
    else if (length >> 62) error = "a frame length over 2^62";
    if (error) {
        connection_lost(c, PJ_EINVALIDOP, error);
        return -1;
    }
    c->frame_op = op;
    c->frame_fin = fin;
    c->frame_left = length;
    c->rx = RX_PAYLOAD;
    if (op >= 8) {
        c->ctrl_len = 0;
    } else {
        if (op != 0) {
            c->msg_active = 1;
            c->msg_op = op;
            c->msg_len = 0;
            c->msg_total = 0;
            c->msg_oversized = 0;
        }
        c->msg_total += length;
        if (!c->msg_oversized && c->msg_total > c->max_message) {
            c->msg_oversized = 1;
        } else if (!c->msg_oversized && c->msg_total > c->msg_cap) {
            uint64_t cap = c->msg_cap ? c->msg_cap : 4096;
            while (cap < c->msg_total) cap *= 2;
            if (cap > c->max_message) cap = c->max_message;
            uint8_t *grown = realloc(c->msg, cap);
            if (grown) {
                c->msg = grown;
                c->msg_cap = cap;
            } else {
                c->msg_oversized = 1;
            }
        }
    }
    return 0;
}

/* Consumes `size` bytes from the socket. 0: go on reading; -1: the socket is closed. */
static int receive(cpjsua_wsc *c, const uint8_t *data, size_t size)
{
    while (size > 0 && !c->destroyed) {
        if (c->rx == RX_HTTP) {
            size_t old = c->http_len;
            size_t take = size < HTTP_MAX - old ? size : HTTP_MAX - old;
            memcpy(c->http + old, data, take);
            c->http_len += take;
            size_t from = old > 3 ? old - 3 : 0, end = 0;
            for (size_t i = from; i + 4 <= c->http_len; i++) {
                if (memcmp(c->http + i, "\r\n\r\n", 4) == 0) {
                    end = i + 4;
                    break;
                }
            }
            if (!end) {
                if (c->http_len == HTTP_MAX) {
                    fail_open(c, PJ_ETOOBIG, 0, "the agent's answer to the upgrade is over 16 KiB");
                    return -1;
                }
                return 0;
            }
            char why[200];
            if (check_upgrade(c, end - 4, why, sizeof why) != 0) {
                fail_open(c, PJ_EINVALIDOP, 0, why);
                return -1;
            }
            data += end - old;
            size -= end - old;
            pj_timer_heap_cancel_if_active(c->timer_heap, &c->timeout, 0);
            pthread_mutex_lock(&c->mu);
            c->phase = OPEN;
            pthread_mutex_unlock(&c->mu);
            frame_done(c);
            c->open_notified = 1;
            c->cb.on_open(c->user, PJ_SUCCESS, 0, NULL);
            continue;
        }
        if (c->rx == RX_HEADER) {
            size_t need = 2;
            if (c->hdr_len >= 2) {
                int l = c->hdr[1] & 0x7F;
                need = l == 126 ? 4 : l == 127 ? 10 : 2;
            }
            size_t take = need - c->hdr_len < size ? need - c->hdr_len : size;
            memcpy(c->hdr + c->hdr_len, data, take);
            c->hdr_len += take;
            data += take;
            size -= take;
            if (c->hdr_len < need) continue;
            if (need == 2 && ((c->hdr[1] & 0x7F) >= 126)) continue;  /* the extended length follows */
            if (frame_header(c) != 0) return -1;
        } else {
            size_t take = c->frame_left < size ? (size_t)c->frame_left : size;
            if (c->frame_op >= 8) {
                memcpy(c->ctrl + c->ctrl_len, data, take);
                c->ctrl_len += take;
            } else if (!c->msg_oversized) {
                memcpy(c->msg + c->msg_len, data, take);
                c->msg_len += take;
            }
            c->frame_left -= take;
            data += take;
            size -= take;
        }
        if (c->rx == RX_PAYLOAD && c->frame_left == 0) {
            frame_done(c);
            if (c->frame_op >= 8) {
                if (control_frame(c) != 0) return -1;
            } else if (c->frame_fin) {
                if (deliver(c) != 0) return -1;
            }
        }
    }
    return c->destroyed || !(c->asock || c->ssock) ? -1 : 0;
}

/* MARK: Socket callbacks */

static void on_connected(cpjsua_wsc *c)
{
    pthread_mutex_lock(&c->mu);
    if (c->phase == CONNECTING) c->phase = HANDSHAKING;
    pthread_mutex_unlock(&c->mu);
    flush(c);  /* the upgrade request */
}

static pj_bool_t data_read(cpjsua_wsc *c, void *data, pj_size_t size, pj_status_t status, pj_size_t *remainder)
{
    pj_grp_lock_acquire(c->grp);
    if (remainder) *remainder = 0;
    int result = 0;
    if (c->destroyed || !(c->asock || c->ssock)) {
        result = -1;
    } else {
        if (size > 0) result = receive(c, data, size);
        if (result == 0 && status != PJ_SUCCESS) {
            connection_lost(c, status == PJ_EEOF && !c->open_notified ? PJ_EEOF : status,
                            c->open_notified ? NULL : "the agent closed the connection during the upgrade");
            result = -1;
        }
        if (result == 0) flush(c);
    }
    pj_grp_lock_release(c->grp);
    return result == 0;
}

static pj_bool_t data_sent(cpjsua_wsc *c, pj_ssize_t sent)
{
    pj_grp_lock_acquire(c->grp);
    int alive = !c->destroyed && (c->asock || c->ssock);
    if (alive) {
        pthread_mutex_lock(&c->mu);
        int was_pending = c->pending;
        c->pending = 0;
        if (was_pending && sent > 0) {
            advance(c, (uint64_t)sent <= c->chunk ? (uint32_t)sent : c->chunk);
        } else if (was_pending) {
            c->stats.send_errors++;
            c->failed = 1;
        }
        int failed = c->failed;
        pthread_mutex_unlock(&c->mu);
        if (failed) {
            connection_lost(c, sent < 0 ? (pj_status_t)-sent : PJ_ECANCELLED, "a send failed");
            alive = 0;
        } else {
            flush(c);
        }
    }
    pj_grp_lock_release(c->grp);
    return alive;
}

static pj_bool_t asock_on_connect(pj_activesock_t *asock, pj_status_t status)
{
    cpjsua_wsc *c = pj_activesock_get_user_data(asock);
    pj_grp_lock_acquire(c->grp);
    int alive = !c->destroyed && c->asock == asock;
    if (alive && status != PJ_SUCCESS) {
        attempt_failed(c, status, NULL);  /* closes this socket */
        alive = 0;
    } else if (alive) {
        status = pj_activesock_start_read(asock, c->pool, READ_SIZE, PJ_IOQUEUE_ALWAYS_ASYNC);
        if (status != PJ_SUCCESS) {
            fail_open(c, status, 0, NULL);
            alive = 0;
        } else {
            on_connected(c);
        }
    }
    pj_grp_lock_release(c->grp);
    return alive;
}

static pj_bool_t asock_on_read(pj_activesock_t *asock, void *data, pj_size_t size, pj_status_t status, pj_size_t *remainder)
{
    return data_read(pj_activesock_get_user_data(asock), data, size, status, remainder);
}

static pj_bool_t asock_on_sent(pj_activesock_t *asock, pj_ioqueue_op_key_t *key, pj_ssize_t sent)
{
    (void)key;
    return data_sent(pj_activesock_get_user_data(asock), sent);
}

#if PJ_HAS_SSL_SOCK
/* Whether the certificate names `host` (RFC 6125): a subjectAltName DNS entry (a leading "*."
 * standing for exactly one label) or IP entry; the subject's common name only when the
 * certificate has no such entry. */
static int name_matches(const pj_str_t *name, const char *host)
{
    size_t n = (size_t)name->slen, h = strlen(host);
    if (n == h && strncasecmp(name->ptr, host, h) == 0) return 1;
    if (n > 2 && name->ptr[0] == '*' && name->ptr[1] == '.') {
        const char *dot = strchr(host, '.');
        if (!dot || dot == host) return 0;
        size_t rest = h - (size_t)(dot - host);
        return rest == n - 1 && strncasecmp(dot, name->ptr + 1, rest) == 0;
    }
    return 0;
}

static int certificate_names(const pj_ssl_cert_info *cert, const char *host)
{
    pj_sockaddr_in6 ip;
    pj_str_t host_str = pj_str((char *)host);
    int is_ip = pj_inet_pton(pj_AF_INET(), &host_str, &ip) == PJ_SUCCESS ||
                pj_inet_pton(pj_AF_INET6(), &host_str, &ip) == PJ_SUCCESS;
    char canonical[64] = "";
    if (is_ip) {
        int af = strchr(host, ':') ? pj_AF_INET6() : pj_AF_INET();
        pj_inet_pton(af, &host_str, &ip);
        pj_inet_ntop(af, &ip, canonical, sizeof canonical);
    }
    int has_names = 0;
    for (unsigned i = 0; i < cert->subj_alt_name.cnt; i++) {
        const pj_str_t *name = &cert->subj_alt_name.entry[i].name;
        switch (cert->subj_alt_name.entry[i].type) {
        case PJ_SSL_CERT_NAME_DNS:
            has_names = 1;
            if (!is_ip && name_matches(name, host)) return 1;
            break;
        case PJ_SSL_CERT_NAME_IP:
            has_names = 1;
            if (is_ip && (size_t)name->slen == strlen(canonical) && strncasecmp(name->ptr, canonical, strlen(canonical)) == 0)
                return 1;
            break;
        default:
            break;
        }
    }
    return !has_names && !is_ip && cert->subject.cn.slen > 0 && (size_t)cert->subject.cn.slen == strlen(host) &&
           strncasecmp(cert->subject.cn.ptr, host, strlen(host)) == 0;
}

static pj_bool_t ssock_on_connect(pj_ssl_sock_t *ssock, pj_status_t status)
{
    cpjsua_wsc *c = pj_ssl_sock_get_user_data(ssock);
    pj_grp_lock_acquire(c->grp);
    int alive = !c->destroyed && c->ssock == ssock;
    if (alive && status != PJ_SUCCESS) {
        attempt_failed(c, status, "the TLS connection failed");  /* closes this socket */
        alive = 0;
    } else if (alive) {
        pj_ssl_sock_info info;
        uint32_t problems = 0;
        if (pj_ssl_sock_get_info(ssock, &info) != PJ_SUCCESS) {
            problems = PJ_SSL_CERT_EUNKNOWN;
        } else if (c->verify) {
            problems = info.verify_status;
            if (!info.remote_cert_info || !info.remote_cert_info->version) {
                problems |= PJ_SSL_CERT_EUNKNOWN;
            } else if (!certificate_names(info.remote_cert_info, c->host)) {
                problems |= PJ_SSL_CERT_EIDENTITY_NOT_MATCH;
            }
        }
        if (problems && c->verify) {
            char why[160];
            snprintf(why, sizeof why, "the agent's TLS certificate was refused for %s", c->host);
            fail_open(c, PJSIP_TLS_ECERTVERIF, problems, why);
            alive = 0;
        } else if ((status = pj_ssl_sock_start_read(ssock, c->pool, READ_SIZE, 0)) != PJ_SUCCESS) {
            fail_open(c, status, 0, NULL);
            alive = 0;
        } else {
            on_connected(c);
        }
    }
    pj_grp_lock_release(c->grp);
    return alive;
}

static pj_bool_t ssock_on_read(pj_ssl_sock_t *ssock, void *data, pj_size_t size, pj_status_t status, pj_size_t *remainder)
{
    return data_read(pj_ssl_sock_get_user_data(ssock), data, size, status, remainder);
}

static pj_bool_t ssock_on_sent(pj_ssl_sock_t *ssock, pj_ioqueue_op_key_t *key, pj_ssize_t sent)
{
    (void)key;
    return data_sent(pj_ssl_sock_get_user_data(ssock), sent);
}
#endif

/* MARK: Timers (pjsua's worker threads, grp not held on entry) */

static void on_timer(pj_timer_heap_t *heap, pj_timer_entry *entry)
{
    (void)heap;
    cpjsua_wsc *c = entry->user_data;
    pj_grp_lock_acquire(c->grp);
    if (entry == &c->kick) {
        pthread_mutex_lock(&c->mu);
        c->kick_scheduled = 0;
        int failed = c->failed, dead = c->phase == DEAD;
        pthread_mutex_unlock(&c->mu);
        if (!c->destroyed && !dead) {
            if (failed) connection_lost(c, PJ_ECANCELLED, "a send failed");
            else flush(c);
        }
    } else if (!c->destroyed && !c->open_notified) {
        fail_open(c, PJ_ETIMEDOUT, 0, "the agent did not complete the WebSocket upgrade in time");
    }
    pj_grp_lock_release(c->grp);
}

/* MARK: Lifetime */

static void on_destroy(void *arg)
{
    cpjsua_wsc *c = arg;
    for (uint32_t i = 0; i < c->count; i++) free(at(c, i));
    free(c->msg);
    pthread_mutex_destroy(&c->mu);
    void (*gone)(void *) = c->gone_silently ? NULL : c->cb.on_gone;
    void *user = c->user;
    pj_pool_t *pool = c->pool;
    free(c);
    pj_pool_release(pool);
    if (gone) gone(user);
}

typedef struct url_parts {
    int secure;
    char host[256];
    uint16_t port;
    char target[2048];   /* path and query */
    char authority[300]; /* the Host header */
} url_parts;

static pj_status_t parse_url(const char *url, url_parts *out)
{
    memset(out, 0, sizeof *out);
    const char *p;
    if (strncasecmp(url, "ws://", 5) == 0) {
        p = url + 5;
    } else if (strncasecmp(url, "wss://", 6) == 0) {
        p = url + 6;
        out->secure = 1;
    } else {
        return PJ_EINVAL;
    }
    const char *end = p + strcspn(p, "/?#");
    const char *host = p, *host_end, *port = NULL;
    if (*p == '[') {
        host = p + 1;
        host_end = memchr(host, ']', (size_t)(end - host));
        if (!host_end) return PJ_EINVAL;
        if (host_end + 1 < end) {
            if (host_end[1] != ':') return PJ_EINVAL;
            port = host_end + 2;
        }
    } else {
        host_end = memchr(p, ':', (size_t)(end - p));
        if (host_end) port = host_end + 1;
        else host_end = end;
    }
    size_t host_length = (size_t)(host_end - host);
    if (host_length == 0 || host_length >= sizeof out->host || memchr(host, '@', host_length)) return PJ_EINVAL;
    memcpy(out->host, host, host_length);
    unsigned long number = out->secure ? 443 : 80;
    if (port) {
        if (port == end) return PJ_EINVAL;
        char *stop;
        number = strtoul(port, &stop, 10);
        if (stop != end || number == 0 || number > 65535) return PJ_EINVAL;
    }
    out->port = (uint16_t)number;
    const char *rest = end;
    const char *fragment = strchr(rest, '#');
    size_t rest_length = fragment ? (size_t)(fragment - rest) : strlen(rest);
    int n = snprintf(out->target, sizeof out->target, "%s%.*s", *rest == '/' ? "" : "/", (int)rest_length, rest);
    if (n < 0 || (size_t)n >= sizeof out->target) return PJ_ETOOBIG;
    n = snprintf(out->authority, sizeof out->authority, "%.*s", (int)(end - p), p);
    if (n < 0 || (size_t)n >= sizeof out->authority) return PJ_ETOOBIG;
    for (const char *s = url; *s; s++)
        if ((unsigned char)*s <= ' ') return PJ_EINVAL;
    return PJ_SUCCESS;
}

/* The upgrade request, queued as the first thing to send; and the accept value we expect. */
static pj_status_t queue_request(cpjsua_wsc *c, const url_parts *url, const cpjsua_wsc_params *params)
{
    uint8_t nonce[16];
    arc4random_buf(nonce, sizeof nonce);
    char key[32];
    int key_length = (int)sizeof key;
    if (pj_base64_encode(nonce, sizeof nonce, key, &key_length) != PJ_SUCCESS) return PJ_EBUG;
    key[key_length] = '\0';
    pj_sha1_context sha;
    uint8_t digest[PJ_SHA1_DIGEST_SIZE];
    pj_sha1_init(&sha);
    pj_sha1_update(&sha, (const pj_uint8_t *)key, (unsigned)key_length);
    pj_sha1_update(&sha, (const pj_uint8_t *)WS_GUID, (unsigned)strlen(WS_GUID));
    pj_sha1_final(&sha, digest);
    int accept_length = (int)sizeof c->accept - 1;
    if (pj_base64_encode(digest, sizeof digest, c->accept, &accept_length) != PJ_SUCCESS) return PJ_EBUG;
    c->accept[accept_length] = '\0';

    size_t capacity = 512 + strlen(url->target) + strlen(url->authority);
    for (uint32_t i = 0; i < params->header_count; i++) {
        const char *name = params->header_names[i], *value = params->header_values[i];
        if (strpbrk(name, "\r\n:") || strpbrk(value, "\r\n")) return PJ_EINVAL;
        capacity += strlen(name) + strlen(value) + 4;
    }
    item *it = malloc(sizeof *it + capacity);
    if (!it) return PJ_ENOMEM;
    char *text = (char *)it->data;
    size_t length = (size_t)snprintf(text, capacity,
                                     "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                                     "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n",
                                     url->target, url->authority, key);
    for (uint32_t i = 0; i < params->header_count; i++)
        length += (size_t)snprintf(text + length, capacity - length, "%s: %s\r\n", params->header_names[i], params->header_values[i]);
    length += (size_t)snprintf(text + length, capacity - length, "\r\n");
    it->length = (uint32_t)length;
    it->offset = 0;
    it->payload = 0;
    it->kind = CPJSUA_WSC_CONTROL;
    it->counted = 0;
    pthread_mutex_lock(&c->mu);
    enqueue(c, it, 1);
    pthread_mutex_unlock(&c->mu);
    return PJ_SUCCESS;
}

static void on_destroy(void *arg);

/* Our grp destroy handler releases the pool that the sockets' own handlers may still read, so it
 * must run after theirs: pj_ssl_sock adds one per socket, and a socket made for a later address
 * comes after ours, which then moves behind it. */
static void keep_destroy_handler_last(cpjsua_wsc *c)
{
    if (!c->destroy_handler_added) return;
    pj_grp_lock_del_handler(c->grp, c, &on_destroy);
    pj_grp_lock_add_handler(c->grp, NULL, c, &on_destroy);
}

/* Creates a socket and starts connecting it to `address` (grp held). */
static pj_status_t start_connect(cpjsua_wsc *c, const pj_sockaddr *address)
{
    int af = address->addr.sa_family;
    int size = pj_sockaddr_get_len(address);
    pj_status_t status;
    if (!c->secure) {
        pj_sock_t sock;
        /* Close-on-exec (both schemes): a process the app starts meanwhile would otherwise hold
         * a copy of the connection, which then outlives our close, and the agent never sees it
         * end (its close handshake waits for our side's FIN). */
        status = pj_sock_socket(af, pj_SOCK_STREAM() | pj_SOCK_CLOEXEC(), 0, &sock);
        if (status != PJ_SUCCESS) return status;
        int one = 1;  /* 20 ms media frames: no Nagle delay */
        pj_sock_setsockopt(sock, pj_SOL_TCP(), pj_TCP_NODELAY(), &one, sizeof one);
        pj_activesock_cfg cfg;
        pj_activesock_cfg_default(&cfg);
        cfg.grp_lock = c->grp;
        cfg.async_cnt = c->reads;
        cfg.concurrency = 1;
        cfg.whole_data = PJ_FALSE;  /* we take every byte (remainder 0) */
        pj_activesock_cb cb;
        pj_bzero(&cb, sizeof cb);
        cb.on_connect_complete = &asock_on_connect;
        cb.on_data_read = &asock_on_read;
        cb.on_data_sent = &asock_on_sent;
        status = pj_activesock_create(c->pool, sock, pj_SOCK_STREAM(), &cfg, c->ioqueue, &cb, c, &c->asock);
        if (status != PJ_SUCCESS) {
            pj_sock_close(sock);
            return status;
        }
        pthread_mutex_lock(&c->mu);
        c->fd = sock;  /* non-blocking now: the ioqueue made it so */
        pthread_mutex_unlock(&c->mu);
        status = pj_activesock_start_connect(c->asock, c->pool, address, size);
        if (status == PJ_SUCCESS) {
            status = pj_activesock_start_read(c->asock, c->pool, READ_SIZE, PJ_IOQUEUE_ALWAYS_ASYNC);
            if (status == PJ_SUCCESS) on_connected(c);
        }
        return status == PJ_EPENDING ? PJ_SUCCESS : status;
    }
#if PJ_HAS_SSL_SOCK
    pj_ssl_sock_param param;
    pj_ssl_sock_param_default(&param);
    param.grp_lock = c->grp;
    param.sock_af = af;
    param.sock_cloexec = PJ_TRUE;  /* see the ws:// socket */
    param.ioqueue = c->ioqueue;
    param.timer_heap = c->timer_heap;
    param.cb.on_connect_complete = &ssock_on_connect;
    param.cb.on_data_read = &ssock_on_read;
    param.cb.on_data_sent = &ssock_on_sent;
    param.user_data = c;
    param.async_cnt = c->reads;
    param.read_buffer_size = READ_SIZE;
    param.send_buffer_size = 4 * CHUNK;
    /* We check the certificate ourselves after the handshake (and name the reason); with
     * verify_peer the backend would just drop the connection. */
    param.verify_peer = PJ_FALSE;
    /* SNI: the backend leaves it out for an IP address. */
    param.server_name = pj_str(c->host);
    static int one = 1;
    param.sockopt_params.cnt = 1;
    param.sockopt_params.options[0].level = pj_SOL_TCP();
    param.sockopt_params.options[0].optname = pj_TCP_NODELAY();
    param.sockopt_params.options[0].optval = &one;
    param.sockopt_params.options[0].optlen = sizeof one;
    uint32_t ms = remaining_ms(c);
    param.timeout.sec = (long)(ms / 1000);
    param.timeout.msec = (long)(ms % 1000);
    status = pj_ssl_sock_create(c->pool, &param, &c->ssock);
    if (status != PJ_SUCCESS) return status;
    keep_destroy_handler_last(c);
    if (c->authorities) {
        status = pj_ssl_sock_set_certificate(c->ssock, c->pool, c->authorities);
        if (status != PJ_SUCCESS) return status;
    }
    pj_ssl_start_connect_param connect;
    pj_bzero(&connect, sizeof connect);
    pj_sockaddr local;
    pj_sockaddr_init(af, &local, NULL, 0);
    connect.pool = c->pool;
    connect.localaddr = &local;
    connect.remaddr = address;
    connect.addr_len = size;
    status = pj_ssl_sock_start_connect2(c->ssock, &connect);
    return status == PJ_EPENDING ? PJ_SUCCESS : status;
#else
    return PJ_ENOTSUP;
#endif
}

int32_t cpjsua_ws_url_host(const char *url, char *host, uint32_t size)
{
    url_parts parts;
    pj_status_t status = parse_url(url, &parts);
    if (status != PJ_SUCCESS) return status;
    if (strlen(parts.host) >= size) return PJ_ETOOBIG;
    strcpy(host, parts.host);
    return PJ_SUCCESS;
}

/* A numeric address (IPv4, or IPv6 without brackets) and a port; never a name: no lookup. */
static pj_status_t numeric_address(const char *text, uint16_t port, pj_sockaddr *out)
{
    int af = strchr(text, ':') ? pj_AF_INET6() : pj_AF_INET();
    pj_str_t numeric = pj_str((char *)text);
    pj_sockaddr_init(af, out, NULL, port);
    return pj_inet_pton(af, &numeric, pj_sockaddr_get_addr(out));
}

/* The trusted authorities of a wss:// client, loaded once for every address tried. */
static pj_status_t load_authorities(cpjsua_wsc *c, const cpjsua_wsc_params *params)
{
#if PJ_HAS_SSL_SOCK
    if (!c->secure || (!params->ca_file && !params->ca_path)) return PJ_SUCCESS;
    pj_str_t file = pj_str((char *)(params->ca_file ? params->ca_file : ""));
    pj_str_t path = pj_str((char *)(params->ca_path ? params->ca_path : ""));
    return pj_ssl_cert_load_from_files2(c->pool, params->ca_file ? &file : NULL, params->ca_path ? &path : NULL, NULL, NULL,
                                        NULL, &c->authorities);
#else
    (void)c;
    (void)params;
    return PJ_SUCCESS;
#endif
}

int32_t cpjsua_wsc_connect(const cpjsua_wsc_params *params, cpjsua_wsc **out)
{
    *out = NULL;
    url_parts url;
    pj_status_t status = parse_url(params->url, &url);
    if (status != PJ_SUCCESS) return status;
    /* The caller resolved the host (off this thread: a lookup can take seconds, and this is the
     * engine's one executor thread); every address it found is tried, in its order. */
    if (params->address_count == 0 || !params->addresses) return PJ_EINVAL;
    pj_sockaddr addresses[CPJSUA_WSC_MAX_ADDRESSES];
    unsigned count = params->address_count < CPJSUA_WSC_MAX_ADDRESSES ? params->address_count : CPJSUA_WSC_MAX_ADDRESSES;
    for (unsigned i = 0; i < count; i++) {
        status = numeric_address(params->addresses[i], url.port, &addresses[i]);
        if (status != PJ_SUCCESS) return status;
    }

    cpjsua_wsc *c = calloc(1, sizeof *c);
    if (!c) return PJ_ENOMEM;
    pthread_mutex_init(&c->mu, NULL);
    c->fd = PJ_INVALID_SOCKET;
    c->cb = params->cb;
    c->user = params->user;
    c->secure = url.secure;
    c->verify = params->verify_server != 0;
    c->reads = params->pollers == 1 ? READS : 1;
    c->max_message = params->max_message ? params->max_message : DEFAULT_MAX_MESSAGE;
    snprintf(c->host, sizeof c->host, "%s", url.host);
    memcpy(c->addresses, addresses, count * sizeof addresses[0]);
    c->address_count = count;
    pjsip_endpoint *endpoint = pjsua_get_pjsip_endpt();
    c->ioqueue = pjsip_endpt_get_ioqueue(endpoint);
    c->timer_heap = pjsip_endpt_get_timer_heap(endpoint);
    c->pool = pjsua_pool_create("wsc%p", 4096, 4096);
    if (!c->pool) {
        pthread_mutex_destroy(&c->mu);
        free(c);
        return PJ_ENOMEM;
    }
    status = pj_grp_lock_create(c->pool, NULL, &c->grp);
    if (status != PJ_SUCCESS) {
        pj_pool_release(c->pool);
        pthread_mutex_destroy(&c->mu);
        free(c);
        return status;
    }
    pj_grp_lock_add_ref(c->grp);  /* the owner's, dropped by destroy */
    pj_timer_entry_init(&c->timeout, 1, c, &on_timer);
    pj_timer_entry_init(&c->kick, 2, c, &on_timer);
    pj_ioqueue_op_key_init(&c->send_key, sizeof c->send_key);

    pj_grp_lock_acquire(c->grp);
    uint32_t ms = params->connect_timeout_ms ? params->connect_timeout_ms : DEFAULT_TIMEOUT_MS;
    pj_time_val delay = {(long)(ms / 1000), (long)(ms % 1000)};
    pj_gettickcount(&c->deadline);
    PJ_TIME_VAL_ADD(c->deadline, delay);
    status = queue_request(c, &url, params);
    if (status == PJ_SUCCESS) status = load_authorities(c, params);
    if (status == PJ_SUCCESS) status = pj_timer_heap_schedule_w_grp_lock(c->timer_heap, &c->timeout, &delay, 1, c->grp);
    /* Addresses that fail at once (no IPv6 here, say) are passed over now; the first attempt
     * under way reports through the callbacks, which try the rest. */
    if (status == PJ_SUCCESS) status = start_next(c, PJ_EINVAL);
    /* Registered after the socket's own handlers (pj_ssl_sock's), which run first and may still
     * read memory from our pool: ours releases it. A later address's socket moves it again
     * (keep_destroy_handler_last). */
    pj_grp_lock_add_handler(c->grp, NULL, c, &on_destroy);
    c->destroy_handler_added = 1;
    if (status != PJ_SUCCESS) {
        c->destroyed = 1;
        c->gone_silently = 1;
        close_socket(c);
        pj_grp_lock_release(c->grp);
        pj_grp_lock_dec_ref(c->grp);
        return status;
    }
    *out = c;  /* before any callback can run: they wait for grp */
    pj_grp_lock_release(c->grp);
    return PJ_SUCCESS;
}

int32_t cpjsua_wsc_send(cpjsua_wsc *c, int32_t opcode, const void *data, uint64_t length, int32_t kind)
{
    item *it = make_frame(opcode == CPJSUA_WSC_BINARY ? 2 : 1, data, length, kind);
    pthread_mutex_lock(&c->mu);
    if (c->phase != OPEN || c->close_queued) {
        pthread_mutex_unlock(&c->mu);
        free(it);
        return -1;
    }
    int32_t result;
    if (!it) {
        c->stats.dropped++;
        if (kind == CPJSUA_WSC_CONTROL) c->stats.dropped_control++;
        result = -2;
    } else {
        result = enqueue(c, it, 0);
    }
    send_queued_and_unlock(c, result == 0);
    return result;
}

void cpjsua_wsc_close(cpjsua_wsc *c, uint16_t code)
{
    item *it = make_close(code);
    pthread_mutex_lock(&c->mu);
    int queued = 0;
    if (it && c->phase == OPEN && !c->close_queued) {
        queued = enqueue(c, it, 1) == 0;
        if (queued) {
            c->close_queued = 1;
            c->phase = CLOSING;
        }
    } else {
        free(it);
    }
    send_queued_and_unlock(c, queued);
}

void cpjsua_wsc_destroy(cpjsua_wsc *c)
{
    pj_grp_lock_acquire(c->grp);
    c->destroyed = 1;
    pj_timer_heap_cancel_if_active(c->timer_heap, &c->kick, 0);
    close_socket(c);
    pj_grp_lock_release(c->grp);
    pj_grp_lock_dec_ref(c->grp);  /* the owner's: on_destroy once the socket and timers let go */
}

cpjsua_wsc_stats cpjsua_wsc_get_stats(cpjsua_wsc *c)
{
    pthread_mutex_lock(&c->mu);
    cpjsua_wsc_stats stats = c->stats;
    stats.queued = c->count;
    pthread_mutex_unlock(&c->mu);
    return stats;
}
