/* KL-58 probe (upstream, unchanged: evsub.c evsub_async_auth_abandon_impl). With a credential
 * provider the engine claims a digest challenge in pjsua's on_auth_challenge and answers or gives
 * it up later on its executor thread (Sources/CPJSUASupport/AuthChallenge.c). Giving up a
 * challenged SUBSCRIBE runs evsub's abandon_impl, which sets the subscription TERMINATED with no
 * lock held: the evsub, presence and pjsua buddy callbacks (pjsua_evsub_on_state relies on the
 * dialog's lock, pjsua_pres.c #937) and evsub_destroy (the dialog's list node erased,
 * pjsip_dlg_dec_session) run while pjsua's worker may handle a NOTIFY of the same dialog under
 * that lock.
 *
 * This program tests the engine's own code: it includes AuthChallenge.c and gives the challenge up
 * with cpjsua_auth_challenge_abandon, as CredentialRequests does. pjsua is set up as the engine
 * sets it up (pjsua_probe.h: one worker thread, null audio; on_auth_challenge claiming the
 * challenge with cpjsua_auth_challenge_capture); a raw UDP peer inside the program answers each
 * SUBSCRIBE with a 401 digest challenge. It defines pjsip_evsub_get_mod_data and
 * pjsip_dlg_create_response, so PJSIP's calls to them come here first (libpjsua calls the former,
 * libpjsip-simple the latter, through their PLT): the first call of the former on the giving-up
 * thread is in the subscription's state callbacks (pjsua_evsub_on_state), as it ends.
 * 1. A buddy's SUBSCRIBE is challenged and given up; in its state callbacks a second registered
 *    thread tries the subscription dialog's lock: it gets it when the giving-up thread does not
 *    hold it.
 * 2. A second buddy's SUBSCRIBE is challenged; the peer then sends a NOTIFY in that dialog, and the
 *    wrapper holds the worker in its answer (pjsip_dlg_create_response, the dialog's lock held)
 *    while the main thread gives the challenge up, for up to 1.5 s after the give-up starts. The
 *    NOTIFY sets the dialog's remote tag, so the dialog is no longer found by the challenged
 *    SUBSCRIBE's tags (an empty To tag): a fix locking what pjsip_ua_find_dialog finds by them
 *    passes 1 and fails 2.
 * Fixed (the engine holds the dialog's lock around the give-up): the lock is busy in 1, and in 2
 * the give-up waits for the worker to leave the dialog before the subscription ends. Unfixed: the
 * lock is free in 1, and in 2 the subscription ends while the worker is inside the NOTIFY's
 * handling: the program says so and exits 3 before the worker goes on with it.
 *
 * Prints "subscription ended without its dialog lock: NO|YES; while a NOTIFY of its dialog was
 * handled: NO|YES" (then, when 2 did not overlap, how long the give-up took: about 1.5 s when it
 * waited for the worker). Exit 0: both NO; 1: setup failed; 2: a challenge was not claimed, the
 * NOTIFY's handling was not reached, or the subscription did not end; 3: either YES. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pjsua-lib/pjsua.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

/* The engine's C side, compiled into this program (its header is found with the -I that
 * PJSIPProbe adds; gcc does not know clang's nullability qualifiers). */
#ifndef __clang__
#  define _Nonnull
#  define _Nullable
#endif
#include "../../../Sources/CPJSUASupport/AuthChallenge.c"
#include "pjsua_probe.h"

typedef void *(*get_mod_data_fn)(const pjsip_evsub *, unsigned);
typedef pj_status_t (*create_response_fn)(pjsip_dialog *, pjsip_rx_data *, int, const pj_str_t *,
                                          pjsip_tx_data **);

static pj_thread_t *main_thread;

/* The challenges claimed in on_auth_challenge, in order. */
static struct {
    pjsip_auth_clt_sess *session;
    void *token;
    cpjsua_auth_challenge captured;
} claimed[2];
static volatile int claimed_count;

/* What the peer saw of each SUBSCRIBE (by buddy: 0 or 1), for the NOTIFY and the dialog lookup. */
static struct {
    char call_id[256], from[512], from_tag[128];
} seen[2];
static volatile int seen_count;
static int peer_socket = -1;
static struct sockaddr_in pjsua_address;
static volatile int peer_stop;

/* Phase 1: the dialog whose lock is tried, and what the try found. */
static volatile int phase;   /* 1 or 2 while the main thread gives that phase's challenge up */
static pjsip_dialog *volatile tried_dialog;
static volatile int try_asked, try_done, lock_was_free = -1;
/* Phase 2. */
static volatile int notify_inside, notify_held, giving_up, ended_in_phase[3];
static volatile int overlapped = -1;

