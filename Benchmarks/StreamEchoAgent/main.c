/*
 * stream-echo-agent: the WebSocket agent of `pjsua-bench stream`, in C, so that the agent is not
 * what limits or delays the streams measured.
 *
 * A Twilio Media Streams agent that echoes: an RFC 6455 server on 127.0.0.1 (one thread, epoll,
 * non-blocking sockets, hundreds of connections) that answers every `media` message at once with
 * `{"event":"media","streamSid":"<sid>","media":{"payload":"<the same payload>"}}`. It does what
 * Tests/Peers/stream_agent.py --bench does, as the benchmark sees it:
 *   - prints `LISTENING <port>` once bound (--port 0, the default: a free port);
 *   - remembers the callSid of `start`;
 *   - decodes every media payload (base64 mu-law), and for each frame whose RMS is above 0.15 of
 *     full scale after one that was not (a click's onset), prints
 *     `click <callSid> 0 <received ns> <sent ns> <sign changes>`, CLOCK_MONOTONIC, the clock the
 *     callers read: received = the message read, sent = its echo written to the socket;
 *   - answers pings, echoes a close's status code and closes; a message that is not JSON, or a
 *     media message without a payload, closes the connection with 1011 (the Python agent's
 *     handler fails on it the same way); messages over 1 MiB close it with 1009.
 * Plain POSIX and Linux epoll; SHA-1 and base64 are written here (FIPS 180-4, RFC 4648).
 *
 * Usage: stream-echo-agent [--port N]
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { MAX_MESSAGE = 1 << 20, MAX_REQUEST = 16384, READ_CHUNK = 65536 };

/* A frame louder than 0.15 of full scale (RMS) after a quieter one is a click's onset: an
 * integer RMS of 4916 or more (0.15 * 32767 = 4915.05). */
static const int loud_rms = 4916;

/* MARK: SHA-1 (FIPS 180-4), enough for Sec-WebSocket-Accept */

static uint32_t rotate_left(uint32_t value, int bits) { return (value << bits) | (value >> (32 - bits)); }

static void sha1_block(uint32_t state[5], const uint8_t block[64])
{
    uint32_t w[80];
    for (int t = 0; t < 16; t++)
        w[t] = (uint32_t)block[4 * t] << 24 | (uint32_t)block[4 * t + 1] << 16 | (uint32_t)block[4 * t + 2] << 8 | block[4 * t + 3];
    for (int t = 16; t < 80; t++) w[t] = rotate_left(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3], e = state[4];
    for (int t = 0; t < 80; t++) {
        uint32_t f, k;
        if (t < 20) { f = (b & c) | (~b & d); k = 0x5A827999; }
        else if (t < 40) { f = b ^ c ^ d; k = 0x6ED9EBA1; }
        else if (t < 60) { f = (b & c) | (b & d) | (c & d); k = 0x8F1BBCDC; }
        else { f = b ^ c ^ d; k = 0xCA62C1D6; }
        uint32_t next = rotate_left(a, 5) + f + e + k + w[t];
        e = d; d = c; c = rotate_left(b, 30); b = a; a = next;
    }
    state[0] += a; state[1] += b; state[2] += c; state[3] += d; state[4] += e;
}

static void sha1(const uint8_t *data, size_t length, uint8_t digest[20])
{
    uint32_t state[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
    size_t whole = length / 64 * 64;
    for (size_t offset = 0; offset < whole; offset += 64) sha1_block(state, data + offset);
    /* The tail, a 1 bit, zeros, and the length in bits: one or two more blocks. */
    uint8_t tail[128] = {0};
    size_t rest = length - whole;
    memcpy(tail, data + whole, rest);
    tail[rest] = 0x80;
    size_t blocks = rest + 9 <= 64 ? 1 : 2;
    uint64_t bits = (uint64_t)length * 8;
    for (int i = 0; i < 8; i++) tail[blocks * 64 - 1 - i] = (uint8_t)(bits >> (8 * i));
    for (size_t i = 0; i < blocks; i++) sha1_block(state, tail + 64 * i);
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 4; j++) digest[4 * i + j] = (uint8_t)(state[i] >> (24 - 8 * j));
}

/* MARK: base64 (RFC 4648) */

