# KL-53.4: an SDP c= address of 254 characters or more aborted the process (not fixed upstream).
# sock_common.c pj_sockaddr_in_set_str_addr refuses a name of PJ_MAX_HOSTNAME or more through a
# PJ_ASSERT_RETURN; pjmedia_stream_info_from_sdp passes it the remote c= address (pjsua_media.c, for
# every call's audio once the SDP is negotiated, any caller or callee), so one INVITE or answer
# aborted the process with assertions on. A long name is input, not a caller's bug: refuse it
# without the assert (PJ_ENAMETOOLONG, as pj_getaddrinfo does); the stream is not created.
# Test: Tests/SwiftPJSUATests/Security/FuzzFindingTests.swift and the seed Fuzz/corpus/sdp/kl53-connection-address-254.
KL53_4_FILE="$SRC/pjlib/src/pj/sock_common.c"
if ! upstream_has KL-53.4 "$KL53_4_FILE" 'if (str_addr && str_addr->slen >= PJ_MAX_HOSTNAME) {'; then
    hunk KL-53.4 "$KL53_4_FILE" replace '    PJ_ASSERT_RETURN(!str_addr || str_addr->slen < PJ_MAX_HOSTNAME, ' \
'    /* swift-pjsua: KL-53.4, a peer'"'"'s long name (an SDP c=) is refused, not asserted */
    if (str_addr && str_addr->slen >= PJ_MAX_HOSTNAME) {'
    hunk KL-53.4 "$KL53_4_FILE" replace '                     (addr->sin_addr.s_addr=PJ_INADDR_NONE, PJ_EINVAL));' \
'        addr->sin_addr.s_addr = PJ_INADDR_NONE;
        return PJ_ENAMETOOLONG;
    }'
    applied KL-53.4
fi
