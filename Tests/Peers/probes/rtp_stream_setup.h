/* The pjmedia stream set-up of the RTP probes (rtp_rx_destroy.c, rtp_attach_race.c,
 * rtcp_early.c): pjlib and a media endpoint with one worker thread polling its ioqueue (as
 * pjsua's single worker does), G.711, an event manager (the streams subscribe), a UDP media
 * transport on 127.0.0.1 with its media started (its reads posted, as pjsua does before it creates
 * a stream), a peer's UDP sockets, and the info of a PCMU stream to that peer; then the packets
 * the peer sends and the hooks' tests of where a call came from.
 *
 * One .c file per probe (Tests/PJSUATestSupport/PJSIPProbe.swift): this header is included with
 * quotes and defines its functions static. */
#ifndef RTP_STREAM_SETUP_H
#define RTP_STREAM_SETUP_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
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

static pthread_t main_thread;              /* the thread that ran rtp_setup_open */

struct rtp_setup {
    pj_caching_pool cache;
    pjmedia_endpt *endpt;
    pj_pool_t *pool;
    pjmedia_transport *tp;                 /* its media started, no stream attached */
    struct sockaddr_in rtp_to, rtcp_to;    /* the transport's RTP and RTCP addresses */
    /* The peer's sockets: the stream's remote RTP and RTCP (the SDP's address), another source. */
    int rtp_fd, rtcp_fd, other_fd;
    pjmedia_stream_info si;                /* PCMU, to rtp_fd and rtcp_fd */
};

static int on_worker(void) { return !pthread_equal(pthread_self(), main_thread); }

/* The window a probe is run for: 'a', 'b' or 'c', from its argument or else the environment
 * variable `variable`; 0 when neither is one of them, having printed "usage: PROGRAM a|b|c
 * (`windows`)". */
static __attribute__((unused)) char window_choice(int argc, char **argv, const char *variable,
                                                  const char *windows)
{
    const char *choice = argc > 1 ? argv[1] : getenv(variable);

    if (choice == NULL || (choice[0] != 'a' && choice[0] != 'b' && choice[0] != 'c') || choice[1] != '\0') {
        fprintf(stderr, "usage: %s a|b|c (%s)\n", argv[0], windows);
        return 0;
    }
    return choice[0];
}

/* Whether the code at `address` (a hook's return address) is libpjmedia's. */
static int from_pjmedia(const void *address)
{
    Dl_info info;
    return dladdr(address, &info) && info.dli_fname != NULL && strstr(info.dli_fname, "libpjmedia.so") != NULL;
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

/* Sets up everything in `s`, the transport on the first pair of ports free from `first_port` + 2 *
 * (pid % 2000) (each probe its own range, so that probes run at once do not meet). 0, or 1 when a
 * step failed. */
static int rtp_setup_open(struct rtp_setup *s, int first_port)
{
    pj_str_t loopback = pj_str("127.0.0.1");
    pjmedia_transport_info info;
    const pjmedia_codec_info *codec;
    struct sockaddr_in rtp_peer, rtcp_peer, other_peer;
    int port;

    main_thread = pthread_self();
    s->tp = NULL;
    pj_log_set_level(0);
    if (pj_init() != PJ_SUCCESS || pjlib_util_init() != PJ_SUCCESS) return 1;
    pj_caching_pool_init(&s->cache, NULL, 0);
    /* One worker thread polls the media ioqueue, as pjsua's single worker does. */
    if (pjmedia_endpt_create2(&s->cache.factory, NULL, 1, &s->endpt) != PJ_SUCCESS) return 1;
    if (pjmedia_codec_g711_init(s->endpt) != PJ_SUCCESS) return 1;
    s->pool = pjmedia_endpt_create_pool(s->endpt, "probe", 4000, 4000);
    if (pjmedia_event_mgr_create(s->pool, 0, NULL) != PJ_SUCCESS) return 1;  /* the streams subscribe */

    for (port = first_port + (getpid() % 2000) * 2; port < 65000 && s->tp == NULL; port += 2) {
        if (pjmedia_transport_udp_create3(s->endpt, pj_AF_INET(), "probe", &loopback, port, 0, &s->tp)
            != PJ_SUCCESS)
            s->tp = NULL;
    }
    if (s->tp == NULL) return 1;
    pjmedia_transport_info_init(&info);
    if (pjmedia_transport_get_info(s->tp, &info) != PJ_SUCCESS) return 1;
    memcpy(&s->rtp_to, &info.sock_info.rtp_addr_name.ipv4, sizeof s->rtp_to);
    memcpy(&s->rtcp_to, &info.sock_info.rtcp_addr_name.ipv4, sizeof s->rtcp_to);
    s->rtp_to.sin_addr.s_addr = s->rtcp_to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);

    s->rtp_fd = peer_socket(&rtp_peer);
    s->rtcp_fd = peer_socket(&rtcp_peer);
    s->other_fd = peer_socket(&other_peer);
    if (s->rtp_fd < 0 || s->rtcp_fd < 0 || s->other_fd < 0) return 1;

    pj_bzero(&s->si, sizeof s->si);
    s->si.type = PJMEDIA_TYPE_AUDIO;
    s->si.proto = PJMEDIA_TP_PROTO_RTP_AVP;
    s->si.dir = PJMEDIA_DIR_ENCODING_DECODING;
    pj_sockaddr_in_init(&s->si.rem_addr.ipv4, &loopback, ntohs(rtp_peer.sin_port));
    pj_sockaddr_in_init(&s->si.rem_rtcp.ipv4, &loopback, ntohs(rtcp_peer.sin_port));
    if (pjmedia_codec_mgr_get_codec_info(pjmedia_endpt_get_codec_mgr(s->endpt), 0, &codec) != PJ_SUCCESS)
        return 1;
    s->si.fmt = *codec;
    s->si.tx_pt = s->si.rx_pt = 0;
    s->si.tx_event_pt = s->si.rx_event_pt = -1;
    s->si.ssrc = 0x55667788;
    s->si.jb_init = s->si.jb_min_pre = s->si.jb_max_pre = s->si.jb_max = -1;
    s->si.jb_discard_algo = PJMEDIA_JB_DISCARD_NONE;
    /* pjsua's order: the transport's media is started (its reads posted), then the stream. */
    return pjmedia_transport_media_start(s->tp, s->pool, NULL, NULL, 0) != PJ_SUCCESS;
}

/* After the probe has destroyed its stream. */
static void rtp_setup_close(struct rtp_setup *s)
{
    pjmedia_transport_close(s->tp);
    pjmedia_event_mgr_destroy(NULL);
    pj_pool_release(s->pool);
    pjmedia_endpt_destroy(s->endpt);
    pj_caching_pool_destroy(&s->cache);
    close(s->rtp_fd);
    close(s->rtcp_fd);
    close(s->other_fd);
}

/* The peer's packets (not every probe sends both). A PCMU packet from `fd`, sequence `seq`. */
static __attribute__((unused)) void send_rtp(int fd, const struct sockaddr_in *to, unsigned seq)
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

static __attribute__((unused)) void send_rtcp(int fd, const struct sockaddr_in *to)
{
    /* An empty receiver report: version 2, no blocks, length 1 (8 bytes), the sender's SSRC. */
    const unsigned char packet[8] = {0x80, 201, 0, 1, 0x11, 0x22, 0x33, 0x44};
    sendto(fd, packet, sizeof packet, 0, (const struct sockaddr *)to, sizeof *to);
}

#endif
