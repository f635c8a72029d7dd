/* KL-57.19 probe (upstream 2e13f0835). pjsip_ua_register_dlg asserted `local.tag_hval != 0`, as if a
 * hash of 0 meant "not computed"; pj_hash_calc_tolower of a local tag can be 0, and our local tags
 * are random UUIDs (pj_create_unique_string), so about one dialog in 2^32 aborted the process
 * (PJ_ASSERT_RETURN aborts our builds). A peer cannot choose our local tag, so this program chooses
 * it: it defines pj_create_unique_string itself (libpjsip calls it through its PLT, so this
 * definition interposes on libpj's) and, when armed, hands out the tag of upstream's report, which
 * hashes to exactly 0 (checked here with the real pj_hash_calc_tolower). It also defines
 * __assert_fail (libpjsip's asserts call it through the PLT too), which reports the assertion and
 * exits 3 instead of aborting.
 *
 * 1. A UAC dialog (pjsip_dlg_create_uac) gets the zero tag and registers with the user agent;
 *    pjsip_ua_find_dialog must find it by that tag; it then ends, and must leave the user agent's
 *    table (unregistering looks its set up by the cached hash 0, under a pj_assert).
 * 2. A UAS dialog (alone with the argument "uas"): a peer (a plain UDP socket here) sends an
 *    INVITE, and this program's module makes a UAS dialog for it with the zero tag. The peer then
 *    sends an INFO in that dialog (To tag = the zero tag): mod_ua must find the dialog by its tag
 *    and hand the INFO to it, and the dialog's 200 must reach the peer. The dialog then ends and
 *    must leave the table.
 *
 * Prints "dialog with a zero tag hash registered: YES; found by its tag: UAC YES, UAS YES (the
 * peer's INFO answered 200 in the dialog)", or "...registered: NO (asserted: ...)".
 * Exit 0: both dialogs registered, found by their tag and unregistered when they ended; 1: setup
 * failed; 2: the peer's INVITE never reached the module; 3: an assertion (before the patch: the
 * zero hash, at the first dialog), or a dialog not found by its tag or left in the table. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dlfcn.h>
#include <netinet/in.h>
#include <pjlib.h>
#include <pjlib-util.h>
#include <pjsip.h>
#include <pjsip_ua.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* The local tag of upstream's report (#5100): pj_hash_calc_tolower gives 0 for it. */
#define ZERO_TAG "d48600d9-514b-4655-a606-43a65dc1f54b"

static volatile int armed;       /* the next pj_create_unique_string gives ZERO_TAG */

void __assert_fail(const char *assertion, const char *file, unsigned int line, const char *function)
{
    if (strstr(assertion, "tag_hval") != NULL)
        printf("dialog with a zero tag hash registered: NO (asserted: %s at %s:%u in %s)\n",
               assertion, file, line, function);
    else
        printf("assertion failed: %s at %s:%u in %s\n", assertion, file, line, function);
    fflush(stdout);
    _exit(3);
}

typedef void (*unique_fn)(pj_pool_t *, pj_str_t *);

void pj_create_unique_string(pj_pool_t *pool, pj_str_t *str)
{
    static unique_fn real;
    if (real == NULL) real = (unique_fn)dlsym(RTLD_NEXT, "pj_create_unique_string");
    if (!armed) {
        real(pool, str);
        return;
    }
    armed = 0;
    str->slen = (pj_ssize_t)strlen(ZERO_TAG);
    str->ptr = (char *)pj_pool_alloc(pool, str->slen);
    memcpy(str->ptr, ZERO_TAG, str->slen);
}

static pjsip_endpoint *endpt;
static pjsip_dialog *uas_dlg;
static pjsip_transaction *invite_tsx;    /* the INVITE's, made with the UAS dialog */
static pjsip_transaction *info_tsx;      /* the INFO's */
static volatile int invite_seen, info_in_dialog;
static pj_bool_t on_rx_request(pjsip_rx_data *rdata);
static void on_tsx_state(pjsip_transaction *tsx, pjsip_event *event);

static pjsip_module mod_probe = {
    NULL, NULL, { "mod-probe-tag", 13 }, -1, PJSIP_MOD_PRIORITY_APPLICATION,
    NULL, NULL, NULL, NULL, &on_rx_request, NULL, NULL, NULL, &on_tsx_state
};

static int is_zero_tag(const pj_str_t *tag)
{
    return tag->slen == (pj_ssize_t)strlen(ZERO_TAG) && memcmp(tag->ptr, ZERO_TAG, tag->slen) == 0;
}

/* Out of dialog: the peer's INVITE makes a UAS dialog (zero tag). In the dialog (as its usage):
 * the peer's INFO, found by mod_ua through the dialog's tag (answered in on_tsx_state, once its
 * transaction has it, as pjsua answers an INFO). */
