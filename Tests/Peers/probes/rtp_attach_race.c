/* KL-57.15 probe (upstream 469151c48). The UDP media transport reads each datagram into its own
 * rtp_src_addr (the ioqueue, or on_rx_rtp's loop); call_rtp_cb then snapshots the callbacks under
 * the transport's lock and hands the stream a pointer to rtp_src_addr, and on_rx_rtp copies it
 * again when the stream asks for the remote address to be switched. The transport's attach
 * clears rtp_src_addr under that lock: an attach between the read and the snapshot, or while the
 * callback runs, leaves the stream or the transport with a source of family 0, and the switch's
 * pj_sockaddr_cp asserts on it (an abort: our builds keep assertions). pjsua attaches each stream
 * on its SIP thread right after media_start has posted the reads, so RTP the peer sent before its
 * 200 (or during a media-changing re-INVITE), queued on our socket, is being drained by the media
 * worker exactly then (window a). A receive still inside its callback when the transport is
 * attached again (b, c) is rarer in pjsua: a re-INVITE's new stream attached after the old
 * stream's detach gave up waiting (one second) for a stalled worker, as in KL-57.8, or an
 * attach of an attached transport by a keying method or an application. SRTP hands the stream
 * the transport's pointer as is.
 *
 * The windows, made deterministic: this program defines pj_grp_lock_acquire, pj_sockaddr_cmp and
 * pj_sockaddr_cp (libpjmedia calls them through its PLT: the executable's definitions interpose),
 * holds the media worker (the endpoint's one ioqueue thread, as pjsua's) in the chosen window
 * while the main thread attaches, and checks the source address the receive path uses:
 *   a: the stream created (attached) after the packet was read, before the transport's snapshot;
 *   b: the transport attached again while the stream compares the packet's source (its first:
 *      a new stream switches to the first source it hears, so family 0 is the assertion);
 *   c: the transport attached again after the stream decided to switch to the packet's source,
 *      before the transport copies that source as its remote address.
 * Patched: the receive path works on a copy taken in the snapshot (a: the packet whose source the
 * attach cleared is dropped, and the next one is received; c: the transport then sends to the
 * source it switched to). Unpatched: the stream (a, b) or the transport (c) gets a source of
 * family 0; the program says so and exits 3 before the library's assertion (its own
 * __assert_fail also reports any assertion as exit 3, never an abort).
 *
 * Usage: rtp_attach_race a|b|c (or RTP_ATTACH_WINDOW). Prints "window W: source of family 0:
 * NO; ..." Exit 0: patched behaviour; 1: setup failed; 2: the worker never reached the window, or
 * nothing was received afterwards; 3: a source of family 0 (or an assertion) inside the window. */
#include "rtp_stream_setup.h"
#include <poll.h>

typedef pj_status_t (*acquire_fn)(pj_grp_lock_t *);
typedef int (*cmp_fn)(const pj_sockaddr_t *, const pj_sockaddr_t *);
typedef void (*cp_fn)(pj_sockaddr_t *, const pj_sockaddr_t *);

static char window;                        /* 'a', 'b' or 'c' */
static pj_grp_lock_t *volatile transport_lock;
static volatile int watching;              /* check the sources the worker's receive path uses */
static volatile int armed;                 /* the next receive is held in the window */
static volatile int reached, proceed, left;
static volatile int valid_seen;            /* a: the stream compared a valid source after the window */

static int valid_family(const pj_sockaddr_t *address)
{
    const pj_sockaddr *a = address;
    return a != NULL && (a->addr.sa_family == pj_AF_INET() || a->addr.sa_family == pj_AF_INET6());
}

static void bad_source(const char *who, const pj_sockaddr_t *address)
{
    const pj_sockaddr *a = address;
    printf("window %c: source of family 0: YES (%s got family %d)\n", window, who, a ? a->addr.sa_family : -1);
    fflush(stdout);
    _exit(3);
}

/* The worker, inside the window: two seconds (two hundred polls) for the main thread's attach. */
static void hold(void)
{
    int waited;

    reached = 1;
    for (waited = 0; waited < 200 && !proceed; ++waited) usleep(10000);
    left = 1;
}

