# KL-53.10: sdp_neg.c match_offer aborts when the answer would name one of our formats twice (not
# fixed upstream). An offer that lists a payload type twice ("m=audio 6000 RTP/AVP 0 2 0") matches
# our one PCMU twice when the answer may carry several codecs or follows our order; the answer is
# then reordered by searching each matched type from its own position on, the second search finds
# nothing, and pj_assert(j != answer->desc.fmt_count) aborts (our builds keep assertions); without
# assertions the swap takes the entry one past the formats in use (past the array when the answer
# holds PJMEDIA_MAX_SDP_FMT of them). pjsua's defaults (one codec, the remote's order) stop after
# the first match and answer such an offer fine; an app that sets either negotiator option was open
# to any caller's INVITE. A type matched twice is now answered once, as RFC 3264 5.1 lists each
# payload type once. Found by make fuzz's sdp target (2026-12-06, a 4-minute run).
# Test: the fuzz seed Fuzz/corpus/sdp/kl53-duplicate-payload-type (the reproducer), replayed by
# make fuzz-smoke.
KL53_10_FILE="$SRC/pjmedia/src/pjmedia/sdp_neg.c"
if ! upstream_has KL-53.10 "$KL53_10_FILE" 'a format matched twice'; then
    hunk KL-53.10 "$KL53_10_FILE" replace '        pj_assert(j != answer->desc.fmt_count);' \
'        if (j == answer->desc.fmt_count) {
            /* swift-pjsua: KL-53.10, a format matched twice (the offer listed its payload type
             * twice) is already in place: answer it once. */
            pj_array_erase(pt_answer, sizeof(pt_answer[0]), pt_answer_count, i);
            pj_array_erase(pt_offer, sizeof(pt_offer[0]), pt_answer_count, i);
            --pt_answer_count;
            --i;  /* unsigned: wraps to the same i after the loop'"'"'s ++i */
            continue;
        }'
    applied KL-53.10
fi
