/*
 * swift-pjsua: PJSIP build limits for Linux (server-side and desktop load).
 * Copied to pjlib/include/pj/config_site.h by scripts/install-pjproject.sh.
 * Swift code reads these limits from the C headers; it never hard-codes them.
 */
/* 256 calls: a bot or a media-stream bridge holds a few hundred calls in one process (issue 20's
 * target is 200 streams on one core); each call takes a conference port, a media stream two more
 * (its reader and writer), so the bridge gets four per call. pjsua keeps one pjsua_call per slot
 * whether used or not; the measured cost of 128 -> 256 is in the README. */
#define PJSUA_MAX_CALLS          256   /* pjproject default: 4 */
#define PJSUA_MAX_ACC            32    /* pjproject default: 4 */
#define PJSUA_MAX_CONF_PORTS     1024  /* pjproject default: 254 */
#define PJSUA_MAX_PLAYERS        64
#define PJSUA_MAX_RECORDERS      64
/* Closed ioqueue keys linger before reuse, so size for call rate, not only concurrency. */
#define PJ_IOQUEUE_MAX_HANDLES   2048
/* Video on, as in the iOS binary (swift-pjsip): the engine keeps calls audio-only with its call
 * settings (vid_cnt 0) unless video is asked for, and the tests check that on this build. */
#define PJMEDIA_HAS_VIDEO        1
/* DTLS-SRTP (RFC 5764) next to SDES: keys agreed on the media path, none in the SDP. OpenSSL is
 * in the build already (TLS). */
#define PJMEDIA_SRTP_HAS_DTLS    1
/* Listen backlog of the SIP/TCP listener (sip_transport_tcp.c, pj_sock_listen) and of every
 * pj_ssl_sock listener, which is how SIP/TLS listens (ssl_sock_imp_common.c listens with
 * PJ_SOMAXCONN; PJSIP_TLS_TRANSPORT_BACKLOG is defined but read nowhere in 2.17). pjproject's 5
 * let a burst overflow the kernel's accept queue before pjsua's worker accepted: the excess
 * handshakes were dropped and waited for the client's retransmission (0.2-1 s each; 50
 * connections at once to `softphone answer --listen tcp:` took 82 retransmissions, test
 * `fiftyConnectionsOpenedAtOnceAreAllAnsweredWithoutARetransmission`). 256 holds a reconnect
 * storm of a few hundred clients (a proxy's restart); the kernel caps it at
 * net.core.somaxconn (4096 on Debian 12). Cost: kernel memory for connections not yet accepted
 * (a few kB each, only while queued), and a SYN flood can park 256 half-open handshakes instead
 * of 5 (SYN cookies take over past that, as before). */
#define PJSIP_TCP_TRANSPORT_BACKLOG  256   /* pjproject default: 5 */
#define PJSIP_TLS_TRANSPORT_BACKLOG  256   /* pjproject default: 5 (unused in 2.17, see above) */
#define PJ_SOMAXCONN                 256   /* pjproject default: 5 (the TLS listener's backlog) */
/* The largest SIP message received or sent, as in the iOS binary (KL-5). pjproject's 4000 cut a
 * legal INVITE with a WebRTC-style SDP (ICE candidates of many interfaces, several video codecs:
 * 11.7 kB in HostileInputTests) and a long Route set; UDP datagrams past it are cut by recvfrom
 * (the input screen answers 513, KL-3), TCP messages past it answered 513 (KL-4's patch).
 * What it sizes (pjsip 2.17): the receive buffer of every rdata, one per pending UDP read and one
 * per TCP/TLS connection (sip_transport.h, pjsip_rx_data.pkt_info.packet); the print buffer each
 * tx_data takes from its pool when first sent (sip_transport.c, pjsip_tx_data_encode), which lives
 * as long as the transaction keeps the message for retransmission; the TLS socket's buffers
 * (sip_transport_tls.c, at least this); the TCP overflow test (sip_transport.c,
 * pjsip_tpmgr_receive_packet). Measured 2026-12-06 (release builds, 2-core VM, load ~5), 4000 ->
 * 16000: soak --calls 1000: RSS 83.4 -> 178.8 MB right after the calls vs 87.1 -> 198.8 MB (about
 * 16 kB more per call whose transactions still wait out their timers), 65.7 vs 65.4 MB settled;
 * media --calls 100: 290 vs 291 kB per established PCMU call, CPU per call-second unchanged
 * (3.29 vs 3.21 ms); load --clock-rate 8000: softphone CPU medians 0.308 vs 0.287 s for 200 calls
 * (run-to-run noise is larger than any difference). */
#define PJSIP_MAX_PKT_LEN            16000 /* pjproject default: 4000 */
