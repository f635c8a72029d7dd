/* KL-57.20 and KL-57.20b probe (upstream 99e9c39b1): `listener_restart_fail tcp|tls`.
 * pjsua_handle_ip_change with restart_listener (the engine's default) closes each TCP and TLS
 * listener and opens it again (sip_transport_tcp.c pjsip_tcp_transport_restart ->
 * pjsip_tcp_transport_lis_start; sip_transport_tls.c the same). When the TCP listener's active
 * socket cannot be made (pj_activesock_create: PJ_ETOOMANY once the ioqueue's keys are all taken,
 * which peers can push toward by opening connections), 2.17 goes on to
 * pj_activesock_start_accept(NULL), whose PJ_ASSERT_RETURN aborts our builds; it also leaves the
 * bound, listening socket open and the TCP factory unregistered (no outgoing TCP either). When the
 * TLS listener's accept cannot be started (pj_ssl_sock_start_accept2, the same keys), 2.17 reports
 * the restart as done with nothing listening. For both, a later restart after a failed one only
 * updated the published address, so the listener never came back.
 *
 * This program defines pj_activesock_create and pj_ssl_sock_start_accept2 (libpjsip calls them
 * through its PLT, so these definitions interpose on libpj's) and fails the listener's one with
 * PJ_ETOOMANY while the first IP change is handled, and __assert_fail, to report the abort instead
 * of aborting. pjsua is set up as the engine sets it up (one worker thread, null audio, a TCP or a
 * TLS transport, the TLS one without a certificate: only its listening socket is looked at; the IP
 * change's parameters are PJSUA.IPChangeOptions' defaults: restart the listener, retry once after
 * 10 ms, shut connections down). After the failed change it checks that the listener's port does
 * not accept connections (the socket was closed), that pjsua reported the restart's error, and
 * that an outgoing MESSAGE still leaves over that transport (the factory is registered: a plain
 * TCP server here reads the MESSAGE, or a TLS ClientHello); then a second IP change, with no
 * failure, must bring the listener back: for TCP a MESSAGE to itself is answered 200, for TLS its
 * port accepts connections again.
 *
 * Prints "restart with no socket asserted: NO|YES; ..." Exit 0: no abort, and all of the above;
 * 1: setup failed; 2: the listener's create was never failed, or the program hung, or another
 * assertion failed; 3: the abort, or a failed restart that left a listening socket, was reported
 * as success, lost outgoing connections, or kept the listener from coming back. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pjsua-lib/pjsua.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

typedef pj_status_t (*create_fn)(pj_pool_t *, pj_sock_t, int, const pj_activesock_cfg *, pj_ioqueue_t *,
                                 const pj_activesock_cb *, void *, pj_activesock_t **);

static int tls;                      /* the listener under test is TLS's (argument tls) */
static volatile int failing;         /* set around the first IP change */
static volatile int failed_creates;  /* listener creates failed here */
static volatile int completed;       /* PJSUA_IP_CHANGE_OP_COMPLETED seen */
static volatile int restart_reports;
static volatile pj_status_t restart_status = -1;
static volatile int pager_received;
static volatile int pager_code;      /* the status of the MESSAGE to itself */

pj_status_t pj_activesock_create(pj_pool_t *pool, pj_sock_t sock, int sock_type, const pj_activesock_cfg *opt,
                                 pj_ioqueue_t *ioqueue, const pj_activesock_cb *cb, void *user_data,
                                 pj_activesock_t **p_asock)
{
    static create_fn real;

    if (real == NULL) real = (create_fn)dlsym(RTLD_NEXT, "pj_activesock_create");
    /* The TCP listener's active socket is the one that accepts (on_accept_complete). Failing
     * before the real create does what the real one does when pj_ioqueue_register_sock2 fails:
     * the socket stays the caller's. */
    if (failing && !tls && cb != NULL && cb->on_accept_complete != NULL) {
        ++failed_creates;
        return PJ_ETOOMANY;
    }
    return real(pool, sock, sock_type, opt, ioqueue, cb, user_data, p_asock);
}

typedef pj_status_t (*start_accept_fn)(pj_ssl_sock_t *, pj_pool_t *, const pj_sockaddr_t *, int,
                                       const pj_ssl_sock_param *);

pj_status_t pj_ssl_sock_start_accept2(pj_ssl_sock_t *ssock, pj_pool_t *pool, const pj_sockaddr_t *local_addr,
                                      int addr_len, const pj_ssl_sock_param *newsock_param)
{
    static start_accept_fn real;

    if (real == NULL) real = (start_accept_fn)dlsym(RTLD_NEXT, "pj_ssl_sock_start_accept2");
    /* The TLS listener starts accepting here (outgoing connections never do); failing before the
     * real start leaves the SSL socket with no socket of its own, as the real one does when its
     * active socket cannot be made. */
    if (failing && tls) {
        ++failed_creates;
        return PJ_ETOOMANY;
    }
    return real(ssock, pool, local_addr, addr_len, newsock_param);
}

