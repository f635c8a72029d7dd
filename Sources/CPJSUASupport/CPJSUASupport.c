/* See include/CPJSUASupport.h. The only C file that turns pjproject macros into values. */

/* swift-pjsip's umbrella header and our Linux shim define PJ_AUTOCONF before including pjproject:
 * both libraries were built with autoconf's generated configuration, and the headers must match. */
#ifndef PJ_AUTOCONF
#  define PJ_AUTOCONF 1
#endif
/* <pjsua.h>, as swift-pjsip's umbrella header includes it: the one path both header trees have. */
#include <pjsua.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include "CPJSUASupport.h"

const int32_t cpjsua_status_einvaliduri = PJSIP_EINVALIDURI;
const int32_t cpjsua_status_einvalidrequri = PJSIP_EINVALIDREQURI;
const int32_t cpjsua_status_einvalidscheme = PJSIP_EINVALIDSCHEME;
const int32_t cpjsua_status_eaud_nodefdev = PJMEDIA_EAUD_NODEFDEV;
const int32_t cpjsua_status_eaud_invdev = PJMEDIA_EAUD_INVDEV;
const int32_t cpjsua_status_eaud_syserr = PJMEDIA_EAUD_SYSERR;
const int32_t cpjsua_status_eaud_init = PJMEDIA_EAUD_INIT;
const int32_t cpjsua_status_eaud_nodev = PJMEDIA_EAUD_NODEV;
const int32_t cpjsua_status_etoomany = PJ_ETOOMANY;
const int32_t cpjsua_status_etimedout = PJ_ETIMEDOUT;
const int32_t cpjsua_status_enotfound = PJ_ENOTFOUND;
const int32_t cpjsua_status_ebusy = PJ_EBUSY;
const int32_t cpjsua_status_sip_ebusy = PJSIP_EBUSY;
const int32_t cpjsua_status_sip_esessionterminated = PJSIP_ESESSIONTERMINATED;
const int32_t cpjsua_status_einval = PJ_EINVAL;
const int32_t cpjsua_status_tls_ecertverif = PJSIP_TLS_ECERTVERIF;
const int32_t cpjsua_status_esessioninsecure = PJSIP_ESESSIONINSECURE;
const int32_t cpjsua_status_esessionstate = PJSIP_ESESSIONSTATE;
const int32_t cpjsua_status_eeof = PJ_EEOF;

const int32_t cpjsua_snd_default_capture_dev = PJSUA_SND_DEFAULT_CAPTURE_DEV;
const int32_t cpjsua_snd_default_playback_dev = PJSUA_SND_DEFAULT_PLAYBACK_DEV;

const int32_t cpjsua_max_calls = PJSUA_MAX_CALLS;
const int32_t cpjsua_max_acc = PJSUA_MAX_ACC;
const int32_t cpjsua_max_conf_ports = PJSUA_MAX_CONF_PORTS;
const int32_t cpjsua_max_players = PJSUA_MAX_PLAYERS;
const int32_t cpjsua_max_recorders = PJSUA_MAX_RECORDERS;
const int32_t cpjsua_max_buddies = PJSUA_MAX_BUDDIES;
const int32_t cpjsua_max_tsx_count = PJSIP_MAX_TSX_COUNT;
const int32_t cpjsua_max_dialog_count = PJSIP_MAX_DIALOG_COUNT;
const int32_t cpjsua_max_pkt_len = PJSIP_MAX_PKT_LEN;
const int32_t cpjsua_ioqueue_max_handles = PJ_IOQUEUE_MAX_HANDLES;
const int32_t cpjsua_rtp_pt_telephone_events = PJMEDIA_RTP_PT_TELEPHONE_EVENTS;
const int32_t cpjsua_default_codec_quality = PJSUA_DEFAULT_CODEC_QUALITY;
const int32_t cpjsua_default_clock_rate = PJSUA_DEFAULT_CLOCK_RATE;
const int32_t cpjsua_max_call_media = sizeof(((pjsua_call_info *)0)->media) / sizeof(pjsua_call_media_info);
const int32_t cpjsua_has_video = PJMEDIA_HAS_VIDEO ? 1 : 0;
#if defined(PJMEDIA_SRTP_HAS_DTLS) && PJMEDIA_SRTP_HAS_DTLS
const int32_t cpjsua_srtp_has_dtls = 1;
#else
const int32_t cpjsua_srtp_has_dtls = 0;
#endif

struct cpjsua_thread {
    pthread_t id;
    void (*body)(void *);
    void *context;
};

static void *cpjsua_thread_main(void *raw) {
    struct cpjsua_thread *thread = raw;
    thread->body(thread->context);
    return NULL;
}

int cpjsua_thread_start(cpjsua_thread **out, void (*body)(void *), void *context) {
    struct cpjsua_thread *thread = calloc(1, sizeof *thread);
    if (thread == NULL) return ENOMEM;
    thread->body = body;
    thread->context = context;
    int rc = pthread_create(&thread->id, NULL, cpjsua_thread_main, thread);
    if (rc != 0) {
        free(thread);
        return rc;
    }
    *out = thread;
    return 0;
}

int cpjsua_thread_is_current(const cpjsua_thread *thread) {
    return pthread_equal(pthread_self(), thread->id) != 0;
}

void cpjsua_thread_join(cpjsua_thread *thread) {
    pthread_join(thread->id, NULL);
}

void cpjsua_thread_detach(cpjsua_thread *thread) {
    pthread_detach(thread->id);
}

void cpjsua_thread_free(cpjsua_thread *thread) {
    free(thread);
}
