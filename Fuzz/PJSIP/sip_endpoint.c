/*
 * sip_endpoint: a UDP datagram through a pjsip endpoint set up as pjsua sets up its own, and
 * what each layer does with it: the transport layer's checks, our own modules ahead of and after
 * pjsua's (the input screen, when Sources/CPJSUASupport/InputScreen.c exists, and the answers to
 * unhandled requests), the transaction layer's matching, the UA layer's dialog matching, the
 * INVITE session with its SDP negotiation, 100rel and session timers, event subscriptions
 * (presence: its PIDF parsing), registration, and digest authentication of a challenge.
 *
 * Set up once (LLVMFuzzerInitialize): the endpoint and pjsua's modules (transaction layer, UA
 * layer, INVITE usage, 100rel, session timers, event subscription, presence, REFER, Replaces),
 * a UDP transport that sends nothing (its send_msg discards: no socket, nothing leaves the
 * process), and a resolver that answers every name with 127.0.0.1 at once.
 *
 * Per input, before the datagram arrives, the dialogs a peer could be answering, each created
 * only when the input names it (its token, e.g. "fuzz-inv", in a Call-ID, tag or branch), with
 * fixed identifiers so that a seed can match them:
 *   fuzz-inv   our INVITE with our SDP offer: Call-ID fuzz-inv-call, From tag fuzz-inv-tag,
 *              branch z9hG4bK-fuzz-inv (responses, then requests in the call's dialog)
 *   fuzz-pres  our presence SUBSCRIBE: fuzz-pres-call, fuzz-pres-tag, z9hG4bK-fuzz-pres
 *              (its 200 and NOTIFYs with PIDF bodies)
 *   fuzz-reg   our REGISTER: fuzz-reg-call, fuzz-reg-tag, z9hG4bK-fuzz-reg (the registrar's
 *              answers: Contact expiries, Service-Route, a 401 answered with our credential)
 * Then the datagram, as the UDP transport hands it over (pjsip_tpmgr_receive_packet, from
 * 192.0.2.10:5060). An out-of-dialog INVITE is taken as pjsua takes it (verified, a UAS dialog
 * and INVITE session answering with our SDP: 100, 180, 200), an OPTIONS answered as pjsua's
 * options module does (Allow, Accept, Supported).
 *
 * Then everything the input started is ended (sessions and subscriptions terminated, their
 * transactions terminated, the endpoint's timers run until no transaction and no dialog is
 * left), so that each input starts from the same state.
 */
#define _GNU_SOURCE 1 /* memmem */
#include <pjsip.h>
#include <pjsip_ua.h>
#include <pjsip_simple.h>
#include <pjmedia/sdp.h>
#include "CPJSUASupport.h"
#include "common.h"

static pjsip_endpoint *endpoint;
static pjsip_transport *transport;
static pjmedia_sdp_session *our_sdp;
static pj_pool_t *setup_pool;

/* Our modules (Sources/CPJSUASupport) register with pjsua's endpoint: this is that endpoint. */
pjsip_endpoint *pjsua_get_pjsip_endpt(void) {
    return endpoint;
}

/* ---- a UDP transport that sends nothing ---------------------------------------------------- */

static pj_status_t discard_send(pjsip_transport *tp, pjsip_tx_data *tdata, const pj_sockaddr_t *rem_addr,
                                int addr_len, void *token, pjsip_transport_callback callback) {
    (void)tp;
    (void)tdata;
    (void)rem_addr;
    (void)addr_len;
    (void)token;
    (void)callback;
    return PJ_SUCCESS;
}

static pj_status_t discard_shutdown(pjsip_transport *tp) {
    (void)tp;
    return PJ_SUCCESS;
}

static pj_status_t discard_destroy(pjsip_transport *tp) {
    (void)tp;
    return PJ_SUCCESS;
}