static const char base64_alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Writes the encoding of `length` bytes and a NUL into `out` (4 * ceil(length / 3) + 1 bytes). */
static void base64_encode(const uint8_t *data, size_t length, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < length; i += 3) {
        uint32_t group = (uint32_t)data[i] << 16;
        if (i + 1 < length) group |= (uint32_t)data[i + 1] << 8;
        if (i + 2 < length) group |= data[i + 2];
        out[o++] = base64_alphabet[(group >> 18) & 63];
        out[o++] = base64_alphabet[(group >> 12) & 63];
        out[o++] = i + 1 < length ? base64_alphabet[(group >> 6) & 63] : '=';
        out[o++] = i + 2 < length ? base64_alphabet[group & 63] : '=';
    }
    out[o] = 0;
}

static int8_t base64_values[256];

static void base64_prepare(void)
{
    memset(base64_values, -1, sizeof base64_values);
    for (int i = 0; i < 64; i++) base64_values[(uint8_t)base64_alphabet[i]] = (int8_t)i;
}

/* Decodes into `out` (at least length * 3 / 4 bytes); characters outside the alphabet (padding
 * included) are skipped, as Python's b64decode does by default. Returns the bytes written. */
static size_t base64_decode(const char *text, size_t length, uint8_t *out)
{
    uint32_t group = 0;
    int have = 0;
    size_t o = 0;
    for (size_t i = 0; i < length; i++) {
        int8_t value = base64_values[(uint8_t)text[i]];
        if (value < 0) continue;
        group = group << 6 | (uint32_t)value;
        if (++have == 4) {
            out[o++] = (uint8_t)(group >> 16);
            out[o++] = (uint8_t)(group >> 8);
            out[o++] = (uint8_t)group;
            have = 0;
            group = 0;
        }
    }
    if (have == 3) {
        out[o++] = (uint8_t)(group >> 10);
        out[o++] = (uint8_t)(group >> 2);
    } else if (have == 2) {
        out[o++] = (uint8_t)(group >> 4);
    }
    return o;
}

/* MARK: G.711 mu-law */

static int16_t ulaw_decoded[256];

static void ulaw_prepare(void)
{
    for (int byte = 0; byte < 256; byte++) {
        int value = ~byte & 0xFF;
        int exponent = (value >> 4) & 7;
        int magnitude = ((((value & 0x0F) << 3) + 0x84) << exponent) - 0x84;
        ulaw_decoded[byte] = (int16_t)(value & 0x80 ? -magnitude : magnitude);
    }
}

/* MARK: a little JSON: finds members and decodes strings, never trusting the input */

static const char *skip_space(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
    return p;
}

/* Past the string that starts at `p` (a quote), or NULL. */
static const char *skip_string(const char *p, const char *end)
{
    for (p++; p < end; p++) {
        if (*p == '\\') p++;
        else if (*p == '"') return p + 1;
    }
    return NULL;
}

/* Past the value at `p`, or NULL; `depth` bounds nesting. */
static const char *skip_value(const char *p, const char *end, int depth)
{
    p = skip_space(p, end);
    if (p >= end || depth > 64) return NULL;
    if (*p == '"') return skip_string(p, end);
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        p = skip_space(p + 1, end);
        if (p < end && *p == close) return p + 1;
        for (;;) {
            if (close == '}') {
                p = skip_space(p, end);
                if (p >= end || *p != '"' || !(p = skip_string(p, end))) return NULL;
                p = skip_space(p, end);
                if (p >= end || *p != ':') return NULL;
                p++;
            }
            if (!(p = skip_value(p, end, depth + 1))) return NULL;
            p = skip_space(p, end);
            if (p >= end) return NULL;
            if (*p == close) return p + 1;
            if (*p != ',') return NULL;
            p++;
        }
    }
    const char *start = p;
    while (p < end && (strchr("+-.0123456789eE", *p) || (*p >= 'a' && *p <= 'z'))) p++;
    return p > start ? p : NULL;
}