static void now_plus(struct timeval *deadline, long msec)
{
    gettimeofday(deadline, NULL);
    deadline->tv_sec += msec / 1000;
    deadline->tv_usec += (msec % 1000) * 1000;
    if (deadline->tv_usec >= 1000000) { deadline->tv_sec += 1; deadline->tv_usec -= 1000000; }
}

static int before(const struct timeval *deadline)
{
    struct timeval now;
    gettimeofday(&now, NULL);
    return now.tv_sec < deadline->tv_sec || (now.tv_sec == deadline->tv_sec && now.tv_usec < deadline->tv_usec);
}

/* The subscription's state callbacks (pres_on_evsub_state, pjsua_evsub_on_state) read its module
 * data first: on the giving-up thread, that is the subscription ending. */
void *pjsip_evsub_get_mod_data(const pjsip_evsub *sub, unsigned mod_id)
{
    static get_mod_data_fn real;
    struct timeval deadline;
    if (real == NULL) real = (get_mod_data_fn)dlsym(RTLD_NEXT, "pjsip_evsub_get_mod_data");
    if (phase != 0 && pj_thread_this() == main_thread && !ended_in_phase[phase]) {
        ended_in_phase[phase] = 1;
        if (phase == 1) {
            /* Another thread tries the dialog's lock now. */
            try_asked = 1;
            now_plus(&deadline, 3000);
            while (!try_done && before(&deadline)) usleep(1000);
        } else {
            overlapped = notify_inside;
            if (overlapped) {
                printf("subscription ended without its dialog lock: %s; while a NOTIFY of its dialog was "
                       "handled: YES\n", lock_was_free == 1 ? "YES" : lock_was_free == 0 ? "NO" : "?");
                fflush(stdout);
                _exit(3);  /* before the worker goes on with the ended subscription */
            }
        }
    }
    return real(sub, mod_id);
}

/* evsub answers a NOTIFY through here, holding the dialog's lock: phase 2 holds the worker. */
pj_status_t pjsip_dlg_create_response(pjsip_dialog *dlg, pjsip_rx_data *rdata, int st_code,
                                      const pj_str_t *st_text, pjsip_tx_data **p_tdata)
{
    static create_response_fn real;
    struct timeval deadline;
    if (real == NULL) real = (create_response_fn)dlsym(RTLD_NEXT, "pjsip_dlg_create_response");
    if (!notify_held && claimed_count == 2 && pj_thread_this() != main_thread && rdata &&
        rdata->msg_info.msg->type == PJSIP_REQUEST_MSG &&
        pj_stricmp2(&rdata->msg_info.msg->line.req.method.name, "NOTIFY") == 0) {
        notify_held = 1;
        notify_inside = 1;
        now_plus(&deadline, 3000);
        while (!giving_up && before(&deadline)) usleep(1000);
        /* Up to 1.5 s more for the give-up to end the subscription meanwhile. */
        now_plus(&deadline, 1500);
        while (!ended_in_phase[2] && before(&deadline)) usleep(1000);
        notify_inside = 0;
    }
    return real(dlg, rdata, st_code, st_text, p_tdata);
}

static int checker(void *arg)
{
    struct timeval deadline;
    (void)arg;
    now_plus(&deadline, 8000);
    while (!try_asked && before(&deadline)) usleep(1000);
    if (try_asked && tried_dialog != NULL) {
        pj_grp_lock_t *lock = pjsip_dlg_get_lock(tried_dialog);
        if (pj_grp_lock_tryacquire(lock) == PJ_SUCCESS) {
            lock_was_free = 1;
            pj_grp_lock_release(lock);
        } else {
            lock_was_free = 0;
        }
    }
    try_done = 1;
    return 0;
}

static void on_auth_challenge(pjsua_on_auth_challenge_param *param)
{
    int n = claimed_count;
    if (n >= 2 || cpjsua_auth_challenge_capture(param->rdata, param->tdata, &claimed[n].captured) != 0)
        return;
    claimed[n].session = param->auth_sess;
    claimed[n].token = param->token;
    param->handled = PJ_TRUE;
    claimed_count = n + 1;
}

/* Copies the value of the first header `name` (or its compact form) of `msg` into `out`. */
static int header(const char *msg, const char *name, const char *compact, char *out, size_t size)
{
    const char *line = strstr(msg, "\r\n");
    while (line != NULL && line[2] != '\r') {
        const char *start = line + 2, *colon, *end = strstr(start, "\r\n");
        size_t length;
        if (end == NULL) break;
        colon = memchr(start, ':', (size_t)(end - start));
        if (colon != NULL) {
            length = (size_t)(colon - start);
            while (length > 0 && start[length - 1] == ' ') --length;
            if ((length == strlen(name) && strncasecmp(start, name, length) == 0) ||
                (compact && length == strlen(compact) && strncasecmp(start, compact, length) == 0)) {
                const char *value = colon + 1;
                while (*value == ' ') ++value;
                length = (size_t)(end - value);
                if (length >= size) return 0;
                memcpy(out, value, length);
                out[length] = '\0';
                return 1;
            }
        }
        line = end;
    }
    return 0;
}

