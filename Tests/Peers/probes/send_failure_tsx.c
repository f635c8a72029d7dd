/* KL-57.7 probe (upstream 2da6cf3e3). pjsip_endpt_send_request sends through a new UAC
 * transaction; when the send fails at once (here a MESSAGE to 255.255.255.255, which UDP refuses
 * with EACCES), the transaction is TERMINATED inside pjsip_tsx_send_msg and its destroy timer
 * (0 ms) is armed. The caller then reads tsx->status_code and terminates the transaction, holding
 * no reference to it: a thread polling the timers in between (pjsua's SIP worker, while the
 * engine sends from its own thread) destroys it first, and the caller works on freed memory.
 *
 * The race's window, made deterministic: this program defines pjsip_tsx_send_msg and
 * pjsip_endpt_release_pool itself, so PJSIP's calls to them come here first (the executable's
 * definitions interpose on the library's). When the real send fails, the wrapper waits, inside the
 * window, for the worker to release the transaction's pool (the transaction's end); pjsua is set up
 * as the engine sets it up (one worker thread; the send from another thread).
 * Patched (the caller holds a reference until it is done): the pool is not released within the
 * wait, and is once pjsua_im_send has returned. Unpatched: it is released inside the window, and
 * the program says so and exits 3 before the caller touches the freed transaction.
 *
 * Prints "send failed at once: STATUS; released inside the window: NO|YES; released afterwards:
 * YES|NO". Exit 0: kept through the window and released after; 1: setup failed; 2: the send did
 * not fail at once, or the transaction was never released; 3: released inside the window. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pjsua-lib/pjsua.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

typedef pj_status_t (*send_msg_fn)(pjsip_transaction *, pjsip_tx_data *);
typedef void (*release_pool_fn)(pjsip_endpoint *, pj_pool_t *);

/* Set by the main thread around its one send; the pool of that send's transaction. */
static volatile int watching;
static pj_pool_t *volatile watched_pool;
static volatile int watched_released;

void pjsip_endpt_release_pool(pjsip_endpoint *endpt, pj_pool_t *pool)
{
    static release_pool_fn real;
    if (real == NULL) real = (release_pool_fn)dlsym(RTLD_NEXT, "pjsip_endpt_release_pool");
    if (pool != NULL && pool == watched_pool) watched_released = 1;
    real(endpt, pool);
}

pj_status_t pjsip_tsx_send_msg(pjsip_transaction *tsx, pjsip_tx_data *tdata)
{
    static send_msg_fn real;
    pj_status_t status;
    int waited;

    if (real == NULL) real = (send_msg_fn)dlsym(RTLD_NEXT, "pjsip_tsx_send_msg");
    if (!watching) return real(tsx, tdata);
    watched_pool = tsx->pool;
    status = real(tsx, tdata);
    if (status == PJ_SUCCESS) return status;
    /* The window: the transaction is TERMINATED, its lock released, its destroy timer armed.
     * Two seconds is two hundred of the worker's polls. */
    for (waited = 0; waited < 200 && !watched_released; ++waited) usleep(10000);
    if (watched_released) {
        printf("send failed at once: %d; released inside the window: YES\n", status);
        fflush(stdout);
        _exit(3);
    }
    return status;
}

int main(void)
{
    pjsua_config config;
    pjsua_logging_config logging;
    pjsua_media_config media;
    pjsua_transport_config transport;
    pjsua_transport_id transport_id;
    pjsua_acc_id account;
    pj_str_t target = pj_str("sip:bob@255.255.255.255");
    pj_str_t text = pj_str("x");
    pj_status_t status;
    int waited;

    /* pjsua_init starts SDL for video, which wants a display and takes SIGTERM and SIGINT: the
     * engine's hints. */
    if (getenv("DISPLAY") == NULL) setenv("SDL_VIDEODRIVER", "dummy", 1);
    setenv("SDL_NO_SIGNAL_HANDLERS", "1", 1);
    if (pjsua_create() != PJ_SUCCESS) return 1;
    pjsua_config_default(&config);
    config.thread_cnt = 1;  /* the engine's: one worker polls the SIP sockets and the timers */
    pjsua_logging_config_default(&logging);
    logging.level = 0;
    logging.console_level = 0;
    pjsua_media_config_default(&media);
    if (pjsua_init(&config, &logging, &media) != PJ_SUCCESS) return 1;
    pjsua_transport_config_default(&transport);
    transport.bound_addr = pj_str("127.0.0.1");
    transport.public_addr = pj_str("127.0.0.1");
    if (pjsua_transport_create(PJSIP_TRANSPORT_UDP, &transport, &transport_id) != PJ_SUCCESS) return 1;
    if (pjsua_acc_add_local(transport_id, PJ_TRUE, &account) != PJ_SUCCESS) return 1;
    if (pjsua_start() != PJ_SUCCESS) return 1;

    watching = 1;
    status = pjsua_im_send(account, &target, NULL, &text, NULL, NULL);
    watching = 0;
    if (status == PJ_SUCCESS) {
        printf("send failed at once: no (it was sent)\n");
        return 2;
    }
    for (waited = 0; waited < 500 && !watched_released; ++waited) usleep(10000);
    printf("send failed at once: %d; released inside the window: NO; released afterwards: %s\n", status,
           watched_released ? "YES" : "NO");
    fflush(stdout);
    pjsua_destroy();
    return watched_released ? 0 : 2;
}