void __assert_fail(const char *assertion, const char *file, unsigned line, const char *function)
{
    if (function != NULL && strstr(function, "pj_activesock_start_accept") != NULL) {
        printf("listener creates failed: %d; restart with no socket asserted: YES (%s)\n", failed_creates,
               assertion);
        fflush(stdout);
        _exit(3);
    }
    printf("listener creates failed: %d; other assertion: %s (%s:%u %s)\n", failed_creates, assertion, file, line,
           function ? function : "");
    fflush(stdout);
    _exit(2);
}

static void on_alarm(int sig)
{
    (void)sig;
    static const char text[] = "timed out (hung)\n";
    (void)!write(1, text, sizeof text - 1);
    _exit(2);
}

static void on_ip_change_progress(pjsua_ip_change_op op, pj_status_t status, const pjsua_ip_change_op_info *info)
{
    (void)info;
    if (op == PJSUA_IP_CHANGE_OP_RESTART_LIS) {
        restart_status = status;
        ++restart_reports;
    } else if (op == PJSUA_IP_CHANGE_OP_COMPLETED) {
        ++completed;
    }
}

static void on_pager(pjsua_call_id call, const pj_str_t *from, const pj_str_t *to, const pj_str_t *contact,
                     const pj_str_t *mime, const pj_str_t *body)
{
    (void)call; (void)from; (void)to; (void)contact; (void)mime; (void)body;
    ++pager_received;
}

static void on_pager_status(pjsua_call_id call, const pj_str_t *to, const pj_str_t *body, void *user_data,
                            pjsip_status_code status, const pj_str_t *reason)
{
    (void)call; (void)to; (void)body; (void)reason;
    if (user_data == &pager_code) pager_code = status;
}

