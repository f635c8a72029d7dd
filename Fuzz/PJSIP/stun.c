/*
 * stun: a datagram on a media or SIP socket that speaks STUN (ICE connectivity checks, a STUN
 * server's Binding response, TURN): pjnath's STUN codec and pjlib-util's simple STUN client
 * parser (the one pjsua's STUN resolution of its public address reads).
 *
 * Per input, the way each of pjnath's receivers takes a packet (ICE: checked without FINGERPRINT
 * then decoded unchecked; a STUN socket: checked with it; TURN over UDP and TCP: decoded with
 * the check): pj_stun_msg_decode, the message dumped, cloned, encoded with a key
 * (MESSAGE-INTEGRITY, FINGERPRINT when present) and decoded again, the error response the decoder
 * made (unknown mandatory attributes) encoded; a request authenticated against a short-term
 * credential, a response against its key. Then pjstun_parse_msg with the lookups the simple
 * client makes (MAPPED-ADDRESS, XOR-MAPPED-ADDRESS).
 */
#include <pjnath.h>
#include "common.h"

static pj_str_t key;
static pj_stun_auth_cred credential;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    fuzz_pj_init();
    if (pjnath_init() != PJ_SUCCESS) abort();
    pj_log_set_level(0);
    key = pj_str("fuzz-password");
    pj_bzero(&credential, sizeof(credential));
    credential.type = PJ_STUN_AUTH_CRED_STATIC;
    credential.data.static_cred.username = pj_str("fuzz:peer");
    credential.data.static_cred.data_type = PJ_STUN_PASSWD_PLAIN;
    credential.data.static_cred.data = key;
    return 0;
}

/* pjnath re-encodes only messages it built itself. The decoder accepts a MESSAGE-INTEGRITY after
 * FINGERPRINT, which the encoder refuses with an assertion: such a message is not re-encoded here
 * (nothing in pjsua re-encodes a received message). */
static int encodable(const pj_stun_msg *msg) {
    for (unsigned i = 0; i + 1 < msg->attr_count; ++i) {
        if (msg->attr[i]->type == PJ_STUN_ATTR_FINGERPRINT) return 0;
    }
    return 1;
}

static void roundtrip(pj_pool_t *pool, pj_stun_msg *msg) {
    char dump[2048];
    unsigned dumped = 0;
    (void)pj_stun_msg_dump(msg, dump, sizeof(dump), &dumped);
    (void)pj_stun_msg_clone(pool, msg);

    if (!encodable(msg)) return;
    enum { OUT = PJ_TURN_MAX_PKT_LEN * 2 };
    pj_uint8_t *out = (pj_uint8_t *)malloc(OUT);
    if (out == NULL) abort();
    pj_size_t encoded = 0;
    if (pj_stun_msg_encode(msg, out, OUT, 0, &key, &encoded) == PJ_SUCCESS) {
        pj_stun_msg *again = NULL;
        (void)pj_stun_msg_decode(pool, out, encoded, PJ_STUN_IS_DATAGRAM | PJ_STUN_CHECK_PACKET, &again, NULL, NULL);
    }
    free(out);
}

/* As pj_stun_session_on_rx_pkt decodes: the message, the response the decoder made for an
 * unknown mandatory attribute, and the credential checks the session runs. */
static void decode(const pj_uint8_t *pdu, size_t size, unsigned options) {
    pj_pool_t *pool = fuzz_pool("stun");
    pj_stun_msg *msg = NULL, *response = NULL;
    pj_size_t parsed = 0;
    if (pj_stun_msg_decode(pool, pdu, size, options, &msg, &parsed, &response) == PJ_SUCCESS && msg != NULL) {
        roundtrip(pool, msg);
        if (PJ_STUN_IS_REQUEST(msg->hdr.type)) {
            pj_stun_req_cred_info info;
            pj_stun_msg *challenge = NULL;
            (void)pj_stun_authenticate_request(pdu, (unsigned)size, msg, &credential, pool, &info, &challenge);
            if (challenge != NULL) roundtrip(pool, challenge);
        } else if (PJ_STUN_IS_RESPONSE(msg->hdr.type)) {
            (void)pj_stun_authenticate_response(pdu, (unsigned)size, msg, &key);
        }
    }
    if (response != NULL) roundtrip(pool, response);
    pj_pool_release(pool);
}

/* The largest datagram a receiver hands over: TURN's buffer (PJ_TURN_MAX_PKT_LEN); a STUN socket
 * reads PJ_STUN_SOCK_PKT_LEN, a media transport PJMEDIA_MAX_MRU. */
enum { LARGEST_DATAGRAM = PJ_TURN_MAX_PKT_LEN };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0 || size > LARGEST_DATAGRAM) return 0;
    /* A heap copy the exact size of the datagram: reading past it is a report. */
    pj_uint8_t *pdu = (pj_uint8_t *)malloc(size);
    if (pdu == NULL) abort();
    memcpy(pdu, data, size);

    /* ICE (ice_session.c): a datagram that passes the check without FINGERPRINT is decoded
     * unchecked. */
    if (pj_stun_msg_check(pdu, size, PJ_STUN_IS_DATAGRAM | PJ_STUN_NO_FINGERPRINT_CHECK) == PJ_SUCCESS) {
        decode(pdu, size, PJ_STUN_IS_DATAGRAM);
    }
    /* A STUN socket (stun_sock.c): checked with FINGERPRINT first. */
    if (pj_stun_msg_check(pdu, size, PJ_STUN_IS_DATAGRAM | PJ_STUN_CHECK_PACKET) == PJ_SUCCESS) {
        decode(pdu, size, PJ_STUN_IS_DATAGRAM);
    }
    /* TURN (turn_session.c): anything whose first two bits are zero, over UDP and over TCP. */
    if ((pdu[0] & 0xC0) == 0) {
        decode(pdu, size, PJ_STUN_CHECK_PACKET | PJ_STUN_NO_FINGERPRINT_CHECK | PJ_STUN_IS_DATAGRAM);
        decode(pdu, size, PJ_STUN_CHECK_PACKET | PJ_STUN_NO_FINGERPRINT_CHECK);
    }

    /* The simple client (stun_simple_client.c) receives into char recv_buf[128] and parses it
     * in place: the same here, so that only a read past those 128 bytes is a report. */
    enum { SIMPLE_RECV_BUF = 128 };
    pj_uint8_t *simple = (pj_uint8_t *)malloc(SIMPLE_RECV_BUF);
    if (simple == NULL) abort();
    size_t received = size < SIMPLE_RECV_BUF ? size : SIMPLE_RECV_BUF;
    memset(simple, 0, SIMPLE_RECV_BUF);
    memcpy(simple, data, received);
    pjstun_msg parsed_simple;
    if (pjstun_parse_msg(simple, received, &parsed_simple) == PJ_SUCCESS) {
        (void)pjstun_msg_find_attr(&parsed_simple, PJSTUN_ATTR_MAPPED_ADDR);
        (void)pjstun_msg_find_attr(&parsed_simple, PJSTUN_ATTR_XOR_MAPPED_ADDR);
    }
    free(simple);
    free(pdu);
    fuzz_check_exception_chain();
    return 0;
}
