/*
 * WebSocket links: the wire of a media stream (PJSUA.MediaStream), on our RFC 6455 client
 * (WebSocketClient.c: pj_activesock / pj_ssl_sock on the engine's ioqueue). See
 * include/CPJSUAStreams.h.
 *
 * Why C: the call's audio goes out from the conference bridge's clock thread, one message per
 * 20 ms frame. Encoding it (mu-law, base64, a JSON text frame with its sequence number; for
 * OpenAI Realtime PCM16 LE at 24 kHz, base64, an unnumbered `input_audio_buffer.append`) and
 * handing it to the client's queue here keeps that thread away from Swift concurrency: it takes
 * the link's mutex for a memcpy-sized job and a send that never waits for the socket. Messages
 * to the agent made in Swift (start, dtmf, mark, stop) take the same mutex, so one counter
 * numbers every message in the order it goes out, and the client's queue keeps that order.
 *
 * Threads: every function that enters PJLIB runs on a PJLIB-registered thread: open/close/destroy
 * on the engine's executor thread; send on the clock thread, pjsua's worker threads (websocket
 * and SIP callbacks) or the executor thread, with Swift locks possibly held (the client's send
 * never waits for its group lock: see WebSocketClient.c). The client calls back on pjsua's worker
 * threads, one callback at a time, never from inside a send.
 *
 * Lifetime: a link is plain memory with an atomic reference count, held by its Swift owner
 * (until the stream ends), by the client (released by its on_gone, after which no callback can
 * come), and by the reader port (released when the bridge destroys the port). The owner's
 * context (`ctx`) is kept retained by the link and released when the last reference goes:
 * callbacks always find it alive.
 */
#ifndef PJ_AUTOCONF
#  define PJ_AUTOCONF 1
#endif
#include <pjsua.h>
#include <pjlib-util/base64.h>
#include <pjmedia/alaw_ulaw.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "CPJSUAStreams.h"
#include "WebSocketClient.h"

#define MAX_HEADERS 32
#define MEDIA_SAMPLES 160           /* 20 ms at 8 kHz */
#define MEDIA_MESSAGE_SIZE 640      /* the JSON around 216 base64 characters and a stream id */
#define REALTIME_SAMPLES 480        /* 20 ms at 24 kHz */
#define REALTIME_MESSAGE_SIZE 1400  /* the JSON around 1280 base64 characters */

/* A link's state, by concern. Everything in the groups after `lock` is read and written under it
 * (the link's own mutex: one stream's, never shared with another's). */

/* The agent's connection: the client, whether it is open, and the counter that numbers every
 * message sent to the agent (media and control alike, in the order they go out). */
struct link_wire {
    cpjsua_wsc *client;             /* NULL once destroyed */
    int open;                       /* the handshake is done and no close was seen */
    uint64_t sequence;              /* the last sequence number given out */
};

/* The caller's audio going out as `media` messages (from the reader port or the tap). */
struct link_media_out {
    char *stream_sid;               /* media goes out once set (after `start`) */
    uint64_t chunk;                 /* the last chunk number given out */
    uint64_t sent;                  /* media messages handed to the client */
    uint64_t next_position;         /* samples: just after the last media message sent */
};

/* What comes from the agent, and the writer's queue its `media` goes to (set_player). */
struct link_media_in {
    uint64_t messages, bytes;       /* messages from the agent (oversized ones included) */
    cpjsua_frame_buffer *player;    /* NULL: the agent's media is notified as TEXT */
    uint32_t player_capacity;       /* its capacity, samples */
    uint64_t audio_skipped;         /* samples of one message over that capacity, not queued */
};

/* Pass-through (cpjsua_ws_link_tap): the caller's PCMU/PCMA RTP goes out as it arrives, in 20 ms
 * messages, instead of the reader port's frames; the reader's ticks only continue the stream with
 * silence while no packet comes. */
struct link_passthrough {
    int32_t call;                   /* the tapped call and media index; -1: none */
    uint32_t media;
    int started;                    /* a packet was taken: the fields below are set */
    uint32_t ssrc;
    uint16_t next_seq;
    uint32_t next_timestamp;
    uint8_t pending[MEDIA_SAMPLES]; /* mu-law of the next message, not 20 ms yet */
    uint32_t pending_count;
    uint32_t ticks_without_rtp;     /* reader ticks since the last packet */
    uint64_t silence_since_rtp;     /* samples of silence the ticks sent since the last packet */
    uint64_t position;              /* samples: the `timestamp` of the next message */
    uint64_t packets, late, concealed;
};

/* Paced sending (cpjsua_ws_link_pace): the player's frames go into the call's stream when they
 * arrive (MediaPace.c). */
struct link_pacing {
    int32_t call;                   /* the paced call and media index; -1: none */
    uint32_t media;
};

struct cpjsua_ws_link {
    atomic_int refs;
    /* Set once at creation. */
    cpjsua_ws_owner owner;          /* notified of every event; its ctx released with the link */
    int32_t format;                 /* CPJSUA_WS_MEDIA_* */
    cpjsua_frame_buffer *reader;
    atomic_int tapping;             /* pass-through is on (written under `lock`, read first without) */
    pthread_mutex_t lock;
    struct link_wire wire;
    struct link_media_out out;
    struct link_media_in in;
    struct link_passthrough tap;
    struct link_pacing pace;
};