/* An assertion anywhere (pj_sockaddr_cp's on a source of family 0, unpatched): reported, not an
 * abort. */
void __assert_fail(const char *assertion, const char *file, unsigned int line, const char *function)
{
    printf("window %c: source of family 0: YES (assertion %s failed, %s:%u %s)\n", window, assertion, file,
           line, function);
    fflush(stdout);
    _exit(3);
}

/* Window a: the transport's snapshot in call_rtp_cb, the worker's first lock of the transport in
 * on_rx_rtp: held before it is taken, so that the attach (which takes it) can run. */
pj_status_t pj_grp_lock_acquire(pj_grp_lock_t *grp_lock)
{
    static acquire_fn real;

    if (real == NULL) real = (acquire_fn)dlsym(RTLD_NEXT, "pj_grp_lock_acquire");
    if (armed == 'a' && grp_lock == transport_lock && on_worker() && from_pjmedia(__builtin_return_address(0))) {
        armed = 0;
        hold();
    }
    return real(grp_lock);
}

/* The stream's on_rx_rtp compares its remote address with the packet's source (the second
 * argument). Window b: held here while the transport is attached again. */
int pj_sockaddr_cmp(const pj_sockaddr_t *addr1, const pj_sockaddr_t *addr2)
{
    static cmp_fn real;

    if (real == NULL) real = (cmp_fn)dlsym(RTLD_NEXT, "pj_sockaddr_cmp");
    if (watching && on_worker() && from_pjmedia(__builtin_return_address(0))) {
        if (armed == 'b') {
            armed = 0;
            hold();
        }
        if (!valid_family(addr2)) bad_source("the stream's source comparison", addr2);
        if (left) valid_seen = 1;
    }
    return real(addr1, addr2);
}

/* The stream's switch copies the source into its remote address, then on_rx_rtp the transport's.
 * Window c: held after the stream's copy, while the transport is attached again. */
void pj_sockaddr_cp(pj_sockaddr_t *dst, const pj_sockaddr_t *src)
{
    static cp_fn real;

    if (real == NULL) real = (cp_fn)dlsym(RTLD_NEXT, "pj_sockaddr_cp");
    if (watching && on_worker() && from_pjmedia(__builtin_return_address(0))) {
        if (!valid_family(src)) bad_source(left ? "the transport's switch" : "the stream's switch", src);
        real(dst, src);
        if (armed == 'c') {
            armed = 0;
            hold();
        }
        return;
    }
    real(dst, src);
}

/* The callbacks of the second attach (b, c): the packets after the window. */
static volatile int attached_rx;
static void probe_rx_rtp(pjmedia_tp_cb_param *param)
{
    if (param->size > 0 && valid_family(param->src_addr)) attached_rx = 1;
}
static void probe_rx_rtcp(void *user_data, void *pkt, pj_ssize_t size)
{
    (void)user_data; (void)pkt; (void)size;
}

/* Whether fd receives a datagram within a second. */
static int receives(int fd)
{
    struct pollfd p = {fd, POLLIN, 0};
    char buffer[2048];

    if (poll(&p, 1, 1000) != 1) return 0;
    return recv(fd, buffer, sizeof buffer, 0) > 0;
}

static int wait_for(volatile int *flag, int hundredths)
{
    int waited;
    for (waited = 0; waited < hundredths && !*flag; ++waited) usleep(10000);
    return *flag;
}

/* The transport attached again from this thread, as DTLS-SRTP's keying and then the stream do:
 * the same user, callbacks of this program's (the running receive keeps the ones it copied). */
static int attach_again(pjmedia_transport *tp, pjmedia_stream *stream, const pjmedia_stream_info *si)
{
    pjmedia_transport_attach_param param;

    pj_bzero(&param, sizeof param);
    param.user_data = stream;
    pj_sockaddr_cp(&param.rem_addr, &si->rem_addr);
    pj_sockaddr_cp(&param.rem_rtcp, &si->rem_rtcp);
    param.addr_len = pj_sockaddr_get_len(&si->rem_addr);
    param.rtp_cb2 = &probe_rx_rtp;
    param.rtcp_cb = &probe_rx_rtcp;
    return pjmedia_transport_attach2(tp, &param) == PJ_SUCCESS;
}