static void create_transport(void) {
    pj_pool_t *pool = pjsip_endpt_create_pool(endpoint, "fuzz-udp", 1024, 1024);
    pjsip_transport *tp = PJ_POOL_ZALLOC_T(pool, pjsip_transport);
    pj_ansi_strxcpy(tp->obj_name, "fuzz-udp", sizeof(tp->obj_name));
    tp->pool = pool;
    if (pj_atomic_create(pool, 0, &tp->ref_cnt) != PJ_SUCCESS) abort();
    if (pj_lock_create_recursive_mutex(pool, "fuzz-udp", &tp->lock) != PJ_SUCCESS) abort();
    tp->key.type = PJSIP_TRANSPORT_UDP;
    tp->key.rem_addr.addr.sa_family = (pj_uint16_t)pj_AF_INET();
    tp->type_name = "UDP";
    tp->info = "fuzz udp (discards)";
    tp->flag = pjsip_transport_get_flag_from_type(PJSIP_TRANSPORT_UDP);
    pj_str_t host = pj_str("127.0.0.1");
    pj_sockaddr_in_init(&tp->local_addr.ipv4, &host, 5060);
    tp->addr_len = sizeof(pj_sockaddr_in);
    tp->local_name.host = host;
    tp->local_name.port = 5060;
    tp->dir = PJSIP_TP_DIR_NONE;
    tp->endpt = endpoint;
    tp->send_msg = &discard_send;
    tp->do_shutdown = &discard_shutdown;
    tp->destroy = &discard_destroy;
    if (pjsip_transport_register(pjsip_endpt_get_tpmgr(endpoint), tp) != PJ_SUCCESS) abort();
    transport = tp;
}

/* Every name resolves at once to 127.0.0.1 (an IP address to itself): no DNS query leaves. */
static void resolve_locally(pjsip_resolver_t *resolver, pj_pool_t *pool, const pjsip_host_info *target, void *token,
                            pjsip_resolver_callback *callback) {
    (void)resolver;
    (void)pool;
    pjsip_server_addresses addresses;
    pj_bzero(&addresses, sizeof(addresses));
    int port = target->addr.port != 0 ? target->addr.port : 5060;
    pj_sockaddr_in *in = &addresses.entry[0].addr.ipv4;
    pj_str_t loopback = pj_str("127.0.0.1");
    pj_sockaddr_in_init(in, &loopback, (pj_uint16_t)port);
    /* An IPv4 literal stands for itself; pj_inet_pton never asks the system's resolver. */
    pj_in_addr literal;
    if (pj_inet_pton(pj_AF_INET(), &target->addr.host, &literal) == PJ_SUCCESS) in->sin_addr = literal;
    addresses.count = 1;
    addresses.entry[0].type = target->type != PJSIP_TRANSPORT_UNSPECIFIED ? target->type : PJSIP_TRANSPORT_UDP;
    addresses.entry[0].addr_len = sizeof(pj_sockaddr_in);
    (*callback)(PJ_SUCCESS, token, &addresses);
}

static pjsip_ext_resolver local_resolver = { &resolve_locally };

/* ---- what the input started, ended after it ------------------------------------------------- */

enum { MAX_TRACKED = 64 };
static pjsip_transaction *tracked_tsx[MAX_TRACKED];
static unsigned tracked_tsx_count;
static pjsip_inv_session *tracked_inv[MAX_TRACKED];
static unsigned tracked_inv_count;
static pjsip_evsub *tracked_sub[8];
static unsigned tracked_sub_count;
static pjsip_regc *registration;

static void track_tsx(pjsip_transaction *tsx) {
    if (tsx == NULL) return;
    for (unsigned i = 0; i < tracked_tsx_count; ++i) {
        if (tracked_tsx[i] == tsx) return;
    }
    if (tracked_tsx_count == MAX_TRACKED) return;
    pj_grp_lock_add_ref(tsx->grp_lock);
    tracked_tsx[tracked_tsx_count++] = tsx;
}

static void track_inv(pjsip_inv_session *inv) {
    if (inv == NULL || tracked_inv_count == MAX_TRACKED) return;
    pjsip_inv_add_ref(inv);
    tracked_inv[tracked_inv_count++] = inv;
}

/* Every transaction that sends (our requests, our responses) passes here with its tdata. */
static pj_status_t tracker_on_tx(pjsip_tx_data *tdata) {
    track_tsx((pjsip_transaction *)tdata->mod_data[pjsip_tsx_layer_instance()->id]);
    return PJ_SUCCESS;
}

static pj_bool_t tracker_on_rx(pjsip_rx_data *rdata) {
    track_tsx(pjsip_rdata_get_tsx(rdata));
    return PJ_FALSE;
}

