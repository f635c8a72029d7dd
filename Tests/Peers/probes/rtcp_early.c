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
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dlfcn.h>
#include <netinet/in.h>
#include <pjlib.h>
#include <pjlib-util.h>
#include <pjmedia.h>
#include <pjmedia-codec.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

typedef int (*cmp_fn)(const pj_sockaddr_t *, const pj_sockaddr_t *);

static pthread_t main_thread;
static volatile int comparisons, remote_unset, both_unset;

void __assert_fail(const char *assertion, const char *file, unsigned int line, const char *function)
{
    printf("rtcp early: assertion: YES (%s, %s:%u %s)\n", assertion, file, line, function);
    fflush(stdout);
    _exit(3);
}

static int from_pjmedia(const void *address)
{
    Dl_info info;
    return dladdr(address, &info) && info.dli_fname != NULL && strstr(info.dli_fname, "libpjmedia.so") != NULL;
}

int pj_sockaddr_cmp(const pj_sockaddr_t *addr1, const pj_sockaddr_t *addr2)
{
    static cmp_fn real;
    const pj_sockaddr *a1 = addr1, *a2 = addr2;

    if (real == NULL) real = (cmp_fn)dlsym(RTLD_NEXT, "pj_sockaddr_cmp");
    if (!pthread_equal(pthread_self(), main_thread) && from_pjmedia(__builtin_return_address(0))) {
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

static int peer_socket(struct sockaddr_in *address)
{
    socklen_t length = sizeof *address;
    int fd = socket(AF_INET, SOCK_DGRAM, 0);

    memset(address, 0, sizeof *address);
    address->sin_family = AF_INET;
    address->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || bind(fd, (struct sockaddr *)address, sizeof *address) != 0
        || getsockname(fd, (struct sockaddr *)address, &length) != 0) return -1;
    return fd;
}

/* Receiver reports from fd, each handled by the worker before the next. */
static void send_rtcp(int fd, const struct sockaddr_in *to, int count)
{
    const unsigned char packet[8] = {0x80, 201, 0, 1, 0x11, 0x22, 0x33, 0x44};
    int i;

    for (i = 0; i < count; ++i) {
        sendto(fd, packet, sizeof packet, 0, (const struct sockaddr *)to, sizeof *to);
        usleep(20000);
    }
}

int main(void)
{
    pj_caching_pool cache;
    pjmedia_endpt *endpt;
    pj_pool_t *pool;
    pjmedia_transport *tp = NULL;
    pjmedia_transport_info info;
    pjmedia_stream_info si;
    const pjmedia_codec_info *codec;
    pjmedia_stream *stream;
    pj_str_t loopback = pj_str("127.0.0.1");
    struct sockaddr_in rtp_peer, rtcp_peer, other_peer, rtcp_to;
    int rtp_fd, rtcp_fd, other_fd, port;

    main_thread = pthread_self();
    pj_log_set_level(0);
    if (pj_init() != PJ_SUCCESS || pjlib_util_init() != PJ_SUCCESS) return 1;
    pj_caching_pool_init(&cache, NULL, 0);
    if (pjmedia_endpt_create2(&cache.factory, NULL, 1, &endpt) != PJ_SUCCESS) return 1;
    if (pjmedia_codec_g711_init(endpt) != PJ_SUCCESS) return 1;
    pool = pjmedia_endpt_create_pool(endpt, "probe", 4000, 4000);
    if (pjmedia_event_mgr_create(pool, 0, NULL) != PJ_SUCCESS) return 1;
    for (port = 45000 + (getpid() % 2000) * 2; port < 65000 && tp == NULL; port += 2) {
        if (pjmedia_transport_udp_create3(endpt, pj_AF_INET(), "probe", &loopback, port, 0, &tp) != PJ_SUCCESS)
            tp = NULL;
    }
    if (tp == NULL) return 1;
    pjmedia_transport_info_init(&info);
    if (pjmedia_transport_get_info(tp, &info) != PJ_SUCCESS) return 1;
    memcpy(&rtcp_to, &info.sock_info.rtcp_addr_name.ipv4, sizeof rtcp_to);
    rtcp_to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    rtp_fd = peer_socket(&rtp_peer);
    rtcp_fd = peer_socket(&rtcp_peer);
    other_fd = peer_socket(&other_peer);
    if (rtp_fd < 0 || rtcp_fd < 0 || other_fd < 0) return 1;

    pj_bzero(&si, sizeof si);
    si.type = PJMEDIA_TYPE_AUDIO;
    si.proto = PJMEDIA_TP_PROTO_RTP_AVP;
    si.dir = PJMEDIA_DIR_ENCODING_DECODING;
    pj_sockaddr_in_init(&si.rem_addr.ipv4, &loopback, ntohs(rtp_peer.sin_port));
    pj_sockaddr_in_init(&si.rem_rtcp.ipv4, &loopback, ntohs(rtcp_peer.sin_port));
    if (pjmedia_codec_mgr_get_codec_info(pjmedia_endpt_get_codec_mgr(endpt), 0, &codec) != PJ_SUCCESS) return 1;
    si.fmt = *codec;
    si.tx_pt = si.rx_pt = 0;
    si.tx_event_pt = si.rx_event_pt = -1;
    si.ssrc = 0x55667788;
    si.jb_init = si.jb_min_pre = si.jb_max_pre = si.jb_max = -1;
    si.jb_discard_algo = PJMEDIA_JB_DISCARD_NONE;

    /* 1. RTCP after media_start, before the stream attaches: the remote is unset. */
    if (pjmedia_transport_media_start(tp, pool, NULL, NULL, 0) != PJ_SUCCESS) return 1;
    send_rtcp(other_fd, &rtcp_to, 4);
    if (pjmedia_stream_create(endpt, pool, &si, tp, NULL, &stream) != PJ_SUCCESS) return 1;
    if (pjmedia_stream_start(stream) != PJ_SUCCESS) return 1;
    send_rtcp(rtcp_fd, &rtcp_to, 2);

    /* 2. The transport detached (the stream destroyed) and started again, RTCP before the next
     * attach from the old remote and from another source. */
    pjmedia_stream_destroy(stream);
    if (pjmedia_transport_media_start(tp, pool, NULL, NULL, 0) != PJ_SUCCESS) return 1;
    send_rtcp(rtcp_fd, &rtcp_to, 2);
    send_rtcp(other_fd, &rtcp_to, 4);
    if (pjmedia_stream_create(endpt, pool, &si, tp, NULL, &stream) != PJ_SUCCESS) return 1;
    if (pjmedia_stream_start(stream) != PJ_SUCCESS) return 1;
    send_rtcp(rtcp_fd, &rtcp_to, 2);
    usleep(100000);

    printf("rtcp early: comparisons: %d, with the remote unset: %d, both unset: %d, assertion: NO\n",
           comparisons, remote_unset, both_unset);
    fflush(stdout);
    pjmedia_stream_destroy(stream);
    pjmedia_transport_close(tp);
    pjmedia_event_mgr_destroy(NULL);
    pj_pool_release(pool);
    pjmedia_endpt_destroy(endpt);
    pj_caching_pool_destroy(&cache);
    close(rtp_fd);
    close(rtcp_fd);
    close(other_fd);
    return comparisons > 0 ? 0 : 2;
}
