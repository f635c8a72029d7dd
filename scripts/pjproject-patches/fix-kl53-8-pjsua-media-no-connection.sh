# KL-53.8: an offer with a port-0 media line and no c= for it crashed pjsua once KL-53.1 let the
# negotiator accept it (not fixed upstream; upstream's 34870b2f3, in the iOS binary, opens the same
# path). pjsua_media.c reads the line's connection data as "the line's c=, else the session's"
# and dereferences it: sort_media (is the line inactive, "0.0.0.0"?) and the address family
# check of the call's media (IP6?), both on every incoming INVITE's offer, so a NULL read (SIGSEGV)
# in any build; pjsip's lenient validation lets exactly such a disabled line through. Without
# connection data a line is neither on hold nor IPv6.
# Test: Tests/SwiftPJSUATests/Security/FuzzFindingTests.swift (the patched pjsua app answers the
# offer of Fuzz/corpus/sdp/kl53-port0-no-connection and takes a call afterwards).
KL53_8_FILE="$SRC/pjsip/src/pjsua-lib/pjsua_media.c"
if ! upstream_has KL-53.8 "$KL53_8_FILE" '(c && pj_strcmp2(&c->addr, "0.0.0.0") == 0)'; then
    hunk KL-53.8 "$KL53_8_FILE" replace '            pj_strcmp2(&c->addr, "0.0.0.0") == 0)' \
'            (c && pj_strcmp2(&c->addr, "0.0.0.0") == 0))  /* swift-pjsua: KL-53.8, c= may be absent */'
    hunk KL-53.8 "$KL53_8_FILE" replace '        if (pj_stricmp(&c->addr_type, &ID_IP6) == 0 &&' \
'        if (c && pj_stricmp(&c->addr_type, &ID_IP6) == 0 &&  /* swift-pjsua: KL-53.8 */'
    applied KL-53.8
fi
