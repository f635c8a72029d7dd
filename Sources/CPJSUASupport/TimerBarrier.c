/*
 * A barrier behind pjsua's own timers: schedules a pjsua timer and waits until a pjsua worker
 * thread has fired it. PJLIB's timer heap fires timers in the order they fall due, so once ours
 * has fired, every pjsua timer due before it has fired too (a callback may still be running on
 * another worker thread: pjsua_destroy joins those threads before it goes on).
 *
 * Why: pjsua starts a video stream's encoding from a timer, PJSUA_VIDEO_STREAM_DELAY_START_ENCODE
 * (500 ms) after making the stream (pjsua_vid.c timer_on_start_vid_stream_encoding), and that
 * timer holds a reference on the stream's group lock until it fires. pjsua_destroy stops the
 * worker threads first and, with PJSUA_DESTROY_NO_RX_MSG, polls no events afterwards: a timer
 * still pending then never fires, and the stream, with its codec (an OpenH264 encoder and decoder,
 * megabytes), is never freed (docs/KNOWN-LIMITS.md KL-41). The teardown waits here first.
 *
 * Why C: pjsua_schedule_timer2 is a function-like macro when PJ_TIMER_DEBUG is on (it is, by
 * default), which Swift cannot call.
 *
 * Threading: the engine's (PJLIB-registered) thread schedules and waits; the timer fires on a
 * pjsua worker thread. The callback's user data is a generation number, not memory, so a timer
 * that fires after its waiter gave up touches nothing that has gone.
 */
#ifndef PJ_AUTOCONF
#  define PJ_AUTOCONF 1
#endif
#include <pjsua.h>
#include <stdatomic.h>
#include "CPJSUASupport.h"

/* The latest generation whose timer fired. */
static atomic_uintptr_t fired_generation;
/* The last generation scheduled: engine thread only. */
static uintptr_t scheduled_generation;

static void barrier_fired(void *user_data) {
    uintptr_t generation = (uintptr_t)user_data;
    uintptr_t seen = atomic_load(&fired_generation);
    while (seen < generation && !atomic_compare_exchange_weak(&fired_generation, &seen, generation)) {
    }
}

int32_t cpjsua_pjsua_timer_barrier(uint32_t delay_msec, uint32_t timeout_msec) {
    uintptr_t generation = ++scheduled_generation;
    pj_status_t status = pjsua_schedule_timer2(&barrier_fired, (void *)generation, delay_msec);
    if (status != PJ_SUCCESS) return status;
    pj_time_val start;
    pj_gettickcount(&start);
    for (;;) {
        if (atomic_load(&fired_generation) >= generation) return PJ_SUCCESS;
        pj_time_val now;
        pj_gettickcount(&now);
        PJ_TIME_VAL_SUB(now, start);
        if (PJ_TIME_VAL_MSEC(now) >= (long)timeout_msec) return PJ_ETIMEDOUT;
        pj_thread_sleep(2);
    }
}