/* Whether a TCP connection to 127.0.0.1:port is accepted by the kernel (a listening socket). */
static int port_accepts(unsigned port)
{
    struct sockaddr_in addr;
    int fd = socket(AF_INET, SOCK_STREAM, 0), ok;

    if (fd < 0) return -1;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons((unsigned short)port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ok = connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0;
    close(fd);
    return ok;
}

/* Waits (up to ms) until *flag >= want. */
static int wait_for(volatile int *flag, int want, int ms)
{
    for (; ms > 0 && *flag < want; ms -= 10) usleep(10000);
    return *flag >= want;
}

static pj_status_t handle_ip_change(void)
{
    pjsua_ip_change_param param;

    /* PJSUA.IPChangeOptions() as PJSUA.handleIPChange sets it. */
    pjsua_ip_change_param_default(&param);
    param.restart_listener = PJ_TRUE;
    param.restart_lis_delay = 10;
    param.shutdown_transport = PJ_TRUE;
    return pjsua_handle_ip_change(&param);
}

int main(int argc, char **argv)
{
    pjsua_config config;
    pjsua_logging_config logging;
    pjsua_media_config media;
    pjsua_transport_config transport;
    pjsua_transport_id transport_id;
    pjsua_transport_info info;
    pjsua_acc_id account;
    struct sockaddr_in peer_addr;
    socklen_t peer_len = sizeof peer_addr;
    struct pollfd pfd;
    char uri_text[80], buf[16];
    pj_str_t uri, text = pj_str("x");
    int peer, conn = -1, got = 0;
    unsigned port, peer_port;
    pj_status_t first_report, status;
    int left_listening, reported, outgoing, back;

    if (argc != 2 || (strcmp(argv[1], "tcp") != 0 && strcmp(argv[1], "tls") != 0)) {
        printf("usage: listener_restart_fail tcp|tls\n");
        return 1;
    }
    tls = strcmp(argv[1], "tls") == 0;
    signal(SIGALRM, on_alarm);
    alarm(25);
    signal(SIGPIPE, SIG_IGN);
    /* pjsua_init starts SDL for video, which wants a display and takes SIGTERM and SIGINT: the
     * engine's hints. */
    if (getenv("DISPLAY") == NULL) setenv("SDL_VIDEODRIVER", "dummy", 1);
    setenv("SDL_NO_SIGNAL_HANDLERS", "1", 1);
    pj_log_set_level(0);
    if (pjsua_create() != PJ_SUCCESS) return 1;
    pjsua_config_default(&config);
    config.thread_cnt = 1;  /* the engine's: one worker polls the SIP sockets and the timers */
    config.cb.on_ip_change_progress = &on_ip_change_progress;
    config.cb.on_pager = &on_pager;
    config.cb.on_pager_status = &on_pager_status;
    pjsua_logging_config_default(&logging);
    logging.level = 0;
    logging.console_level = 0;
    pjsua_media_config_default(&media);
    if (pjsua_init(&config, &logging, &media) != PJ_SUCCESS) return 1;
    if (pjsua_set_null_snd_dev() != PJ_SUCCESS) return 1;
    pjsua_transport_config_default(&transport);
    transport.bound_addr = pj_str("127.0.0.1");
    transport.public_addr = pj_str("127.0.0.1");
    if (pjsua_transport_create(tls ? PJSIP_TRANSPORT_TLS : PJSIP_TRANSPORT_TCP, &transport, &transport_id) != PJ_SUCCESS)
        return 1;
    if (pjsua_transport_get_info(transport_id, &info) != PJ_SUCCESS) return 1;
    port = pj_sockaddr_get_port(&info.local_addr);
    if (pjsua_acc_add_local(transport_id, PJ_TRUE, &account) != PJ_SUCCESS) return 1;
    if (pjsua_start() != PJ_SUCCESS) return 1;

    /* A plain TCP server standing for a peer, to see whether outgoing TCP still works. */
    peer = socket(AF_INET, SOCK_STREAM, 0);
    memset(&peer_addr, 0, sizeof peer_addr);
    peer_addr.sin_family = AF_INET;
    peer_addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (peer < 0 || bind(peer, (struct sockaddr *)&peer_addr, sizeof peer_addr) != 0 || listen(peer, 4) != 0
        || getsockname(peer, (struct sockaddr *)&peer_addr, &peer_len) != 0)
        return 1;
    peer_port = ntohs(peer_addr.sin_port);

    /* The change whose listener restart fails (the first try and pjsua's retry 10 ms later). */
    failing = 1;
    status = handle_ip_change();
    wait_for(&completed, 1, 5000);
    failing = 0;
    if (failed_creates == 0) {
        printf("the listener's active socket was never created during the restart (status %d)\n", status);
        return 2;
    }
    first_report = restart_status;
    left_listening = port_accepts(port);
    reported = restart_reports > 0 && first_report != PJ_SUCCESS;

    snprintf(uri_text, sizeof uri_text, "sip:peer@127.0.0.1:%u;transport=%s", peer_port, argv[1]);
    uri = pj_str(uri_text);
    status = pjsua_im_send(account, &uri, NULL, &text, NULL, NULL);
    if (status == PJ_SUCCESS) {
        pfd.fd = peer;
        pfd.events = POLLIN;
        if (poll(&pfd, 1, 3000) == 1) conn = accept(peer, NULL, NULL);
        if (conn >= 0) {
            pfd.fd = conn;
            if (poll(&pfd, 1, 3000) == 1) got = (int)read(conn, buf, sizeof buf);
            close(conn);
        }
    }
    /* TLS: the first byte of a handshake record (22), the ClientHello. */
    outgoing = tls ? got >= 1 && buf[0] == 22 : got >= 7 && memcmp(buf, "MESSAGE", 7) == 0;
    close(peer);

    /* A later change, with nothing failing, must open the listener again. */
    status = handle_ip_change();
    wait_for(&completed, 2, 5000);
    back = 0;
    if (tls) {
        /* Without a certificate no handshake completes: the port listening again is the proof. */
        back = restart_status == PJ_SUCCESS && port_accepts(port) == 1;
    } else {
        snprintf(uri_text, sizeof uri_text, "sip:probe@127.0.0.1:%u;transport=tcp", port);
        uri = pj_str(uri_text);
        if (pjsua_im_send(account, &uri, NULL, &text, NULL, (void *)&pager_code) == PJ_SUCCESS) {
            wait_for(&pager_code, 100, 5000);
            back = pager_received > 0 && pager_code == 200;
        }
    }

    printf("listener creates failed: %d; restart with no socket asserted: NO; socket left listening: %s; "
           "failure reported: %s (%d); outgoing %s after the failed restart: %s; "
           "listener back after a later restart: %s (MESSAGE %d, restart %d)\n",
           failed_creates, left_listening ? "YES" : "NO", reported ? "YES" : "NO", first_report,
           tls ? "TLS" : "TCP", outgoing ? "YES" : "NO", back ? "YES" : "NO", pager_code, restart_status);
    fflush(stdout);
    pjsua_destroy();
    return (!left_listening && reported && outgoing && back) ? 0 : 3;
}
