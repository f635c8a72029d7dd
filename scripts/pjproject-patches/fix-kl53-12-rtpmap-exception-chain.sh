# KL-53.12: pjmedia_sdp_attr_get_rtpmap left its exception handler in the thread's chain after
# returning (not fixed upstream). An rtpmap whose encoding name is followed by anything but '/'
# (a=rtpmap:96 opus:48000) leaves its PJ_TRY by `goto on_return`, past the PJ_END that pops the
# handler: the thread's chain then starts at a record in a stack frame that no longer exists, and
# the next exception thrown on that thread outside a live PJ_TRY longjmps into it (stack memory of
# whatever ran since) instead of stopping. Any caller's offer reaches it (the negotiator reads every
# rtpmap of a dynamic payload type). The check now throws inside the PJ_TRY, whose catch gives the
# same PJMEDIA_SDP_EINRTPMAP, so the handler is popped on every path.
# Found while chasing KL-53.11 (2026-12-06), by the fuzz targets' check that each input leaves the
# exception chain empty (Fuzz/PJSIP/common.h fuzz_exception_chain_empty).
# Test: the fuzz seed Fuzz/corpus/sip_endpoint/kl53-rtpmap-no-clock-rate (make fuzz-smoke).
KL53_12_FILE="$SRC/pjmedia/src/pjmedia/sdp.c"
if ! upstream_has KL-53.12 "$KL53_12_FILE" 'rtpmap: left through PJ_END'; then
    hunk KL-53.12 "$KL53_12_FILE" replace '            goto on_return;' \
'            /* swift-pjsua: KL-53.12, rtpmap: left through PJ_END (the catch sets the same status),
             * not by a goto past it that leaves this frame'"'"'s handler in the thread'"'"'s chain */
            on_scanner_error(&scanner);'
    applied KL-53.12
fi