static pj_bool_t on_rx_request(pjsip_rx_data *rdata)
{
    pjsip_dialog *dlg = pjsip_rdata_get_dlg(rdata);

    if (dlg != NULL) {
        if (dlg == uas_dlg && rdata->msg_info.msg->line.req.method.id == PJSIP_OTHER_METHOD) {
            info_in_dialog = 1;
            return PJ_TRUE;
        }
        return PJ_FALSE;
    }
    if (rdata->msg_info.msg->line.req.method.id != PJSIP_INVITE_METHOD || uas_dlg != NULL)
        return PJ_FALSE;
    invite_seen = 1;
    armed = 1;
    if (pjsip_dlg_create_uas_and_inc_lock(pjsip_ua_instance(), rdata, NULL, &uas_dlg) != PJ_SUCCESS) {
        armed = 0;
        uas_dlg = NULL;
        return PJ_TRUE;
    }
    armed = 0;
    invite_tsx = pjsip_rdata_get_tsx(rdata);
    if (invite_tsx != NULL) pj_grp_lock_add_ref(invite_tsx->grp_lock);    /* until main ends it */
    pjsip_dlg_inc_session(uas_dlg, &mod_probe);    /* keeps it once its lock is let go */
    pjsip_dlg_add_usage(uas_dlg, &mod_probe, NULL);
    pjsip_dlg_dec_lock(uas_dlg);
    return PJ_TRUE;
}

/* The INFO's transaction has it: answer 200 in the dialog. */
static void on_tsx_state(pjsip_transaction *tsx, pjsip_event *event)
{
    pjsip_dialog *dlg = pjsip_tsx_get_dlg(tsx);
    if (dlg != NULL && dlg == uas_dlg && tsx->role == PJSIP_ROLE_UAS &&
        tsx->state == PJSIP_TSX_STATE_TRYING && tsx->method.id == PJSIP_OTHER_METHOD &&
        event->body.tsx_state.type == PJSIP_EVENT_RX_MSG) {
        info_tsx = tsx;
        pj_grp_lock_add_ref(tsx->grp_lock);                                 /* until main ends it */
        pjsip_dlg_respond(dlg, event->body.tsx_state.src.rdata, 200, NULL, NULL, NULL);
    }
}

/* Pumps the endpoint until `*flag` is set or `ms` pass; collects what the peer socket got. */
static void pump(volatile int *flag, int ms, int peer, char *got, size_t got_size)
{
    pj_time_val tv = { 0, 10 };
    int waited;
    for (waited = 0; waited < ms && !(flag && *flag); waited += 10) {
        ssize_t n;
        pjsip_endpt_handle_events(endpt, &tv);
        if (peer >= 0 && got != NULL && (n = recv(peer, got, got_size - 1, MSG_DONTWAIT)) > 0)
            got[n] = '\0';
    }
}

