# KL-53.1: an offer with a disabled (port 0) media line and no c= aborted the process (upstream
# 34870b2f3, #4971, 2026-05-13, not an advisory). pjmedia_sdp_neg_create_w_remote_offer and
# pjsip's checks validate a remote offer leniently (pjmedia_sdp_validate2 with check_c_addr false:
# a port-0 line needs no c=), but sdp_neg.c create_answer validates it again strictly, behind a
# PJ_ASSERT_RETURN: one INVITE from anyone reached it through pjsip_inv_verify_request3, an abort
# with assertions on (ours are). Validate the same way the offer was accepted; the disabled line is
# answered disabled, and an offer with nothing usable gets the negotiator's usual 488.
# Test: Tests/SwiftPJSUATests/Security/FuzzFindingTests.swift; seeds Fuzz/corpus/{sdp,sip_endpoint}/kl53-*port0-*.
KL53_1_FILE="$SRC/pjmedia/src/pjmedia/sdp_neg.c"
if ! upstream_has KL-53.1 "$KL53_1_FILE" 'status = pjmedia_sdp_validate2(offer, PJ_FALSE);'; then
    hunk KL-53.1 "$KL53_1_FILE" replace '    status = pjmedia_sdp_validate(offer);' \
'    /* swift-pjsua: KL-53.1, as leniently as the offer was accepted (a port-0 line needs no c=) */
    status = pjmedia_sdp_validate2(offer, PJ_FALSE);'
    applied KL-53.1
fi