int main(int argc, char **argv)
{
    struct rtp_setup rs;
    pjmedia_stream *stream = NULL;
    int went_to_source = 0;
    unsigned char our_rtp[12 + 160];

    window = window_choice(argc, argv, "RTP_ATTACH_WINDOW", "a: the stream attached between the read "
                           "and the snapshot, b: attached again during the source comparison, c: "
                           "attached again before the transport's switch");
    if (window == 0) return 1;

    /* The peer: rtp_fd is the stream's remote (the SDP's address), other_fd another source (c: the
     * one switched to). */
    if (rtp_setup_open(&rs, 43000) != 0) return 1;
    transport_lock = rs.tp->grp_lock;
    if (transport_lock == NULL) return 1;
    watching = 1;

    if (window == 'a') {
        /* The peer's early RTP, read before the stream exists; the stream attaches meanwhile. */
        armed = 'a';
        send_rtp(rs.rtp_fd, &rs.rtp_to, 1);
        if (!wait_for(&reached, 200)) {
            armed = 0;
            printf("window a: the worker never reached the window\n");
            return 2;
        }
        if (pjmedia_stream_create(rs.endpt, rs.pool, &rs.si, rs.tp, NULL, &stream) != PJ_SUCCESS) return 1;
        if (pjmedia_stream_start(stream) != PJ_SUCCESS) return 1;
        proceed = 1;
        wait_for(&left, 300);
        usleep(100000);                   /* the held packet is delivered or dropped */
        send_rtp(rs.rtp_fd, &rs.rtp_to, 2); /* and the next one reaches the stream */
        wait_for(&valid_seen, 200);
        printf("window a: source of family 0: NO; received afterwards: %s\n", valid_seen ? "YES" : "NO");
    } else {
        if (pjmedia_stream_create(rs.endpt, rs.pool, &rs.si, rs.tp, NULL, &stream) != PJ_SUCCESS) return 1;
        if (pjmedia_stream_start(stream) != PJ_SUCCESS) return 1;
        if (window == 'b') {
            /* The first packet, from the stream's remote (a source of family 0 makes the new
             * stream switch to it: the assertion). */
            armed = 'b';
            send_rtp(rs.rtp_fd, &rs.rtp_to, 1);
        } else {
            /* The first packet from another source: the new stream switches to it at once. */
            armed = 'c';
            send_rtp(rs.other_fd, &rs.rtp_to, 1);
        }
        if (!wait_for(&reached, 200)) {
            armed = 0;
            printf("window %c: the worker never reached the window\n", window);
            return 2;
        }
        if (!attach_again(rs.tp, stream, &rs.si)) return 1;
        proceed = 1;
        wait_for(&left, 300);
        usleep(100000);
        send_rtp(window == 'b' ? rs.rtp_fd : rs.other_fd, &rs.rtp_to, 3);
        wait_for(&attached_rx, 200);
        if (window == 'b') {
            printf("window b: source of family 0: NO; received afterwards: %s\n", attached_rx ? "YES" : "NO");
        } else {
            /* Our RTP goes where the transport switched to: the packet's source. */
            memset(our_rtp, 0, sizeof our_rtp);
            our_rtp[0] = 0x80;
            pjmedia_transport_send_rtp(rs.tp, our_rtp, sizeof our_rtp);
            went_to_source = receives(rs.other_fd);
            printf("window c: source of family 0: NO; received afterwards: %s; sent to the source switched to: %s\n",
                   attached_rx ? "YES" : "NO", went_to_source ? "YES" : "NO");
        }
    }
    fflush(stdout);
    watching = 0;
    if (stream) pjmedia_stream_destroy(stream);
    rtp_setup_close(&rs);
    if (window == 'a') return valid_seen ? 0 : 2;
    if (window == 'b') return attached_rx ? 0 : 2;
    return attached_rx && went_to_source ? 0 : 2;
}
