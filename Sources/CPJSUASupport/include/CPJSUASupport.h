#ifndef CPJSUA_SUPPORT_H
#define CPJSUA_SUPPORT_H

/*
 * What the Swift engine needs from pjproject but cannot import from its headers: status codes
 * and limits that pjproject defines as arithmetic macros, and the executor's thread start-up
 * (pthread_t is a pointer on Darwin and an integer on Linux, so Swift code using it would differ
 * per platform).
 *
 * This target is built on every platform against that platform's pjproject headers (Linux: the
 * `PJSIP` system library found through pkg-config; iOS: swift-pjsip's xcframework), so the values
 * are those of the library actually linked: PJSUA_MAX_CALLS is 256 in our Linux build and 8 in
 * the iOS binary. This header deliberately includes no pjproject header, so that pjproject's
 * declarations reach Swift through one module only (`PJSIP`).
 */

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* pj_status_t values (pjproject: PJ_ERRNO_START_STATUS + n, PJSIP_ERRNO_START_PJSIP + n, ...). */
extern const int32_t cpjsua_status_einvaliduri;        /* PJSIP_EINVALIDURI */
extern const int32_t cpjsua_status_einvalidrequri;   /* PJSIP_EINVALIDREQURI */
extern const int32_t cpjsua_status_einvalidscheme;   /* PJSIP_EINVALIDSCHEME */
extern const int32_t cpjsua_status_eaud_nodefdev;    /* PJMEDIA_EAUD_NODEFDEV */
extern const int32_t cpjsua_status_eaud_invdev;      /* PJMEDIA_EAUD_INVDEV */
extern const int32_t cpjsua_status_eaud_syserr;      /* PJMEDIA_EAUD_SYSERR */
extern const int32_t cpjsua_status_eaud_init;        /* PJMEDIA_EAUD_INIT */
extern const int32_t cpjsua_status_eaud_nodev;       /* PJMEDIA_EAUD_NODEV */
extern const int32_t cpjsua_status_etoomany;         /* PJ_ETOOMANY */
extern const int32_t cpjsua_status_etimedout;        /* PJ_ETIMEDOUT */
extern const int32_t cpjsua_status_enotfound;        /* PJ_ENOTFOUND */
extern const int32_t cpjsua_status_ebusy;            /* PJ_EBUSY */
extern const int32_t cpjsua_status_sip_ebusy;        /* PJSIP_EBUSY */
extern const int32_t cpjsua_status_sip_esessionterminated; /* PJSIP_ESESSIONTERMINATED */
extern const int32_t cpjsua_status_einval;           /* PJ_EINVAL */
extern const int32_t cpjsua_status_tls_ecertverif;   /* PJSIP_TLS_ECERTVERIF: a peer's certificate was refused */
extern const int32_t cpjsua_status_esessioninsecure; /* PJSIP_ESESSIONINSECURE: SRTP needs secure signalling */
extern const int32_t cpjsua_status_esessionstate;    /* PJSIP_ESESSIONSTATE: the INVITE session cannot take this now */
extern const int32_t cpjsua_status_eeof;             /* PJ_EEOF: the peer closed the connection */

/* Default sound device ids (PJSUA_SND_DEFAULT_CAPTURE_DEV / _PLAYBACK_DEV). */
extern const int32_t cpjsua_snd_default_capture_dev;
extern const int32_t cpjsua_snd_default_playback_dev;

