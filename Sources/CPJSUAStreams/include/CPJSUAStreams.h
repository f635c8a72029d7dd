#ifndef CPJSUA_STREAMS_H
#define CPJSUA_STREAMS_H

/*
 * The C half of SwiftPJSUAStreams, the voice-agent bridge: our RFC 6455 client
 * (WebSocketClient.c) and a media stream's wire on it (WebSocketLink.c), the media tap that
 * passes a call's RTP through to the agent (MediaTap.c), the pace that sends the agent's audio
 * into the call as it arrives (MediaPace.c), and the codecs and JSON scanner of the two agent
 * protocols. Nothing here is linked into an app that imports only SwiftPJSUA, and the tap and
 * the pace wrap a call's media only in an engine started with media streams enabled
 * (SwiftPJSUAStreams' `PJSUA.Configuration.enablesMediaStreams`, which installs them through
 * the engine's MediaHooks SPI).
 *
 * As CPJSUASupport.h, this header includes no pjproject header; the frame buffers the link
 * plays into are CPJSUASupport's (FramePort.c).
 */

#include <stdint.h>
#include "CPJSUASupport.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Media taps (MediaTap.c): every call's media transport, wrapped in an adapter that can hand
 * each RTP packet received (after SRTP) to a consumer, on pjsua's worker thread that received
 * it, before the call's stream gets it. install: into a pjsua_config before pjsua_init (it sets
 * on_create_media_transport). set: the consumer of (call, media index), replacing and releasing
 * any other; 1 when the call's media has a tap, 0 when not (then `ctx` was released). clear:
 * removes the consumer if it is still `ctx`'s; 1 when it did. After set or clear returns, no call
 * of the consumer it replaced is running. A consumer must not block and must not call set or
 * clear. `release` runs outside every lock of the tap. Any PJLIB-registered thread. */
typedef void (*cpjsua_rtp_consumer)(void *_Nullable ctx, const uint8_t *_Nonnull packet, uint32_t size);
typedef void (*cpjsua_tap_release)(void *_Nullable ctx);
void cpjsua_media_tap_install(void *_Nonnull pjsua_config_pointer);
int32_t cpjsua_media_tap_set(int32_t call_id, uint32_t media_index, cpjsua_rtp_consumer _Nullable consumer,
                             void *_Nullable ctx, cpjsua_tap_release _Nullable release);
int32_t cpjsua_media_tap_clear(int32_t call_id, uint32_t media_index, void *_Nullable ctx);
/* 1 when (call, media index)'s transport is wrapped in a tap: the hook was installed and ran. */
int32_t cpjsua_media_tap_exists(int32_t call_id, uint32_t media_index);
/* After pjsua_destroy (no transport or callback is left): frees every adapter still held, with
 * its consumer released. The engine's thread. */
void cpjsua_media_tap_release_all(void);

/* Paced sending (MediaPace.c): every call's audio stream port is wrapped before pjsua puts it on
 * the bridge (on_stream_created2). Without a source the wrapper hands the bridge's frames to the
 * stream unchanged. With one (a writer frame buffer whose frames match the stream's: `clock_rate`
 * and samples per frame), the stream's outgoing frames are taken from that buffer, one per
 * frame period on average, and a frame is sent the moment it arrives (kick) when the stream's
 * budget allows, instead of waiting for the bridge's next tick; the bridge's own audio for the
 * call (anything else connected to it) is mixed in. install: into a pjsua_config before
 * pjsua_init. set: 1 when (call, media index) has a paced stream whose frames match, taking
 * `source` (marked external) and `ctx` (released when cleared, replaced or the stream goes);
 * 0 otherwise (`ctx` released at once). clear: removes `source` if it is still set. kick: after
 * audio was written to the source. Any PJLIB-registered thread. */
