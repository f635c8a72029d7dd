/*
 * Admission control: a pjsip module that refuses new INVITEs with 503 Service Unavailable and
 * Retry-After once the engine holds as many calls as it may, or new calls arrive faster than
 * the configured rate.
 *
 * Why C, and why a module: the decision has to come before pjsua's own module sees the INVITE,
 * because pjsua allocates the call's media (RTP sockets, ioqueue keys, a conference port) before
 * it calls on_incoming_call. A module one priority step ahead of pjsua's answers statelessly,
 * on pjsua's worker thread, without a transaction or any Swift code in the path, which is what
 * keeps the engine serving under overload instead of spending itself on calls it then drops.
 */
#ifndef PJ_AUTOCONF
#  define PJ_AUTOCONF 1
#endif
#include <pjsua.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include "CPJSUASupport.h"

static pthread_mutex_t admission_lock = PTHREAD_MUTEX_INITIALIZER;
/* Guarded by admission_lock. */
static cpjsua_admission_policy admission_policy = { -1, 0, 0, 1 };
static double admission_tokens = 0;
static pj_timestamp admission_refill;
static int admission_refill_valid = 0;

static atomic_uint_fast64_t admission_refused;

/*
 * INVITEs refused lately, so that a retransmission gets the same 503. The refusal is stateless
 * (no transaction absorbs retransmissions), and the limits may have changed by the time a
 * retransmission arrives: admitting it would start a call its caller already saw refused.
 * Keyed by a hash of the top Via branch and the Call-ID; kept for 32 s (64*T1, INVITE's Timer B,
 * after which a caller retransmits no more). A fixed table (64 kB, open addressing, 8 probes)
 * guarded by admission_lock: under a flood larger than it, the oldest entries are overwritten,
 * and a retransmission of one of those is judged afresh.
 */
enum { REFUSED_SLOTS = 4096, REFUSED_PROBES = 8, REFUSED_KEEP_MSEC = 32000 };
static struct { uint64_t key; pj_uint32_t msec; } refused_invites[REFUSED_SLOTS];

static pj_uint32_t admission_now_msec(void) {
    pj_time_val now;
    pj_gettickcount(&now);
    return (pj_uint32_t)PJ_TIME_VAL_MSEC(now);
}

static uint64_t admission_key(const pjsip_rx_data *rdata) {
    const pj_str_t *branch = &rdata->msg_info.via->branch_param;
    const pj_str_t *call_id = &rdata->msg_info.cid->id;
    uint64_t key = ((uint64_t)pj_hash_calc(0, branch->ptr, (unsigned)branch->slen) << 32)
                 | pj_hash_calc(0, call_id->ptr, (unsigned)call_id->slen);
    return key != 0 ? key : 1;  /* 0 marks an empty slot */
}

static int refused_entry_live(unsigned slot, pj_uint32_t now) {
    return refused_invites[slot].key != 0 && (pj_uint32_t)(now - refused_invites[slot].msec) < REFUSED_KEEP_MSEC;
}

/* Whether `key` was refused lately. Caller holds admission_lock. */
static int refused_lately(uint64_t key, pj_uint32_t now) {
    for (unsigned probe = 0; probe < REFUSED_PROBES; ++probe) {
        unsigned slot = (unsigned)(key + probe) & (REFUSED_SLOTS - 1);
        if (refused_invites[slot].key == key && refused_entry_live(slot, now)) return 1;
    }
    return 0;
}

/* Remembers `key` as refused now, in a free or expired slot, else over the oldest probed one.
 * Caller holds admission_lock. */
static void remember_refused(uint64_t key, pj_uint32_t now) {
    unsigned chosen = (unsigned)key & (REFUSED_SLOTS - 1);
    pj_uint32_t oldest_age = 0;
    for (unsigned probe = 0; probe < REFUSED_PROBES; ++probe) {
        unsigned slot = (unsigned)(key + probe) & (REFUSED_SLOTS - 1);
        if (!refused_entry_live(slot, now)) { chosen = slot; break; }
        pj_uint32_t age = now - refused_invites[slot].msec;
        if (age >= oldest_age) { oldest_age = age; chosen = slot; }
    }
    refused_invites[chosen].key = key;
    refused_invites[chosen].msec = now;
}

static pj_bool_t admission_on_rx_request(pjsip_rx_data *rdata);