/* Build limits of the linked library (config_site.h). */
extern const int32_t cpjsua_max_calls;       /* PJSUA_MAX_CALLS */
extern const int32_t cpjsua_max_acc;         /* PJSUA_MAX_ACC */
extern const int32_t cpjsua_max_conf_ports;  /* PJSUA_MAX_CONF_PORTS */
extern const int32_t cpjsua_max_players;     /* PJSUA_MAX_PLAYERS */
extern const int32_t cpjsua_max_recorders;   /* PJSUA_MAX_RECORDERS */
extern const int32_t cpjsua_max_buddies;     /* PJSUA_MAX_BUDDIES */
extern const int32_t cpjsua_max_tsx_count;   /* PJSIP_MAX_TSX_COUNT */
extern const int32_t cpjsua_max_dialog_count; /* PJSIP_MAX_DIALOG_COUNT */
extern const int32_t cpjsua_max_pkt_len;     /* PJSIP_MAX_PKT_LEN */
extern const int32_t cpjsua_ioqueue_max_handles; /* PJ_IOQUEUE_MAX_HANDLES */
extern const int32_t cpjsua_rtp_pt_telephone_events; /* PJMEDIA_RTP_PT_TELEPHONE_EVENTS */
/* pjsua's media defaults for the platform (pjsua_media_config_default). */
extern const int32_t cpjsua_default_codec_quality; /* PJSUA_DEFAULT_CODEC_QUALITY */
extern const int32_t cpjsua_default_clock_rate;    /* PJSUA_DEFAULT_CLOCK_RATE */
/* The capacity of pjsua_call_info.media (PJMEDIA_MAX_SDP_MEDIA entries). */
extern const int32_t cpjsua_max_call_media;
/* Whether the library was built with video (PJMEDIA_HAS_VIDEO): 1 or 0. */
extern const int32_t cpjsua_has_video;
/* Whether the library was built with DTLS-SRTP (PJMEDIA_SRTP_HAS_DTLS): 1 or 0. */
extern const int32_t cpjsua_srtp_has_dtls;

/* Admission control (Admission.c): new INVITEs past these limits get 503 with Retry-After. */
typedef struct cpjsua_admission_policy {
    int32_t max_calls;            /* refuse while this many calls are in progress; < 0: no limit */
    double max_rate;              /* new calls per second; <= 0: no limit */
    double burst;                 /* calls admitted at once after a quiet spell; <= 0: max_rate */
    int32_t retry_after_seconds;  /* the Retry-After value */
} cpjsua_admission_policy;

/* Sets the Opus codec's internal sample rate (8000, 12000, 16000, 24000 or 48000) for calls made
 * from now on; returns a pj_status_t (PJ_ENOTSUP where the build has no Opus). After pjsua_init,
 * on a thread PJLIB knows. */
int32_t cpjsua_opus_set_sample_rate(unsigned rate);
/* The Opus codec's internal sample rate now, or 0 where the build has no Opus. */
unsigned cpjsua_opus_sample_rate(void);

/* Registers the admission module with pjsua's endpoint (after pjsua_init, on a thread PJLIB
 * knows). Returns 0 or a pj_status_t. pjsua_destroy unregisters it. */
int cpjsua_admission_install(void);
/* Replaces the policy (any thread). */
void cpjsua_admission_set(const cpjsua_admission_policy *_Nonnull policy);
/* INVITEs refused so far in this process. */
uint64_t cpjsua_admission_refused(void);

/* The input screen (InputScreen.c): a module ahead of the transaction layer that answers or drops
 * the message shapes known to abort or corrupt an unpatched PJSIP (docs/SECURITY.md). Registered
 * after pjsua_init, on a thread PJLIB knows; returns 0 or a pj_status_t. pjsua_destroy
 * unregisters it. */
int cpjsua_input_screen_install(void);
/* Messages the screen answered, dropped or trimmed so far in this process. */
uint64_t cpjsua_input_screen_count(void);

/* Answers for requests no other module answers (UnhandledRequests.c): 405 with Allow, 501, 481,
 * and per event package for NOTIFYs outside any subscription. `deliver` gets each NOTIFY
 * accepted (its pjsip_rx_data, and the account pjsua matched it to or -1) on pjsua's worker
 * thread, after its 200 went out: it must read what it needs and return, never block.
 * `accepted_events` lists the accepted event packages, comma-separated (NULL or empty: none).
 * Registers the module with pjsua's endpoint (after pjsua_init, on a thread PJLIB knows), or
 * only replaces the packages and `deliver` when it is registered; pjsua_destroy unregisters it.
 * Returns 0 or a pj_status_t. */
