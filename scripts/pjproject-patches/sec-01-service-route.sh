# SEC-1: Service-Route URIs past PJSUA_ACC_MAX_PROXIES (upstream acc03b57c, 2026-06-17).
# pjsua_acc.c update_service_route copies the URIs of every Service-Route header of a REGISTER's
# 200 into `pjsip_uri *uri[PJSUA_ACC_MAX_PROXIES]` (8) on the stack. The loop bounds the count only
# inside one header (its do/while condition), so nine or more headers of one URI each wrote past the
# array: a registrar's answer overwrote the saved return address (SIGSEGV in `softphone register`,
# AddressSanitizer: stack-buffer-overflow in update_service_route). Refuse the whole set before the
# write that would not fit, as the loop already does for a header with too many URIs.
# Test: Tests/SwiftPJSUATests/Security/RegistrarAnswerTests.swift.
SEC1_FILE="$SRC/pjsip/src/pjsua-lib/pjsua_acc.c"
if ! upstream_has SEC-1 "$SEC1_FILE" 'if (uri_cnt >= PJ_ARRAY_SIZE(uri)) {'; then
    hunk SEC-1 "$SEC1_FILE" before '            uri[uri_cnt++] = h->name_addr.uri;' \
'            if (uri_cnt == PJ_ARRAY_SIZE(uri)) {  /* swift-pjsua: SEC-1, no room for one more */
                PJ_LOG(1,(THIS_FILE, "Error: more Service-Route URIs than %d",
                          (int)PJ_ARRAY_SIZE(uri)));
                return;
            }'
    applied SEC-1
fi