static void link_unref(cpjsua_ws_link *link)
{
    if (atomic_fetch_sub(&link->refs, 1) != 1) return;
    free(link->out.stream_sid);
    cpjsua_frame_buffer_free(link->reader);
    pthread_mutex_destroy(&link->lock);
    void *ctx = link->owner.ctx;
    cpjsua_ws_release release = link->owner.release;
    free(link);
    release(ctx);
}

static void link_release_cb(void *retained)
{
    if (retained) link_unref((cpjsua_ws_link *)retained);
}

/* Queues `message` on the client. Under `lock`. -1: not open; -2: refused or dropped. */
static int32_t send_locked(cpjsua_ws_link *link, const char *message, uint32_t length, int32_t kind)
{
    if (!link->wire.client || !link->wire.open) return -1;
    return cpjsua_wsc_send(link->wire.client, CPJSUA_WSC_TEXT, message, length, kind);
}

/* MARK: The client's callbacks (pjsua's worker threads, one at a time) */

static void on_open(void *user, int32_t status, uint32_t problems, const char *detail)
{
    cpjsua_ws_link *link = user;
    pthread_mutex_lock(&link->lock);
    link->wire.open = status == PJ_SUCCESS;
    pthread_mutex_unlock(&link->lock);
    uint64_t length = detail ? strlen(detail) : 0;
    if (status == PJ_SUCCESS) {
        link->owner.notify(link->owner.ctx, link, CPJSUA_WS_EVENT_OPEN, 0, NULL, 0);
    } else if (problems) {
        link->owner.notify(link->owner.ctx, link, CPJSUA_WS_EVENT_REFUSED, (int32_t)problems, detail, length);
    } else {
        link->owner.notify(link->owner.ctx, link, CPJSUA_WS_EVENT_FAILED, status, detail, length);
    }
}

static int play_media(cpjsua_ws_link *link, cpjsua_frame_buffer *player, uint32_t capacity, const char *data, uint64_t length);

static void on_message(void *user, int32_t opcode, const char *data, uint64_t length)
{
    cpjsua_ws_link *link = user;
    pthread_mutex_lock(&link->lock);
    link->in.messages++;
    link->in.bytes += length;
    /* While media flows (after `start`, until the stream ends), a Twilio agent's `media` is read
     * and queued here; everything else, and a `media` this reader does not take, goes to Swift. */
    cpjsua_frame_buffer *player = link->out.stream_sid && link->format == CPJSUA_WS_MEDIA_TWILIO ? link->in.player : NULL;
    uint32_t capacity = link->in.player_capacity;
    int32_t pace_call = link->pace.call;
    uint32_t pace_media = link->pace.media;
    pthread_mutex_unlock(&link->lock);
    if (player && opcode == CPJSUA_WSC_TEXT && play_media(link, player, capacity, data, length)) {
        if (pace_call >= 0) cpjsua_media_pace_kick(pace_call, pace_media);
        return;
    }
    link->owner.notify(link->owner.ctx, link, opcode == CPJSUA_WSC_TEXT ? CPJSUA_WS_EVENT_TEXT : CPJSUA_WS_EVENT_BINARY, 0, data, length);
}

static void on_oversized(void *user, int32_t opcode, uint64_t length)
{
    cpjsua_ws_link *link = user;
    pthread_mutex_lock(&link->lock);
    link->in.messages++;
    link->in.bytes += length;
    pthread_mutex_unlock(&link->lock);
    link->owner.notify(link->owner.ctx, link, CPJSUA_WS_EVENT_OVERSIZED, opcode == CPJSUA_WSC_TEXT ? CPJSUA_WS_EVENT_TEXT : CPJSUA_WS_EVENT_BINARY,
                 NULL, length);
}

static void on_close(void *user, int32_t code, const char *reason, uint64_t length)
{
    cpjsua_ws_link *link = user;
    pthread_mutex_lock(&link->lock);
    link->wire.open = 0;
    pthread_mutex_unlock(&link->lock);
    link->owner.notify(link->owner.ctx, link, CPJSUA_WS_EVENT_CLOSED, code, reason, reason ? length : 0);
}

/* The client is gone: no callback can come any more. */
static void on_gone(void *user)
{
    link_unref((cpjsua_ws_link *)user);
}

/* The reader port's rate for a CPJSUA_WS_MEDIA_* format; its frames are 20 ms of it. */
static uint32_t reader_rate(int32_t format)
{
    return format == CPJSUA_WS_MEDIA_REALTIME ? REALTIME_SAMPLES * 50 : MEDIA_SAMPLES * 50;
}

/* An OpenAI Realtime stream's frame: `input_audio_buffer.append` with 20 ms of PCM16 LE 24 kHz
 * (unnumbered: the protocol has no sequence numbers). */
static void send_realtime_frame(cpjsua_ws_link *link, const int16_t *samples)
{
    uint8_t pcm[REALTIME_SAMPLES * 2];
    for (uint32_t i = 0; i < REALTIME_SAMPLES; i++) {
        uint16_t sample = (uint16_t)samples[i];
        pcm[2 * i] = (uint8_t)(sample & 0xFF);
        pcm[2 * i + 1] = (uint8_t)(sample >> 8);
    }
    static const char head[] = "{\"type\":\"input_audio_buffer.append\",\"audio\":\"";
    static const char tail[] = "\"}";
    char message[REALTIME_MESSAGE_SIZE];
    memcpy(message, head, sizeof head - 1);
    int payload_length = (int)(sizeof message - sizeof head - sizeof tail);
    if (pj_base64_encode(pcm, sizeof pcm, message + sizeof head - 1, &payload_length) != PJ_SUCCESS) return;
    uint32_t length = (uint32_t)(sizeof head - 1) + (uint32_t)payload_length;
    memcpy(message + length, tail, sizeof tail - 1);
    length += (uint32_t)(sizeof tail - 1);
    pthread_mutex_lock(&link->lock);
    if (link->out.stream_sid && link->wire.open && send_locked(link, message, length, CPJSUA_WSC_MEDIA) == 0) link->out.sent++;
    pthread_mutex_unlock(&link->lock);
}