typedef struct cpjsua_pace_stats {
    uint64_t on_arrival;   /* frames of the source sent when they arrived */
    uint64_t held_back;    /* frames of the source that waited for the stream's budget */
} cpjsua_pace_stats;
void cpjsua_media_pace_install(void *_Nonnull pjsua_config_pointer);
int32_t cpjsua_media_pace_set(int32_t call_id, uint32_t media_index, cpjsua_frame_buffer *_Nonnull source,
                              uint32_t clock_rate, void *_Nullable ctx, cpjsua_tap_release _Nullable release);
int32_t cpjsua_media_pace_clear(int32_t call_id, uint32_t media_index, cpjsua_frame_buffer *_Nonnull source);
void cpjsua_media_pace_kick(int32_t call_id, uint32_t media_index);
/* The counters of (call, media index)'s paced stream; 0 when there is none. */
int32_t cpjsua_media_pace_stats_of(int32_t call_id, uint32_t media_index, cpjsua_pace_stats *_Nonnull stats);
/* After pjsua_destroy: frees every wrapper still held. The engine's thread. */
void cpjsua_media_pace_release_all(void);

/* WebSocket links (WebSocketLink.c): the wire of a media stream, on our RFC 6455 client
 * (WebSocketClient.c). A link belongs to its Swift owner (`ctx`, kept retained until the link's
 * last reference goes, then released with `release`). open/close/destroy/attach/detach: the
 * engine's thread only. send, start/stop_media and stats: any PJLIB-registered thread, any lock
 * held (they never wait for the socket). `notify` runs on pjsua's worker threads (OPEN, FAILED
 * or REFUSED once, then TEXT/BINARY/OVERSIZED messages, then CLOSED with the close code, 0 for a
 * transport error) and must not block; nothing is notified after destroy. */
enum {
    CPJSUA_WS_EVENT_OPEN = 1,       /* the handshake is done */
    CPJSUA_WS_EVENT_FAILED = 2,     /* status: why the connection or handshake failed; data: what
                                       the agent answered, when that is why (may be NULL) */
    CPJSUA_WS_EVENT_TEXT = 3,       /* data, length: one text message */
    CPJSUA_WS_EVENT_BINARY = 4,     /* data, length: one binary message */
    CPJSUA_WS_EVENT_CLOSED = 5,     /* status: the close code (0: transport error); data: reason */
    CPJSUA_WS_EVENT_OVERSIZED = 6,  /* status: TEXT or BINARY; length: a message over max_message,
                                       skipped (the connection goes on) */
    CPJSUA_WS_EVENT_REFUSED = 7     /* status: the server certificate's problems
                                       (pj_ssl_cert_verify_flag_t bits); data: a description */
};
/* What a link's reader port sends for each 20 ms of the call's audio. */
enum {
    CPJSUA_WS_MEDIA_TWILIO = 0,   /* a numbered Twilio `media` message: base64 mu-law 8 kHz */
    CPJSUA_WS_MEDIA_REALTIME = 1  /* an OpenAI Realtime `input_audio_buffer.append`: base64 PCM16 LE 24 kHz */
};
typedef struct cpjsua_ws_link cpjsua_ws_link;
typedef void (*cpjsua_ws_notify)(void *_Nullable ctx, cpjsua_ws_link *_Nonnull link, int32_t event, int32_t status, const char *_Nullable data,
                                 uint64_t length);
typedef void (*cpjsua_ws_release)(void *_Nullable ctx);
typedef struct cpjsua_ws_stats {
    uint64_t sent, sent_bytes;          /* messages the socket took */
    uint64_t media_sent;                /* media frames handed to the send queue */
    uint64_t received, received_bytes;  /* messages from the agent (oversized ones included) */
    uint64_t dropped;                   /* media dropped and control refused: the queue was full */
    uint64_t dropped_control;           /* of which control messages refused */
    uint64_t send_errors;               /* messages the socket refused */
    uint32_t queued;                    /* messages waiting for the socket */
    uint64_t audio_skipped;             /* samples of agent media over the player's capacity, not queued */
    int32_t passing_through;            /* the caller's RTP goes out as it arrives (cpjsua_ws_link_tap) */
    uint64_t passed_packets;            /* RTP packets of the caller's audio taken so */
    uint64_t late_packets;              /* of the caller's, dropped: older than one already taken */
    uint64_t concealed_samples;         /* silence sent for the caller's audio that never came */
} cpjsua_ws_stats;
/* The host of a ws:// or wss:// URL (without an IPv6 literal's brackets) into `host` (NUL-
 * terminated): 0, or PJ_EINVAL for a URL the link would refuse, PJ_ETOOBIG when it does not fit.
 * Pure parsing (no PJLIB call): any thread. */