/* Every Via line of `msg`, as "Via: ...\r\n" lines. */
static void via_lines(const char *msg, char *out, size_t size)
{
    const char *line = strstr(msg, "\r\n");
    out[0] = '\0';
    while (line != NULL && line[2] != '\r') {
        const char *start = line + 2, *end = strstr(start, "\r\n");
        if (end == NULL) break;
        if (strncasecmp(start, "Via:", 4) == 0 || strncasecmp(start, "v:", 2) == 0) {
            size_t used = strlen(out), length = (size_t)(end - start) + 2;
            if (used + length < size) {
                memcpy(out + used, start, length);
                out[used + length] = '\0';
            }
        }
        line = end;
    }
}

/* The peer: answers every SUBSCRIBE with a 401 digest challenge; ignores anything else. */
static int peer(void *arg)
{
    char buffer[4096], response[4096], vias[2048], from[512], to[512], call_id[256], cseq[64];
    (void)arg;
    while (!peer_stop) {
        struct sockaddr_in source;
        socklen_t source_length = sizeof source;
        ssize_t got = recvfrom(peer_socket, buffer, sizeof buffer - 1, 0, (struct sockaddr *)&source, &source_length);
        const char *tag;
        int n, buddy;
        if (got <= 0) continue;
        buffer[got] = '\0';
        if (strncmp(buffer, "SUBSCRIBE ", 10) != 0) continue;
        if (!header(buffer, "From", "f", from, sizeof from) || !header(buffer, "To", "t", to, sizeof to) ||
            !header(buffer, "Call-ID", "i", call_id, sizeof call_id) || !header(buffer, "CSeq", NULL, cseq, sizeof cseq))
            continue;
        via_lines(buffer, vias, sizeof vias);
        buddy = strstr(to, "sip:second@") != NULL ? 1 : 0;
        if (seen_count <= buddy) {
            tag = strstr(from, "tag=");
            snprintf(seen[buddy].call_id, sizeof seen[buddy].call_id, "%s", call_id);
            snprintf(seen[buddy].from, sizeof seen[buddy].from, "%s", from);
            snprintf(seen[buddy].from_tag, sizeof seen[buddy].from_tag, "%s", tag ? tag + 4 : "");
            seen[buddy].from_tag[strcspn(seen[buddy].from_tag, ";>")] = '\0';
            pjsua_address = source;
            seen_count = buddy + 1;
        }
        n = snprintf(response, sizeof response,
                     "SIP/2.0 401 Unauthorized\r\n%sFrom: %s\r\nTo: %s%s\r\nCall-ID: %s\r\nCSeq: %s\r\n"
                     "WWW-Authenticate: Digest realm=\"probe\", nonce=\"kl58probe\", algorithm=MD5\r\n"
                     "Content-Length: 0\r\n\r\n",
                     vias, from, to, strstr(to, "tag=") ? "" : ";tag=peer", call_id, cseq);
        sendto(peer_socket, response, (size_t)n, 0, (struct sockaddr *)&source, sizeof source);
    }
    return 0;
}

static int wait_for(volatile int *value, int wanted, long msec)
{
    struct timeval deadline;
    now_plus(&deadline, msec);
    while (*value < wanted && before(&deadline)) usleep(1000);
    return *value >= wanted;
}

static int add_buddy(const char *user, unsigned peer_port)
{
    pjsua_buddy_config config;
    pjsua_buddy_id id;
    char uri[64];
    snprintf(uri, sizeof uri, "sip:%s@127.0.0.1:%u", user, peer_port);
    pjsua_buddy_config_default(&config);
    config.uri = pj_str(uri);
    config.subscribe = PJ_TRUE;
    return pjsua_buddy_add(&config, &id) == PJ_SUCCESS;
}

