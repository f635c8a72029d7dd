/*
 * sip_parser: a datagram as the SIP parser sees it, and what the stack does with a parsed
 * message before any module holds it.
 *
 * Per input: pjsip_find_msg on it as a datagram and as a stream (Content-Length framing),
 * pjsip_parse_rdata as the transport layer calls it (NUL-terminated), then on a parsed message
 * the transaction keys of both roles (only when the headers the transport layer insists on are
 * there, as they are for any message that reaches the transaction layer), every header printed
 * into buffers of exactly its size and less and cloned both ways, the request and header URIs
 * printed in each context and compared with their clones, the message cloned, and the whole
 * message printed tight and parsed again. A parse error is fine; a crash, an abort or a memory
 * error is a finding.
 */
#include <pjsip.h>
#include "common.h"

static pjsip_endpoint *endpoint;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    fuzz_pj_init();
    /* The endpoint sets up the parser (its header and URI parsers); nothing else of it is used. */
    if (pjsip_endpt_create(&fuzz_cp.factory, "fuzz", &endpoint) != PJ_SUCCESS) abort();
    pj_log_set_level(0);
    return 0;
}

static int print_msg(const void *msg, char *buf, pj_size_t size) {
    return (int)pjsip_msg_print((const pjsip_msg *)msg, buf, size);
}

static int print_hdr(const void *hdr, char *buf, pj_size_t size) {
    return pjsip_hdr_print_on((void *)hdr, buf, size);
}

static pjsip_uri_context_e uri_context;
static int print_uri(const void *uri, char *buf, pj_size_t size) {
    return (int)pjsip_uri_print(uri_context, uri, buf, size);
}

static void exercise_uri(pj_pool_t *pool, const pjsip_uri *uri) {
    if (uri == NULL) return;
    static const pjsip_uri_context_e contexts[] = {
        PJSIP_URI_IN_REQ_URI, PJSIP_URI_IN_FROMTO_HDR, PJSIP_URI_IN_CONTACT_HDR,
        PJSIP_URI_IN_ROUTING_HDR, PJSIP_URI_IN_OTHER,
    };
    for (unsigned i = 0; i < PJ_ARRAY_SIZE(contexts); ++i) {
        uri_context = contexts[i];
        fuzz_print_tight(print_uri, uri, 8192, 8, 8);
    }
    pjsip_uri *copy = (pjsip_uri *)pjsip_uri_clone(pool, uri);
    if (copy != NULL) {
        (void)pjsip_uri_cmp(PJSIP_URI_IN_REQ_URI, uri, copy);
        (void)pjsip_uri_cmp(PJSIP_URI_IN_FROMTO_HDR, uri, copy);
    }
    const pjsip_uri *inner = (const pjsip_uri *)pjsip_uri_get_uri(uri);
    if (inner != NULL && (PJSIP_URI_SCHEME_IS_SIP(inner) || PJSIP_URI_SCHEME_IS_SIPS(inner))) {
        const pjsip_sip_uri *sip = (const pjsip_sip_uri *)inner;
        static const pj_str_t lr = { "lr", 2 }, ob = { "ob", 2 };
        (void)pjsip_param_find(&sip->other_param, &lr);
        (void)pjsip_param_find(&sip->other_param, &ob);
        (void)pjsip_param_cmp(&sip->other_param, &sip->other_param, PJ_FALSE);
        (void)pjsip_param_cmp(&sip->header_param, &sip->header_param, PJ_TRUE);
    }
}

static void exercise_headers(pj_pool_t *pool, pjsip_msg *msg) {
    for (pjsip_hdr *h = msg->hdr.next; h != &msg->hdr; h = h->next) {
        /* Sizes near the start (the name and ": ") and near the end of each header's output. */
        fuzz_print_tight(print_hdr, h, 8192, 40, 8);
        pjsip_hdr *copy = (pjsip_hdr *)pjsip_hdr_clone(pool, h);
        pjsip_hdr *shallow = (pjsip_hdr *)pjsip_hdr_shallow_clone(pool, h);
        char buf[512];
        if (copy != NULL) (void)pjsip_hdr_print_on(copy, buf, sizeof(buf));
        if (shallow != NULL) (void)pjsip_hdr_print_on(shallow, buf, sizeof(buf));
        switch (h->type) {
        case PJSIP_H_FROM:
        case PJSIP_H_TO:
            exercise_uri(pool, ((pjsip_fromto_hdr *)h)->uri);
            break;
        case PJSIP_H_CONTACT:
            exercise_uri(pool, ((pjsip_contact_hdr *)h)->uri);
            break;
        case PJSIP_H_ROUTE:
        case PJSIP_H_RECORD_ROUTE:
            exercise_uri(pool, (pjsip_uri *)&((pjsip_routing_hdr *)h)->name_addr);
            break;
        default:
            break;
        }
    }
}

