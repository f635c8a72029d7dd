/* KL-57.9 probe (upstream 18e80e398). When pjsip_dlg_dec_lock drops a dialog's last session with no
 * transaction left, it releases the dialog's group lock and acquires it again before unregistering
 * and destroying the dialog. In between the dialog is unlocked, still in the user agent's table, and
 * its counts are zero: a thread that locks it there (pjsip_ua_find_dialog, mod_ua for an in-dialog
 * request or response, a transaction's state callback; in the engine, pjsua's worker while the
 * executor hangs up or sends in the dialog, or the other way round) counts back down to zero and
 * destroys it, and the first thread then re-locks and destroys freed memory: a double unregister,
 * a group lock used after it is gone, a second release of the dialog's pool.
 *
 * The race's window, made deterministic: this program defines pj_grp_lock_release,
 * pjsip_ua_unregister_dlg and pjsip_endpt_release_pool itself, so PJSIP's calls to them come here
 * first (the executable's definitions interpose on the library's; libpjsip calls all three through
 * its PLT, pjsip_dlg_dec_lock the first two). The main thread ends the dialog's one session
 * (pjsip_dlg_dec_session); when pjsip_dlg_dec_lock releases the lock in the window, the wrapper
 * holds the main thread there while a second registered thread looks the dialog up by its tags in
 * the user agent's table, locking it, and unlocks it again (pjsip_dlg_dec_lock), as mod_ua does.
 * Patched (the thread letting go keeps a count across the window; upstream: a flag): the second
 * thread does not destroy the dialog, and the main thread destroys it once it has the lock back.
 * Unpatched: the second thread starts destroying it inside the window, and the program says so and
 * exits 3 in that thread's pjsip_ua_unregister_dlg, before anything is freed (on any build).
 *
 * Prints "locked in the window: YES; destroyed inside the window: NO|YES; destroyed afterwards:
 * once|N times". Exit 0: not destroyed in the window, destroyed once (unregistered once, pool
 * released once) after it; 1: setup failed; 2: the window was not reached, the dialog was not
 * found in it, or it was not destroyed exactly once; 3: destroyed inside the window. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pjlib.h>
#include <pjlib-util.h>
#include <pjsip.h>
#include <pjsip_ua.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef pj_status_t (*lock_release_fn)(pj_grp_lock_t *);
typedef pj_status_t (*unregister_fn)(pjsip_user_agent *, pjsip_dialog *);
typedef void (*release_pool_fn)(pjsip_endpoint *, pj_pool_t *);

static pj_thread_t *main_thread;
static pjsip_dialog *volatile watched;     /* the dialog, while the main thread ends its session */
static pj_pool_t *volatile watched_pool;
static volatile int in_window, window_done, go, found, other_done;
static volatile int unregistered, pool_released;

pj_status_t pjsip_ua_unregister_dlg(pjsip_user_agent *ua, pjsip_dialog *dlg)
{
    static unregister_fn real;
    if (real == NULL) real = (unregister_fn)dlsym(RTLD_NEXT, "pjsip_ua_unregister_dlg");
    if (dlg != NULL && dlg == watched) {
        if (in_window) {
            /* The second thread destroys the dialog while the main thread is about to re-lock
             * and destroy it too: end before either frees anything. */
            printf("locked in the window: YES; destroyed inside the window: YES\n");
            fflush(stdout);
            _exit(3);
        }
        ++unregistered;
    }
    return real(ua, dlg);
}

void pjsip_endpt_release_pool(pjsip_endpoint *endpt, pj_pool_t *pool)
{
    static release_pool_fn real;
    if (real == NULL) real = (release_pool_fn)dlsym(RTLD_NEXT, "pjsip_endpt_release_pool");
    if (pool != NULL && pool == watched_pool) ++pool_released;
    real(endpt, pool);
}

