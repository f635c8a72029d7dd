/*
 * The input screen: a pjsip module ahead of the transaction layer that answers or drops the
 * message shapes known to reach an abort or a memory error in a PJSIP without our patches
 * (docs/SECURITY.md). Our Linux builds carry the patches; the iOS binary (swift-pjsip) cannot be
 * patched by an app, so the engine screens for it: each check is the RFC's answer to a message
 * that is invalid anyway, or a limit no legitimate peer reaches, so it changes nothing for a
 * patched PJSIP but what the patch already does.
 *
 * - KL-31: a request whose CSeq method is not its own method (RFC 3261 8.1.1.5) is answered 400
 *   (an ACK is dropped: it is never answered); a response whose CSeq method is ACK is dropped. The
 *   transaction layer matches by CSeq method: such a request on a confirmed INVITE's branch
 *   aborted the process in tsx_on_state_confirmed.
 * - SEC-2: an SDP (in any body, multipart included) with more than 64 a=crypto lines in one
 *   media section is answered 488 (an ACK or a response carrying one is dropped): SDES wrote
 *   past int tags[64].
 * - SEC-1: a response to REGISTER carrying more Service-Route URIs than PJSUA_ACC_MAX_PROXIES
 *   loses its Service-Route headers before pjsua sees them (the patched pjsua refuses the whole
 *   set the same way): pjsua_acc.c wrote past its array of them.
 * - KL-3: a datagram PJSIP cut or a peer sent short is never taken for a shorter message. One that
 *   filled PJSIP's whole receive buffer (PJSIP_MAX_PKT_LEN: recvfrom cut the rest off unnoticed)
 *   is answered 513 Message Too Large (RFC 3261 21.5.11); one whose body is shorter than its
 *   Content-Length is answered 400 (RFC 3261 18.3). A response so cut is dropped (18.3), an ACK
 *   is dropped unanswered. PJSIP's parser takes whatever follows the headers as the body, so a
 *   cut INVITE rang as an INVITE without SDP. Unpatched in every PJSIP; stream transports are
 *   PJSIP's to frame (pjsip_find_msg waits for Content-Length bytes; KL-4 is its overflow).
 *
 * Runs on the worker thread that received the message, reads the parsed message and the raw
 * packet only, and takes no lock.
 */
#ifndef PJ_AUTOCONF
#  define PJ_AUTOCONF 1
#endif
#include <pjsua.h>
#include <stdatomic.h>
#include <string.h>
#include "CPJSUASupport.h"

/* SDES's tag array in transport_srtp_sdes.c (sdes_encode_sdp). */
enum { SCREEN_MAX_CRYPTO_LINES = 64 };

static atomic_uint_fast64_t screened_messages;

/* The most a=crypto lines of one media section in `text` (an SDP, or a body holding one): lines
 * are counted from each "m=" line to the next. Works on the raw bytes, so a multipart body's SDP
 * part is seen as well. */
static unsigned screen_most_crypto_lines(const char *text, pj_size_t len) {
    unsigned most = 0, current = 0;
    pj_size_t i = 0;
    while (i < len) {
        /* i is at the start of a line. */
        pj_size_t rest = len - i;
        if (rest >= 2 && text[i] == 'm' && text[i + 1] == '=') {
            current = 0;
        } else if (rest >= 9 && pj_ansi_strnicmp(text + i, "a=crypto:", 9) == 0) {
            if (++current > most) most = current;
        }
        const char *newline = memchr(text + i, '\n', rest);
        if (newline == NULL) break;
        i = (pj_size_t)(newline - text) + 1;
    }
    return most;
}

/* The URIs a Service-Route header value lists: one more than its commas outside <...>. */
static unsigned screen_uri_count(const pj_str_t *value) {
    unsigned count = 1;
    int in_angle = 0;
    for (pj_ssize_t i = 0; i < value->slen; ++i) {
        char c = value->ptr[i];
        if (c == '<') in_angle = 1;
        else if (c == '>') in_angle = 0;
        else if (c == ',' && !in_angle) ++count;
    }
    return count;
}

/* The raw packet's body: what follows the blank line after the headers. */
static const char *screen_body(const pjsip_rx_data *rdata, pj_size_t *len) {
    const char *packet = rdata->msg_info.msg_buf;
    pj_size_t size = (pj_size_t)rdata->msg_info.len;
    if (packet == NULL || size == 0) return NULL;
    for (pj_size_t i = 0; i + 1 < size; ++i) {
        if (packet[i] == '\n' && (packet[i + 1] == '\n' || (packet[i + 1] == '\r' && i + 2 < size && packet[i + 2] == '\n'))) {
            pj_size_t start = i + (packet[i + 1] == '\n' ? 2 : 3);
            *len = size - start;
            return packet + start;
        }
    }
    return NULL;
}

/* KL-3: why a datagram is not the whole message it claims to be (NULL when it is, and for stream
 * transports), and the answer a request gets for it. */
static const char *screen_cut_datagram(const pjsip_rx_data *rdata, int *code) {
    const pjsip_transport *tp = rdata->tp_info.transport;
    if (tp == NULL || (tp->flag & PJSIP_TRANSPORT_DATAGRAM) == 0) return NULL;
    if (rdata->pkt_info.len >= (pj_ssize_t)sizeof(rdata->pkt_info.packet)) {
        *code = PJSIP_SC_MESSAGE_TOO_LARGE;
        return "Message Too Large";
    }
    const pjsip_clen_hdr *clen = rdata->msg_info.clen;
    if (clen == NULL || clen->len <= 0) return NULL;
    pj_size_t received = 0;
    if (screen_body(rdata, &received) == NULL) received = 0;
    if (received >= (pj_size_t)clen->len) return NULL;
    *code = PJSIP_SC_BAD_REQUEST;
    return "Body Shorter Than Content-Length";
}

