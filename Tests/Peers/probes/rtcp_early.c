/* KL-57.16 check (upstream 065f17e91). on_rx_rtcp (transport_udp.c) compares each RTCP
 * datagram's source with the remote RTCP address, pj_sockaddr_cmp(&rem_rtcp_addr,
 * &rtcp_src_addr), and that remote is set only by attach; upstream's fix skips the comparison
 * while the remote's family is 0, because pj_sockaddr_cmp asserts (in pj_sockaddr_get_addr_len)
 * on a family that is neither IPv4 nor IPv6. In 2.17 pj_sockaddr_cmp compares the two families
 * first and returns when they differ (sock_common.c:249-262), so it reaches the assertion only
 * when both are 0; a datagram's source always has its socket's family. This program sends RTCP
 * where upstream says the remote is unset: after media_start has posted the reads and before the
 * stream attaches (a peer's RTCP sent before its 200), and on a transport detached (its stream
 * destroyed) and started again (a media-changing re-INVITE; pjsua keeps the call's transport),
 * enough datagrams each time for the source switch (PJMEDIA_RTCP_NAT_PROBATION_CNT, 3). It
 * defines pj_sockaddr_cmp (libpjmedia calls it through its PLT) to see each comparison's
 * families, and __assert_fail to report an assertion instead of aborting.
 *
 * Prints "rtcp early: comparisons: N, with the remote unset: N, both unset: 0, assertion: NO".
 * Exit 0: no comparison of two unset families and no assertion; 1: setup failed; 2: no RTCP
 * comparison was seen; 3: an assertion, or a comparison of two unset families. */
#include "rtp_stream_setup.h"

typedef int (*cmp_fn)(const pj_sockaddr_t *, const pj_sockaddr_t *);

static volatile int comparisons, remote_unset, both_unset;

void __assert_fail(const char *assertion, const char *file, unsigned int line, const char *function)
{
    printf("rtcp early: assertion: YES (%s, %s:%u %s)\n", assertion, file, line, function);
    fflush(stdout);
    _exit(3);
}

int pj_sockaddr_cmp(const pj_sockaddr_t *addr1, const pj_sockaddr_t *addr2)
{
    static cmp_fn real;
    const pj_sockaddr *a1 = addr1, *a2 = addr2;

    if (real == NULL) real = (cmp_fn)dlsym(RTLD_NEXT, "pj_sockaddr_cmp");
    if (on_worker() && from_pjmedia(__builtin_return_address(0))) {
        ++comparisons;
        if (a1->addr.sa_family == 0) ++remote_unset;
        if (a1->addr.sa_family == 0 && a2->addr.sa_family == 0) {
            ++both_unset;
            printf("rtcp early: both unset: YES\n");
            fflush(stdout);
            _exit(3);
        }
    }
    return real(addr1, addr2);
}

/* Receiver reports from fd, each handled by the worker before the next. */
static void send_rtcps(int fd, const struct sockaddr_in *to, int count)
{
    int i;

    for (i = 0; i < count; ++i) {
        send_rtcp(fd, to);
        usleep(20000);
    }
}

int main(void)
{
    struct rtp_setup rs;
    pjmedia_stream *stream;

    /* 1. RTCP after media_start (rtp_setup_open), before the stream attaches: the remote is
     * unset. */
    if (rtp_setup_open(&rs, 45000) != 0) return 1;
    send_rtcps(rs.other_fd, &rs.rtcp_to, 4);
    if (pjmedia_stream_create(rs.endpt, rs.pool, &rs.si, rs.tp, NULL, &stream) != PJ_SUCCESS) return 1;
    if (pjmedia_stream_start(stream) != PJ_SUCCESS) return 1;
    send_rtcps(rs.rtcp_fd, &rs.rtcp_to, 2);

    /* 2. The transport detached (the stream destroyed) and started again, RTCP before the next
     * attach from the old remote and from another source. */
    pjmedia_stream_destroy(stream);
    if (pjmedia_transport_media_start(rs.tp, rs.pool, NULL, NULL, 0) != PJ_SUCCESS) return 1;
    send_rtcps(rs.rtcp_fd, &rs.rtcp_to, 2);
    send_rtcps(rs.other_fd, &rs.rtcp_to, 4);
    if (pjmedia_stream_create(rs.endpt, rs.pool, &rs.si, rs.tp, NULL, &stream) != PJ_SUCCESS) return 1;
    if (pjmedia_stream_start(stream) != PJ_SUCCESS) return 1;
    send_rtcps(rs.rtcp_fd, &rs.rtcp_to, 2);
    usleep(100000);

    printf("rtcp early: comparisons: %d, with the remote unset: %d, both unset: %d, assertion: NO\n",
           comparisons, remote_unset, both_unset);
    fflush(stdout);
    pjmedia_stream_destroy(stream);
    rtp_setup_close(&rs);
    return comparisons > 0 ? 0 : 2;
}
