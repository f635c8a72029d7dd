# KL-53.13: int_parse_msg left its exception handler in the thread's chain on a buffer of nothing
# but line breaks (not fixed upstream). Its "still a packet?" check returns NULL from inside its
# PJ_TRY, past the PJ_END that pops the handler: the chain then starts at a record of a frame that
# has returned (the harm KL-53.12 describes). pjsip_parse_rdata and pjsip_parse_msg reach it with
# such a buffer; the transport layer strips leading line breaks before it parses a packet (a
# keep-alive CRLF never gets here), so no received packet does: a caller of the parser's API does.
# The handler is now popped before that return, as PJ_END pops it.
# Found by the fuzz targets' exception-chain check (sip_parser, 2026-12-06).
# Test: the fuzz seed Fuzz/corpus/sip_parser/rfc4475-keepalive (make fuzz-smoke), which has held a
# blank message since the target was written: the chain check made it a finding.
KL53_13_FILE="$SRC/pjsip/src/pjsip/sip_parser.c"
if ! upstream_has KL-53.13 "$KL53_13_FILE" 'blank message: popped as PJ_END pops'; then
    hunk KL-53.13 "$KL53_13_FILE" replace '        if (pj_scan_is_eof(scanner))' \
'        /* swift-pjsua: KL-53.13, blank message: popped as PJ_END pops it, before the return
         * below leaves the PJ_TRY (the setjmp implementation, the one PJLIB builds here) */
        if (pj_scan_is_eof(scanner) && (pj_pop_exception_handler_(&pj_x_except__), PJ_TRUE))'
    applied KL-53.13
fi