/* Sends 20 ms of mu-law as a numbered Twilio `media` message with `timestamp` position / 8 (ms).
 * Under `lock`. */
static void send_media_locked(cpjsua_ws_link *link, const uint8_t *ulaw, uint64_t position)
{
    if (!link->out.stream_sid || !link->wire.open) return;
    char payload[PJ_BASE256_TO_BASE64_LEN(MEDIA_SAMPLES) + 1];
    int payload_length = (int)sizeof payload;
    if (pj_base64_encode(ulaw, MEDIA_SAMPLES, payload, &payload_length) != PJ_SUCCESS) return;
    char message[MEDIA_MESSAGE_SIZE];
    link->out.chunk++;
    int length = snprintf(message, sizeof message,
                          "{\"event\":\"media\",\"sequenceNumber\":\"%llu\",\"media\":{\"track\":\"inbound\","
                          "\"chunk\":\"%llu\",\"timestamp\":\"%llu\",\"payload\":\"%.*s\"},\"streamSid\":\"%s\"}",
                          (unsigned long long)(link->wire.sequence + 1), (unsigned long long)link->out.chunk,
                          (unsigned long long)(position / 8), payload_length, payload, link->out.stream_sid);
    if (length > 0 && length < (int)sizeof message &&
        send_locked(link, message, (uint32_t)length, CPJSUA_WSC_MEDIA) == 0) {
        /* A number goes to every message queued; one dropped from the queue later leaves a
         * gap, which tells the agent where media is missing. */
        link->wire.sequence++;
        link->out.sent++;
    }
    link->out.next_position = position + MEDIA_SAMPLES;
}

/* Appends `count` bytes of mu-law (NULL: silence) to the pass-through's next message, sending
 * each 20 ms as it fills. Under `lock`. */
static void tap_append_locked(cpjsua_ws_link *link, const uint8_t *ulaw, uint64_t count)
{
    while (count > 0) {
        uint32_t room = MEDIA_SAMPLES - link->tap.pending_count;
        uint32_t take = count < room ? (uint32_t)count : room;
        if (ulaw) {
            memcpy(link->tap.pending + link->tap.pending_count, ulaw, take);
            ulaw += take;
        } else {
            memset(link->tap.pending + link->tap.pending_count, 0xFF, take);  /* mu-law silence */
        }
        link->tap.pending_count += take;
        count -= take;
        if (link->tap.pending_count == MEDIA_SAMPLES) {
            send_media_locked(link, link->tap.pending, link->tap.position);
            link->tap.position += MEDIA_SAMPLES;
            link->tap.pending_count = 0;
        }
    }
}

/* A reader tick while passing through: after three ticks (40-60 ms) without a packet (the
 * caller on hold, silence suppression, loss), the stream goes on with silence, the three ticks'
 * worth at once and then one frame per tick, as the bridge path would send. Under `lock`. */
static void tap_tick_locked(cpjsua_ws_link *link)
{
    if (!link->out.stream_sid || !link->wire.open) return;
    if (++link->tap.ticks_without_rtp < 3) return;
    uint32_t frames = link->tap.ticks_without_rtp == 3 ? 3 : 1;
    for (uint32_t i = 0; i < frames; i++) {
        uint32_t silence = MEDIA_SAMPLES - link->tap.pending_count;
        tap_append_locked(link, NULL, silence);
        link->tap.silence_since_rtp += silence;
    }
}

/* The tap's consumer: one RTP packet of the call (pjsua's worker thread, after SRTP). PCMU and
 * PCMA audio goes out in arrival order; a packet older than one already taken (late, or a
 * duplicate) is dropped; audio missing before a packet (lost, or replaced by RFC 4733 events)
 * is sent as silence, less what the ticks already sent, up to one second (a longer jump starts
 * a new timeline, as does a new SSRC). Other payload types (telephone-event, comfort noise) are
 * not audio for the agent: their time is covered by the next packet's gap or by the ticks. */
