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
    pj_caching_pool cp;
    pj_pool_t *pool;
    pjmedia_endpt *endpt;
    pjmedia_vid_codec_info codec_info;
    pjmedia_vid_codec_param codec_param;
    pjmedia_vid_stream_info info;
    pjmedia_transport *tp;
    pjmedia_vid_stream *stream;
    pjmedia_loop_tp_setting loop_cfg;
    const char *ids[] = { "VP8", "H264", NULL };
    pj_str_t addr = pj_str("127.0.0.1");
    unsigned count;
    int i, found = 0;

    setvbuf(stdout, NULL, _IONBF, 0);            /* each line out before any exit */
    setenv("SDL_VIDEODRIVER", "dummy", 1);
    setenv("SDL_NO_SIGNAL_HANDLERS", "1", 1);
    main_thread = pthread_self();
    if (pj_init() != PJ_SUCCESS || pjlib_util_init() != PJ_SUCCESS) return 1;
    pj_log_set_level(1);
    pj_caching_pool_init(&cp, NULL, 0);
    pool = pj_pool_create(&cp.factory, "probe", 4000, 4000, NULL);
    if (pjmedia_endpt_create(&cp.factory, NULL, 1, &endpt) != PJ_SUCCESS) return 1;
    pjmedia_video_format_mgr_create(pool, 64, 0, NULL);
    pjmedia_converter_mgr_create(pool, NULL);
    pjmedia_event_mgr_create(pool, 0, NULL);
    pjmedia_vid_codec_mgr_create(pool, NULL);
    /* Whichever of these the build has (each fails harmlessly without its library). */
    pjmedia_codec_vpx_vid_init(NULL, &cp.factory);
    pjmedia_codec_openh264_vid_init(NULL, &cp.factory);
    pjmedia_codec_ffmpeg_vid_init(NULL, &cp.factory);
    for (i = 0; ids[i] && !found; ++i) {
        const pjmedia_vid_codec_info *ci;
        pj_str_t id = pj_str((char *)ids[i]);
        count = 1;
        if (pjmedia_vid_codec_mgr_find_codecs_by_id(NULL, &id, &count, &ci, NULL) == PJ_SUCCESS &&
            count > 0) {
            codec_info = *ci;
            found = 1;
        }
    }
    if (!found) {
        pjmedia_vid_codec_info all[1];
        count = 1;
        if (pjmedia_vid_codec_mgr_enum_codecs(NULL, &count, all, NULL) != PJ_SUCCESS || count == 0) {
            printf("setup: no video codec\n");
            return 1;
        }
        codec_info = all[0];
    }
    if (pjmedia_vid_codec_mgr_get_default_param(NULL, &codec_info, &codec_param) != PJ_SUCCESS)
        return 1;

    pj_bzero(&info, sizeof(info));
    info.type = PJMEDIA_TYPE_VIDEO;
    info.proto = PJMEDIA_TP_PROTO_RTP_AVP;
    info.dir = PJMEDIA_DIR_ENCODING;
    info.codec_info = codec_info;
    info.codec_param = &codec_param;
    info.tx_pt = info.rx_pt = (pj_uint8_t)codec_info.pt;
    info.ssrc = 0x1234;
    pj_sockaddr_in_init(&info.rem_addr.ipv4, &addr, 40000);
    pj_sockaddr_in_init(&info.rem_rtcp.ipv4, &addr, 40001);
    pjmedia_vid_stream_rc_config_default(&info.rc_cfg);   /* RC_SEND_THREAD, as pjsua's default */
    pjmedia_vid_stream_sk_config_default(&info.sk_cfg);

    pjmedia_loop_tp_setting_default(&loop_cfg);
    loop_cfg.disable_rx = PJ_TRUE;              /* the send thread only sends */
    if (pjmedia_transport_loop_create2(endpt, &loop_cfg, &tp) != PJ_SUCCESS) {
        printf("setup: loop transport\n");
        return 1;
    }
    if (pjmedia_vid_stream_create(endpt, pool, &info, tp, NULL, &stream) != PJ_SUCCESS) {
        printf("setup: stream create\n");
        return 1;
    }
    if (mgr_lock == NULL) {
        printf("setup: no send manager (rate control is not the send thread)\n");
        return 1;
    }
    if (pjmedia_vid_stream_start(stream) != PJ_SUCCESS ||
        pjmedia_vid_stream_get_port(stream, PJMEDIA_DIR_ENCODING, &enc_port) != PJ_SUCCESS) {
        printf("setup: stream start\n");
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