int32_t cpjsua_ws_url_host(const char *_Nonnull url, char *_Nonnull host, uint32_t size);
/* Where a link connects: `url` (ws:// or wss://) at `addresses` (the numeric addresses of its
 * host, resolved by the caller: the link never resolves a name; tried in order, at most 16), with
 * extra handshake headers (at most 32). */
typedef struct cpjsua_ws_target {
    const char *_Nonnull url;
    const char *_Nonnull const *_Nonnull addresses;
    uint32_t address_count;
    const char *_Nonnull const *_Nullable header_names;
    const char *_Nonnull const *_Nullable header_values;
    uint32_t header_count;
} cpjsua_ws_target;
/* For wss://: the trusted authorities (NULL: none) and whether the server certificate (chain and
 * the URL's host name) must verify. */
typedef struct cpjsua_ws_tls {
    const char *_Nullable ca_file;
    const char *_Nullable ca_path;
    int32_t verify_server;
} cpjsua_ws_tls;
/* A link's settings: where, TLS, the largest message taken from the agent, a bound on the TCP +
 * TLS + upgrade time, how many threads poll the endpoint's ioqueue (the socket keeps two reads
 * pending only when it is 1: they could complete out of order on two threads), and the media
 * format (a CPJSUA_WS_MEDIA_* value). */
typedef struct cpjsua_ws_link_config {
    cpjsua_ws_target target;
    cpjsua_ws_tls tls;
    uint32_t max_message;
    uint32_t connect_timeout_ms;
    uint32_t pollers;
    int32_t media_format;
} cpjsua_ws_link_config;
/* The link's owner: `notify` gets every event with `ctx`, which the link keeps until its last
 * reference goes, then hands to `release`. */
typedef struct cpjsua_ws_owner {
    cpjsua_ws_notify _Nonnull notify;
    void *_Nullable ctx;
    cpjsua_ws_release _Nonnull release;
} cpjsua_ws_owner;
/* Starts connecting as `config` says (read during the call only). Returns a pj_status_t; on
 * failure the owner's `ctx` has been released and *out is NULL. */
int32_t cpjsua_ws_link_open(const cpjsua_ws_link_config *_Nonnull config, cpjsua_ws_owner owner,
                            cpjsua_ws_link *_Nullable *_Nonnull out);
/* Sends head + (numbered: the next sequence number) + tail as one text message, in order with
 * every other message; *sequence gets the number used. 0: sent or queued; -1: not open;
 * -2: refused, the send queue is full of control messages (counted in `dropped`). */
int32_t cpjsua_ws_link_send(cpjsua_ws_link *_Nonnull link, const char *_Nonnull head, uint32_t head_length,
                            const char *_Nonnull tail, uint32_t tail_length, int32_t numbered,
                            uint64_t *_Nullable sequence);
/* From now on every frame of the reader port goes out as a Twilio `media` message of this
 * stream (or a Realtime `input_audio_buffer.append`); stop_media ends that. */
void cpjsua_ws_link_start_media(cpjsua_ws_link *_Nonnull link, const char *_Nonnull stream_sid);
void cpjsua_ws_link_stop_media(cpjsua_ws_link *_Nonnull link);
/* A Twilio link's player: from now on, while media flows, the agent's `media` messages are read
 * in C and their audio written to `player` (drop-oldest; of one message over `capacity_samples`
 * only the newest samples) instead of being notified as TEXT. The player must outlive the link
 * (its owner, `ctx`, keeps it). */