static void tap_consume(void *ctx, const uint8_t *packet, uint32_t size)
{
    cpjsua_ws_link *link = ctx;
    if (size < 12 || (packet[0] >> 6) != 2) return;
    uint8_t type = packet[1] & 0x7F;
    if (type != 0 && type != 8) return;
    uint32_t offset = 12 + 4u * (packet[0] & 0x0F);
    if (packet[0] & 0x10) {
        if (offset + 4 > size) return;
        offset += 4 + 4u * (((uint32_t)packet[offset + 2] << 8) | packet[offset + 3]);
    }
    uint32_t end = size;
    if (packet[0] & 0x20) {
        uint8_t padding = packet[size - 1];
        if (padding == 0 || padding > end) return;
        end -= padding;
    }
    if (offset >= end) return;
    uint32_t length = end - offset;
    uint16_t seq = (uint16_t)((packet[2] << 8) | packet[3]);
    uint32_t timestamp = ((uint32_t)packet[4] << 24) | ((uint32_t)packet[5] << 16) | ((uint32_t)packet[6] << 8) | packet[7];
    uint32_t ssrc = ((uint32_t)packet[8] << 24) | ((uint32_t)packet[9] << 16) | ((uint32_t)packet[10] << 8) | packet[11];
    uint8_t converted[MEDIA_SAMPLES];
    pthread_mutex_lock(&link->lock);
    if (!atomic_load_explicit(&link->tapping, memory_order_relaxed) || !link->out.stream_sid || !link->wire.open) {
        pthread_mutex_unlock(&link->lock);
        return;
    }
    if (link->tap.started && ssrc == link->tap.ssrc) {
        if ((int16_t)(uint16_t)(seq - link->tap.next_seq) < 0) {
            link->tap.late++;
            pthread_mutex_unlock(&link->lock);
            return;
        }
        int32_t gap = (int32_t)(timestamp - link->tap.next_timestamp);
        if (gap > 0 && gap <= 8000 && (uint64_t)gap > link->tap.silence_since_rtp) {
            uint64_t missing = (uint64_t)gap - link->tap.silence_since_rtp;
            tap_append_locked(link, NULL, missing);
            link->tap.concealed += missing;
        }
    }
    link->tap.started = 1;
    link->tap.ssrc = ssrc;
    link->tap.next_seq = (uint16_t)(seq + 1);
    link->tap.next_timestamp = timestamp + length;
    link->tap.ticks_without_rtp = 0;
    link->tap.silence_since_rtp = 0;
    link->tap.packets++;
    const uint8_t *payload = packet + offset;
    while (length > 0) {
        uint32_t take = length < MEDIA_SAMPLES ? length : MEDIA_SAMPLES;
        if (type == 8) {
            for (uint32_t i = 0; i < take; i++) converted[i] = pjmedia_alaw2ulaw(payload[i]);
            tap_append_locked(link, converted, take);
        } else {
            tap_append_locked(link, payload, take);
        }
        payload += take;
        length -= take;
    }
    pthread_mutex_unlock(&link->lock);
}

/* The reader port's notify: one frame of the call's audio, on the bridge's clock thread. */
static void reader_notify(void *ctx, int32_t event, const int16_t *samples, uint32_t count, uint64_t position,
                          uint64_t handed)
{
    (void)handed;
    cpjsua_ws_link *link = ctx;
    if (event != CPJSUA_FRAME_EVENT_RECEIVED || !samples) return;
    if (link->format == CPJSUA_WS_MEDIA_REALTIME) {
        if (count == REALTIME_SAMPLES) send_realtime_frame(link, samples);
        return;
    }
    if (count != MEDIA_SAMPLES) return;
    if (atomic_load_explicit(&link->tapping, memory_order_relaxed)) {
        pthread_mutex_lock(&link->lock);
        if (atomic_load_explicit(&link->tapping, memory_order_relaxed)) {
            tap_tick_locked(link);
            pthread_mutex_unlock(&link->lock);
            return;
        }
        pthread_mutex_unlock(&link->lock);
    }
    uint8_t ulaw[MEDIA_SAMPLES];
    for (uint32_t i = 0; i < count; i++) ulaw[i] = pjmedia_linear2ulaw(samples[i]);
    pthread_mutex_lock(&link->lock);
    if (!atomic_load_explicit(&link->tapping, memory_order_relaxed)) send_media_locked(link, ulaw, position);
    pthread_mutex_unlock(&link->lock);
}