static void screen_log(const pjsip_rx_data *rdata, const char *why) {
    atomic_fetch_add(&screened_messages, 1);
    PJ_LOG(3, ("input-screen", "Screened %s from %s:%d: %s", pjsip_rx_data_get_info((pjsip_rx_data *)rdata),
               rdata->pkt_info.src_name, rdata->pkt_info.src_port, why));
}

static pj_bool_t screen_on_rx_request(pjsip_rx_data *rdata) {
    pjsip_msg *msg = rdata->msg_info.msg;
    const pjsip_method *method = &msg->line.req.method;
    pj_bool_t is_ack = method->id == PJSIP_ACK_METHOD;
    int code = 0;
    const char *reason = NULL;

    /* KL-3 first: the rest of the checks read a message that is all there. */
    int cut_code = 0;
    const char *cut = screen_cut_datagram(rdata, &cut_code);
    if (cut != NULL) {
        screen_log(rdata, cut);
        if (!is_ack) {
            pj_str_t text = pj_str((char *)cut);
            pjsip_endpt_respond_stateless(pjsua_get_pjsip_endpt(), rdata, cut_code, &text, NULL, NULL);
        }
        return PJ_TRUE;
    }

    if (rdata->msg_info.cseq != NULL && pjsip_method_cmp(method, &rdata->msg_info.cseq->method) != 0) {
        code = PJSIP_SC_BAD_REQUEST;
        reason = "CSeq Method Does Not Match";
    } else if (msg->body != NULL) {
        pj_size_t len = 0;
        const char *body = screen_body(rdata, &len);
        if (body != NULL && screen_most_crypto_lines(body, len) > SCREEN_MAX_CRYPTO_LINES) {
            code = PJSIP_SC_NOT_ACCEPTABLE_HERE;
            reason = "Too Many Crypto Attributes";
        }
    }
    if (code == 0) return PJ_FALSE;

    screen_log(rdata, reason);
    if (!is_ack) {
        pj_str_t text = pj_str((char *)reason);
        pjsip_endpt_respond_stateless(pjsua_get_pjsip_endpt(), rdata, code, &text, NULL, NULL);
    }
    return PJ_TRUE;
}

static pj_bool_t screen_on_rx_response(pjsip_rx_data *rdata) {
    int cut_code = 0;
    const char *cut = screen_cut_datagram(rdata, &cut_code);
    if (cut != NULL) {
        screen_log(rdata, cut);  /* KL-3: RFC 3261 18.3, a response so cut is discarded */
        return PJ_TRUE;
    }
    if (rdata->msg_info.cseq == NULL) return PJ_FALSE;
    const pjsip_method *method = &rdata->msg_info.cseq->method;
    if (method->id == PJSIP_ACK_METHOD) {
        screen_log(rdata, "a response to ACK (its CSeq method)");
        return PJ_TRUE;
    }
    if (rdata->msg_info.msg->body != NULL) {
        /* An offer in a response (to an INVITE sent without one) is answered in the ACK, by the
         * same SDES code: dropped, the transaction ends as if it never came. */
        pj_size_t len = 0;
        const char *body = screen_body(rdata, &len);
        if (body != NULL && screen_most_crypto_lines(body, len) > SCREEN_MAX_CRYPTO_LINES) {
            screen_log(rdata, "Too Many Crypto Attributes");
            return PJ_TRUE;
        }
    }
    if (method->id != PJSIP_REGISTER_METHOD) return PJ_FALSE;

    static const pj_str_t name = { "Service-Route", 13 };
    pjsip_msg *msg = rdata->msg_info.msg;
    unsigned uris = 0;
    for (pjsip_generic_string_hdr *h = pjsip_msg_find_hdr_by_name(msg, &name, NULL); h != NULL;
         h = pjsip_msg_find_hdr_by_name(msg, &name, h->next)) {
        uris += screen_uri_count(&h->hvalue);
    }
    if (uris <= PJSUA_ACC_MAX_PROXIES) return PJ_FALSE;
    pjsip_hdr *h;
    while ((h = pjsip_msg_find_hdr_by_name(msg, &name, NULL)) != NULL) pj_list_erase(h);
    screen_log(rdata, "more Service-Route URIs than pjsua keeps: the route set is ignored");
    return PJ_FALSE;  /* the response itself goes on, without them */
}

static pjsip_module screen_module = {
    NULL, NULL,                                     /* prev, next */
    { "mod-swiftpjsua-screen", 21 },                /* name */
    -1,                                             /* id */
    PJSIP_MOD_PRIORITY_TSX_LAYER - 1,               /* before the transaction layer */
    NULL, NULL, NULL, NULL,                         /* load, start, stop, unload */
    &screen_on_rx_request,                          /* on_rx_request */
    &screen_on_rx_response,                         /* on_rx_response */
    NULL, NULL, NULL,                               /* on_tx_*, on_tsx_state */
};

int cpjsua_input_screen_install(void) {
    if (screen_module.id != -1) return 0;  /* pjsua_destroy unregisters it (id back to -1) */
    return pjsip_endpt_register_module(pjsua_get_pjsip_endpt(), &screen_module);
}

uint64_t cpjsua_input_screen_count(void) {
    return atomic_load(&screened_messages);
}