int main(void)
{
    pjsua_callback cb;
    pjsua_acc_config account_config;
    pj_thread_t *peer_thread, *checker_thread;
    struct sockaddr_in address;
    socklen_t address_length = sizeof address;
    struct timeval timeout = { 0, 100000 }, started, ended;
    unsigned peer_port;
    char notify[2048];
    pj_str_t call_id, local_tag, no_tag = { "", 0 };
    int n, result;

    /* pjsua as the engine sets it up (pjsua_probe.h), on_auth_challenge claiming challenges. */
    pj_bzero(&cb, sizeof cb);
    cb.on_auth_challenge = &on_auth_challenge;
    if (probe_pjsua_init(1, &cb) != 0) return 1;
    main_thread = pj_thread_this();
    pjsua_acc_config_default(&account_config);
    if (probe_pjsua_start(&account_config) != 0) return 1;

    /* The peer's socket. */
    peer_socket = socket(AF_INET, SOCK_DGRAM, 0);
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (peer_socket < 0 || bind(peer_socket, (struct sockaddr *)&address, sizeof address) != 0 ||
        getsockname(peer_socket, (struct sockaddr *)&address, &address_length) != 0 ||
        setsockopt(peer_socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout) != 0)
        return 1;
    peer_port = ntohs(address.sin_port);
    if (pj_thread_create(pjsua_pool_create("probe", 512, 512), "peer", &peer, NULL, 0, 0, &peer_thread) != PJ_SUCCESS)
        return 1;
    if (pj_thread_create(pjsua_pool_create("probe", 512, 512), "checker", &checker, NULL, 0, 0,
                         &checker_thread) != PJ_SUCCESS)
        return 1;

    /* 1: a challenged subscription given up; its dialog's lock tried as it ends. */
    if (!add_buddy("first", peer_port)) return 1;
    if (!wait_for(&claimed_count, 1, 5000) || !wait_for(&seen_count, 1, 100)) {
        printf("first challenge claimed: NO\n");
        return 2;
    }
    call_id = pj_str(seen[0].call_id);
    local_tag = pj_str(seen[0].from_tag);
    tried_dialog = pjsip_ua_find_dialog(&call_id, &local_tag, &no_tag, PJ_FALSE);
    if (tried_dialog == NULL) return 1;
    phase = 1;
    cpjsua_auth_challenge_abandon(claimed[0].session, claimed[0].token, &claimed[0].captured);
    phase = 0;
    if (!ended_in_phase[1] || lock_was_free < 0) {
        printf("first subscription ended: %s; lock tried: %s\n", ended_in_phase[1] ? "YES" : "NO",
               lock_was_free < 0 ? "NO" : "YES");
        return 2;
    }

    /* 2: a challenged subscription given up while the worker handles a NOTIFY of its dialog. */
    if (!add_buddy("second", peer_port)) return 1;
    if (!wait_for(&claimed_count, 2, 5000) || !wait_for(&seen_count, 2, 100)) {
        printf("second challenge claimed: NO\n");
        return 2;
    }
    n = snprintf(notify, sizeof notify,
                 "NOTIFY sip:probe@127.0.0.1:%u SIP/2.0\r\n"
                 "Via: SIP/2.0/UDP 127.0.0.1:%u;rport;branch=z9hG4bKkl58notify\r\n"
                 "Max-Forwards: 70\r\n"
                 "From: <sip:second@127.0.0.1:%u>;tag=notifier\r\n"
                 "To: %s\r\n"
                 "Call-ID: %s\r\n"
                 "CSeq: 1 NOTIFY\r\n"
                 "Contact: <sip:second@127.0.0.1:%u>\r\n"
                 "Event: presence\r\n"
                 "Subscription-State: active;expires=600\r\n"
                 "Content-Length: 0\r\n\r\n",
                 (unsigned)pj_sockaddr_get_port(&probe_transport_info.local_addr), peer_port, peer_port,
                 seen[1].from, seen[1].call_id, peer_port);
    sendto(peer_socket, notify, (size_t)n, 0, (struct sockaddr *)&pjsua_address, sizeof pjsua_address);
    if (!wait_for(&notify_held, 1, 3000)) {
        printf("NOTIFY handled: NO\n");
        return 2;
    }
    phase = 2;
    giving_up = 1;
    gettimeofday(&started, NULL);
    cpjsua_auth_challenge_abandon(claimed[1].session, claimed[1].token, &claimed[1].captured);
    gettimeofday(&ended, NULL);
    phase = 0;
    if (!ended_in_phase[2] || overlapped < 0) {
        printf("second subscription ended: NO\n");
        return 2;
    }

    printf("subscription ended without its dialog lock: %s; while a NOTIFY of its dialog was handled: %s "
           "(the give-up took %ld ms)\n", lock_was_free ? "YES" : "NO", overlapped ? "YES" : "NO",
           (long)((ended.tv_sec - started.tv_sec) * 1000 + (ended.tv_usec - started.tv_usec) / 1000));
    fflush(stdout);
    result = lock_was_free || overlapped ? 3 : 0;
    peer_stop = 1;
    pj_thread_join(peer_thread);
    pj_thread_join(checker_thread);
    pjsua_destroy();
    return result;
}
