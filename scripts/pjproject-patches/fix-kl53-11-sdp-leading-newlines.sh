# KL-53.11: pjmedia_sdp_parse threw with no handler on an SDP body that is empty or only line
# breaks and is not NUL-terminated (not fixed upstream). Its skip of leading newlines runs before
# its PJ_TRY and stops only at a character other than CR or LF; a multipart part's body is not
# NUL-terminated (the "\r\n--boundary" that follows it is part of the packet), so for a part of
# nothing but line breaks the skip reads on to the delimiter's CR, asks the scanner for a character
# past the end, and the scanner's error callback throws outside any PJ_TRY: pj_throw_exception_
# asserts (our builds keep assertions), and without assertions longjmps through NULL. One INVITE
# with such a multipart/mixed body from any caller (pjsip_inv_verify_request3 -> pjsip_get_sdp_info),
# or such a 183/200 to our call, stopped the process. The skip now stops at the end of the buffer;
# the empty SDP is then refused as the parser refuses any SDP without a v= line (400 to an INVITE).
# Found by make test's fuzz smoke (sip_endpoint, the CI of 2026-12-06).
# Test: the fuzz seed Fuzz/corpus/sip_endpoint/kl53-multipart-sdp-newlines (make fuzz-smoke);
# Tests/SwiftPJSUATests/Security/FuzzFindingTests.swift (the engine answers 400 and stays up).
KL53_11_FILE="$SRC/pjmedia/src/pjmedia/sdp.c"
if ! upstream_has KL-53.11 "$KL53_11_FILE" "while (!pj_scan_is_eof(&scanner) && (*scanner.curptr=='\r'"; then
    hunk KL-53.11 "$KL53_11_FILE" replace "    while (*scanner.curptr=='\r' || *scanner.curptr=='\n')" \
"    /* swift-pjsua: KL-53.11, not past the end: a multipart part's body is not NUL-terminated,
     * and the scanner throws at its end, here outside any PJ_TRY */
    while (!pj_scan_is_eof(&scanner) && (*scanner.curptr=='\r' || *scanner.curptr=='\n'))"
    applied KL-53.11
fi