/* Last to see a request or response (after the application): records the transaction the
 * layers created for it, so that one no module answered is ended too. */
static pjsip_module tracker_module = {
    NULL, NULL, { "mod-fuzz-tracker", 16 }, -1, PJSIP_MOD_PRIORITY_APPLICATION + 100,
    NULL, NULL, NULL, NULL, &tracker_on_rx, &tracker_on_rx, &tracker_on_tx, &tracker_on_tx, NULL,
};

static void end_everything(void) {
    if (registration != NULL) {
        (void)pjsip_regc_destroy2(registration, PJ_TRUE);
        registration = NULL;
    }
    for (unsigned i = 0; i < tracked_sub_count; ++i) {
        if (pjsip_evsub_get_state(tracked_sub[i]) != PJSIP_EVSUB_STATE_TERMINATED) {
            /* With the callbacks: the presence module releases its pools in its own. */
            (void)pjsip_evsub_terminate(tracked_sub[i], PJ_TRUE);
        }
        (void)pjsip_evsub_dec_ref(tracked_sub[i]);
    }
    tracked_sub_count = 0;
    for (unsigned i = 0; i < tracked_inv_count; ++i) {
        if (tracked_inv[i]->state != PJSIP_INV_STATE_DISCONNECTED) {
            (void)pjsip_inv_terminate(tracked_inv[i], PJSIP_SC_REQUEST_TERMINATED, PJ_FALSE);
        }
        (void)pjsip_inv_dec_ref(tracked_inv[i]);
    }
    tracked_inv_count = 0;
    for (unsigned i = 0; i < tracked_tsx_count; ++i) {
        if (tracked_tsx[i]->state < PJSIP_TSX_STATE_TERMINATED) {
            (void)pjsip_tsx_terminate(tracked_tsx[i], PJSIP_SC_REQUEST_TERMINATED);
        }
        pj_grp_lock_dec_ref(tracked_tsx[i]->grp_lock);
    }
    tracked_tsx_count = 0;
    /* Destruction runs on zero-delay timers. */
    pj_time_val none = { 0, 0 };
    for (int round = 0; round < 8; ++round) {
        (void)pjsip_endpt_handle_events(endpoint, &none);
        if (pjsip_tsx_layer_get_tsx_count() == 0 && pjsip_ua_get_dlg_set_count() == 0) break;
    }
#ifdef FUZZ_DEBUG
    /* -DFUZZ_DEBUG: what each input left behind; anything but 0, 0 and a steady byte count means
     * inputs no longer start from the same state. */
    extern size_t __sanitizer_get_current_allocated_bytes(void);
    fprintf(stderr, "left: %u transactions, %u dialog sets, %zu bytes allocated\n", pjsip_tsx_layer_get_tsx_count(),
            pjsip_ua_get_dlg_set_count(), __sanitizer_get_current_allocated_bytes());
#endif
}

/* ---- pjsua's parts --------------------------------------------------------------------------- */

static void on_state_changed(pjsip_inv_session *inv, pjsip_event *e) {
    (void)inv;
    (void)e;
}

static void on_new_session(pjsip_inv_session *inv, pjsip_event *e) {
    (void)e;
    track_inv(inv);  /* a forked or redirected call */
}

/* A re-INVITE or UPDATE with an offer: pjsua answers from its media (our SDP again). */
static void on_rx_offer(pjsip_inv_session *inv, const pjmedia_sdp_session *offer) {
    (void)offer;
    (void)pjsip_inv_set_sdp_answer(inv, pjmedia_sdp_session_clone(inv->pool_prov, our_sdp));
}

/* What pjsua reads of a negotiated session before it starts the media. */
static void on_media_update(pjsip_inv_session *inv, pj_status_t status) {
    if (status != PJ_SUCCESS || inv->neg == NULL) return;
    const pjmedia_sdp_session *local = NULL, *remote = NULL;
    if (pjmedia_sdp_neg_get_active_local(inv->neg, &local) != PJ_SUCCESS ||
        pjmedia_sdp_neg_get_active_remote(inv->neg, &remote) != PJ_SUCCESS) {
        return;
    }
    char buf[4096];
    (void)pjmedia_sdp_print(local, buf, sizeof(buf));
    (void)pjmedia_sdp_print(remote, buf, sizeof(buf));
}

