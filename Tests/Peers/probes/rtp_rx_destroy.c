/* KL-57.8 probe (upstream 7b6cc12b9 and 66edd91f9). The UDP media transport hands a received
 * packet to its stream holding no reference to it: call_rtp_cb (call_rtcp_cb for RTCP) copies the
 * callbacks and their user data (the stream) under the transport's lock, releases it, and calls
 * the stream's on_rx_rtp (on_rx_rtcp), which decodes the RTP header into the stream, looks at the
 * source address, and only then takes a reference on the stream (on_rx_rtcp takes none at all).
 * pjmedia_stream_destroy on another thread in between (the engine's executor hanging up while
 * pjsua's worker receives) detaches the transport, whose pj_ioqueue_clear_key waits for the read
 * callback one second at most and then gives up, drops the stream's last reference and frees its
 * pool: a receive that outlasts the second (a worker stalled on a loaded machine) works on freed
 * memory.
 *
 * The race's window, made deterministic: this program defines pj_grp_lock_release,
 * pjmedia_rtp_decode_rtp(2), pj_pool_release and pj_pool_safe_release itself, so PJSIP's calls to
 * them come here first (the executable's definitions interpose on the library's; libpjmedia calls
 * them through its PLT). One packet is sent while the chosen window is armed, and the worker (the
 * media endpoint's one ioqueue thread, as pjsua's) is held in it for two seconds while the main
 * thread destroys the stream:
 *   a: RTP, after the transport released its lock in call_rtp_cb (before the stream's callback);
 *   b: RTP, in the stream's on_rx_rtp, at its header decode (before its add_ref);
 *   c: RTCP, after the transport released its lock in call_rtcp_cb.
 * Patched (the transport holds a reference on the stream across the callback): the stream's pool
 * is not released within the hold, and is once the callback has returned. Unpatched: it is
 * released inside the window, and the program says so and exits 3 before the release is done
 * (nothing is freed, so nothing freed is touched, on any build).
 *
 * Usage: rtp_rx_destroy a|b|c (or the environment variable RTP_RX_WINDOW). Prints "window W:
 * released inside: NO|YES; released afterwards: YES|NO". Exit 0: kept through the window and
 * released after; 1: setup failed; 2: the worker never reached the window, or the stream was
 * never released; 3: released inside the window. */
#include "rtp_stream_setup.h"
#include "pool_release_hook.h"

typedef pj_status_t (*lock_release_fn)(pj_grp_lock_t *);
typedef pj_status_t (*decode_fn)(pjmedia_rtp_session *, const void *, int, const pjmedia_rtp_hdr **,
                                 const void **, unsigned *);
typedef pj_status_t (*decode2_fn)(pjmedia_rtp_session *, const void *, int, const pjmedia_rtp_hdr **,
                                  pjmedia_rtp_dec_hdr *, const void **, unsigned *);

static char window;                        /* 'a', 'b' or 'c' */
static pj_grp_lock_t *volatile transport_lock;
static void *volatile watched_stream;      /* the stream: its pool is the one holding it */
static volatile int armed;                 /* the next packet's receive is held in the window */
static volatile int in_window, reached, released, decoded;

/* The stream's pool is released: inside the window, say so and end before it is freed. */
static void note_release(pj_pool_t *pool)
{
    pj_pool_block *block;
    char *stream = watched_stream;

    if (pool == NULL || stream == NULL) return;
    for (block = pool->block_list.next; block != &pool->block_list; block = block->next) {
        if (stream >= (char *)block->buf && stream < (char *)block->end) break;
    }
    if (block == &pool->block_list) return;
    watched_stream = NULL;
    if (in_window) {
        printf("window %c: released inside: YES\n", window);
        fflush(stdout);
        _exit(3);
    }
    released = 1;
}

/* The worker, inside the window: two seconds (two hundred polls) for the main thread's destroy. */
static void hold(void)
{
    int waited;

    reached = 1;
    in_window = 1;
    for (waited = 0; waited < 200 && !released; ++waited) usleep(10000);
    in_window = 0;
}

