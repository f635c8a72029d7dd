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
#include "pool_release_hook.h"

typedef pj_status_t (*lock_release_fn)(pj_grp_lock_t *);
typedef pj_status_t (*decode_fn)(pjmedia_rtp_session *, const void *, int, const pjmedia_rtp_hdr **,
                                 const void **, unsigned *);
typedef pj_status_t (*decode2_fn)(pjmedia_rtp_session *, const void *, int, const pjmedia_rtp_hdr **,
                                  pjmedia_rtp_dec_hdr *, const void **, unsigned *);

static char window;                        /* 'a', 'b' or 'c' */
static pthread_t main_thread;
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

static int on_worker(void) { return !pthread_equal(pthread_self(), main_thread); }

static int from_pjmedia(const void *address)
{
    Dl_info info;
    return dladdr(address, &info) && info.dli_fname != NULL && strstr(info.dli_fname, "libpjmedia.so") != NULL;
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

static void send_rtp(int fd, const struct sockaddr_in *to, unsigned seq)
{
    unsigned char packet[12 + 160];

    memset(packet, 0xff, sizeof packet);
    packet[0] = 0x80;  /* version 2 */
    packet[1] = 0;     /* PCMU */
    packet[2] = (unsigned char)(seq >> 8);
    packet[3] = (unsigned char)seq;
    packet[4] = 0; packet[5] = 0; packet[6] = (unsigned char)(seq >> 8); packet[7] = (unsigned char)(seq * 160);
    packet[8] = 0x11; packet[9] = 0x22; packet[10] = 0x33; packet[11] = 0x44;
    sendto(fd, packet, sizeof packet, 0, (const struct sockaddr *)to, sizeof *to);
}

static void send_rtcp(int fd, const struct sockaddr_in *to)
{
    /* An empty receiver report: version 2, no blocks, length 1 (8 bytes), the sender's SSRC. */
    const unsigned char packet[8] = {0x80, 201, 0, 1, 0x11, 0x22, 0x33, 0x44};
    sendto(fd, packet, sizeof packet, 0, (const struct sockaddr *)to, sizeof *to);
}

int main(int argc, char **argv)
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
    struct sockaddr_in rtp_peer, rtcp_peer, rtp_to, rtcp_to;
    int rtp_fd, rtcp_fd, port, waited;
    const char *choice = argc > 1 ? argv[1] : getenv("RTP_RX_WINDOW");

    if (choice == NULL || (choice[0] != 'a' && choice[0] != 'b' && choice[0] != 'c') || choice[1] != '\0') {
        fprintf(stderr, "usage: %s a|b|c (a: after the transport's snapshot, b: in on_rx_rtp's decode, "
                        "c: after the RTCP snapshot)\n", argv[0]);
        return 1;
    }
    window = choice[0];
    main_thread = pthread_self();

    pj_log_set_level(0);
    if (pj_init() != PJ_SUCCESS || pjlib_util_init() != PJ_SUCCESS) return 1;
    pj_caching_pool_init(&cache, NULL, 0);
    /* One worker thread polls the media ioqueue, as pjsua's single worker does. */
    if (pjmedia_endpt_create2(&cache.factory, NULL, 1, &endpt) != PJ_SUCCESS) return 1;
    if (pjmedia_codec_g711_init(endpt) != PJ_SUCCESS) return 1;
    pool = pjmedia_endpt_create_pool(endpt, "probe", 4000, 4000);
    if (pjmedia_event_mgr_create(pool, 0, NULL) != PJ_SUCCESS) return 1;  /* the streams subscribe */

    for (port = 41000 + (getpid() % 2000) * 2; port < 65000 && tp == NULL; port += 2) {
        if (pjmedia_transport_udp_create3(endpt, pj_AF_INET(), "probe", &loopback, port, 0, &tp) != PJ_SUCCESS)
            tp = NULL;
    }
    if (tp == NULL) return 1;
    transport_lock = tp->grp_lock;
    pjmedia_transport_info_init(&info);
    if (pjmedia_transport_get_info(tp, &info) != PJ_SUCCESS || transport_lock == NULL) return 1;
    memcpy(&rtp_to, &info.sock_info.rtp_addr_name.ipv4, sizeof rtp_to);
    memcpy(&rtcp_to, &info.sock_info.rtcp_addr_name.ipv4, sizeof rtcp_to);
    rtp_to.sin_addr.s_addr = rtcp_to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);

    rtp_fd = peer_socket(&rtp_peer);
    rtcp_fd = peer_socket(&rtcp_peer);
    if (rtp_fd < 0 || rtcp_fd < 0) return 1;

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
    /* pjsua's order: the transport's media is started (its reads posted), then the stream. */
    if (pjmedia_transport_media_start(tp, pool, NULL, NULL, 0) != PJ_SUCCESS) return 1;
    if (pjmedia_stream_create(endpt, pool, &si, tp, NULL, &stream) != PJ_SUCCESS) return 1;
    if (pjmedia_stream_start(stream) != PJ_SUCCESS) return 1;

    /* A first packet, unheld: the stream receives. */
    send_rtp(rtp_fd, &rtp_to, 1);
    for (waited = 0; waited < 200 && !decoded; ++waited) usleep(10000);
    if (!decoded) {
        printf("window %c: setup: the stream received nothing\n", window);
        return 1;
    }

    watched_stream = stream;
    armed = 1;
    if (window == 'c') send_rtcp(rtcp_fd, &rtcp_to);
    else send_rtp(rtp_fd, &rtp_to, 2);
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
    pjmedia_transport_close(tp);
    pjmedia_event_mgr_destroy(NULL);
    pj_pool_release(pool);
    pjmedia_endpt_destroy(endpt);
    pj_caching_pool_destroy(&cache);
    close(rtp_fd);
    close(rtcp_fd);
    return released ? 0 : 2;
}