pj_status_t pj_grp_lock_release(pj_grp_lock_t *glock)
{
    static lock_release_fn real;
    Dl_info caller;
    pj_status_t status;
    int waited;

    if (real == NULL) real = (lock_release_fn)dlsym(RTLD_NEXT, "pj_grp_lock_release");
    if (watched == NULL || window_done || glock != watched->grp_lock_ ||
        pj_thread_this() != main_thread)
        return real(glock);
    /* The main thread's first release of the dialog's lock: the one in pjsip_dlg_dec_lock. */
    if (!dladdr(__builtin_return_address(0), &caller) || caller.dli_sname == NULL ||
        strcmp(caller.dli_sname, "pjsip_dlg_dec_lock") != 0)
        return real(glock);
    window_done = 1;
    status = real(glock);
    /* The window: the dialog is unlocked, registered, its counts zero (unpatched). */
    in_window = 1;
    go = 1;
    for (waited = 0; waited < 200 && !other_done; ++waited) usleep(10000);
    in_window = 0;
    return status;
}

/* The other thread: finds the dialog by its tags and locks it, then unlocks it. */
static pjsip_dialog *target;
static int other_thread(void *arg)
{
    pj_str_t call_id = target->call_id->id;
    pj_str_t local_tag = target->local.info->tag;
    pj_str_t remote_tag = target->remote.info->tag;
    pjsip_dialog *dlg;
    int waited;

    (void)arg;
    for (waited = 0; waited < 500 && !go; ++waited) usleep(10000);
    if (!go) return 0;
    dlg = pjsip_ua_find_dialog(&call_id, &local_tag, &remote_tag, PJ_TRUE);
    if (dlg != NULL) {
        found = 1;
        pjsip_dlg_dec_lock(dlg);
    }
    other_done = 1;
    return 0;
}

static pjsip_module usage = {
    NULL, NULL, { "mod-probe-usage", 15 }, -1, PJSIP_MOD_PRIORITY_APPLICATION,
    NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
};

int main(void)
{
    pj_caching_pool cp;
    pjsip_endpoint *endpt;
    pjsip_dialog *dlg;
    pj_thread_t *other;
    pj_pool_t *pool;
    pj_str_t local = pj_str("<sip:alice@127.0.0.1>");
    pj_str_t remote = pj_str("<sip:bob@127.0.0.1>");
    int waited;

    pj_log_set_level(0);
    if (pj_init() != PJ_SUCCESS || pjlib_util_init() != PJ_SUCCESS) return 1;
    main_thread = pj_thread_this();
    pj_caching_pool_init(&cp, NULL, 0);  /* max_capacity 0, as pjsua's: pools are really freed */
    if (pjsip_endpt_create(&cp.factory, "probe", &endpt) != PJ_SUCCESS) return 1;
    if (pjsip_tsx_layer_init_module(endpt) != PJ_SUCCESS) return 1;
    if (pjsip_ua_init_module(endpt, NULL) != PJ_SUCCESS) return 1;
    if (pjsip_endpt_register_module(endpt, &usage) != PJ_SUCCESS) return 1;
    if (pjsip_dlg_create_uac(pjsip_ua_instance(), &local, &local, &remote, &remote, &dlg)
        != PJ_SUCCESS)
        return 1;
    if (pjsip_dlg_inc_session(dlg, &usage) != PJ_SUCCESS) return 1;  /* the one session */

    target = dlg;
    pool = pj_pool_create(&cp.factory, "probe", 1000, 1000, NULL);
    if (pj_thread_create(pool, "other", &other_thread, NULL, 0, 0, &other) != PJ_SUCCESS) return 1;

    watched_pool = dlg->pool;
    watched = dlg;
    pjsip_dlg_dec_session(dlg, &usage);  /* the last session ends: the dialog goes */
    watched = NULL;

    for (waited = 0; waited < 200 && !other_done; ++waited) usleep(10000);
    if (!window_done || !found) {
        printf("locked in the window: %s (window reached: %s)\n", found ? "YES" : "NO",
               window_done ? "YES" : "NO");
        fflush(stdout);
        return 2;
    }
    printf("locked in the window: YES; destroyed inside the window: NO; destroyed afterwards: ");
    if (unregistered == 1 && pool_released == 1) printf("once\n");
    else printf("%d unregister(s), %d pool release(s)\n", unregistered, pool_released);
    fflush(stdout);
    pj_thread_join(other);
    return unregistered == 1 && pool_released == 1 ? 0 : 2;
}