/* Windows a and c: the transport's lock, released by libpjmedia on the worker after the armed
 * packet arrived, is the one call_rtp_cb/call_rtcp_cb took for their snapshot. */
pj_status_t pj_grp_lock_release(pj_grp_lock_t *grp_lock)
{
    static lock_release_fn real;
    pj_status_t status;

    if (real == NULL) real = (lock_release_fn)dlsym(RTLD_NEXT, "pj_grp_lock_release");
    status = real(grp_lock);
    if (armed && window != 'b' && grp_lock == transport_lock && on_worker()
        && from_pjmedia(__builtin_return_address(0))) {
        armed = 0;
        hold();
    }
    return status;
}

/* Window b: the stream's on_rx_rtp, before its add_ref. */
pj_status_t pjmedia_rtp_decode_rtp(pjmedia_rtp_session *ses, const void *pkt, int pkt_len,
                                   const pjmedia_rtp_hdr **hdr, const void **payload, unsigned *payloadlen)
{
    static decode_fn real;
    if (real == NULL) real = (decode_fn)dlsym(RTLD_NEXT, "pjmedia_rtp_decode_rtp");
    decoded = 1;
    if (armed && window == 'b' && on_worker()) {
        armed = 0;
        hold();
    }
    return real(ses, pkt, pkt_len, hdr, payload, payloadlen);
}

pj_status_t pjmedia_rtp_decode_rtp2(pjmedia_rtp_session *ses, const void *pkt, int pkt_len,
                                    const pjmedia_rtp_hdr **hdr, pjmedia_rtp_dec_hdr *dec_hdr,
                                    const void **payload, unsigned *payloadlen)
{
    static decode2_fn real;
    if (real == NULL) real = (decode2_fn)dlsym(RTLD_NEXT, "pjmedia_rtp_decode_rtp2");
    decoded = 1;
    if (armed && window == 'b' && on_worker()) {
        armed = 0;
        hold();
    }
    return real(ses, pkt, pkt_len, hdr, dec_hdr, payload, payloadlen);
}

int main(int argc, char **argv)
{
    struct rtp_setup rs;
    pjmedia_stream *stream;
    int waited;

    window = window_choice(argc, argv, "RTP_RX_WINDOW", "a: after the transport's snapshot, b: in "
                           "on_rx_rtp's decode, c: after the RTCP snapshot");
    if (window == 0) return 1;

    if (rtp_setup_open(&rs, 41000) != 0) return 1;
    transport_lock = rs.tp->grp_lock;
    if (transport_lock == NULL) return 1;
    if (pjmedia_stream_create(rs.endpt, rs.pool, &rs.si, rs.tp, NULL, &stream) != PJ_SUCCESS) return 1;
    if (pjmedia_stream_start(stream) != PJ_SUCCESS) return 1;

    /* A first packet, unheld: the stream receives. */
    send_rtp(rs.rtp_fd, &rs.rtp_to, 1);
    for (waited = 0; waited < 200 && !decoded; ++waited) usleep(10000);
    if (!decoded) {
        printf("window %c: setup: the stream received nothing\n", window);
        return 1;
    }

    watched_stream = stream;
    armed = 1;
    if (window == 'c') send_rtcp(rs.rtcp_fd, &rs.rtcp_to);
    else send_rtp(rs.rtp_fd, &rs.rtp_to, 2);
    for (waited = 0; waited < 200 && !reached; ++waited) usleep(10000);
    if (!reached) {
        armed = 0;
        printf("window %c: the worker never reached the window\n", window);
        return 2;
    }

    /* The engine's hangup, on its own thread, while the worker is in the window. */
    pjmedia_stream_destroy(stream);

    for (waited = 0; waited < 500 && !released; ++waited) usleep(10000);
    printf("window %c: released inside: NO; released afterwards: %s\n", window, released ? "YES" : "NO");
    fflush(stdout);
    rtp_setup_close(&rs);
    return released ? 0 : 2;
}