void cpjsua_ws_link_set_player(cpjsua_ws_link *_Nonnull link, cpjsua_frame_buffer *_Nonnull player, uint32_t capacity_samples);
/* The reader port: the call's audio at 8 kHz (Realtime: 24 kHz), 20 ms, into the link. Returns a
 * pj_status_t. */
int32_t cpjsua_ws_link_attach_reader(cpjsua_ws_link *_Nonnull link, int32_t *_Nonnull slot);
void cpjsua_ws_link_detach_reader(cpjsua_ws_link *_Nonnull link);
/* Pass-through (Twilio links): when the call's audio stream on `conf_slot` is PCMU or PCMA at
 * 8 kHz and its media has a tap (MediaTap.c), the caller's RTP goes out as it arrives, in 20 ms
 * messages, from then on: 1. Otherwise (another codec, no tap, a Realtime link) nothing changes:
 * 0. Either way the caller must then wire the reader port: off the call when 1 (its ticks only
 * continue the stream with silence while no packet comes), on it when 0. untap: back to the
 * reader's frames. The engine's thread only. */
int32_t cpjsua_ws_link_tap(cpjsua_ws_link *_Nonnull link, int32_t call_id, int32_t conf_slot);
void cpjsua_ws_link_untap(cpjsua_ws_link *_Nonnull link);
/* Paced sending (Twilio links with a player): when the call's audio stream on `conf_slot` has a
 * paced wrapper whose frames are the player's (8 kHz, 20 ms: PCMU, PCMA, G.729 at 20 ms), the
 * agent's audio goes into the stream as it arrives from then on (MediaPace.c): 1; otherwise the
 * writer port keeps feeding it through the bridge: 0. unpace: back to the writer port. The
 * engine's thread only. stats: 1 and the pace's counters while paced; 0 and zeros otherwise. */
int32_t cpjsua_ws_link_pace(cpjsua_ws_link *_Nonnull link, int32_t call_id, int32_t conf_slot);
void cpjsua_ws_link_unpace(cpjsua_ws_link *_Nonnull link);
int32_t cpjsua_ws_link_pace_stats(cpjsua_ws_link *_Nonnull link, cpjsua_pace_stats *_Nonnull stats);
/* Sends what is queued, then a close frame with `code` (the agent's echo arrives as CLOSED). */
void cpjsua_ws_link_close(cpjsua_ws_link *_Nonnull link, uint16_t code);
/* Drops the connection (no close handshake) and the owner's reference: the link is gone for the
 * owner after this call. */
void cpjsua_ws_link_destroy(cpjsua_ws_link *_Nonnull link);
cpjsua_ws_stats cpjsua_ws_link_stats(cpjsua_ws_link *_Nonnull link);
/* Decodes base64 mu-law into PCM16 samples: the number of samples, -1 for bad base64, -2 when
 * more than `capacity`. Any thread (no PJLIB state). */
int32_t cpjsua_ulaw_base64_decode(const char *_Nonnull base64, uint32_t length, int16_t *_Nonnull samples,
                                  uint32_t capacity);
/* The same for base64 PCM16 little-endian (OpenAI Realtime's audio); an odd byte count is -1. */
int32_t cpjsua_pcm16_base64_decode(const char *_Nonnull base64, uint32_t length, int16_t *_Nonnull samples,
                                   uint32_t capacity);

/* An OpenAI Realtime audio delta (`response.output_audio.delta`, or the beta's
 * `response.audio.delta`) read without building the JSON: 1 when `data` is exactly one object
 * whose members are one such `type`, one `delta` string and at most one `item_id` string (all
 * without escapes) and well-formed JSON otherwise, with where the item and the delta lie in
 * `data` (the item's length 0 when there is none); 0 for anything else, which the caller reads
 * with a full JSON parser. Pure parsing: any thread. */
int32_t cpjsua_realtime_audio_delta(const char *_Nonnull data, uint64_t length, uint64_t *_Nonnull item_offset,
                                    uint64_t *_Nonnull item_length, uint64_t *_Nonnull delta_offset,
                                    uint64_t *_Nonnull delta_length);

#ifdef __cplusplus
}
#endif

#endif
