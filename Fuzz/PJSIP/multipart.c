/*
 * multipart: a multipart body (an INVITE's SDP beside other parts, a NOTIFY's RLMI list).
 *
 * Input: the first line is the Content-Type header's value (its boundary parameter among
 * others), the rest is the body. A first line that is not a multipart Content-Type leaves
 * "multipart/mixed;boundary=boundary42".
 *
 * Per input: pjsip_multipart_parse, the body printed tight (the printer's cursor: SEC-6) and
 * cloned, each part's body printed, the lookups pjsip and pjsua make (the SDP part as
 * pjsip_rdata_get_sdp_info finds it, then parsed in place as it parses it: KL-53.11; by header,
 * by Content-ID), the raw body and boundary. (The
 * SIP parser is pjsip_multipart_parse's only caller; sip_parser and sip_endpoint reach it there.)
 */
#include <pjsip.h>
#include <pjmedia/sdp.h>
#include "common.h"

static pjsip_endpoint *endpoint;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    fuzz_pj_init();
    /* The endpoint sets up the SIP parser, which parses each part's headers. */
    if (pjsip_endpt_create(&fuzz_cp.factory, "fuzz", &endpoint) != PJ_SUCCESS) abort();
    pj_log_set_level(0);
    return 0;
}

static int print_body(const void *body, char *buf, pj_size_t size) {
    pjsip_msg_body *b = (pjsip_msg_body *)body;
    return b->print_body(b, buf, size);
}

static void exercise(pj_pool_t *pool, char *text, pj_size_t len, const pjsip_media_type *ctype) {
    /* The SIP parser, its one caller, never hands it an empty body. */
    if (len == 0) return;
    pjsip_msg_body *body = pjsip_multipart_parse(pool, text, len, ctype, 0);
    if (body == NULL) return;

    fuzz_print_tight(print_body, body, len * 2 + 8192, 16, 16);
    pjsip_msg_body *copy = pjsip_msg_body_clone(pool, body);
    if (copy != NULL) fuzz_print_tight(print_body, copy, len * 2 + 8192, 0, 4);

    pj_str_t boundary, raw;
    (void)pjsip_multipart_get_raw(body, &boundary, &raw);

    pjsip_media_type sdp;
    pjsip_media_type_init2(&sdp, "application", "sdp");
    pjsip_multipart_part *sdp_part = pjsip_multipart_find_part(body, &sdp, NULL);
    /* The SDP part parsed as an INVITE session takes it (pjsip_get_sdp_info, for
     * pjsip_inv_verify_request3 and every answer to our offer): in place, inside the message,
     * where a part's body is not NUL-terminated. */
    if (sdp_part != NULL && sdp_part->body != NULL) {
        pjmedia_sdp_session *session = NULL;
        (void)pjmedia_sdp_parse(pool, (char *)sdp_part->body->data, sdp_part->body->len, &session);
    }
    static const pj_str_t content_id = { "Content-ID", 10 }, cid_value = { "<sdp@example.com>", 17 };
    (void)pjsip_multipart_find_part_by_header_str(pool, body, &content_id, &cid_value, NULL);
    pj_str_t cid = pj_str("cid:sdp@example.com");
    (void)pjsip_multipart_find_part_by_cid_str(pool, body, &cid);

    for (pjsip_multipart_part *part = pjsip_multipart_get_first_part(body); part != NULL;
         part = pjsip_multipart_get_next_part(body, part)) {
        for (pjsip_hdr *h = part->hdr.next; h != &part->hdr; h = h->next) {
            char buf[256];
            (void)pjsip_hdr_print_on(h, buf, sizeof(buf));
        }
        if (part->body == NULL) continue;
        fuzz_print_tight(print_body, part->body, part->body->len * 2 + 8192, 4, 4);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    pj_pool_t *pool = fuzz_pool("multipart");
    const uint8_t *newline = memchr(data, '\n', size);
    size_t header_len = newline != NULL ? (size_t)(newline - data) : 0;
    size_t body_start = newline != NULL ? header_len + 1 : 0;

    pjsip_media_type ctype;
    pjsip_media_type_init2(&ctype, "multipart", "mixed");
    int have_ctype = 0;
    if (header_len > 0) {
        char *value = (char *)pj_pool_alloc(pool, header_len + 1);
        memcpy(value, data, header_len);
        value[header_len] = '\0';
        static const pj_str_t name = { "Content-Type", 12 };
        pjsip_ctype_hdr *hdr = (pjsip_ctype_hdr *)pjsip_parse_hdr(pool, &name, value, header_len, NULL);
        if (hdr != NULL && hdr->type == PJSIP_H_CONTENT_TYPE &&
            pj_stricmp2(&hdr->media.type, "multipart") == 0) {
            pjsip_media_type_cp(pool, &ctype, &hdr->media);  /* a deep copy: param is a list head */
            have_ctype = 1;
        }
    }
    if (!have_ctype) {
        pjsip_param *param = PJ_POOL_ZALLOC_T(pool, pjsip_param);
        param->name = pj_str("boundary");
        param->value = pj_str("boundary42");
        pj_list_push_back(&ctype.param, param);
    }

    size_t len = size - body_start;
    char *text = (char *)pj_pool_alloc(pool, len + 1);
    if (len > 0) memcpy(text, data + body_start, len);
    text[len] = '\0';
    exercise(pool, text, len, &ctype);

    pj_pool_release(pool);
    fuzz_check_exception_chain();
    return 0;
}
