/* KL-57.11 probe (upstream 8234bd220). With the default rate control of a video stream
 * (PJMEDIA_VID_STREAM_RC_SEND_THREAD) the send manager's thread sends each queued RTP packet and
 * then takes the stream's group lock to put the buffer back on the stream's free list.
 * pjmedia_vid_stream_destroy holds that stream lock around detach_send_manager, which joins the
 * send thread: a send thread between its send and the stream lock then waits for the destroy
 * while the destroy waits for it, a deadlock (the engine's executor, or pjsua's worker on the
 * remote's BYE, ending a video call while its last frames go out).
 *
 * The window, made deterministic: this program defines pj_grp_lock_create_w_handler,
 * pj_grp_lock_acquire and pj_thread_join itself (libpjmedia calls them through its PLT). A frame
 * is put into a VP8 (else H264, else first) encoding stream over a loop transport; the send
 * thread is held where it asks for the stream's lock (before it is taken), and the main thread
 * destroys the stream meanwhile. When the destroy joins the send thread, the held thread tries
 * the stream lock: taken (by the joining thread) is the deadlock, which the program reports and
 * exits 3 instead of hanging; free, the thread goes on and the join returns.
 *
 * Prints "destroy joins the send thread holding the stream lock: YES|NO". Exit 0: it did not;
 * 1: setup failed; 2: the window was never reached, or another outcome; 3: it did. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pjlib.h>
#include <pjlib-util.h>
#include <pjmedia.h>
#include <pjmedia-codec.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "vid_send_stream.h"

typedef pj_status_t (*lock_fn)(pj_grp_lock_t *);
typedef pj_status_t (*join_fn)(pj_thread_t *);
typedef pj_status_t (*create_w_handler_fn)(pj_pool_t *, const pj_grp_lock_config *, void *,
                                           void (*)(void *), pj_grp_lock_t **);

static pthread_t main_thread;
static pj_grp_lock_t *volatile mgr_lock;   /* the send manager's group lock */
static volatile int armed, in_hold, check_req, check_ok;
static pjmedia_port *enc_port;

static int on_send_thread(void)
{
    return pj_thread_is_registered() &&
           strcmp(pj_thread_get_name(pj_thread_this()), "send_mgr") == 0;
}

pj_status_t pj_grp_lock_create_w_handler(pj_pool_t *pool, const pj_grp_lock_config *cfg,
                                         void *member, void (*handler)(void *),
                                         pj_grp_lock_t **p_grp_lock)
{
    static create_w_handler_fn real;
    pj_status_t status;
    if (real == NULL) real = (create_w_handler_fn)dlsym(RTLD_NEXT, "pj_grp_lock_create_w_handler");
    status = real(pool, cfg, member, handler, p_grp_lock);
    if (status == PJ_SUCCESS && pool != NULL &&
        strncmp(pj_pool_getobjname(pool), "stream_send_mgr", 15) == 0)
        mgr_lock = *p_grp_lock;
    return status;
}

/* The send thread asking for the stream's lock after a send: hold it here (not yet taken). */
pj_status_t pj_grp_lock_acquire(pj_grp_lock_t *grp_lock)
{
    static lock_fn real;
    int i;
    if (real == NULL) real = (lock_fn)dlsym(RTLD_NEXT, "pj_grp_lock_acquire");
    if (armed && mgr_lock != NULL && grp_lock != mgr_lock && on_send_thread()) {
        armed = 0;
        in_hold = 1;
        for (i = 0; i < 1000 && !check_req; ++i) usleep(10000);
        if (check_req) {
            if (pj_grp_lock_tryacquire(grp_lock) != PJ_SUCCESS) {
                printf("destroy joins the send thread holding the stream lock: YES (deadlock: "
                       "the send thread waits for that lock)\n");
                fflush(stdout);
                _exit(3);
            }
            pj_grp_lock_release(grp_lock);
            check_ok = 1;
        }
        in_hold = 0;
    }
    return real(grp_lock);
}

/* The destroy joining the send thread while it is held: let it try the stream lock first. */
pj_status_t pj_thread_join(pj_thread_t *thread)
{
    static join_fn real;
    int i;
    if (real == NULL) real = (join_fn)dlsym(RTLD_NEXT, "pj_thread_join");
    if (in_hold && pthread_equal(pthread_self(), main_thread)) {
        check_req = 1;
        for (i = 0; i < 500 && !check_ok; ++i) usleep(10000);
        if (!check_ok) {
            printf("the held send thread did not answer\n");
            fflush(stdout);
            _exit(2);
        }
    }
    return real(thread);
}

int main(void)
{
    pjmedia_vid_stream *stream;
    int i;

    main_thread = pthread_self();
    stream = probe_send_stream(PJ_FALSE, &enc_port);
    if (stream == NULL) return 1;
    if (mgr_lock == NULL) {
        printf("setup: no send manager (rate control is not the send thread)\n");
        return 1;
    }

    {
        const pjmedia_video_format_detail *vfd;
        pjmedia_frame frame;
        pj_size_t size;
        void *buf;

        vfd = pjmedia_format_get_video_format_detail(&enc_port->info.fmt, PJ_TRUE);
        size = (pj_size_t)vfd->size.w * vfd->size.h * 3 / 2;
        buf = malloc(size);
        memset(buf, 128, size);
        pj_bzero(&frame, sizeof(frame));
        frame.type = PJMEDIA_FRAME_TYPE_VIDEO;
        frame.buf = buf;
        frame.size = size;
        armed = 1;
        pjmedia_port_put_frame(enc_port, &frame);
        free(buf);
    }
    for (i = 0; i < 500 && !in_hold; ++i) usleep(10000);
    if (!in_hold) {
        printf("window never reached (the send thread sent nothing)\n");
        return 2;
    }

    pjmedia_vid_stream_destroy(stream);

    if (check_ok) {
        printf("destroy joins the send thread holding the stream lock: NO (the send thread took "
               "it and ended)\n");
        return 0;
    }
    printf("other outcome: the destroy never joined the held send thread\n");
    return 2;
}