typedef void (*cpjsua_notify_delivery)(const void *_Nonnull rdata, int32_t account);
int32_t cpjsua_unhandled_requests_install(const char *_Nullable accepted_events, cpjsua_notify_delivery _Nullable deliver);

/* The chosen pair of an ICE media transport (ICEPair.c): `ice_info` is the
 * pjmedia_ice_transport_info of a pjmedia_transport_info. Returns 1 and fills the candidate
 * types (pj_ice_cand_type) and printed addresses ("host:port", IPv6 in brackets) once ICE has
 * a working pair, 0 while it has none. */
int cpjsua_ice_chosen_pair(const void *_Nonnull ice_info, int32_t *_Nonnull local_type, int32_t *_Nonnull remote_type,
                           char *_Nonnull local_address, char *_Nonnull remote_address, int32_t address_capacity);

/* Frame ports (FramePort.c): PCM16 mono audio between a call and Swift, through the conference
 * bridge. A buffer belongs to its Swift owner (`ctx`); the data functions (write, flush, mark,
 * stats, close) take only the buffer's own mutex and may be called from any thread: they never
 * enter PJSIP. attach/detach enter PJSIP: the engine's thread only. The bridge's clock thread
 * calls `notify` after releasing the mutex: notify must not block. */
#define CPJSUA_FRAME_MAX_MARKS 256
enum {
    CPJSUA_FRAME_EVENT_RECEIVED = 1,      /* reader: samples, count; value = stream position; played = 0 */
    CPJSUA_FRAME_EVENT_MARK_PLAYED = 2,   /* writer: value = mark id; played = samples played */
    CPJSUA_FRAME_EVENT_MARK_FLUSHED = 3,  /* writer: value = mark id; played = samples played */
    CPJSUA_FRAME_EVENT_UNDERRUN = 4,      /* writer: the queue ran dry while audio was flowing */
    CPJSUA_FRAME_EVENT_SPACE = 5          /* writer: a waiting write now fits */
};
typedef struct cpjsua_frame_buffer cpjsua_frame_buffer;
typedef void (*cpjsua_frame_notify)(void *_Nullable ctx, int32_t event, const int16_t *_Nullable samples,
                                    uint32_t count, uint64_t value, uint64_t played);
typedef void (*cpjsua_frame_release)(void *_Nullable retained);
typedef struct cpjsua_frame_stats {
    uint32_t queued;         /* samples waiting to go out */
    uint64_t played;         /* samples of app audio sent */
    uint64_t underruns;      /* times the queue ran dry while audio was flowing */
    uint64_t silent_frames;  /* frames sent as silence because nothing was queued */
    uint64_t dropped;        /* samples dropped to make room (drop-oldest) */
    uint64_t position;       /* stream position (reader: samples delivered) */
    uint64_t trimmed;        /* samples skipped by the standing-queue trim */
    uint64_t stall_silence;  /* samples of silence sent from an underrun until audio flowed again */
} cpjsua_frame_stats;

/* NULL when the sizes are out of range (at most 960 samples per frame) or memory is short. */
cpjsua_frame_buffer *_Nullable cpjsua_frame_buffer_create(uint32_t samples_per_frame, uint32_t capacity_frames,
                                                          cpjsua_frame_notify _Nonnull notify, void *_Nullable ctx);
/* Frees a buffer no port uses any more (its owner's deinit). */
void cpjsua_frame_buffer_free(cpjsua_frame_buffer *_Nullable buffer);
/* Sets the owner's context, before the buffer is used (an owner that needs itself as context). */
void cpjsua_frame_buffer_set_context(cpjsua_frame_buffer *_Nonnull buffer, void *_Nullable ctx);
/* No more notifications; writes fail with -1; the port sends silence until detached. */
void cpjsua_frame_buffer_close(cpjsua_frame_buffer *_Nonnull buffer);
/* 1: queued; 0: no room (policy wait: a SPACE event follows once it fits); -1: closed;
 * -2: larger than the queue. With drop_oldest the oldest samples make room. */
