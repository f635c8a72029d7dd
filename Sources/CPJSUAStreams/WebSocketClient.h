/*
 * Our RFC 6455 WebSocket client (WebSocketClient.c), on PJLIB's pj_activesock (ws://) and
 * pj_ssl_sock (wss://) and the engine's ioqueue and timer heap. Private to CPJSUASupport: the
 * media streams' link (WebSocketLink.c) is its one user. Why ours and not pjproject's pj_websock:
 * KL-39 and KL-40 in docs/KNOWN-LIMITS.md (retired by this client).
 */
#ifndef CPJSUA_WEBSOCKET_CLIENT_H
#define CPJSUA_WEBSOCKET_CLIENT_H

#include <stddef.h>
#include <stdint.h>

typedef struct cpjsua_wsc cpjsua_wsc;

enum { CPJSUA_WSC_TEXT = 1, CPJSUA_WSC_BINARY = 2 };

/* What a message is to the send queue's drop policy: media may be dropped (oldest first) when
 * the queue is full; control (everything else) never is, it is refused instead. */
enum { CPJSUA_WSC_MEDIA = 0, CPJSUA_WSC_CONTROL = 1 };

typedef struct cpjsua_wsc_callbacks {
    /* Once: status 0 when the handshake is done; else why not (a pj_status_t), with `problems`
     * (pj_ssl_cert_verify_flag_t bits) when the server's certificate was refused, and `detail`
     * (NUL-terminated, may be NULL) saying what the server answered. */
    void (*on_open)(void *user, int32_t status, uint32_t problems, const char *detail);
    /* One complete message (fragments reassembled), text or binary. */
    void (*on_message)(void *user, int32_t opcode, const char *data, uint64_t length);
    /* A message over the size limit: its bytes were skipped, the connection goes on. */
    void (*on_oversized)(void *user, int32_t opcode, uint64_t length);
    /* Once, after on_open succeeded: the server's close code (1005 when its close frame had
     * none) and reason, or 0 when the connection broke without a close frame. */
    void (*on_close)(void *user, int32_t code, const char *reason, uint64_t length);
    /* Once, when the client's memory is gone (no callback can come any more). */
    void (*on_gone)(void *user);
} cpjsua_wsc_callbacks;

enum { CPJSUA_WSC_MAX_ADDRESSES = 16 };

typedef struct cpjsua_wsc_params {
    const char *url;                      /* ws:// or wss:// */
    /* The numeric addresses (IPv4 or IPv6, no brackets) of the URL's host, resolved by the
     * caller, tried in this order (at most CPJSUA_WSC_MAX_ADDRESSES): a connect that fails
     * moves to the next one within the timeout. wss:// still verifies the URL's host name. */
    const char *const *addresses;
    uint32_t address_count;
    const char *const *header_names;      /* extra handshake headers */
    const char *const *header_values;
    uint32_t header_count;
    uint64_t max_message;                 /* the largest message delivered; 0: 1 MiB */
    uint32_t connect_timeout_ms;          /* TCP + TLS + upgrade; 0: 10 s */
    const char *ca_file, *ca_path;        /* wss: trusted authorities (NULL: none) */
    int32_t verify_server;                /* wss: refuse an untrusted or misnamed certificate */
    uint32_t pollers;                     /* threads polling the endpoint's ioqueue (see READS) */
    cpjsua_wsc_callbacks cb;
    void *user;
} cpjsua_wsc_params;

typedef struct cpjsua_wsc_stats {
    uint64_t sent, sent_bytes;   /* messages the socket took completely */
    uint64_t dropped;            /* media dropped from a full queue, and control refused by one */
    uint64_t dropped_control;    /* of which control messages refused */
    uint64_t send_errors;        /* messages the socket refused */
    uint32_t queued;             /* messages waiting (the one in flight included) */
} cpjsua_wsc_stats;

/* Starts connecting (engine's executor thread); never resolves a name. Returns a pj_status_t; on
 * success the callbacks run from pjsua's worker threads (never two at once for one client) and
 * on_gone ends them; on failure (no address could even start connecting) nothing was kept and no
 * callback comes. */
int32_t cpjsua_wsc_connect(const cpjsua_wsc_params *params, cpjsua_wsc **out);
/* Queues one message (any PJLIB-registered thread, any lock held: it never waits for the
 * socket). 0: queued or sent; -1: not open (or closing); -2: refused, the queue is full. */
int32_t cpjsua_wsc_send(cpjsua_wsc *client, int32_t opcode, const void *data, uint64_t length, int32_t kind);
/* Queues a close frame with `code` behind what waits; nothing can be sent after it. */
void cpjsua_wsc_close(cpjsua_wsc *client, uint16_t code);
/* Drops the connection at once (executor thread). No callback but on_gone comes after it. */
void cpjsua_wsc_destroy(cpjsua_wsc *client);
cpjsua_wsc_stats cpjsua_wsc_get_stats(cpjsua_wsc *client);

#endif
