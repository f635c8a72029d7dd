# KL-53.5: an H.264 fmtp with many (about ninety) empty sprop-parameter-sets aborted the process
# (not fixed upstream). vid_codec_util.c pjmedia_vid_codec_h264_parse_fmtp adds a 3-byte start
# code per set to the 256-byte sprop_param_sets; once fewer than 3 bytes are left, the room it
# gives pj_base64_decode is negative and the decoder's PJ_ASSERT_RETURN aborts (assertions on).
# Reached by any video offer or answer once a video line is negotiated (H.264's SDP matcher) and
# when a video stream is made. No room for the next start code: the fmtp is refused, as a set too
# long for the buffer already is (PJMEDIA_SDP_EINFMTP).
# Test: Tests/SwiftPJSUATests/Security/FuzzFindingTests.swift (Fuzz/findings/sdp-h264-sprop-empty-sets).
KL53_5_FILE="$SRC/pjmedia/src/pjmedia/vid_codec_util.c"
if ! upstream_has KL-53.5 "$KL53_5_FILE" 'if (tmp_len < 0)'; then
    hunk KL-53.5 "$KL53_5_FILE" before '                status = pj_base64_decode(&tmp_st,' \
'                if (tmp_len < 0)  /* swift-pjsua: KL-53.5, no room for a start code */
                    return PJMEDIA_SDP_EINFMTP;'
    applied KL-53.5
fi