/* The headers a module may look up, by type and by name (both forms where there is a short one). */
static void exercise_lookups(const pjsip_msg *msg) {
    for (int type = PJSIP_H_ACCEPT; type < PJSIP_H_OTHER; ++type) {
        (void)pjsip_msg_find_hdr(msg, (pjsip_hdr_e)type, NULL);
    }
    static const char *const names[][2] = {
        { "Via", "v" }, { "Call-ID", "i" }, { "Contact", "m" }, { "Content-Type", "c" },
        { "Supported", "k" }, { "Event", "o" }, { "Refer-To", "r" }, { "Session-Expires", "x" },
        { "Allow-Events", "u" }, { "Service-Route", NULL }, { "Path", NULL }, { "P-Asserted-Identity", NULL },
        { "Subscription-State", NULL }, { "Replaces", NULL }, { "RSeq", NULL }, { "RAck", NULL },
    };
    for (unsigned i = 0; i < PJ_ARRAY_SIZE(names); ++i) {
        pj_str_t name = pj_str((char *)names[i][0]);
        pj_str_t short_name = pj_str((char *)(names[i][1] != NULL ? names[i][1] : names[i][0]));
        for (void *h = pjsip_msg_find_hdr_by_names(msg, &name, &short_name, NULL); h != NULL;
             h = pjsip_msg_find_hdr_by_names(msg, &name, &short_name, ((pjsip_hdr *)h)->next)) {
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0 || size > PJSIP_MAX_PKT_LEN) return 0;
    char *packet = fuzz_cstring(data, size);
    pj_size_t framed = 0;
    (void)pjsip_find_msg(packet, size, PJ_TRUE, &framed);
    (void)pjsip_find_msg(packet, size, PJ_FALSE, &framed);

    pj_pool_t *pool = fuzz_pool("sip-parser");
    pjsip_rx_data rdata;
    pj_bzero(&rdata, sizeof(rdata));
    rdata.tp_info.pool = pool;
    pj_list_init(&rdata.msg_info.parse_err);
    rdata.msg_info.msg_buf = packet;
    rdata.msg_info.len = (int)size;
    pjsip_msg *msg = pjsip_parse_rdata(packet, size, &rdata);

    if (msg != NULL) {
        exercise_lookups(msg);
        exercise_headers(pool, msg);
        if (msg->type == PJSIP_REQUEST_MSG) exercise_uri(pool, msg->line.req.uri);

        /* The transport layer drops a message without these before any module sees it. */
        if (rdata.msg_info.cid != NULL && rdata.msg_info.cid->id.slen != 0 && rdata.msg_info.from != NULL &&
            rdata.msg_info.to != NULL && rdata.msg_info.via != NULL && rdata.msg_info.cseq != NULL) {
            pj_str_t key;
            if (msg->type == PJSIP_REQUEST_MSG) {
                (void)pjsip_tsx_create_key(pool, &key, PJSIP_ROLE_UAS, &msg->line.req.method, &rdata);
                if (msg->line.req.method.id == PJSIP_ACK_METHOD || msg->line.req.method.id == PJSIP_CANCEL_METHOD) {
                    (void)pjsip_tsx_create_key(pool, &key, PJSIP_ROLE_UAS, pjsip_get_invite_method(), &rdata);
                }
            } else {
                (void)pjsip_tsx_create_key(pool, &key, PJSIP_ROLE_UAC, &rdata.msg_info.cseq->method, &rdata);
            }
        }

        pjsip_msg *copy = pjsip_msg_clone(pool, msg);
        fuzz_print_tight(print_msg, msg, PJSIP_MAX_PKT_LEN * 4, 64, 64);

        /* What the stack prints (a forwarded or logged message) must parse again. */
        char *printed = (char *)malloc(PJSIP_MAX_PKT_LEN * 4 + 1);
        if (printed == NULL) abort();
        pj_ssize_t len = pjsip_msg_print(copy != NULL ? copy : msg, printed, PJSIP_MAX_PKT_LEN * 4);
        if (len > 0) {
            printed[len] = '\0';
            pjsip_parser_err_report errors;
            pj_list_init(&errors);
            (void)pjsip_parse_msg(pool, printed, (pj_size_t)len, &errors);
        }
        free(printed);
    }

    pj_pool_release(pool);
    free(packet);
    fuzz_check_exception_chain();
    return 0;
}