static pjsip_inv_callback inv_callbacks = {
    .on_state_changed = &on_state_changed,
    .on_new_session = &on_new_session,
    .on_rx_offer = &on_rx_offer,
    .on_media_update = &on_media_update,
};

static void send_stateless(pjsip_rx_data *rdata, pjsip_tx_data *tdata) {
    if (pjsip_endpt_send_response2(endpoint, rdata, tdata, NULL, NULL) != PJ_SUCCESS) {
        pjsip_tx_data_dec_ref(tdata);
    }
}

/* pjsua_call_on_incoming, in the order pjsua does it: verify, dialog, session, answers. */
static void incoming_invite(pjsip_rx_data *rdata) {
    unsigned options = PJSIP_INV_SUPPORT_100REL | PJSIP_INV_SUPPORT_TIMER;
    pjsip_tx_data *response = NULL;
    if (pjsip_inv_verify_request3(rdata, rdata->tp_info.pool, &options, NULL, our_sdp, NULL, endpoint, &response) !=
        PJ_SUCCESS) {
        if (response != NULL) send_stateless(rdata, response);
        else pjsip_endpt_respond_stateless(endpoint, rdata, PJSIP_SC_INTERNAL_SERVER_ERROR, NULL, NULL, NULL);
        return;
    }
    pj_str_t contact = pj_str("<sip:fuzz@127.0.0.1:5060>");
    pjsip_dialog *dlg = NULL;
    if (pjsip_dlg_create_uas_and_inc_lock(pjsip_ua_instance(), rdata, &contact, &dlg) != PJ_SUCCESS) {
        pjsip_endpt_respond_stateless(endpoint, rdata, PJSIP_SC_INTERNAL_SERVER_ERROR, NULL, NULL, NULL);
        return;
    }
    pjsip_inv_session *inv = NULL;
    if (pjsip_inv_create_uas(dlg, rdata, our_sdp, options, &inv) != PJ_SUCCESS) {
        pjsip_dlg_dec_lock(dlg);
        pjsip_endpt_respond_stateless(endpoint, rdata, PJSIP_SC_INTERNAL_SERVER_ERROR, NULL, NULL, NULL);
        return;
    }
    track_inv(inv);
    pjsip_timer_setting timer;
    pjsip_timer_setting_default(&timer);
    (void)pjsip_timer_init_session(inv, &timer);
    pjsip_tx_data *tdata = NULL;
    if (pjsip_inv_initial_answer(inv, rdata, 100, NULL, NULL, &tdata) == PJ_SUCCESS) {
        (void)pjsip_inv_send_msg(inv, tdata);
        if (pjsip_inv_answer(inv, 180, NULL, NULL, &tdata) == PJ_SUCCESS) (void)pjsip_inv_send_msg(inv, tdata);
        if (pjsip_inv_answer(inv, 200, NULL, NULL, &tdata) == PJ_SUCCESS) (void)pjsip_inv_send_msg(inv, tdata);
    }
    pjsip_dlg_dec_lock(dlg);
}

/* pjsua's options module: 200 with the endpoint's capabilities. */
static void incoming_options(pjsip_rx_data *rdata) {
    pjsip_tx_data *tdata = NULL;
    if (pjsip_endpt_create_response(endpoint, rdata, PJSIP_SC_OK, NULL, &tdata) != PJ_SUCCESS) return;
    static const int capabilities[] = { PJSIP_H_ALLOW, PJSIP_H_ACCEPT, PJSIP_H_SUPPORTED };
    for (unsigned i = 0; i < PJ_ARRAY_SIZE(capabilities); ++i) {
        const pjsip_hdr *cap = pjsip_endpt_get_capability(endpoint, capabilities[i], NULL);
        if (cap != NULL) pjsip_msg_add_hdr(tdata->msg, (pjsip_hdr *)pjsip_hdr_clone(tdata->pool, cap));
    }
    send_stateless(rdata, tdata);
}

