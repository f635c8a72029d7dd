/* KL-57.13 probe (upstream bfa54d082). pjsua keeps its scheduled callbacks (pjsua_schedule_timer2)
 * on pjsua_var.active_timer_list and recycles their nodes through the free pjsua_var.timer_list;
 * both are changed only under pjsua_var.timer_mutex (pjsua_schedule_timer2; timer_cb, which after
 * the callback erases the node and pushes it on the free list; on whichever thread polls the
 * timers). pjsua_vid_stop_stream (a video call's hang-up, its video ended) walks
 * active_timer_list looking for its call's pending media-event timers (call_med_event_cb) holding
 * PJSUA_LOCK only. A node that fires while the walk stands on it goes to the free list, and the
 * walk follows its next link into that list, which never leads back to active_timer_list's head:
 * the walk spins for ever holding PJSUA_LOCK (and the call's dialog lock): every pjsua call waits.
 *
 * The walk makes no call between its nodes (no PLT call to interpose on), so the window is held
 * open with a guard page: this program schedules a pjsua timer whose callback is call_med_event_cb
 * (exported by libpjsua: the walk compares each node's callback with it) and whose user data, the
 * event the walk then reads to see whose timer it is, is a page of its own made unreadable. It
 * makes a loopback video call (vid_loopback_call.h; the calling leg sendonly; pjsua polled by a
 * thread of its own, paused so the timer stays pending) and hangs the calling leg up on another
 * thread: the walk faults on the page, and the SIGSEGV handler holds that thread there, at the
 * node. With the page readable again, the poller runs the timers: the node's timer fires for real
 * (call_med_event_cb, then timer_cb). Then the walk goes on from the node.
 * Patched (the walk holds timer_mutex): timer_cb waits for the walk, the node stays on the active
 * list while the walk stands on it, the walk ends and the hang-up returns. Unpatched: timer_cb moves
 * the node to the free list under the walk, which then never ends; 3 s on, the program checks that
 * PJSUA_LOCK is still held, makes the page unreadable again and catches the walk coming back to the
 * freed node (it circles the free list), says so and exits 3 (the walking thread left to _exit).
 *
 * Prints "node moved to the free list under the walk: NO|YES; walk ended: YES|NO ...".
 * Exit 0: not moved, the walk ended; 1: setup failed; 2: the walk never reached the node, or
 * another thread read the guard page; 3: the node moved under the walk (which then did not end,
 * or ended only because the freed node was reused). */
#include "vid_loopback_call.h"
#include <semaphore.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#define NOT_A_CALL (PJSUA_MAX_CALLS + 7)   /* the guard event's call: no call's, never matched */

/* An ASan build of the probe: let this program's SIGSEGV handler see the guard page's faults. */
const char *__asan_default_options(void) { return "allow_user_segv_handler=1"; }

static pjsua_event_list *guard;             /* the guard page: the pending timer's event */
static long page_size;
static sem_t resume_sem, never_sem;
static volatile pid_t walker_tid;
static volatile int parked, watch_revisit, revisited, other_fault;
static volatile int poll_stop, pause_req, paused, fired_cb, hung_up;
static pjsua_call_id out_call = PJSUA_INVALID_ID;

static void on_segv(int sig, siginfo_t *si, void *context)
{
    char *addr = (char *)si->si_addr;
    (void)sig;
    (void)context;
    if (addr < (char *)guard || addr >= (char *)guard + page_size) {
        signal(SIGSEGV, SIG_DFL);          /* not ours: fault again, for real */
        return;
    }
    if ((pid_t)syscall(SYS_gettid) == walker_tid) {
        if (watch_revisit) {
            revisited = 1;                 /* back at the freed node: hold it until _exit */
            for (;;) sem_wait(&never_sem);
        }
        parked = 1;                        /* at the node: wait until the timer side has run */
        while (sem_wait(&resume_sem) != 0) {}
        return;                            /* the page is readable again: the load is redone */
    }
    other_fault = 1;                       /* another thread read the event: hold it until _exit */
    for (;;) sem_wait(&never_sem);
}

