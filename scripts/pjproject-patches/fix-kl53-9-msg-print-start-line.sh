# KL-53.9: sip_msg.c pjsip_msg_print copies a request's method and a response's reason phrase
# into the buffer without checking that they fit (not fixed upstream): only its "size < 256"
# guess stands before them, so a message whose start line is longer than the buffer it is printed
# into writes past it (found by the coverage-instrumented fuzzer in make test's smoke: a response
# with a reason of some 300 bytes printed into a buffer of 300). Both come from the peer: any
# method token and any reason text parse. pjsip_tx_data_encode prints into PJSIP_MAX_PKT_LEN,
# which a received start line cannot outgrow, so pjsua's own paths stay inside; an application
# (or a proxy's forwarding code) that prints a received message into a smaller buffer did not.
# Each now says "does not fit" (-1), as the headers after them do.
# Test: the fuzz seeds Fuzz/corpus/sip_parser/kl53-method-long and kl53-status-reason-long (the
# reproducers), which make fuzz-smoke replays on the instrumented build.
KL53_9_MSG="$SRC/pjsip/src/pjsip/sip_msg.c"
if ! upstream_has KL-53.9 "$KL53_9_MSG" 'if (len + 1 > end - p)'; then
    hunk KL-53.9 "$KL53_9_MSG" before '        pj_memcpy(p, msg->line.req.method.name.ptr, len);' \
'        if (len < 0 || len + 1 > end - p)  /* swift-pjsua: KL-53.9, the method and its space */
            return -1;'
    hunk KL-53.9 "$KL53_9_MSG" before '        pj_memcpy(p, msg->line.status.reason.ptr, len );' \
'        if (len < 0 || len + 2 > end - p)  /* swift-pjsua: KL-53.9, the reason and its CRLF */
            return -1;'
    applied KL-53.9
fi
