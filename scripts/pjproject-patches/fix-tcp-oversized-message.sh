# KL-4: after a message larger than the receive buffer on a TCP or TLS connection, the next message
# was lost too, and the oversized one went unanswered. sip_transport.c (pjsip_tpmgr_receive_packet)
# sees a full PJSIP_MAX_PKT_LEN buffer that pjsip_find_msg calls partial, reports
# PJSIP_ERXOVERFLOW and discards the buffer; the rest of that message's body then arrives as the
# start of the next read, is taken (with the next message's headers) for one message, and both are
# dropped. Now, when the headers arrived whole (pjsip_find_msg then knows the message's size from
# its Content-Length), a request is answered 513 Message Too Large (RFC 3261 21.5.11; not an ACK),
# parsed without its body to address the answer, and the rest of its body is skipped as it arrives
# (a count kept on the transport), so the next message is read from its first byte. Headers longer
# than the buffer leave nothing to find the next message by: the connection reads nothing more
# and is shut down, as PJSIP already does on a new connection (a client reconnects). The transport-dropped-data callback
# is given the bytes that are in the buffer, no longer the whole message's size past its end.
# Upstream has no fix (master b7317ffca, 2026-08-20): a pjproject upgrade reviews this (the build
# stops if an anchor moved). Test: HostileInputTests (a 64 kB INVITE over TCP is answered 513 and
# the next OPTIONS on the connection 200; headers past the buffer close the connection).
KL4_HEADER="$SRC/pjsip/include/pjsip/sip_transport.h"
KL4_FILE="$SRC/pjsip/src/pjsip/sip_transport.c"
hunk KL-4 "$KL4_HEADER" before '    void                   *data;           /**< Internal transport data.   */' \
'    pj_size_t               swift_pjsua_rx_skip; /**< swift-pjsua: KL-4, bytes of an
                                                 oversized message still to be
                                                 discarded (stream transports). */'
hunk KL-4 "$KL4_FILE" before 'PJ_DEF(pj_ssize_t) pjsip_tpmgr_receive_packet( pjsip_tpmgr *mgr,' \
'/* swift-pjsua: KL-4, answers 513 (RFC 3261 21.5.11) to an oversized request whose headers are
 * all in pkt[0..len): they are parsed alone, without the body that did not fit. */
#include <pjsip/sip_util.h>
static void swift_pjsua_answer_oversized(pjsip_tpmgr *mgr, pjsip_rx_data *rdata,
                                         char *pkt, pj_size_t len)
{
    pj_str_t buf;
    const pj_str_t blank_line = { "\n\r\n", 3 };
    char *blank;
    pj_size_t hdr_len;
    pjsip_msg *msg;
    char saved;

    buf.ptr = pkt;
    buf.slen = (pj_ssize_t)len;
    blank = pj_strstr(&buf, &blank_line);
    if (blank == NULL)
        return;
    hdr_len = (pj_size_t)(blank - pkt) + 3;
    if (hdr_len >= len)
        return;

    saved = pkt[hdr_len];
    pkt[hdr_len] = '\0';
    rdata->msg_info.len = (int)hdr_len;
    msg = pjsip_parse_rdata(pkt, hdr_len, rdata);
    pkt[hdr_len] = saved;

    if (msg == NULL || !pj_list_empty(&rdata->msg_info.parse_err) ||
        msg->type != PJSIP_REQUEST_MSG ||
        msg->line.req.method.id == PJSIP_ACK_METHOD ||
        rdata->msg_info.cid == NULL || rdata->msg_info.cid->id.slen == 0 ||
        rdata->msg_info.from == NULL || rdata->msg_info.to == NULL ||
        rdata->msg_info.via == NULL || rdata->msg_info.cseq == NULL)
    {
        return;
    }
    PJ_LOG(3, (THIS_FILE, "%s: a %.*s of more than %d bytes from %s:%d is answered 513",
               rdata->tp_info.transport->obj_name,
               (int)msg->line.req.method.name.slen, msg->line.req.method.name.ptr,
               PJSIP_MAX_PKT_LEN, rdata->pkt_info.src_name, rdata->pkt_info.src_port));
    /* As for every request below: the response goes where the request came from. */
    pj_strdup2(rdata->tp_info.pool, &rdata->msg_info.via->recvd_param,
               rdata->pkt_info.src_name);
    if (rdata->msg_info.via->rport_param == 0)
        rdata->msg_info.via->rport_param = rdata->pkt_info.src_port;
    pj_bzero(&rdata->endpt_info, sizeof(rdata->endpt_info));
    pjsip_endpt_respond_stateless(mgr->endpt, rdata, PJSIP_SC_MESSAGE_TOO_LARGE,
                                  NULL, NULL, NULL);
}
'
hunk KL-4 "$KL4_FILE" before '    /* Process all message fragments. */' \
'    /* swift-pjsua: KL-4, first the rest of an oversized message (see below) */
    if (tr->swift_pjsua_rx_skip > 0 && (tr->flag & PJSIP_TRANSPORT_DATAGRAM) == 0) {
        pj_size_t skip = tr->swift_pjsua_rx_skip < remaining_len ?
                         tr->swift_pjsua_rx_skip : remaining_len;

        tr->swift_pjsua_rx_skip -= skip;
        current_pkt += skip;
        remaining_len -= skip;
        total_processed += skip;
        if (remaining_len == 0)
            return total_processed;
    }
'
hunk KL-4 "$KL4_FILE" before '                if (1) {' \
'                /* swift-pjsua: KL-4, an oversized message: with its headers whole
                 * (its size known), a request is answered 513 and the rest of its body
                 * skipped as it arrives; without, the connection is shut down. */
                if (dd_status == PJSIP_ERXOVERFLOW) {
                    if (msg_fragment_size > remaining_len) {
                        tr->swift_pjsua_rx_skip = msg_fragment_size - remaining_len;
                        msg_fragment_size = remaining_len;
                        swift_pjsua_answer_oversized(mgr, rdata, current_pkt,
                                                     remaining_len);
                    } else {
                        PJ_LOG(3, (THIS_FILE, "%s: headers longer than %d bytes from %s:%d,"
                                   " shutting the connection down", tr->obj_name,
                                   PJSIP_MAX_PKT_LEN, rdata->pkt_info.src_name,
                                   rdata->pkt_info.src_port));
                        tr->swift_pjsua_rx_skip = (pj_size_t)-1;  /* nothing more read */
                        pjsip_transport_shutdown(tr);
                    }
                }
'
applied KL-4