static pj_bool_t app_on_rx_request(pjsip_rx_data *rdata) {
    if (pjsip_rdata_get_tsx(rdata) != NULL || pjsip_rdata_get_dlg(rdata) != NULL) return PJ_FALSE;
    if (rdata->msg_info.to != NULL && rdata->msg_info.to->tag.slen != 0) return PJ_FALSE;
    switch (rdata->msg_info.msg->line.req.method.id) {
    case PJSIP_INVITE_METHOD:
        incoming_invite(rdata);
        return PJ_TRUE;
    case PJSIP_OPTIONS_METHOD:
        incoming_options(rdata);
        return PJ_TRUE;
    default:
        return PJ_FALSE;
    }
}

static pjsip_module app_module = {
    NULL, NULL, { "mod-fuzz-app", 12 }, -1, PJSIP_MOD_PRIORITY_APPLICATION,
    NULL, NULL, NULL, NULL, &app_on_rx_request, NULL, NULL, NULL, NULL,
};

/* ---- the dialogs of ours a peer answers ----------------------------------------------------- */

static pjsip_dialog *create_dialog(const char *token, const char *remote) {
    char local_uri[96], call_id[64], tag[64];
    pj_ansi_snprintf(local_uri, sizeof(local_uri), "<sip:alice@127.0.0.1:5060>");
    pj_ansi_snprintf(call_id, sizeof(call_id), "%s-call", token);
    pj_ansi_snprintf(tag, sizeof(tag), "%s-tag", token);
    pj_str_t local = pj_str(local_uri), contact = pj_str("<sip:alice@127.0.0.1:5060>");
    pj_str_t remote_uri = pj_str((char *)remote);
    pjsip_dialog *dlg = NULL;
    if (pjsip_dlg_create_uac(pjsip_ua_instance(), &local, &contact, &remote_uri, &remote_uri, &dlg) != PJ_SUCCESS) {
        return NULL;
    }
    /* Fixed identifiers instead of random ones, registered again under them. */
    pjsip_ua_unregister_dlg(pjsip_ua_instance(), dlg);
    pj_strdup2(dlg->pool, &dlg->call_id->id, call_id);
    pj_strdup2(dlg->pool, &dlg->local.info->tag, tag);
    dlg->local.tag_hval = pj_hash_calc_tolower(0, NULL, &dlg->local.info->tag);
    dlg->local.first_cseq = dlg->local.cseq = 1;
    if (pjsip_ua_register_dlg(pjsip_ua_instance(), dlg) != PJ_SUCCESS) abort();
    pjsip_cred_info credential;
    pj_bzero(&credential, sizeof(credential));
    credential.realm = pj_str("*");
    credential.scheme = pj_str("digest");
    credential.username = pj_str("alice");
    credential.data_type = PJSIP_CRED_DATA_PLAIN_PASSWD;
    credential.data = pj_str("secret");
    (void)pjsip_auth_clt_set_credentials(&dlg->auth_sess, 1, &credential);
    return dlg;
}

static void set_branch(pjsip_tx_data *tdata, const char *token) {
    pjsip_via_hdr *via = (pjsip_via_hdr *)pjsip_msg_find_hdr(tdata->msg, PJSIP_H_VIA, NULL);
    if (via == NULL) return;
    char branch[64];
    pj_ansi_snprintf(branch, sizeof(branch), "z9hG4bK-%s", token);
    pj_strdup2(tdata->pool, &via->branch_param, branch);
}

static void start_call(void) {
    pjsip_dialog *dlg = create_dialog("fuzz-inv", "<sip:bob@127.0.0.1:5070>");
    if (dlg == NULL) return;
    pjsip_inv_session *inv = NULL;
    if (pjsip_inv_create_uac(dlg, our_sdp, PJSIP_INV_SUPPORT_100REL | PJSIP_INV_SUPPORT_TIMER, &inv) != PJ_SUCCESS) {
        return;
    }
    track_inv(inv);
    pjsip_timer_setting timer;
    pjsip_timer_setting_default(&timer);
    (void)pjsip_timer_init_session(inv, &timer);
    pjsip_tx_data *tdata = NULL;
    if (pjsip_inv_invite(inv, &tdata) != PJ_SUCCESS) return;
    set_branch(tdata, "fuzz-inv");
    (void)pjsip_inv_send_msg(inv, tdata);
}

static void on_evsub_state(pjsip_evsub *sub, pjsip_event *event) {
    (void)sub;
    (void)event;
}