int main(int argc, char **argv)
{
    pj_caching_pool cp;
    pjsip_dialog *uac;
    pjsip_transport *tp;
    pj_sockaddr_in addr;
    pj_str_t local = pj_str("<sip:alice@127.0.0.1>");
    pj_str_t remote = pj_str("<sip:bob@127.0.0.1>");
    pj_str_t zero = pj_str(ZERO_TAG), none = { NULL, 0 }, call_id;
    struct sockaddr_in peer_addr, to;
    socklen_t len = sizeof(peer_addr);
    char msg[1024], got[2048] = "";
    int peer, port, peer_port, uac_found = -1, uas_found, uas_gone;
    int uas_only = argc > 1 && strcmp(argv[1], "uas") == 0;
    volatile int never = 0;

    pj_log_set_level(0);
    if (pj_init() != PJ_SUCCESS || pjlib_util_init() != PJ_SUCCESS) return 1;
    if (pj_hash_calc_tolower(0, NULL, &zero) != 0) {
        printf("setup: the test tag does not hash to 0\n");
        return 1;
    }
    pj_caching_pool_init(&cp, NULL, 0);
    if (pjsip_endpt_create(&cp.factory, "probe", &endpt) != PJ_SUCCESS) return 1;
    if (pjsip_tsx_layer_init_module(endpt) != PJ_SUCCESS) return 1;
    if (pjsip_ua_init_module(endpt, NULL) != PJ_SUCCESS) return 1;
    if (pjsip_endpt_register_module(endpt, &mod_probe) != PJ_SUCCESS) return 1;
    pj_sockaddr_in_init(&addr, NULL, 0);
    addr.sin_addr.s_addr = pj_htonl(0x7F000001);
    if (pjsip_udp_transport_start(endpt, &addr, NULL, 1, &tp) != PJ_SUCCESS) return 1;
    port = tp->local_name.port;

    /* 1. UAC (skipped with the argument "uas"). */
    if (uas_only) goto uas;
    armed = 1;
    if (pjsip_dlg_create_uac(pjsip_ua_instance(), &local, &local, &remote, &remote, &uac) != PJ_SUCCESS) {
        printf("setup: no UAC dialog\n");
        return 1;
    }
    armed = 0;
    if (!is_zero_tag(&uac->local.info->tag)) {
        printf("setup: the UAC dialog did not get the test tag\n");
        return 1;
    }
    call_id = uac->call_id->id;
    uac_found = pjsip_ua_find_dialog(&call_id, &zero, &none, PJ_FALSE) == uac;
    pjsip_dlg_inc_session(uac, &mod_probe);
    pjsip_dlg_dec_session(uac, &mod_probe);         /* destroys it: unregistered */
    if (pjsip_ua_get_dlg_set_count() != 0) {
        printf("dialog with a zero tag hash registered: YES; but not unregistered\n");
        return 3;
    }

    /* 2. UAS, through a peer's INVITE and an INFO in its dialog. */
uas:
    peer = socket(AF_INET, SOCK_DGRAM, 0);
    memset(&peer_addr, 0, sizeof(peer_addr));
    peer_addr.sin_family = AF_INET;
    peer_addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (peer < 0 || bind(peer, (struct sockaddr *)&peer_addr, sizeof(peer_addr)) != 0 ||
        getsockname(peer, (struct sockaddr *)&peer_addr, &len) != 0)
        return 1;
    peer_port = ntohs(peer_addr.sin_port);
    memset(&to, 0, sizeof(to));
    to.sin_family = AF_INET;
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    to.sin_port = htons((unsigned short)port);
    snprintf(msg, sizeof(msg),
             "INVITE sip:probe@127.0.0.1:%d SIP/2.0\r\n"
             "Via: SIP/2.0/UDP 127.0.0.1:%d;branch=z9hG4bK-tag-hash-1\r\n"
             "Max-Forwards: 70\r\n"
             "From: <sip:peer@127.0.0.1:%d>;tag=peer-tag\r\n"
             "To: <sip:probe@127.0.0.1:%d>\r\n"
             "Call-ID: tag-hash-probe@127.0.0.1\r\n"
             "CSeq: 1 INVITE\r\n"
             "Contact: <sip:peer@127.0.0.1:%d>\r\n"
             "Content-Length: 0\r\n\r\n", port, peer_port, peer_port, port, peer_port);
    sendto(peer, msg, strlen(msg), 0, (struct sockaddr *)&to, sizeof(to));
    pump(&invite_seen, 5000, -1, NULL, 0);
    if (!invite_seen) {
        printf("the peer's INVITE never reached the probe's module\n");
        return 2;
    }
    if (uas_dlg == NULL) {
        printf("dialog with a zero tag hash registered: NO (the UAS dialog was refused)\n");
        return 3;
    }
    if (!is_zero_tag(&uas_dlg->local.info->tag)) {
        printf("setup: the UAS dialog did not get the test tag\n");
        return 1;
    }
    snprintf(msg, sizeof(msg),
             "INFO sip:probe@127.0.0.1:%d SIP/2.0\r\n"
             "Via: SIP/2.0/UDP 127.0.0.1:%d;branch=z9hG4bK-tag-hash-2\r\n"
             "Max-Forwards: 70\r\n"
             "From: <sip:peer@127.0.0.1:%d>;tag=peer-tag\r\n"
             "To: <sip:probe@127.0.0.1:%d>;tag=%s\r\n"
             "Call-ID: tag-hash-probe@127.0.0.1\r\n"
             "CSeq: 2 INFO\r\n"
             "Content-Length: 0\r\n\r\n", port, peer_port, peer_port, port, ZERO_TAG);
    sendto(peer, msg, strlen(msg), 0, (struct sockaddr *)&to, sizeof(to));
    pump(&info_in_dialog, 5000, peer, got, sizeof(got));
    if (info_in_dialog) pump(&never, 300, peer, got, sizeof(got));   /* the 200 on its way */
    uas_found = info_in_dialog && strncmp(got, "SIP/2.0 200", 11) == 0 && strstr(got, "CSeq: 2 INFO") != NULL;
    /* Ends the dialog: its session, then its transactions, now rather than at their timers (the
     * INVITE's waits for an answer, the INFO's keeps its 200 for retransmissions). Unregistering
     * looks the dialog's set up by the cached hash 0. */
    pjsip_dlg_dec_session(uas_dlg, &mod_probe);
    if (info_tsx != NULL) {
        pjsip_tsx_terminate(info_tsx, 200);
        pj_grp_lock_dec_ref(info_tsx->grp_lock);
    }
    if (invite_tsx != NULL) {
        pjsip_tsx_terminate(invite_tsx, PJSIP_SC_REQUEST_TERMINATED);
        pj_grp_lock_dec_ref(invite_tsx->grp_lock);
    }
    pump(&never, 200, -1, NULL, 0);
    uas_gone = pjsip_ua_get_dlg_set_count() == 0;

    printf("dialog with a zero tag hash registered: YES; found by its tag: UAC %s, UAS %s%s%s\n",
           uac_found < 0 ? "skipped" : uac_found ? "YES" : "NO", uas_found ? "YES" : "NO",
           uas_found ? " (the peer's INFO answered 200 in the dialog)"
                     : info_in_dialog ? " (INFO reached the dialog, no 200 at the peer)" : " (INFO not given to the dialog)",
           uas_gone ? "" : "; the UAS dialog was not unregistered");
    fflush(stdout);
    close(peer);
    return uac_found != 0 && uas_found && uas_gone ? 0 : 3;
}