/* pjsua's, through call_med_event_cb: must be set for that callback (it calls it unchecked). */
static void on_call_media_event(pjsua_call_id call, unsigned med_idx, pjmedia_event *event)
{
    (void)med_idx;
    (void)event;
    if (call == NOT_A_CALL) fired_cb = 1;
}

/* pjsua's worker, under this program's control (thread_cnt 0): polls the SIP sockets and timers. */
static int poller(void *arg)
{
    (void)arg;
    while (!poll_stop) {
        if (pause_req) {
            paused = 1;
            usleep(1000);
            continue;
        }
        paused = 0;
        pjsua_handle_events(10);
    }
    return 0;
}

static int hanger(void *arg)
{
    (void)arg;
    walker_tid = (pid_t)syscall(SYS_gettid);
    pjsua_call_hangup(out_call, 0, NULL, NULL);
    hung_up = 1;
    return 0;
}

/* Whether the node is on pjsua's free timer list (read without timer_mutex, which the patched walk
 * holds: a bounded look). */
static int on_free_list(pjsua_timer_list *node)
{
    pjsua_timer_list *it = pjsua_var.timer_list.next;
    int steps;
    for (steps = 0; steps < 100000 && it != &pjsua_var.timer_list; ++steps, it = it->next)
        if (it == node) return 1;
    return 0;
}

static int wait_for(volatile int *flag, int msec)
{
    for (; msec > 0 && !*flag; msec -= 5) usleep(5000);
    return *flag;
}

static pj_bool_t video_active(pjsua_call_id call)
{
    pjsua_call_info ci;
    unsigned i;
    if (pjsua_call_get_info(call, &ci) != PJ_SUCCESS || ci.state != PJSIP_INV_STATE_CONFIRMED)
        return PJ_FALSE;
    for (i = 0; i < ci.media_cnt; ++i)
        if (ci.media[i].type == PJMEDIA_TYPE_VIDEO && ci.media[i].status != PJSUA_CALL_MEDIA_NONE &&
            ci.media[i].status != PJSUA_CALL_MEDIA_ERROR)  /* sendonly, recvonly: LOCAL, REMOTE_HOLD */
            return pjsua_call_get_vid_stream_idx(call) >= 0;
    return PJ_FALSE;
}