/* pjsua_pres.c reads the presence status on every NOTIFY. */
static void on_rx_notify(pjsip_evsub *sub, pjsip_rx_data *rdata, int *p_st_code, pj_str_t **p_st_text,
                         pjsip_hdr *res_hdr, pjsip_msg_body **p_body) {
    (void)rdata;
    (void)p_st_code;
    (void)p_st_text;
    (void)res_hdr;
    (void)p_body;
    pjsip_pres_status status;
    (void)pjsip_pres_get_status(sub, &status);
}

static pjsip_evsub_user presence_callbacks = {
    .on_evsub_state = &on_evsub_state,
    .on_rx_notify = &on_rx_notify,
};

static void start_presence_subscription(void) {
    pjsip_dialog *dlg = create_dialog("fuzz-pres", "<sip:carol@127.0.0.1:5070>");
    if (dlg == NULL) return;
    pjsip_evsub *sub = NULL;
    if (pjsip_pres_create_uac(dlg, &presence_callbacks, PJSIP_EVSUB_NO_EVENT_ID, &sub) != PJ_SUCCESS) return;
    (void)pjsip_evsub_add_ref(sub);
    tracked_sub[tracked_sub_count++] = sub;
    pjsip_tx_data *tdata = NULL;
    if (pjsip_pres_initiate(sub, 600, &tdata) != PJ_SUCCESS) return;
    set_branch(tdata, "fuzz-pres");
    (void)pjsip_pres_send_request(sub, tdata);
}

static void on_registration(struct pjsip_regc_cbparam *param) {
    (void)param;
}

static void start_registration(void) {
    if (pjsip_regc_create(endpoint, NULL, &on_registration, &registration) != PJ_SUCCESS) return;
    pj_str_t registrar = pj_str("sip:127.0.0.1:5070"), aor = pj_str("<sip:alice@127.0.0.1>");
    pj_str_t contact = pj_str("<sip:alice@127.0.0.1:5060;ob>");
    if (pjsip_regc_init(registration, &registrar, &aor, &aor, 1, &contact, 300) != PJ_SUCCESS) return;
    pjsip_cred_info credential;
    pj_bzero(&credential, sizeof(credential));
    credential.realm = pj_str("*");
    credential.scheme = pj_str("digest");
    credential.username = pj_str("alice");
    credential.data_type = PJSIP_CRED_DATA_PLAIN_PASSWD;
    credential.data = pj_str("secret");
    (void)pjsip_regc_set_credentials(registration, 1, &credential);
    pjsip_tx_data *tdata = NULL;
    if (pjsip_regc_register(registration, PJ_FALSE, &tdata) != PJ_SUCCESS) return;
    pjsip_cid_hdr *cid = (pjsip_cid_hdr *)pjsip_msg_find_hdr(tdata->msg, PJSIP_H_CALL_ID, NULL);
    if (cid != NULL) cid->id = pj_str("fuzz-reg-call");
    set_branch(tdata, "fuzz-reg");
    (void)pjsip_regc_send(registration, tdata);
}

/* ---- set-up ---------------------------------------------------------------------------------- */

