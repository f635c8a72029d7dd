# KL-57.1: a Record-Route or Route whose SIP URI carries PJSIP's own "hide" parameter without
# "lr" aborted the process when a message holding it was printed (upstream 5b85c9cd2, #5185,
# 2026-08-13, not an advisory; after our 2.17 base, in the iOS binary). pjsip_routing_hdr_print
# skips a hidden route and asserted that "hide" always comes with "lr", which holds for routes
# PJSIP makes, not for received ones: a request with "Record-Route: <sip:proxy;hide>" has its
# Record-Route copied into our answer (pjsip_endpt_create_response), the answer is printed to
# be sent, and pj_assert stops the process (our builds keep assertions). One INVITE, OPTIONS or
# any request from anyone. A hidden route is still left out of the printed message; the assert
# is gone. (Upstream also takes "hide" as implying "lr" when it picks loose or strict routing;
# without that a hidden route without "lr" is a strict route, as RFC 3261 reads such a URI.)
# Test: Tests/SwiftPJSUATests/Security/UpstreamFixTests.swift; the fuzz seed
# Fuzz/corpus/sip_endpoint/kl57-record-route-hide (make fuzz-smoke).
KL57_1_FILE="$SRC/pjsip/src/pjsip/sip_msg.c"
if ! upstream_has KL-57.1 "$KL57_1_FILE" "param without 'lr'"; then
    hunk KL-57.1 "$KL57_1_FILE" replace '                pj_assert(sip_uri->lr_param != 0);' \
'                /* swift-pjsua: KL-57.1, a received route may carry "hide" without "lr":
                 * not printed either way, and no assert a peer can reach */'
    applied KL-57.1
fi