static pjsip_module admission_module = {
    NULL, NULL,                                     /* prev, next */
    { "mod-swiftpjsua-admission", 24 },             /* name */
    -1,                                             /* id */
    PJSIP_MOD_PRIORITY_APPLICATION - 1,             /* before pjsua's module */
    NULL, NULL, NULL, NULL,                         /* load, start, stop, unload */
    &admission_on_rx_request,                       /* on_rx_request */
    NULL, NULL, NULL, NULL,                         /* on_rx_response, on_tx_*, on_tsx_state */
};

/* Whether a new call may be admitted now; takes a token from the rate bucket when it is, and
 * remembers the INVITE when it is not (a retransmission of it is then refused too). */
static int admission_admit(uint64_t key, unsigned calls_in_progress, int *retry_after) {
    int admit = 1;
    pj_uint32_t now = admission_now_msec();
    pthread_mutex_lock(&admission_lock);
    *retry_after = admission_policy.retry_after_seconds;
    if (refused_lately(key, now)) {
        admit = 0;
    } else if (admission_policy.max_calls >= 0 && (long)calls_in_progress >= (long)admission_policy.max_calls) {
        admit = 0;
    } else if (admission_policy.max_rate > 0) {
        pj_timestamp now;
        pj_get_timestamp(&now);
        double burst = admission_policy.burst > 0 ? admission_policy.burst : admission_policy.max_rate;
        if (!admission_refill_valid) {
            admission_tokens = burst;
            admission_refill_valid = 1;
        } else {
            double elapsed = pj_elapsed_usec(&admission_refill, &now) / 1e6;
            admission_tokens += elapsed * admission_policy.max_rate;
            if (admission_tokens > burst) admission_tokens = burst;
        }
        admission_refill = now;
        if (admission_tokens >= 1) {
            admission_tokens -= 1;
        } else {
            admit = 0;
        }
    }
    if (!admit) remember_refused(key, now);
    pthread_mutex_unlock(&admission_lock);
    return admit;
}

static pj_bool_t admission_on_rx_request(pjsip_rx_data *rdata) {
    pjsip_msg *msg = rdata->msg_info.msg;
    /* Only new calls: an INVITE outside any dialog (a re-INVITE carries a To tag). */
    if (msg->line.req.method.id != PJSIP_INVITE_METHOD) return PJ_FALSE;
    if (rdata->msg_info.to == NULL || rdata->msg_info.to->tag.slen != 0) return PJ_FALSE;

    int retry_after = 1;
    if (rdata->msg_info.via == NULL || rdata->msg_info.cid == NULL) return PJ_FALSE;  /* pjsip rejects those */
    if (admission_admit(admission_key(rdata), pjsua_call_get_count(), &retry_after)) return PJ_FALSE;

    char value[16];
    pj_ansi_snprintf(value, sizeof(value), "%d", retry_after > 0 ? retry_after : 1);
    pj_str_t name = pj_str("Retry-After");
    pj_str_t text = pj_str(value);
    pjsip_hdr headers;
    pj_list_init(&headers);
    pjsip_generic_string_hdr *header = pjsip_generic_string_hdr_create(rdata->tp_info.pool, &name, &text);
    if (header != NULL) pj_list_push_back(&headers, header);
    pj_str_t reason = pj_str("Service Unavailable");
    pjsip_endpt_respond_stateless(pjsua_get_pjsip_endpt(), rdata, PJSIP_SC_SERVICE_UNAVAILABLE, &reason,
                                  &headers, NULL);
    atomic_fetch_add(&admission_refused, 1);
    return PJ_TRUE;
}

int cpjsua_admission_install(void) {
    if (admission_module.id != -1) return 0;  /* pjsua_destroy unregisters it (id back to -1) */
    pthread_mutex_lock(&admission_lock);
    memset(refused_invites, 0, sizeof(refused_invites));  /* a new engine run remembers nothing */
    pthread_mutex_unlock(&admission_lock);
    return pjsip_endpt_register_module(pjsua_get_pjsip_endpt(), &admission_module);
}

void cpjsua_admission_set(const cpjsua_admission_policy *policy) {
    pthread_mutex_lock(&admission_lock);
    admission_policy = *policy;
    admission_refill_valid = 0;
    pthread_mutex_unlock(&admission_lock);
}

uint64_t cpjsua_admission_refused(void) {
    return atomic_load(&admission_refused);
}