int32_t cpjsua_ws_link_open(const cpjsua_ws_link_config *config, cpjsua_ws_owner owner, cpjsua_ws_link **out)
{
    *out = NULL;
    if (config->target.header_count > MAX_HEADERS) {
        owner.release(owner.ctx);
        return PJ_ETOOMANY;
    }
    cpjsua_ws_link *link = calloc(1, sizeof *link);
    if (!link) {
        owner.release(owner.ctx);
        return PJ_ENOMEM;
    }
    pthread_mutex_init(&link->lock, NULL);
    link->owner = owner;
    link->format = config->media_format;
    link->tap.call = -1;
    link->pace.call = -1;
    atomic_init(&link->tapping, 0);
    atomic_init(&link->refs, 1);  /* the owner's */
    link->reader = cpjsua_frame_buffer_create(reader_rate(config->media_format) / 50, 1, reader_notify, link);
    if (!link->reader) {
        link_unref(link);
        return PJ_ENOMEM;
    }
    cpjsua_wsc_params params = {
        .url = config->target.url,
        .addresses = config->target.addresses,
        .address_count = config->target.address_count,
        .header_names = config->target.header_names,
        .header_values = config->target.header_values,
        .header_count = config->target.header_count,
        .max_message = config->max_message,
        .connect_timeout_ms = config->connect_timeout_ms,
        .ca_file = config->tls.ca_file,
        .ca_path = config->tls.ca_path,
        .verify_server = config->tls.verify_server,
        .pollers = config->pollers,
        .cb = {.on_open = &on_open, .on_message = &on_message, .on_oversized = &on_oversized, .on_close = &on_close,
               .on_gone = &on_gone},
        .user = link,
    };
    atomic_fetch_add(&link->refs, 1);  /* the client's, released by on_gone */
    /* The client writes link->wire.client before any of its callbacks can run. */
    pj_status_t status = cpjsua_wsc_connect(&params, &link->wire.client);
    if (status != PJ_SUCCESS) {
        atomic_fetch_sub(&link->refs, 1);  /* no on_gone comes after a failed connect */
        link_unref(link);
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
    int number_length = numbered ? snprintf(number, sizeof number, "%llu", (unsigned long long)(link->wire.sequence + 1)) : 0;
    uint32_t length = head_length + (uint32_t)number_length + tail_length;
    char stack[1024];
    char *message = length <= sizeof stack ? stack : malloc(length);
    int32_t result = -2;
    if (message) {
        memcpy(message, head, head_length);
        memcpy(message + head_length, number, (size_t)number_length);
        memcpy(message + head_length + number_length, tail, tail_length);
        result = send_locked(link, message, length, CPJSUA_WSC_CONTROL);
        if (result == 0 && numbered) link->wire.sequence++;
        if (sequence) *sequence = numbered && result == 0 ? link->wire.sequence : 0;
        if (message != stack) free(message);
    }
    pthread_mutex_unlock(&link->lock);
    return result;
}

void cpjsua_ws_link_start_media(cpjsua_ws_link *link, const char *stream_sid)
{
    char *copy = strdup(stream_sid);
    pthread_mutex_lock(&link->lock);
    free(link->out.stream_sid);
    link->out.stream_sid = copy;
    pthread_mutex_unlock(&link->lock);
}

void cpjsua_ws_link_stop_media(cpjsua_ws_link *link)
{
    pthread_mutex_lock(&link->lock);
    free(link->out.stream_sid);
    link->out.stream_sid = NULL;
    pthread_mutex_unlock(&link->lock);
}

int32_t cpjsua_ws_link_attach_reader(cpjsua_ws_link *link, int32_t *slot)
{
    atomic_fetch_add(&link->refs, 1);  /* the port's, released when the bridge destroys it */
    return cpjsua_frame_port_attach(link->reader, 0, reader_rate(link->format), link, link_release_cb, slot);
}

void cpjsua_ws_link_detach_reader(cpjsua_ws_link *link)
{
    cpjsua_frame_buffer_close(link->reader);
    cpjsua_frame_port_detach(link->reader);
}

/* The call's media index whose audio stream is on `conf_slot`; -1 when none. */
static int32_t audio_index(int32_t call_id, int32_t conf_slot)
{
    pjsua_call_info info;
    if (pjsua_call_get_info(call_id, &info) != PJ_SUCCESS) return -1;
    for (unsigned i = 0; i < info.media_cnt; i++) {
        if (info.media[i].type == PJMEDIA_TYPE_AUDIO && info.media[i].stream.aud.conf_slot == conf_slot) return (int32_t)i;
    }
    return -1;
}

int32_t cpjsua_ws_link_pace(cpjsua_ws_link *link, int32_t call_id, int32_t conf_slot)
{
    pthread_mutex_lock(&link->lock);
    cpjsua_frame_buffer *player = link->format == CPJSUA_WS_MEDIA_TWILIO ? link->in.player : NULL;
    pthread_mutex_unlock(&link->lock);
    int32_t index = player ? audio_index(call_id, conf_slot) : -1;
    pthread_mutex_lock(&link->lock);
    int same = index >= 0 && link->pace.call == call_id && link->pace.media == (uint32_t)index;
    pthread_mutex_unlock(&link->lock);
    if (same) return 1;
    cpjsua_ws_link_unpace(link);
    if (index < 0) return 0;
    atomic_fetch_add(&link->refs, 1);  /* the pace's, released when it lets the player go */
    if (cpjsua_media_pace_set(call_id, (uint32_t)index, player, MEDIA_SAMPLES * 50, link, link_release_cb) != 1) return 0;
    pthread_mutex_lock(&link->lock);
    link->pace.call = call_id;
    link->pace.media = (uint32_t)index;
    pthread_mutex_unlock(&link->lock);
    return 1;
}

void cpjsua_ws_link_unpace(cpjsua_ws_link *link)
{
    pthread_mutex_lock(&link->lock);
    int32_t call_id = link->pace.call;
    uint32_t media = link->pace.media;
    cpjsua_frame_buffer *player = link->in.player;
    link->pace.call = -1;
    pthread_mutex_unlock(&link->lock);
    if (call_id >= 0 && player) cpjsua_media_pace_clear(call_id, media, player);
}

int32_t cpjsua_ws_link_pace_stats(cpjsua_ws_link *link, cpjsua_pace_stats *stats)
{
    pthread_mutex_lock(&link->lock);
    int32_t call_id = link->pace.call;
    uint32_t media = link->pace.media;
    pthread_mutex_unlock(&link->lock);
    memset(stats, 0, sizeof *stats);
    if (call_id < 0) return 0;
    cpjsua_media_pace_stats_of(call_id, media, stats);
    return 1;
}

int32_t cpjsua_ws_link_tap(cpjsua_ws_link *link, int32_t call_id, int32_t conf_slot)
{
    if (link->format != CPJSUA_WS_MEDIA_TWILIO) return 0;
    int32_t index = audio_index(call_id, conf_slot);
    pjsua_stream_info stream;
    int usable = index >= 0 && pjsua_call_get_stream_info(call_id, (unsigned)index, &stream) == PJ_SUCCESS &&
                 stream.type == PJMEDIA_TYPE_AUDIO && (stream.info.aud.fmt.pt == 0 || stream.info.aud.fmt.pt == 8) &&
                 stream.info.aud.fmt.clock_rate == 8000 && stream.info.aud.fmt.channel_cnt == 1;
    pthread_mutex_lock(&link->lock);
    int same = usable && atomic_load_explicit(&link->tapping, memory_order_relaxed) && link->tap.call == call_id &&
               link->tap.media == (uint32_t)index;
    pthread_mutex_unlock(&link->lock);
    if (same) return 1;
    cpjsua_ws_link_untap(link);
    if (!usable) return 0;
    pthread_mutex_lock(&link->lock);
    link->tap.call = call_id;
    link->tap.media = (uint32_t)index;
    link->tap.started = 0;
    link->tap.pending_count = 0;
    link->tap.ticks_without_rtp = 0;
    link->tap.silence_since_rtp = 0;
    link->tap.position = link->out.next_position;  /* timestamps go on from the bridge's last frame */
    atomic_store_explicit(&link->tapping, 1, memory_order_relaxed);
    pthread_mutex_unlock(&link->lock);
    atomic_fetch_add(&link->refs, 1);  /* the tap's, released when the consumer goes */
    if (cpjsua_media_tap_set(call_id, (uint32_t)index, tap_consume, link, link_release_cb) == 1) return 1;
    pthread_mutex_lock(&link->lock);
    atomic_store_explicit(&link->tapping, 0, memory_order_relaxed);
    link->tap.call = -1;
    pthread_mutex_unlock(&link->lock);
    return 0;
}

void cpjsua_ws_link_untap(cpjsua_ws_link *link)
{
    pthread_mutex_lock(&link->lock);
    int32_t call_id = link->tap.call;
    uint32_t media = link->tap.media;
    link->tap.call = -1;
    atomic_store_explicit(&link->tapping, 0, memory_order_relaxed);
    link->tap.pending_count = 0;
    pthread_mutex_unlock(&link->lock);
    if (call_id >= 0) cpjsua_media_tap_clear(call_id, media, link);
}

void cpjsua_ws_link_close(cpjsua_ws_link *link, uint16_t code)
{
    pthread_mutex_lock(&link->lock);
    cpjsua_wsc *client = link->wire.open ? link->wire.client : NULL;
    link->wire.open = 0;
    free(link->out.stream_sid);
    link->out.stream_sid = NULL;
    if (client) cpjsua_wsc_close(client, code);  /* behind what is queued */
    pthread_mutex_unlock(&link->lock);
}

void cpjsua_ws_link_destroy(cpjsua_ws_link *link)
{
    pthread_mutex_lock(&link->lock);
    cpjsua_wsc *client = link->wire.client;
    link->wire.client = NULL;
    link->wire.open = 0;
    pthread_mutex_unlock(&link->lock);
    if (client) cpjsua_wsc_destroy(client);
    link_unref(link);  /* the owner's */
}

cpjsua_ws_stats cpjsua_ws_link_stats(cpjsua_ws_link *link)
{
    pthread_mutex_lock(&link->lock);
    cpjsua_ws_stats stats = {0};
    if (link->wire.client) {
        cpjsua_wsc_stats wire = cpjsua_wsc_get_stats(link->wire.client);
        stats.sent = wire.sent;
        stats.sent_bytes = wire.sent_bytes;
        stats.dropped = wire.dropped;
        stats.dropped_control = wire.dropped_control;
        stats.send_errors = wire.send_errors;
        stats.queued = wire.queued;
    }
    stats.media_sent = link->out.sent;
    stats.received = link->in.messages;
    stats.received_bytes = link->in.bytes;
    stats.audio_skipped = link->in.audio_skipped;
    stats.passing_through = atomic_load_explicit(&link->tapping, memory_order_relaxed);
    stats.passed_packets = link->tap.packets;
    stats.late_packets = link->tap.late;
    stats.concealed_samples = link->tap.concealed;
    pthread_mutex_unlock(&link->lock);
    return stats;
}

void cpjsua_ws_link_set_player(cpjsua_ws_link *link, cpjsua_frame_buffer *player, uint32_t capacity_samples)
{
    pthread_mutex_lock(&link->lock);
    link->in.player = player;
    link->in.player_capacity = capacity_samples;
    pthread_mutex_unlock(&link->lock);
}

/* MARK: The agent's `media`, read in C (pjsua's worker threads)
 *
 * Every 20 ms of an agent's audio is one message; reading it with Foundation's JSON parser and
 * handing the payload through Swift cost more than the rest of the stream. This reader takes
 * one pass over the message: the top level must be an object whose "event" is "media" and whose
 * "media" object has a string "payload" of strict base64, each key once and without escapes,
 * every other value well-formed JSON (skipped). Anything else (another event, a payload that is
 * not base64, a shape it does not take) is left to Swift (TwilioMediaStreams.parse), which reads
 * and judges it as before. The client already checked that the text is UTF-8. The same scanner
 * finds an OpenAI Realtime audio delta's item and base64 (cpjsua_realtime_audio_delta) for
 * OpenAIRealtime.parse, which then skips Foundation's parser for the message that carries audio. */

typedef struct scan {
    const char *p, *end;
} scan;

static void skip_space(scan *s)
{
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r')) s->p++;
}

static int is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

/* A string at s->p: 1 and its raw contents (between the quotes) in *start, *length, and whether
 * it has escapes in *escaped; 0 when it is not a well-formed JSON string. */
static int scan_string(scan *s, const char **start, size_t *length, int *escaped)
{
    if (s->p >= s->end || *s->p != '"') return 0;
    const char *p = ++s->p;
    *escaped = 0;
    while (p < s->end) {
        unsigned char c = (unsigned char)*p;
        if (c == '"') {
            *start = s->p;
            *length = (size_t)(p - s->p);
            s->p = p + 1;
            return 1;
        }
        if (c < 0x20) return 0;
        if (c == '\\') {
            *escaped = 1;
            if (++p >= s->end) return 0;
            if (*p == 'u') {
                if (s->end - p < 5 || !is_hex(p[1]) || !is_hex(p[2]) || !is_hex(p[3]) || !is_hex(p[4])) return 0;
                p += 4;
            } else if (*p == '\0' || !strchr("\"\\/bfnrt", *p)) {
                return 0;
            }
        }
        p++;
    }
    return 0;
}

static int scan_digits(scan *s)
{
    const char *from = s->p;
    while (s->p < s->end && *s->p >= '0' && *s->p <= '9') s->p++;
    return s->p > from;
}

/* Skips one well-formed JSON value at s->p (at most `depth` levels of nesting). */
static int skip_value(scan *s, int depth)
{
    skip_space(s);
    if (s->p >= s->end) return 0;
    char c = *s->p;
    if (c == '"') {
        const char *start;
        size_t length;
        int escaped;
        return scan_string(s, &start, &length, &escaped);
    }
    if (c == '{' || c == '[') {
        if (depth == 0) return 0;
        char close = c == '{' ? '}' : ']';
        s->p++;
        skip_space(s);
        if (s->p < s->end && *s->p == close) {
            s->p++;
            return 1;
        }
        for (;;) {
            if (c == '{') {
                const char *start;
                size_t length;
                int escaped;
                skip_space(s);
                if (!scan_string(s, &start, &length, &escaped)) return 0;
                skip_space(s);
                if (s->p >= s->end || *s->p != ':') return 0;
                s->p++;
            }
            if (!skip_value(s, depth - 1)) return 0;
            skip_space(s);
            if (s->p >= s->end) return 0;
            if (*s->p == ',') {
                s->p++;
                continue;
            }
            if (*s->p != close) return 0;
            s->p++;
            return 1;
        }
    }
    static const char *const literals[] = {"true", "false", "null"};
    for (int i = 0; i < 3; i++) {
        size_t n = strlen(literals[i]);
        if ((size_t)(s->end - s->p) >= n && memcmp(s->p, literals[i], n) == 0) {
            s->p += n;
            return 1;
        }
    }
    /* A number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
    if (c == '-') s->p++;
    if (s->p < s->end && *s->p == '0') {
        s->p++;
    } else if (s->p >= s->end || *s->p < '1' || *s->p > '9' || !scan_digits(s)) {
        return 0;
    }
    if (s->p < s->end && *s->p == '.') {
        s->p++;
        if (!scan_digits(s)) return 0;
    }
    if (s->p < s->end && (*s->p == 'e' || *s->p == 'E')) {
        s->p++;
        if (s->p < s->end && (*s->p == '+' || *s->p == '-')) s->p++;
        if (!scan_digits(s)) return 0;
    }
    return 1;
}

static int key_is(const char *key, size_t length, const char *name)
{
    return length == strlen(name) && memcmp(key, name, length) == 0;
}

/* Reads an object's members at s->p, one level: `member` is called for each key (raw, no
 * escapes allowed: 0 then) with s->p at its value, and must consume the value. */
static int scan_object(scan *s, int (*member)(scan *s, const char *key, size_t length, void *state), void *state)
{
    skip_space(s);
    if (s->p >= s->end || *s->p != '{') return 0;
    s->p++;
    skip_space(s);
    if (s->p < s->end && *s->p == '}') {
        s->p++;
        return 1;
    }
    for (;;) {
        const char *key;
        size_t length;
        int escaped;
        skip_space(s);
        if (!scan_string(s, &key, &length, &escaped) || escaped) return 0;
        skip_space(s);
        if (s->p >= s->end || *s->p != ':') return 0;
        s->p++;
        skip_space(s);
        if (!member(s, key, length, state)) return 0;
        skip_space(s);
        if (s->p >= s->end) return 0;
        if (*s->p == ',') {
            s->p++;
            continue;
        }
        if (*s->p != '}') return 0;
        s->p++;
        return 1;
    }
}

typedef struct media_message {
    int events, medias, payloads;
    const char *payload;
    size_t payload_length;
} media_message;

static int media_member(scan *s, const char *key, size_t length, void *state)
{
    media_message *m = state;
    if (!key_is(key, length, "payload")) return skip_value(s, 32);
    int escaped;
    m->payloads++;
    return scan_string(s, &m->payload, &m->payload_length, &escaped) && !escaped;
}

static int top_member(scan *s, const char *key, size_t length, void *state)
{
    media_message *m = state;
    if (key_is(key, length, "event")) {
        const char *value;
        size_t value_length;
        int escaped;
        m->events++;
        return scan_string(s, &value, &value_length, &escaped) && !escaped && key_is(value, value_length, "media");
    }
    if (key_is(key, length, "media")) {
        m->medias++;
        return scan_object(s, media_member, m);
    }
    return skip_value(s, 32);
}

typedef struct delta_message {
    int types, items, deltas, audio;
    const char *item, *delta;
    size_t item_length, delta_length;
} delta_message;

static int delta_member(scan *s, const char *key, size_t length, void *state)
{
    delta_message *m = state;
    const char *value;
    size_t value_length;
    int escaped;
    if (key_is(key, length, "type")) {
        m->types++;
        if (!scan_string(s, &value, &value_length, &escaped)) return 0;
        m->audio = !escaped && (key_is(value, value_length, "response.output_audio.delta")
                                || key_is(value, value_length, "response.audio.delta"));
        return 1;
    }
    if (key_is(key, length, "item_id")) {
        m->items++;
        return scan_string(s, &m->item, &m->item_length, &escaped) && !escaped;
    }
    if (key_is(key, length, "delta")) {
        m->deltas++;
        return scan_string(s, &m->delta, &m->delta_length, &escaped) && !escaped;
    }
    return skip_value(s, 32);
}

int32_t cpjsua_realtime_audio_delta(const char *data, uint64_t length, uint64_t *item_offset, uint64_t *item_length,
                                    uint64_t *delta_offset, uint64_t *delta_length)
{
    delta_message m = {0};
    scan s = {data, data + length};
    if (!scan_object(&s, delta_member, &m)) return 0;
    skip_space(&s);
    if (s.p != s.end || m.types != 1 || !m.audio || m.deltas != 1 || m.items > 1) return 0;
    *item_offset = m.items ? (uint64_t)(m.item - data) : 0;
    *item_length = m.items ? m.item_length : 0;
    *delta_offset = (uint64_t)(m.delta - data);
    *delta_length = m.delta_length;
    return 1;
}

static int32_t ulaw_to_linear(const uint8_t *bytes, int count, int16_t *samples, uint32_t capacity);
static int32_t decode_base64(const char *base64, uint32_t length,
                             int32_t (*convert)(const uint8_t *bytes, int count, int16_t *samples, uint32_t capacity),
                             int16_t *samples, uint32_t capacity);

/* A Twilio `media` message, decoded into `player`: 1 when taken; 0 to leave it to Swift. */
static int play_media(cpjsua_ws_link *link, cpjsua_frame_buffer *player, uint32_t capacity, const char *data, uint64_t length)
{
    media_message m = {0};
    scan s = {data, data + length};
    if (!scan_object(&s, top_member, &m)) return 0;
    skip_space(&s);
    if (s.p != s.end || m.events != 1 || m.medias != 1 || m.payloads != 1) return 0;
    if (m.payload_length == 0) return 1;
    if (m.payload_length > UINT32_MAX / 2) return 0;
    uint32_t most = (uint32_t)(m.payload_length / 4 * 3 + 3);
    int16_t stack[2048];
    int16_t *samples = most <= sizeof stack / sizeof stack[0] ? stack : malloc(most * sizeof(int16_t));
    if (!samples) return 0;
    int32_t count = decode_base64(m.payload, (uint32_t)m.payload_length, ulaw_to_linear, samples, most);
    if (count > 0) {
        /* Beyond the queue's capacity the oldest audio goes (the newest is what the agent wants
         * heard now), as in the queue's own drop-oldest. */
        uint32_t kept = (uint32_t)count < capacity ? (uint32_t)count : capacity;
        cpjsua_frame_buffer_write(player, samples + (count - (int32_t)kept), kept, 1);
        if (kept < (uint32_t)count) {
            pthread_mutex_lock(&link->lock);
            link->in.audio_skipped += (uint32_t)count - kept;
            pthread_mutex_unlock(&link->lock);
        }
    }
    if (samples != stack) free(samples);
    return count >= 0;
}

/* Decodes strict base64 (pj_base64_decode skips what is not base64; a payload with anything
 * else is refused) and hands the bytes to `convert`: its result, -1 for bad base64, -2 when
 * `convert` finds them over capacity. */
static int32_t decode_base64(const char *base64, uint32_t length,
                             int32_t (*convert)(const uint8_t *bytes, int count, int16_t *samples, uint32_t capacity),
                             int16_t *samples, uint32_t capacity)
{
    if (length == 0) return 0;
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
    int32_t result = -1;
    if (pj_base64_decode(&input, bytes, &out_length) == PJ_SUCCESS && out_length >= 0)
        result = convert(bytes, out_length, samples, capacity);
    if (bytes != stack) free(bytes);
    return result;
}

static int32_t ulaw_to_linear(const uint8_t *bytes, int count, int16_t *samples, uint32_t capacity)
{
    if ((uint32_t)count > capacity) return -2;
    for (int i = 0; i < count; i++) samples[i] = (int16_t)pjmedia_ulaw2linear(bytes[i]);
    return count;
}

static int32_t pcm16le_to_linear(const uint8_t *bytes, int count, int16_t *samples, uint32_t capacity)
{
    if (count % 2) return -1;
    if ((uint32_t)(count / 2) > capacity) return -2;
    for (int i = 0; i < count / 2; i++) samples[i] = (int16_t)(uint16_t)(bytes[2 * i] | (bytes[2 * i + 1] << 8));
    return count / 2;
}

int32_t cpjsua_ulaw_base64_decode(const char *base64, uint32_t length, int16_t *samples, uint32_t capacity)
{
    return decode_base64(base64, length, ulaw_to_linear, samples, capacity);
}

int32_t cpjsua_pcm16_base64_decode(const char *base64, uint32_t length, int16_t *samples, uint32_t capacity)
{
    return decode_base64(base64, length, pcm16le_to_linear, samples, capacity);
}
