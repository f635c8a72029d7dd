/* KL-57.10 probe (upstream 0ed917eb9). With the default rate control of a video stream
 * (PJMEDIA_VID_STREAM_RC_SEND_THREAD) the encoding port's put_frame hands each RTP packet to
 * send_rtp(), which checks under the stream's group lock that the send manager is attached, takes
 * a stream reference, releases the stream lock and only then reads ss->mgr again to lock the
 * manager and queue the packet. pjmedia_vid_stream_destroy on another thread in between (the
 * engine's executor ending the call or removing its video while the vid_conf clock thread encodes
 * a captured frame: pjsua_vid_conf_remove_port only queues the removal) locks the stream, runs
 * detach_send_manager (clears ss->mgr, stops the manager's thread, drops the last reference of its
 * group lock, whose handler releases the manager's pool), and send_rtp then reads a NULL ss->mgr
 * or locks a destroyed group lock and queues the packet in freed memory.
 *
 * The window, made deterministic: this program defines pj_grp_lock_create_w_handler,
 * pj_grp_lock_add_ref, pj_grp_lock_acquire, pj_pool_release and pj_pool_safe_release itself
 * (libpjmedia calls them through its PLT, so its calls come here first). One I420 frame is put
 * into a VP8 (else H264, else first) encoding stream over a loop transport; the putting thread
 * is held where send_rtp() asks for the manager's group lock (before it is taken), and the main
 * thread destroys the stream meanwhile. When the destroy asks for the stream's lock it first
 * tries it: if the putting thread holds it (the patched order: the manager is locked inside the
 * stream lock), the hold ends and the destroy waits its turn. Unpatched the stream lock is free,
 * the destroy runs through, and the manager's pool is released while the putting thread is about
 * to lock the manager inside it: the program says so and exits 3 before the release is done
 * (nothing is freed, so nothing freed is touched, on any build).
 *
 * Prints "send manager freed under send_rtp: YES|NO". Exit 0: the stream lock kept the destroy
 * out and the manager was released afterwards; 1: setup failed; 2: the window was never reached,
 * or another outcome; 3: the manager's pool was released inside the window. */
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
#include "pool_release_hook.h"
#include "vid_send_stream.h"

typedef pj_status_t (*lock_fn)(pj_grp_lock_t *);
typedef pj_status_t (*create_w_handler_fn)(pj_pool_t *, const pj_grp_lock_config *, void *,
                                           void (*)(void *), pj_grp_lock_t **);

static pthread_t main_thread, putter_thread;
static volatile int putter_set;
static pj_pool_t *volatile mgr_pool;       /* the send manager's pool */
static pj_grp_lock_t *volatile mgr_lock;   /* and its group lock */
static pj_grp_lock_t *volatile putter_last_ref; /* last group lock the putter took a ref on */
static pj_grp_lock_t *volatile stream_lock;
static volatile int armed, in_window, go, destroying, tried, stream_lock_held, mgr_released;

static int on_putter(void) { return putter_set && pthread_equal(pthread_self(), putter_thread); }
static int on_main(void) { return pthread_equal(pthread_self(), main_thread); }

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
    {
        mgr_pool = pool;
        mgr_lock = *p_grp_lock;
    }
    return status;
}

pj_status_t pj_grp_lock_add_ref(pj_grp_lock_t *grp_lock)
{
    static lock_fn real;
    if (real == NULL) real = (lock_fn)dlsym(RTLD_NEXT, "pj_grp_lock_add_ref");
    if (on_putter()) putter_last_ref = grp_lock;
    return real(grp_lock);
}

pj_status_t pj_grp_lock_acquire(pj_grp_lock_t *grp_lock)
{
    static lock_fn real;
    int i;
    if (real == NULL) real = (lock_fn)dlsym(RTLD_NEXT, "pj_grp_lock_acquire");

    /* The putter in send_rtp(), asking for the manager's lock: hold it here (not yet taken). */
    if (armed && on_putter() && grp_lock == mgr_lock && mgr_lock != NULL) {
        armed = 0;
        stream_lock = putter_last_ref;     /* send_rtp's add_ref was on the stream's lock */
        in_window = 1;
        for (i = 0; i < 1000 && !go; ++i) usleep(10000);
        in_window = 0;
    }

    /* The destroy asking for the stream's lock: does the held putter have it? */
    if (destroying && !tried && on_main() && grp_lock == stream_lock && stream_lock != NULL) {
        tried = 1;
        stream_lock_held = 1;
        for (i = 0; i < 5; ++i) {          /* a transient holder lets go; the putter does not */
            if (pj_grp_lock_tryacquire(grp_lock) == PJ_SUCCESS) {
                pj_grp_lock_release(grp_lock);
                stream_lock_held = 0;
                break;
            }
            usleep(20000);
        }
        if (stream_lock_held) go = 1;      /* patched: let the putter finish, then wait our turn */
    }
    return real(grp_lock);
}

static void note_release(pj_pool_t *pool)
{
    if (pool == NULL || pool != mgr_pool) return;
    mgr_pool = NULL;
    if (in_window) {
        printf("send manager freed under send_rtp: YES (the stream was destroyed between "
               "send_rtp's stream unlock and its manager lock)\n");
        fflush(stdout);
        _exit(3);
    }
    mgr_released = 1;
}

static pjmedia_port *enc_port;
static volatile int put_done;
static pj_status_t put_status;

static void *putter(void *arg)
{
    pj_thread_desc desc;
    pj_thread_t *thread;
    const pjmedia_video_format_detail *vfd;
    pjmedia_frame frame;
    pj_size_t size;
    void *buf;

    (void)arg;
    pj_bzero(desc, sizeof(desc));
    pj_thread_register("putter", desc, &thread);
    vfd = pjmedia_format_get_video_format_detail(&enc_port->info.fmt, PJ_TRUE);
    size = (pj_size_t)vfd->size.w * vfd->size.h * 3 / 2;
    buf = malloc(size);
    memset(buf, 128, size);
    pj_bzero(&frame, sizeof(frame));
    frame.type = PJMEDIA_FRAME_TYPE_VIDEO;
    frame.buf = buf;
    frame.size = size;
    armed = 1;
    put_status = pjmedia_port_put_frame(enc_port, &frame);
    armed = 0;
    free(buf);
    put_done = 1;
    return NULL;
}

int main(void)
{
    pjmedia_vid_stream *stream;
    int i;

    main_thread = pthread_self();
    stream = probe_send_stream(PJ_TRUE, &enc_port);
    if (stream == NULL) return 1;
    if (mgr_lock == NULL) {
        printf("setup: no send manager (rate control is not the send thread)\n");
        return 1;
    }

    if (pthread_create(&putter_thread, NULL, putter, NULL) != 0) return 1;
    putter_set = 1;
    for (i = 0; i < 1000 && !in_window && !put_done; ++i) usleep(10000);
    if (!in_window) {
        printf("window never reached (put_frame returned %d without queueing a packet)\n",
               put_status);
        return 2;
    }

    destroying = 1;
    pjmedia_vid_stream_destroy(stream);
    destroying = 0;
    go = 1;
    pthread_join(putter_thread, NULL);

    if (stream_lock_held && mgr_released) {
        printf("send manager freed under send_rtp: NO (send_rtp locked the manager inside the "
               "stream lock; the destroy waited and released it afterwards)\n");
        return 0;
    }
    printf("other outcome: destroy tried the stream lock=%d, held by the putter=%d, manager "
           "released=%d\n", tried, stream_lock_held, mgr_released);
    return 2;
}