int32_t cpjsua_frame_buffer_write(cpjsua_frame_buffer *_Nonnull buffer, const int16_t *_Nonnull samples,
                                  uint32_t count, int32_t drop_oldest);
/* Writer: turns the standing-queue trim on (window_frames: the frames the queue must stay at
 * one depth before whole frames are skipped, never more than the silence underruns inserted;
 * 0: off, the default). See trim_standing in FramePort.c. */
void cpjsua_frame_buffer_set_trim(cpjsua_frame_buffer *_Nonnull buffer, uint32_t window_frames);
/* Empties the queue at once; pending marks are reported flushed. Returns the samples discarded. */
uint64_t cpjsua_frame_buffer_flush(cpjsua_frame_buffer *_Nonnull buffer);
/* Places a mark after the last queued sample. 0, -1 when closed, -2 when too many are pending. */
int32_t cpjsua_frame_buffer_mark(cpjsua_frame_buffer *_Nonnull buffer, uint64_t id);
cpjsua_frame_stats cpjsua_frame_buffer_stats(cpjsua_frame_buffer *_Nonnull buffer);
/* Writer: one frame taken as it is sent (what the writer port's tick does): samples_per_frame
 * samples into `samples` (the queued audio, then silence) with a sent frame's accounting and
 * notifications. Returns the queued samples taken; -1 and nothing taken when `audio_only` and
 * the queue is empty (or the buffer closed). Any thread; used by paced sending (MediaPace.c). */
int32_t cpjsua_frame_buffer_take(cpjsua_frame_buffer *_Nonnull buffer, int16_t *_Nonnull samples, int32_t audio_only);
/* Writer: while on (counted: every on needs its off), the writer port hands the bridge nothing
 * and the frames are taken with cpjsua_frame_buffer_take instead. */
void cpjsua_frame_buffer_set_external(cpjsua_frame_buffer *_Nonnull buffer, int32_t on);
uint32_t cpjsua_frame_buffer_samples_per_frame(const cpjsua_frame_buffer *_Nonnull buffer);
/* Engine thread: creates the port (a reader or a writer at clock_rate), adds it to pjsua's
 * bridge and sets *slot. `retained` is released exactly once (release), when the port is gone
 * or at once on failure. Returns a pj_status_t. */
int32_t cpjsua_frame_port_attach(cpjsua_frame_buffer *_Nonnull buffer, int32_t is_writer, uint32_t clock_rate,
                                 void *_Nullable retained, cpjsua_frame_release _Nonnull release,
                                 int32_t *_Nonnull slot);
/* Engine thread: removes the port from the bridge (asynchronously: the bridge holds a reference
 * until it is done) and drops ours. Does nothing the second time. */
void cpjsua_frame_port_detach(cpjsua_frame_buffer *_Nonnull buffer);

/* A joinable POSIX thread, owned by the caller. */
typedef struct cpjsua_thread cpjsua_thread;

/* Starts a thread that runs body(context). Returns 0 and sets *thread, or an errno value. */
int cpjsua_thread_start(cpjsua_thread *_Nullable *_Nonnull thread,
                        void (*_Nonnull body)(void *_Nullable context),
                        void *_Nullable context);
/* Whether the calling thread is `thread`: valid once cpjsua_thread_start returned, until
 * cpjsua_thread_free. */
int cpjsua_thread_is_current(const cpjsua_thread *_Nonnull thread);
/* Waits for the thread to end. Call once, and never from the thread itself. */
void cpjsua_thread_join(cpjsua_thread *_Nonnull thread);
/* Lets the thread end on its own (for a thread that must stop itself). Call once. */
void cpjsua_thread_detach(cpjsua_thread *_Nonnull thread);
/* Frees the handle once the thread was joined or detached. */
void cpjsua_thread_free(cpjsua_thread *_Nullable thread);