/* The value of member `key` of the object at `p`, or NULL (not an object, malformed, absent). */
static const char *member(const char *p, const char *end, const char *key)
{
    size_t key_length = strlen(key);
    p = skip_space(p, end);
    if (p >= end || *p != '{') return NULL;
    p = skip_space(p + 1, end);
    if (p < end && *p == '}') return NULL;
    for (;;) {
        p = skip_space(p, end);
        if (p >= end || *p != '"') return NULL;
        const char *name = p + 1;
        if (!(p = skip_string(p, end))) return NULL;
        int match = (size_t)(p - 1 - name) == key_length && memcmp(name, key, key_length) == 0;
        p = skip_space(p, end);
        if (p >= end || *p != ':') return NULL;
        p = skip_space(p + 1, end);
        if (match) return p;
        if (!(p = skip_value(p, end, 1))) return NULL;
        p = skip_space(p, end);
        if (p >= end || *p != ',') return NULL;
        p++;
    }
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Decodes the JSON string at `p` into a new NUL-terminated buffer (escapes resolved, \u as
 * UTF-8); NULL if `p` is not a well-formed string. The caller frees it. */
static char *string_value(const char *p, const char *end, size_t *length)
{
    if (!p || p >= end || *p != '"') return NULL;
    const char *close = skip_string(p, end);
    if (!close) return NULL;
    char *out = malloc((size_t)(close - p) * 2 + 1);
    if (!out) return NULL;
    size_t o = 0;
    for (p++; p < close - 1; p++) {
        if (*p != '\\') { out[o++] = *p; continue; }
        p++;
        switch (*p) {
        case 'b': out[o++] = '\b'; break;
        case 'f': out[o++] = '\f'; break;
        case 'n': out[o++] = '\n'; break;
        case 'r': out[o++] = '\r'; break;
        case 't': out[o++] = '\t'; break;
        case 'u': {
            uint32_t code = 0;
            for (int i = 1; i <= 4; i++) {
                int h = p + i < close - 1 ? hex_value(p[i]) : -1;
                if (h < 0) { free(out); return NULL; }
                code = code << 4 | (uint32_t)h;
            }
            p += 4;
            if (code >= 0xD800 && code < 0xDC00 && p + 6 < close && p[1] == '\\' && p[2] == 'u') {
                uint32_t low = 0;
                int ok = 1;
                for (int i = 3; i <= 6; i++) {
                    int h = hex_value(p[i]);
                    if (h < 0) ok = 0;
                    low = low << 4 | (uint32_t)(h < 0 ? 0 : h);
                }
                if (ok && low >= 0xDC00 && low < 0xE000) {
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                    p += 6;
                }
            }
            if (code < 0x80) out[o++] = (char)code;
            else if (code < 0x800) { out[o++] = (char)(0xC0 | code >> 6); out[o++] = (char)(0x80 | (code & 63)); }
            else if (code < 0x10000) {
                out[o++] = (char)(0xE0 | code >> 12); out[o++] = (char)(0x80 | ((code >> 6) & 63)); out[o++] = (char)(0x80 | (code & 63));
            } else {
                out[o++] = (char)(0xF0 | code >> 18); out[o++] = (char)(0x80 | ((code >> 12) & 63));
                out[o++] = (char)(0x80 | ((code >> 6) & 63)); out[o++] = (char)(0x80 | (code & 63));
            }
            break;
        }
        default: out[o++] = *p; break; /* \" \\ \/ */
        }
    }
    out[o] = 0;
    if (length) *length = o;
    return out;
}

/* MARK: connections */

typedef struct {
    uint8_t *bytes;
    size_t length, capacity;
} buffer;

static int buffer_append(buffer *b, const void *data, size_t length)
{
    if (b->length + length > b->capacity) {
        size_t capacity = b->capacity ? b->capacity : 4096;
        while (capacity < b->length + length) capacity *= 2;
        uint8_t *grown = realloc(b->bytes, capacity);
        if (!grown) return -1;
        b->bytes = grown;
        b->capacity = capacity;
    }
    memcpy(b->bytes + b->length, data, length);
    b->length += length;
    return 0;
}

static void buffer_consume(buffer *b, size_t length)
{
    memmove(b->bytes, b->bytes + length, b->length - length);
    b->length -= length;
}

typedef struct {
    int fd;
    int upgraded;
    int closing;     /* a close frame sent: no more frames out, close once written */
    int writable;    /* EPOLLOUT is armed */
    buffer in;       /* bytes read and not yet handled */
    buffer out;      /* bytes the socket did not take yet */
    buffer message;  /* a fragmented message being put together */
    int message_open;
    char *call_sid;
    int was_loud;
} connection;

static int epoll_fd;
static int trace;  /* STREAM_ECHO_AGENT_TRACE=1: a `media <callSid> <received ns>` line per media message */

static uint64_t monotonic_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

static void drop(connection *c)
{
    epoll_ctl(epoll_fd, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    free(c->in.bytes);
    free(c->out.bytes);
    free(c->message.bytes);
    free(c->call_sid);
    free(c);
}

static void arm_write(connection *c, int on)
{
    if (c->writable == on) return;
    struct epoll_event event = {.events = EPOLLIN | (on ? EPOLLOUT : 0), .data.ptr = c};
    epoll_ctl(epoll_fd, EPOLL_CTL_MOD, c->fd, &event);
    c->writable = on;
}

/* Sends what is queued, then `data`; what the socket does not take waits for EPOLLOUT.
 * Returns -1 when the connection failed. */
static int send_bytes(connection *c, const void *data, size_t length)
{
    if (c->out.length == 0 && length > 0) {
        ssize_t sent = send(c->fd, data, length, MSG_NOSIGNAL);
        if (sent < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return -1;
        if (sent > 0) { data = (const uint8_t *)data + sent; length -= (size_t)sent; }
    }
    if (length > 0) {
        if (buffer_append(&c->out, data, length) != 0) return -1;
        arm_write(c, 1);
    }
    return 0;
}

static int flush_queued(connection *c)
{
    while (c->out.length > 0) {
        ssize_t sent = send(c->fd, c->out.bytes, c->out.length, MSG_NOSIGNAL);
        if (sent < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
            if (errno == EINTR) continue;
            return -1;
        }
        buffer_consume(&c->out, (size_t)sent);
    }
    arm_write(c, 0);
    return c->closing ? -1 : 0;  /* the close frame is out: done */
}

/* One unmasked server frame, header and payload in one send. */
static int send_frame(connection *c, int opcode, const void *payload, size_t length)
{
    if (c->closing) return 0;
    uint8_t stack[4096];
    uint8_t *frame = length + 10 <= sizeof stack ? stack : malloc(length + 10);
    if (!frame) return -1;
    size_t header = 2;
    frame[0] = (uint8_t)(0x80 | opcode);
    if (length < 126) {
        frame[1] = (uint8_t)length;
    } else if (length < 65536) {
        frame[1] = 126;
        frame[2] = (uint8_t)(length >> 8);
        frame[3] = (uint8_t)length;
        header = 4;
    } else {
        frame[1] = 127;
        for (int i = 0; i < 8; i++) frame[2 + i] = (uint8_t)((uint64_t)length >> (56 - 8 * i));
        header = 10;
    }
    memcpy(frame + header, payload, length);
    int result = send_bytes(c, frame, header + length);
    if (frame != stack) free(frame);
    return result;
}

static int send_close(connection *c, uint16_t code)
{
    uint8_t payload[2] = {(uint8_t)(code >> 8), (uint8_t)code};
    int result = send_frame(c, 0x8, payload, code ? 2 : 0);
    c->closing = 1;
    if (result == 0 && c->out.length == 0) return -1;  /* all out: close now */
    return result;
}

/* MARK: the agent */

/* One text (or binary) message. Returns -1 to drop the connection. */
static int handle_message(connection *c, const char *text, size_t length, uint64_t received)
{
    const char *end = text + length;
    const char *event_value = member(text, end, "event");
    if (!skip_value(text, end, 0) || skip_space(skip_value(text, end, 0), end) != end)
        return send_close(c, 1011);  /* not JSON */
    char *event = string_value(event_value, end, NULL);
    int result = 0;
    if (event && strcmp(event, "start") == 0) {
        char *sid = string_value(member(member(text, end, "start"), end, "callSid"), end, NULL);
        free(c->call_sid);
        c->call_sid = sid;
    } else if (event && strcmp(event, "media") == 0) {
        size_t payload_length = 0;
        char *payload = string_value(member(member(text, end, "media"), end, "payload"), end, &payload_length);
        char *stream_sid = string_value(member(text, end, "streamSid"), end, NULL);
        if (trace) printf("media %s %llu\n", c->call_sid ? c->call_sid : "?", (unsigned long long)received);
        if (!payload) {
            result = send_close(c, 1011);  /* the Python agent's handler fails on a KeyError */
        } else {
            const char *sid = stream_sid ? stream_sid : "";
            size_t echo_length = payload_length + strlen(sid) + 64;
            char stack[2048];
            char *echo = echo_length <= sizeof stack ? stack : malloc(echo_length);
            if (!echo) {
                result = -1;
            } else {
                int written = snprintf(echo, echo_length, "{\"event\":\"media\",\"streamSid\":\"%s\",\"media\":{\"payload\":\"%s\"}}",
                                       sid, payload);
                result = send_frame(c, 0x1, echo, (size_t)written);
                uint64_t sent = monotonic_ns();
                if (echo != stack) free(echo);

                uint8_t stack_audio[1024];
                uint8_t *audio = payload_length <= sizeof stack_audio ? stack_audio : malloc(payload_length);
                if (audio) {
                    size_t count = base64_decode(payload, payload_length, audio);
                    double sum = 0;
                    for (size_t i = 0; i < count; i++) sum += (double)ulaw_decoded[audio[i]] * ulaw_decoded[audio[i]];
                    /* audioop.rms (the root of the mean square, truncated to an integer) / 32767
                     * > 0.15 holds from an RMS of loud_rms on, so from its square on. */
                    int loud = count > 0 && sum / (double)count >= (double)loud_rms * loud_rms;
                    if (loud && !c->was_loud) {
                        int crossings = 0;
                        for (size_t i = 1; i < count; i++)
                            crossings += (ulaw_decoded[audio[i - 1]] < 0) != (ulaw_decoded[audio[i]] < 0);
                        printf("click %s 0 %llu %llu %d\n", c->call_sid ? c->call_sid : "?", (unsigned long long)received,
                               (unsigned long long)sent, crossings);
                    }
                    c->was_loud = loud;
                    if (audio != stack_audio) free(audio);
                }
            }
        }
        free(payload);
        free(stream_sid);
    }
    free(event);
    return result;
}

/* Handles the complete frames in `c->in`. Returns -1 to drop the connection. */
static int handle_frames(connection *c)
{
    size_t offset = 0;
    int result = 0;
    while (result == 0 && !c->closing) {
        const uint8_t *p = c->in.bytes + offset;
        size_t available = c->in.length - offset;
        if (available < 2) break;
        int fin = p[0] & 0x80, opcode = p[0] & 0x0F, masked = p[1] & 0x80;
        uint64_t length = p[1] & 0x7F;
        size_t header = 2;
        if (length == 126) {
            if (available < 4) break;
            length = (uint64_t)p[2] << 8 | p[3];
            header = 4;
        } else if (length == 127) {
            if (available < 10) break;
            length = 0;
            for (int i = 0; i < 8; i++) length = length << 8 | p[2 + i];
            header = 10;
        }
        if (!masked) { result = send_close(c, 1002); break; }  /* RFC 6455 5.1: clients mask */
        if (p[0] & 0x70) { result = send_close(c, 1002); break; }  /* no extension was agreed */
        if (length > MAX_MESSAGE) { result = send_close(c, 1009); break; }
        if (available < header + 4 + length) break;
        const uint8_t *mask = p + header;
        uint8_t *payload = (uint8_t *)p + header + 4;
        for (uint64_t i = 0; i < length; i++) payload[i] ^= mask[i & 3];
        offset += header + 4 + (size_t)length;
        uint64_t received = monotonic_ns();

        if (opcode >= 0x8) {
            if (!fin || length > 125) { result = send_close(c, 1002); break; }
            if (opcode == 0x8) {
                uint16_t code = length >= 2 ? (uint16_t)(payload[0] << 8 | payload[1]) : 1000;
                result = send_close(c, code);
            } else if (opcode == 0x9) {
                result = send_frame(c, 0xA, payload, (size_t)length);
            }
            continue;  /* 0xA: a pong, nothing to do */
        }
        if (opcode == 0x0 && !c->message_open) { result = send_close(c, 1002); break; }
        if ((opcode == 0x1 || opcode == 0x2) && c->message_open) { result = send_close(c, 1002); break; }
        if (opcode != 0x0 && opcode != 0x1 && opcode != 0x2) { result = send_close(c, 1002); break; }
        if (fin && opcode != 0x0) {
            result = handle_message(c, (const char *)payload, (size_t)length, received);
            continue;
        }
        if (c->message.length + length > MAX_MESSAGE) { result = send_close(c, 1009); break; }
        if (buffer_append(&c->message, payload, (size_t)length) != 0) { result = -1; break; }
        c->message_open = 1;
        if (fin) {
            result = handle_message(c, (const char *)c->message.bytes, c->message.length, received);
            c->message.length = 0;
            c->message_open = 0;
        }
    }
    buffer_consume(&c->in, offset);
    return result;
}

/* The value of header `name` in the request (up to its end of line), or NULL. */
static const char *header_value(const char *request, const char *name, size_t *length)
{
    size_t name_length = strlen(name);
    for (const char *line = strstr(request, "\r\n"); line; line = strstr(line, "\r\n")) {
        line += 2;
        if (strncasecmp(line, name, name_length) == 0 && line[name_length] == ':') {
            const char *value = line + name_length + 1;
            while (*value == ' ' || *value == '\t') value++;
            const char *eol = strstr(value, "\r\n");
            if (!eol) return NULL;
            while (eol > value && (eol[-1] == ' ' || eol[-1] == '\t')) eol--;
            *length = (size_t)(eol - value);
            return value;
        }
    }
    return NULL;
}

/* The HTTP upgrade, once the request is complete. Returns -1 to drop the connection. */
static int handle_upgrade(connection *c)
{
    if (buffer_append(&c->in, "", 1) != 0) return -1;  /* a NUL for the string functions */
    c->in.length--;
    char *request = (char *)c->in.bytes;
    char *end = strstr(request, "\r\n\r\n");
    if (!end) return c->in.length > MAX_REQUEST ? -1 : 0;
    size_t key_length = 0;
    const char *key = header_value(request, "Sec-WebSocket-Key", &key_length);
    if (strncmp(request, "GET ", 4) != 0 || !key || key_length == 0 || key_length > 64) {
        static const char refusal[] = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
        send_bytes(c, refusal, sizeof refusal - 1);
        return -1;
    }
    static const char guid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
    uint8_t joined[128], digest[20];
    memcpy(joined, key, key_length);
    memcpy(joined + key_length, guid, sizeof guid - 1);
    sha1(joined, key_length + sizeof guid - 1, digest);
    char accept[32];
    base64_encode(digest, sizeof digest, accept);
    char response[256];
    int length = snprintf(response, sizeof response,
                          "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                          "Sec-WebSocket-Accept: %s\r\n\r\n", accept);
    if (send_bytes(c, response, (size_t)length) != 0) return -1;
    c->upgraded = 1;
    buffer_consume(&c->in, (size_t)(end + 4 - request));
    return handle_frames(c);  /* frames that came with the request */
}

static void readable(connection *c)
{
    uint8_t chunk[READ_CHUNK];
    for (;;) {
        ssize_t count = recv(c->fd, chunk, sizeof chunk, 0);
        if (count == 0) { drop(c); return; }
        if (count < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return;
            drop(c);
            return;
        }
        if (c->closing) continue;  /* after our close frame, what comes is discarded */
        if (buffer_append(&c->in, chunk, (size_t)count) != 0 ||
            (c->upgraded ? handle_frames(c) : handle_upgrade(c)) != 0) {
            drop(c);
            return;
        }
        if ((size_t)count < sizeof chunk) return;
    }
}

static void accept_all(int listener)
{
    for (;;) {
        int fd = accept4(listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) return;  /* EAGAIN: all taken; anything else: try at the next event */
        int on = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
        connection *c = calloc(1, sizeof *c);
        if (!c) { close(fd); continue; }
        c->fd = fd;
        struct epoll_event event = {.events = EPOLLIN, .data.ptr = c};
        if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &event) != 0) { close(fd); free(c); }
    }
}

int main(int argc, char **argv)
{
    int port = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--port") == 0 && i + 1 < argc) {
            port = atoi(argv[++i]);
        } else {
            fprintf(stderr, "usage: stream-echo-agent [--port N]\n");
            return 2;
        }
    }
    trace = getenv("STREAM_ECHO_AGENT_TRACE") != NULL;
    signal(SIGPIPE, SIG_IGN);
    setvbuf(stdout, NULL, _IOLBF, 0);  /* a line is out as soon as it is printed, as the Python agent's */
    base64_prepare();
    ulaw_prepare();

    int listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int on = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t address_length = sizeof address;
    if (listener < 0 || bind(listener, (struct sockaddr *)&address, sizeof address) != 0 || listen(listener, 1024) != 0 ||
        getsockname(listener, (struct sockaddr *)&address, &address_length) != 0) {
        perror("stream-echo-agent: listen");
        return 1;
    }
    epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event listen_event = {.events = EPOLLIN, .data.ptr = NULL};
    if (epoll_fd < 0 || epoll_ctl(epoll_fd, EPOLL_CTL_ADD, listener, &listen_event) != 0) {
        perror("stream-echo-agent: epoll");
        return 1;
    }
    printf("LISTENING %d\n", ntohs(address.sin_port));

    struct epoll_event events[256];
    for (;;) {
        int count = epoll_wait(epoll_fd, events, 256, -1);
        if (count < 0 && errno != EINTR) { perror("stream-echo-agent: epoll_wait"); return 1; }
        for (int i = 0; i < count; i++) {
            connection *c = events[i].data.ptr;
            if (!c) { accept_all(listener); continue; }
            if (events[i].events & EPOLLOUT) {
                if (flush_queued(c) != 0) { drop(c); continue; }
            }
            if (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) readable(c);
        }
    }
}