static const char our_sdp_text[] =
    "v=0\r\n"
    "o=- 3917000000 3917000000 IN IP4 127.0.0.1\r\n"
    "s=pjmedia\r\n"
    "t=0 0\r\n"
    "m=audio 4000 RTP/AVP 96 9 0 8 120 121\r\n"
    "c=IN IP4 127.0.0.1\r\n"
    "a=rtcp:4001 IN IP4 127.0.0.1\r\n"
    "a=sendrecv\r\n"
    "a=rtpmap:96 opus/48000/2\r\n"
    "a=fmtp:96 useinbandfec=1\r\n"
    "a=rtpmap:9 G722/8000\r\n"
    "a=rtpmap:0 PCMU/8000\r\n"
    "a=rtpmap:8 PCMA/8000\r\n"
    "a=rtpmap:120 telephone-event/48000\r\n"
    "a=fmtp:120 0-16\r\n"
    "a=rtpmap:121 telephone-event/8000\r\n"
    "a=fmtp:121 0-16\r\n";

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    fuzz_pj_init();
    if (pjsip_endpt_create(&fuzz_cp.factory, "fuzz", &endpoint) != PJ_SUCCESS) abort();
    pj_log_set_level(0);
    if (pjsip_tsx_layer_init_module(endpoint) != PJ_SUCCESS) abort();
    if (pjsip_ua_init_module(endpoint, NULL) != PJ_SUCCESS) abort();
    if (pjsip_inv_usage_init(endpoint, &inv_callbacks) != PJ_SUCCESS) abort();
    if (pjsip_100rel_init_module(endpoint) != PJ_SUCCESS) abort();
    if (pjsip_timer_init_module(endpoint) != PJ_SUCCESS) abort();
    if (pjsip_evsub_init_module(endpoint) != PJ_SUCCESS) abort();
    if (pjsip_pres_init_module(endpoint, pjsip_evsub_instance()) != PJ_SUCCESS) abort();
    if (pjsip_xfer_init_module(endpoint) != PJ_SUCCESS) abort();
    if (pjsip_replaces_init_module(endpoint) != PJ_SUCCESS) abort();
    if (pjsip_endpt_register_module(endpoint, &app_module) != PJ_SUCCESS) abort();
    if (pjsip_endpt_register_module(endpoint, &tracker_module) != PJ_SUCCESS) abort();
#if defined(FUZZ_WITH_INPUT_SCREEN)
    if (cpjsua_input_screen_install() != PJ_SUCCESS) abort();
#endif
    if (cpjsua_unhandled_requests_install(NULL, NULL) != PJ_SUCCESS) abort();
    /* pjsua's capabilities: MESSAGE and OPTIONS besides what the modules added. */
    static const pj_str_t methods[] = { { "OPTIONS", 7 }, { "MESSAGE", 7 } };
    (void)pjsip_endpt_add_capability(endpoint, NULL, PJSIP_H_ALLOW, NULL, PJ_ARRAY_SIZE(methods), methods);
    create_transport();
    if (pjsip_endpt_set_ext_resolver(endpoint, &local_resolver) != PJ_SUCCESS) abort();

    setup_pool = fuzz_pool("setup");
    char *text = (char *)pj_pool_alloc(setup_pool, sizeof(our_sdp_text));
    memcpy(text, our_sdp_text, sizeof(our_sdp_text));
    if (pjmedia_sdp_parse(setup_pool, text, sizeof(our_sdp_text) - 1, &our_sdp) != PJ_SUCCESS) abort();
    return 0;
}

static int names(const uint8_t *data, size_t size, const char *token) {
    size_t len = strlen(token);
    return size >= len && memmem(data, size, token, len) != NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0 || size > PJSIP_MAX_PKT_LEN) return 0;
    pj_srand(1);
    if (names(data, size, "fuzz-inv")) start_call();
    if (names(data, size, "fuzz-pres")) start_presence_subscription();
    if (names(data, size, "fuzz-reg")) start_registration();

    /* As sip_transport_udp.c hands a datagram to the transport manager. */
    static pjsip_rx_data rdata;
    pj_bzero(&rdata, sizeof(rdata));
    pj_pool_t *pool = pjsip_endpt_create_pool(endpoint, "rdata", 4000, 4000);
    rdata.tp_info.pool = pool;
    rdata.tp_info.transport = transport;
    rdata.tp_info.tp_data = NULL;
    memcpy(rdata.pkt_info.packet, data, size);
    rdata.pkt_info.len = (pj_ssize_t)size;
    rdata.pkt_info.zero = 0;
    pj_gettimeofday(&rdata.pkt_info.timestamp);
    pj_str_t source = pj_str("192.0.2.10");
    pj_sockaddr_in_init(&rdata.pkt_info.src_addr.ipv4, &source, 5060);
    rdata.pkt_info.src_addr_len = sizeof(pj_sockaddr_in);
    pj_ansi_strxcpy(rdata.pkt_info.src_name, "192.0.2.10", sizeof(rdata.pkt_info.src_name));
    rdata.pkt_info.src_port = 5060;
    (void)pjsip_tpmgr_receive_packet(pjsip_endpt_get_tpmgr(endpoint), &rdata);
    pjsip_endpt_release_pool(endpoint, pool);

    end_everything();
    fuzz_check_exception_chain();
    return 0;
}