/* OpenSSL's clean-up at exit turned off (OPENSSL_INIT_NO_ATEXIT), before PJSIP first starts
 * OpenSSL. OpenSSL frees its global state in an atexit handler, and must not do that while another
 * thread is in OpenSSL: an engine's executor thread, detached when the engine goes, runs OpenSSL's
 * thread-exit destructor as it ends, which can overlap a process's exit (KL-44: glibc's heap
 * found corrupted at exit). With it off, the process's memory goes with the process. Call before
 * any OpenSSL use of the process: later calls change nothing (OpenSSL decides at its first
 * initialisation). Returns 1 when set, 0 when no OpenSSL is loaded (the iOS binary), -1 when
 * OpenSSL refused. */
int cpjsua_openssl_keep_at_exit(void);

/* The null audio device: clocks the conference bridge with no sound card, like
 * pjsua_set_null_snd_dev() but with the clock thread at normal priority (NullClock.c says why).
 * Start detaches any sound device first (pjsua_set_no_snd_dev) and replaces a running clock.
 * Returns 0 or a pj_status_t. Stop before any other sound-device change and before pjsua_destroy;
 * stopping when none runs does nothing. Engine thread only.
 * `hook`, if any, runs on the clock thread at the end of every tick, after the bridge has run
 * every port; cpjsua_null_clock_in_tick() is 1 on the clock thread between a tick's start and
 * that hook, 0 elsewhere (other threads, or a sound device's clock). */
typedef void (*cpjsua_tick_hook)(void);
int cpjsua_null_clock_start(cpjsua_tick_hook _Nullable hook);
void cpjsua_null_clock_stop(void);
int32_t cpjsua_null_clock_in_tick(void);

/* Video taps (VideoTap.c): an I420 sink on pjsua's video bridge, connected from a call's
 * decoding port (its dec_slot), that counts decoded pictures and optionally hands each one to
 * `notify` on the video bridge's clock thread (which must not block). Engine thread only,
 * except cpjsua_video_tap_frames (any thread while attached). */
typedef struct cpjsua_video_tap cpjsua_video_tap;
typedef void (*cpjsua_video_frame_notify)(void *_Nullable ctx, const uint8_t *_Nonnull data, uint32_t size,
                                          uint32_t width, uint32_t height, uint64_t timestamp);
typedef void (*cpjsua_video_release)(void *_Nullable ctx);
/* Adds a width x height I420 sink at fps and connects `source_slot` to it. `release(ctx)` runs
 * once the port is destroyed (also when attaching fails). Returns 0 or a pj_status_t. */
int32_t cpjsua_video_tap_attach(int32_t source_slot, uint32_t width, uint32_t height, uint32_t fps,
                                cpjsua_video_frame_notify _Nullable notify, void *_Nullable ctx,
                                cpjsua_video_release _Nullable release, cpjsua_video_tap *_Nullable *_Nonnull out);
/* Disconnects and removes the sink; notify is not called after this returns, and the tap must
 * not be used again. */
void cpjsua_video_tap_detach(cpjsua_video_tap *_Nonnull tap);
/* Full pictures received so far. */
uint64_t cpjsua_video_tap_frames(cpjsua_video_tap *_Nonnull tap);
/* The video bridge slot the tap listens to. */
int32_t cpjsua_video_tap_source(const cpjsua_video_tap *_Nonnull tap);

/* TimerBarrier.c: schedules a pjsua timer `delay_msec` from now and waits (at most `timeout_msec`)
 * until a pjsua worker thread has fired it, and with it every pjsua timer due before. Returns 0,
 * PJ_ETIMEDOUT's value, or pjsua_schedule_timer2's error. Engine thread only, while pjsua runs. */
int32_t cpjsua_pjsua_timer_barrier(uint32_t delay_msec, uint32_t timeout_msec);

