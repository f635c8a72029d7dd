# KL-53.7: a static payload type written other than our way (00 for 0) aborted the process when the
# negotiator does not prefer the remote's codec order (upstream dc51805e8, #4970, 2026-05-08, not
# an advisory). sdp_neg.c match_offer matches static types by number but records the same side's
# string for both the offered and the answered type; the answer is then searched for a string it
# does not hold: pj_assert(j != answer->desc.fmt_count), without assertions a swap with the entry
# one past the formats in use. pjsua prefers the remote's order by default (not reached there).
# Record each side's own string, as the dynamic types' matching just below does.
# Test: the fuzz seed Fuzz/corpus/sdp/kl53-static-pt-00 (the reproducer), replayed by make fuzz-smoke.
KL53_7_FILE="$SRC/pjmedia/src/pjmedia/sdp_neg.c"
if ! upstream_has KL-53.7 "$KL53_7_FILE" '                                                    master->desc.fmt[i]:'; then
    hunk KL-53.7 "$KL53_7_FILE" replace '                        pt_offer[pt_answer_count] = slave->desc.fmt[j];' \
'                        /* swift-pjsua: KL-53.7, each side'"'"'s own string (00 and 0 match) */
                        pt_offer[pt_answer_count] = prefer_remote_codec_order ?
                                                    master->desc.fmt[i] : slave->desc.fmt[j];'
    hunk KL-53.7 "$KL53_7_FILE" replace '                        pt_answer[pt_answer_count++] = slave->desc.fmt[j];' \
'                        pt_answer[pt_answer_count++] = prefer_remote_codec_order ?
                                                       slave->desc.fmt[j] : master->desc.fmt[i];  /* swift-pjsua: KL-53.7 */'
    applied KL-53.7
fi