int main(void)
{
    /* pjsua polled by this program's poller (thread_cnt 0); each end sends video at once, the
     * answering one with pjsua's default call setting. */
    static const struct loopback_options options = {
        .thread_cnt = 0, .auto_transmit = PJ_TRUE, .answer_default = PJ_TRUE,
        .on_call_media_event = &on_call_media_event
    };
    pjsua_call_setting call_setting;
    pj_thread_t *poll_thread, *hang_thread;
    pjsua_timer_list *node = NULL, *it;
    struct sigaction sa;
    unsigned i;
    int waited, moved = 0, ok, locked;

    page_size = sysconf(_SC_PAGESIZE);
    guard = mmap(NULL, page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (guard == MAP_FAILED || sizeof(*guard) > (size_t)page_size) return 1;
    sem_init(&resume_sem, 0, 0);
    sem_init(&never_sem, 0, 0);
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = &on_segv;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSEGV, &sa, NULL) != 0) return 1;

    if (loopback_pjsua_start(&options) != 0) return 1;
    if (pj_thread_create(pjsua_var.pool, "probe_poll", &poller, NULL, 0, 0, &poll_thread) != PJ_SUCCESS)
        return 1;

    /* A video call to itself; its video up on both legs, and a second for its start's events. The
     * calling leg offers sendonly: the answering leg then sends no RTP, which could reach the
     * calling leg's transport as its stream attaches (a race of PJSIP's that fails an assertion
     * here now and then, not this probe's). */
    pjsua_call_setting_default(&call_setting);
    call_setting.vid_cnt = 1;
    call_setting.flag |= PJSUA_CALL_SET_MEDIA_DIR;
    for (i = 0; i < PJMEDIA_MAX_SDP_MEDIA; ++i) call_setting.media_dir[i] = PJMEDIA_DIR_ENCODING;
    if (loopback_call_place(&call_setting) != 0) return 1;
    out_call = calls[0];
    for (waited = 0; waited < 500; ++waited) {
        pjsua_call_id ids[PJSUA_MAX_CALLS];
        unsigned count = PJ_ARRAY_SIZE(ids), up = 0;
        if (pjsua_enum_calls(ids, &count) == PJ_SUCCESS)
            for (i = 0; i < count; ++i) up += video_active(ids[i]);
        if (count == 2 && up == 2) break;
        usleep(10000);
    }
    if (waited == 500) {
        printf("setup: no video call\n");
        _exit(1);
    }
    usleep(1000000);

    /* The guard timer, pending (nobody polls) at the end of the active list; its event unreadable. */
    pause_req = 1;
    if (!wait_for(&paused, 2000)) return 1;
    memset(guard, 0, sizeof(*guard));
    guard->call_id = NOT_A_CALL;
    if (pjsua_schedule_timer2(&call_med_event_cb, guard, 1) != PJ_SUCCESS) return 1;
    pj_mutex_lock(pjsua_var.timer_mutex);
    for (it = pjsua_var.active_timer_list.next; it != &pjsua_var.active_timer_list; it = it->next)
        if (it->user_data == guard) node = it;
    pj_mutex_unlock(pjsua_var.timer_mutex);
    if (node == NULL) return 1;
    usleep(5000);                          /* its 1 ms has passed: the next poll fires it */
    if (mprotect(guard, page_size, PROT_NONE) != 0) return 1;

    /* The hang-up's walk stops at the node. */
    if (pj_thread_create(pjsua_var.pool, "probe_hangup", &hanger, NULL, 0, 0, &hang_thread) != PJ_SUCCESS)
        return 1;
    if (!wait_for(&parked, 5000) || other_fault) {
        printf("setup: the walk never reached the node (hang-up returned: %s; other fault: %s)\n",
               hung_up ? "YES" : "NO", other_fault ? "YES" : "NO");
        _exit(2);
    }

    /* The timer side: the node's timer fires for real on the poller (timer_cb needs timer_mutex). */
    mprotect(guard, page_size, PROT_READ | PROT_WRITE);
    pause_req = 0;
    for (waited = 0; waited < 200 && !(fired_cb && (moved = on_free_list(node))); ++waited)
        usleep(5000);                      /* up to 1 s for timer_cb to move the node */
    sem_post(&resume_sem);                 /* the walk goes on from the node */

    if (wait_for(&hung_up, 3000)) {
        ok = !moved;
        printf("node moved to the free list under the walk: %s; walk ended: YES%s\n",
               moved ? "YES" : "NO", moved ? " (the freed node was reused)" : "");
        if (ok) {
            for (waited = 0; waited < 400 && !on_free_list(node); ++waited)
                usleep(5000);              /* timer_cb, once the walk let timer_mutex go */
            printf("the node went to the free list after the walk: %s\n",
                   on_free_list(node) ? "YES" : "NO");
        }
        _exit(ok ? 0 : 3);
    }
    /* Still walking, 3 s on: is it circling the free list? Catch it back at the freed node. */
    locked = pj_mutex_trylock(pjsua_var.mutex) != PJ_SUCCESS;
    if (!locked) pj_mutex_unlock(pjsua_var.mutex);
    watch_revisit = 1;
    mprotect(guard, page_size, PROT_NONE);
    wait_for(&revisited, 1000);
    printf("node moved to the free list under the walk: %s; walk ended: NO (3 s; PJSUA_LOCK held: %s)%s\n",
           moved ? "YES" : "NO", locked ? "YES" : "NO",
           revisited ? "; walk came back to the freed node: YES (it circles the free list)" : "");
    _exit(3);
}