/* SDLHints.c: before pjsua_init opens SDL (when the linked pjproject uses it for video), asks it
 * to install no signal handlers and, with no display in the environment, to use its headless
 * driver. Returns a bit set: 1 no signal handlers, 2 headless driver; 0 when SDL is not in the
 * process. */
int32_t cpjsua_sdl_set_hints(void);
/* Credentials on demand (AuthChallenge.c): what the engine keeps of a 401/407 between pjsua's
 * on_auth_challenge callback and the answer of the account's credential provider. Capture runs
 * in the callback (pjsua's worker thread): it clones the response (`rdata` is valid only during
 * the callback) and holds a reference on the challenged request, and points `scheme`, `realm`,
 * `algorithm` (empty when the challenge names none) and `method` into them. Answer and abandon
 * consume the token and release what capture kept: call exactly one of them, on a thread PJLIB
 * knows, while the account (and the call, for an INVITE) still exists. */
typedef struct cpjsua_auth_text {
    const char *_Nullable ptr;
    int32_t length;
} cpjsua_auth_text;
typedef struct cpjsua_auth_challenge {
    void *_Nullable response;  /* pjsip_rx_data, a clone owned here */
    void *_Nullable request;   /* pjsip_tx_data, one reference held here */
    int32_t status_code;       /* 401 or 407 */
    cpjsua_auth_text scheme, realm, algorithm, method;
    int32_t is_retry;          /* the request carried our answer for this realm and the server
                                  did not call it stale: the answer was refused */
} cpjsua_auth_challenge;
/* Returns 0 or a pj_status_t (nothing is kept then). `rdata` is a pjsip_rx_data, `tdata` a
 * pjsip_tx_data. */
int32_t cpjsua_auth_challenge_capture(const void *_Nonnull rdata, void *_Nonnull tdata,
                                      cpjsua_auth_challenge *_Nonnull out);
/* Builds the authenticated request with this one credential and sends it through the token
 * (pjsip_auth_clt_reinit_req, pjsip_auth_clt_async_send_req). The credential lives in `sess`
 * only while the request is built: its bytes are then zeroed and the session holds none again.
 * Abandons the token when any step fails. `sess` is a pjsip_auth_clt_sess. Returns 0 or a
 * pj_status_t. */
int32_t cpjsua_auth_challenge_answer(void *_Nonnull sess, void *_Nonnull token, cpjsua_auth_challenge *_Nonnull challenge,
                                     const char *_Nonnull realm, const char *_Nonnull username,
                                     const char *_Nonnull password);
/* Gives the challenge up (pjsip_auth_clt_async_abandon): the request fails as refused. */
void cpjsua_auth_challenge_abandon(void *_Nonnull sess, void *_Nonnull token, cpjsua_auth_challenge *_Nonnull challenge);

/* Header/binary agreement (LibraryCheck.c). The version the headers here describe ("2.17",
 * built from PJ_VERSION_NUM_*), and the one the loaded libpj reports (pj_get_version()). */
const char *_Nonnull cpjsua_header_version(void);
const char *_Nonnull cpjsua_library_version(void);
typedef enum cpjsua_struct {
    CPJSUA_STRUCT_CONFIG,         /* pjsua_config: measurable any time */
    CPJSUA_STRUCT_ACC_CONFIG,     /* pjsua_acc_config: measurable any time */
    CPJSUA_STRUCT_MEDIA_CONFIG,   /* pjsua_media_config: measurable any time */
    CPJSUA_STRUCT_CONF_PORT_INFO  /* pjsua_conf_port_info: after pjsua_init (bridge slot 0) */
} cpjsua_struct;
typedef struct cpjsua_struct_size {
    uint64_t header;   /* sizeof in the headers this target was compiled against */
    uint64_t library;  /* bytes the loaded library's function clears; 0 when it failed */
} cpjsua_struct_size;
cpjsua_struct_size cpjsua_struct_size_of(cpjsua_struct which);

#ifdef __cplusplus
}
#endif

#endif
