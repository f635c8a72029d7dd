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
 * - SEC-2: an SDP (an application/sdp body, or a multipart body, whose parts are read as lines)
 *   with more than 64 a=crypto lines in one media section is answered 488 (an ACK or a response carrying one is dropped): SDES wrote
 *   past int tags[64].
 * - SEC-1: a response to REGISTER carrying more Service-Route URIs than PJSUA_ACC_MAX_PROXIES
 *   loses its Service-Route headers before pjsua sees them (the patched pjsua refuses the whole
 *   set the same way): pjsua_acc.c wrote past its array of them.
 * - KL-53 (the fuzzer's remote aborts), see the block of screen_kl53_* functions below: an SDP
 *   with a port-0 media line and no c= for it, a c= or a=rtcp address of PJ_MAX_HOSTNAME
 *   characters or more, or an H.264 sprop-parameter-sets that does not fit pjmedia's 256 bytes,
 *   is answered 488 with a Warning (an ACK or a response carrying one is dropped, a 2xx to an
 *   INVITE fails the call instead, below); a 2xx to an INVITE whose Contact or Record-Route is
 *   not a SIP URI, or whose SDP is one of those, reaches the transaction layer as a 502, so the
 *   call fails cleanly (the transaction ACKs it hop by hop) instead of an ACK that cannot be
 *   routed; a NOTIFY whose PIDF has a <tuple> without its id or its <status> is answered 400;
 *   an SDP (a body or a multipart part) of nothing but line breaks is answered 400 (KL-53.11: the
 *   SDP parser read past it and threw outside its PJ_TRY), a response carrying one handled as above.
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

/* The raw packet's body: what follows the blank line after the headers (NULL when the packet has
 * no blank line). Found once per message, from line end to line end (memchr), and handed to each
 * check that reads the body: `pjsua-bench screen` measured the byte-by-byte search, made up to
 * three times per request, at more than PJSIP's whole parse of an INVITE with SRTP and ICE. */
struct screen_raw_body {
    const char *text;
    pj_size_t len;
};

static struct screen_raw_body screen_body(const pjsip_rx_data *rdata) {
    struct screen_raw_body body = { NULL, 0 };
    const char *packet = rdata->msg_info.msg_buf;
    pj_size_t size = (pj_size_t)rdata->msg_info.len;
    if (packet == NULL || size == 0) return body;
    const char *end = packet + size, *p = packet;
    const char *newline;
    while ((newline = memchr(p, '\n', (pj_size_t)(end - p))) != NULL) {
        const char *next = newline + 1;
        if (next < end && *next == '\n') { body.text = next + 1; break; }
        if (next + 1 < end && next[0] == '\r' && next[1] == '\n') { body.text = next + 2; break; }
        p = next;
    }
    if (body.text != NULL) body.len = (pj_size_t)(end - body.text);
    return body;
}

/* Whether a message's checks need its raw body: it has one, or claims one (Content-Length). */
static pj_bool_t screen_needs_body(const pjsip_rx_data *rdata) {
    return rdata->msg_info.msg->body != NULL || (rdata->msg_info.clen != NULL && rdata->msg_info.clen->len > 0);
}

/* KL-3: why a datagram is not the whole message it claims to be (NULL when it is, and for stream
 * transports), and the answer a request gets for it. */
static const char *screen_cut_datagram(const pjsip_rx_data *rdata, struct screen_raw_body body, int *code) {
    const pjsip_transport *tp = rdata->tp_info.transport;
    if (tp == NULL || (tp->flag & PJSIP_TRANSPORT_DATAGRAM) == 0) return NULL;
    if (rdata->pkt_info.len >= (pj_ssize_t)sizeof(rdata->pkt_info.packet)) {
        *code = PJSIP_SC_MESSAGE_TOO_LARGE;
        return "Message Too Large";
    }
    const pjsip_clen_hdr *clen = rdata->msg_info.clen;
    if (clen == NULL || clen->len <= 0) return NULL;
    pj_size_t received = body.text != NULL ? body.len : 0;
    if (received >= (pj_size_t)clen->len) return NULL;
    *code = PJSIP_SC_BAD_REQUEST;
    return "Body Shorter Than Content-Length";
}

static void screen_log(const pjsip_rx_data *rdata, const char *why) {
    atomic_fetch_add(&screened_messages, 1);
    PJ_LOG(3, ("input-screen", "Screened %s from %s:%d: %s", pjsip_rx_data_get_info((pjsip_rx_data *)rdata),
               rdata->pkt_info.src_name, rdata->pkt_info.src_port, why));
}

/* ---- KL-53: the fuzzer's remote aborts (self-contained: the two hooks below call these) ---- */

/* The length of the token starting at p (up to whitespace or the end). */
static pj_size_t screen_token_len(const char *p, const char *end) {
    const char *q = p;
    while (q < end && *q != ' ' && *q != '\t' && *q != '\r' && *q != '\n') ++q;
    return (pj_size_t)(q - p);
}

/* The start of the n-th (0-based) space-separated token of [p, end), or NULL. */
static const char *screen_nth_token(const char *p, const char *end, unsigned n) {
    for (;;) {
        while (p < end && (*p == ' ' || *p == '\t')) ++p;
        if (p >= end || *p == '\r' || *p == '\n') return NULL;
        if (n-- == 0) return p;
        p += screen_token_len(p, end);
    }
}

/* sprop-parameter-sets in one fmtp value [p, end): true when pjmedia's parser
 * (vid_codec_util.c) would run out of its 256 bytes, where the unpatched decoder asserts. Each
 * set takes a 3-byte start code and its decoded bytes (3/4 of its characters but '=' padding). */
static pj_bool_t screen_sprop_overflows(const char *p, const char *end) {
    static const char key[] = "sprop-parameter-sets=";
    const pj_size_t key_len = sizeof(key) - 1;
    for (; p + key_len <= end; ++p) {
        if (pj_ansi_strnicmp(p, key, key_len) != 0) continue;
        const char *v = p + key_len;
        long used = 0;
        for (;;) {
            const char *set = v;
            while (v < end && *v != ',' && *v != ';' && *v != ' ' && *v != '\r' && *v != '\n') ++v;
            long chars = (long)(v - set);
            while (chars > 0 && set[chars - 1] == '=') --chars;
            long room = 256 - used - 3;
            if (room < 0 || room < chars * 3 / 4) return PJ_TRUE;
            used += 3 + chars * 3 / 4;
            if (v < end && *v == ',') { ++v; continue; }
            break;
        }
        return PJ_FALSE;
    }
    return PJ_FALSE;
}

/* One SDP (or a body holding one: multipart parts are read as lines too) against the KL-53
 * shapes: returns the Warning's text, or NULL. Line by line, one pass. */
static const char *screen_kl53_sdp_problem(const char *text, pj_size_t len) {
    const char *end = text + len, *line = text;
    pj_bool_t session_c = PJ_FALSE, in_media = PJ_FALSE, media_c = PJ_FALSE, media_port0 = PJ_FALSE;
    pj_bool_t port0_without_c = PJ_FALSE;
    while (line < end) {
        const char *eol = memchr(line, '\n', (pj_size_t)(end - line));
        const char *next = eol ? eol + 1 : end;
        const char *stop = eol ? eol : end;
        if (stop - line >= 2 && line[1] == '=') {
            switch (line[0]) {
            case 'v':  /* a new session (another multipart part) */
                if (in_media && media_port0 && !media_c && !session_c) port0_without_c = PJ_TRUE;
                session_c = in_media = media_c = media_port0 = PJ_FALSE;
                break;
            case 'm': {
                if (in_media && media_port0 && !media_c && !session_c) port0_without_c = PJ_TRUE;
                in_media = PJ_TRUE; media_c = PJ_FALSE;
                /* The port's digits (before any "/count"), read as pjmedia reads them: all zeros is 0. */
                const char *port = screen_nth_token(line + 2, stop, 1);
                media_port0 = port != NULL && *port == '0';
                for (const char *d = port; media_port0 && d < stop && *d >= '0' && *d <= '9'; ++d) media_port0 = *d == '0';
                break;
            }
            case 'c': {
                if (in_media) media_c = PJ_TRUE; else session_c = PJ_TRUE;
                const char *addr = screen_nth_token(line + 2, stop, 2);
                if (addr != NULL && screen_token_len(addr, stop) >= PJ_MAX_HOSTNAME)
                    return "Connection address too long";
                break;
            }
            case 'a':
                if (stop - line > 7 && pj_ansi_strnicmp(line, "a=rtcp:", 7) == 0) {
                    const char *addr = screen_nth_token(line + 7, stop, 3);
                    if (addr != NULL && screen_token_len(addr, stop) >= PJ_MAX_HOSTNAME)
                        return "RTCP address too long";
                } else if (stop - line > 7 && pj_ansi_strnicmp(line, "a=fmtp:", 7) == 0
                           && screen_sprop_overflows(line + 7, stop)) {
                    return "H.264 sprop-parameter-sets too long";
                }
                break;
            default:
                break;
            }
        }
        line = next;
    }
    if (in_media && media_port0 && !media_c && !session_c) port0_without_c = PJ_TRUE;
    return port0_without_c ? "Disabled media line without connection data" : NULL;
}

/* A body that may hold an SDP: application/sdp or multipart/... (the SDP part). */
static pj_bool_t screen_kl53_may_hold_sdp(const pjsip_msg_body *body) {
    const pjsip_media_type *type = &body->content_type;
    return (pj_stricmp2(&type->type, "application") == 0 && pj_stricmp2(&type->subtype, "sdp") == 0)
        || pj_stricmp2(&type->type, "multipart") == 0;
}

/* SEC-2: a body whose a=crypto lines reach SDES: only an SDP does (pjsua takes the offer from an
 * application/sdp body or a multipart one's SDP part), so other bodies are not counted. */
static pj_bool_t screen_may_reach_sdes(const pjsip_msg *msg, struct screen_raw_body body) {
    return msg->body != NULL && body.text != NULL && screen_kl53_may_hold_sdp(msg->body);
}

/* A PIDF body's <tuple> elements each carry an id attribute and a <status> (pidf.c asserts both
 * of every tuple under <presence>). A lexical scan, no XML parse: each "<tuple" start tag (no
 * prefix, as pidf.c matches the name) must hold " id=" (spaces allowed around the '='), and a
 * "<status" must come before its "</tuple". Comments or CDATA holding such text are read as
 * elements: a false alarm costs a 400 to a document no presence server writes. */
static const char *screen_kl53_pidf_problem(const char *text, pj_size_t len) {
    const char *end = text + len;
    for (const char *p = text; p + 6 < end; ++p) {
        if (p[0] != '<' || pj_ansi_strnicmp(p + 1, "tuple", 5) != 0) continue;
        char after = p[6];
        if (after != '>' && after != ' ' && after != '\t' && after != '\r' && after != '\n' && after != '/') continue;
        const char *tag_end = memchr(p, '>', (pj_size_t)(end - p));
        if (tag_end == NULL) return NULL;  /* not XML: pj_xml_parse refuses it */
        pj_bool_t has_id = PJ_FALSE;
        for (const char *a = p + 6; a + 2 < tag_end && !has_id; ++a) {
            if ((a[0] == ' ' || a[0] == '\t' || a[0] == '\r' || a[0] == '\n') && (a[1] == 'i' || a[1] == 'I')
                && (a[2] == 'd' || a[2] == 'D')) {
                const char *q = a + 3;
                while (q < tag_end && (*q == ' ' || *q == '\t' || *q == '\r' || *q == '\n')) ++q;
                has_id = q < tag_end && *q == '=';
            }
        }
        if (!has_id) return "PIDF tuple without id";
        if (tag_end[-1] == '/') return "PIDF tuple without status";
        pj_bool_t has_status = PJ_FALSE;
        const char *q = tag_end + 1;
        for (; q + 7 < end; ++q) {
            if (q[0] != '<') continue;
            if (pj_ansi_strnicmp(q + 1, "/tuple", 6) == 0) break;
            if (pj_ansi_strnicmp(q + 1, "status", 6) == 0) { has_status = PJ_TRUE; break; }
        }
        if (!has_status) return "PIDF tuple without status";
        p = tag_end;
    }
    return NULL;
}

/* KL-53.11: an SDP body, or a multipart body's SDP part (the first application/sdp part, the one
 * pjsip_get_sdp_info parses), that is empty or nothing but line breaks. pjmedia_sdp_parse skipped
 * leading line breaks before its PJ_TRY and without looking at the end, on into what follows the
 * SDP: a part's body is not NUL-terminated (the delimiter's CRLF follows it), nor is a body on a
 * stream transport (the next message, or a keep-alive CRLF, follows it in the buffer). Asked for
 * a character past the end, the scanner threw outside any PJ_TRY: an abort. */
static pj_bool_t screen_kl53_blank_sdp(const pjsip_msg_body *body) {
    if (!screen_kl53_may_hold_sdp(body)) return PJ_FALSE;
    const pjsip_msg_body *sdp_body = body;
    if (pj_stricmp2(&body->content_type.type, "multipart") == 0) {
        pjsip_media_type sdp;
        pjsip_media_type_init2(&sdp, (char *)"application", (char *)"sdp");
        const pjsip_multipart_part *part = pjsip_multipart_find_part(body, &sdp, NULL);
        sdp_body = part != NULL ? part->body : NULL;
    }
    if (sdp_body == NULL) return PJ_FALSE;
    const char *text = (const char *)sdp_body->data;
    for (unsigned i = 0; i < sdp_body->len; ++i) {
        if (text[i] != '\r' && text[i] != '\n') return PJ_FALSE;
    }
    return PJ_TRUE;
}

/* A request of a KL-53 shape: its answer (488 or 400) and reason, its Warning's text. */
static int screen_kl53_request(pjsip_rx_data *rdata, struct screen_raw_body body, const char **reason, const char **warning) {
    pjsip_msg *msg = rdata->msg_info.msg;
    if (msg->body == NULL) return 0;
    if (screen_kl53_blank_sdp(msg->body)) {
        /* An SDP without its v= line: the patched parser refuses it, and pjsip answers 400. */
        *warning = "Empty SDP";
        *reason = "Bad Request";
        return PJSIP_SC_BAD_REQUEST;
    }
    if (body.text == NULL) return 0;
    if (screen_kl53_may_hold_sdp(msg->body)) {
        if ((*warning = screen_kl53_sdp_problem(body.text, body.len)) != NULL) {
            *reason = "Not Acceptable Here";
            return PJSIP_SC_NOT_ACCEPTABLE_HERE;
        }
    } else if (pjsip_method_cmp(&msg->line.req.method, pjsip_get_notify_method()) == 0
               && pj_stricmp2(&msg->body->content_type.type, "application") == 0
               && pj_stricmp2(&msg->body->content_type.subtype, "pidf+xml") == 0) {
        if ((*warning = screen_kl53_pidf_problem(body.text, body.len)) != NULL) {
            *reason = "Bad Request";
            return PJSIP_SC_BAD_REQUEST;
        }
    }
    return 0;
}

/* The URI of a Contact or Record-Route: SIP or SIPS (a tel: target cannot take the ACK). */
static pj_bool_t screen_kl53_is_sip(const pjsip_uri *uri) {
    if (uri == NULL) return PJ_FALSE;
    const pjsip_uri *inner = (const pjsip_uri *)pjsip_uri_get_uri((pjsip_uri *)uri);
    return inner != NULL && (PJSIP_URI_SCHEME_IS_SIP(inner) || PJSIP_URI_SCHEME_IS_SIPS(inner));
}

/* A response of a KL-53 shape. A 2xx to an INVITE with an unroutable target or an unusable SDP
 * becomes a 502 before the transaction layer sees it: the call fails, and the transaction ACKs
 * the "502" hop by hop. Another response with such an SDP is dropped. Returns PJ_TRUE to drop. */
static pj_bool_t screen_kl53_response(pjsip_rx_data *rdata, struct screen_raw_body body) {
    pjsip_msg *msg = rdata->msg_info.msg;
    const char *why = NULL;
    if (msg->body != NULL && screen_kl53_blank_sdp(msg->body)) why = "Empty SDP";
    if (why == NULL && screen_may_reach_sdes(msg, body)) why = screen_kl53_sdp_problem(body.text, body.len);
    pj_bool_t invite_2xx = rdata->msg_info.cseq->method.id == PJSIP_INVITE_METHOD && msg->line.status.code / 100 == 2;
    if (why == NULL && invite_2xx) {
        pjsip_contact_hdr *contact = pjsip_msg_find_hdr(msg, PJSIP_H_CONTACT, NULL);
        if (contact != NULL && (contact->star || !screen_kl53_is_sip(contact->uri))) why = "Contact is not a SIP URI";
        for (pjsip_rr_hdr *rr = rdata->msg_info.record_route; why == NULL && rr != NULL;
             rr = pjsip_msg_find_hdr(msg, PJSIP_H_RECORD_ROUTE, rr->next)) {
            if (!screen_kl53_is_sip((const pjsip_uri *)&rr->name_addr)) why = "Record-Route is not a SIP URI";
        }
    }
    if (why == NULL) return PJ_FALSE;
    screen_log(rdata, why);
    if (!invite_2xx) return PJ_TRUE;
    msg->line.status.code = PJSIP_SC_BAD_GATEWAY;
    msg->line.status.reason = pj_str((char *)why);
    return PJ_FALSE;
}

/* Answers a request statelessly with a Warning (RFC 3261 20.43: 399, our pseudonym). */
static void screen_kl53_respond(pjsip_rx_data *rdata, int code, const char *reason, const char *warning) {
    static const pj_str_t name = { "Warning", 7 };
    char value[160];
    pj_ansi_snprintf(value, sizeof(value), "399 swift-pjsua \"%s\"", warning);
    pj_str_t text = pj_str(value);
    pjsip_hdr headers;
    pj_list_init(&headers);
    pjsip_generic_string_hdr *h = pjsip_generic_string_hdr_create(rdata->tp_info.pool, &name, &text);
    if (h != NULL) pj_list_push_back(&headers, h);
    pj_str_t status = pj_str((char *)reason);
    pjsip_endpt_respond_stateless(pjsua_get_pjsip_endpt(), rdata, code, &status, &headers, NULL);
}

/* ---- end of KL-53 ---- */

static pj_bool_t screen_on_rx_request(pjsip_rx_data *rdata) {
    pjsip_msg *msg = rdata->msg_info.msg;
    const pjsip_method *method = &msg->line.req.method;
    pj_bool_t is_ack = method->id == PJSIP_ACK_METHOD;
    int code = 0;
    const char *reason = NULL;

    struct screen_raw_body body = { NULL, 0 };
    if (screen_needs_body(rdata)) body = screen_body(rdata);

    /* KL-3 first: the rest of the checks read a message that is all there. */
    int cut_code = 0;
    const char *cut = screen_cut_datagram(rdata, body, &cut_code);
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
    } else if (screen_may_reach_sdes(msg, body) && screen_most_crypto_lines(body.text, body.len) > SCREEN_MAX_CRYPTO_LINES) {
        code = PJSIP_SC_NOT_ACCEPTABLE_HERE;
        reason = "Too Many Crypto Attributes";
    }
    if (code == 0) {
        const char *warning = NULL;
        int kl53 = screen_kl53_request(rdata, body, &reason, &warning);
        if (kl53 == 0) return PJ_FALSE;
        screen_log(rdata, warning);
        if (!is_ack) screen_kl53_respond(rdata, kl53, reason, warning);
        return PJ_TRUE;
    }

    screen_log(rdata, reason);
    if (!is_ack) {
        pj_str_t text = pj_str((char *)reason);
        pjsip_endpt_respond_stateless(pjsua_get_pjsip_endpt(), rdata, code, &text, NULL, NULL);
    }
    return PJ_TRUE;
}

static pj_bool_t screen_on_rx_response(pjsip_rx_data *rdata) {
    struct screen_raw_body body = { NULL, 0 };
    if (screen_needs_body(rdata)) body = screen_body(rdata);
    int cut_code = 0;
    const char *cut = screen_cut_datagram(rdata, body, &cut_code);
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
    /* An offer in a response (to an INVITE sent without one) is answered in the ACK, by the same
     * SDES code: dropped, the transaction ends as if it never came. */
    if (screen_may_reach_sdes(rdata->msg_info.msg, body) && screen_most_crypto_lines(body.text, body.len) > SCREEN_MAX_CRYPTO_LINES) {
        screen_log(rdata, "Too Many Crypto Attributes");
        return PJ_TRUE;
    }
    if (screen_kl53_response(rdata, body)) return PJ_TRUE;
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
