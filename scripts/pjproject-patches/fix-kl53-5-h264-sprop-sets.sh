# KL-53.5: an H.264 fmtp with many (about ninety) empty sprop-parameter-sets aborted the process
# (not fixed upstream). vid_codec_util.c pjmedia_vid_codec_h264_parse_fmtp adds a 3-byte start
# code per set to the 256-byte sprop_param_sets; once fewer than 3 bytes are left, the room it
# gives pj_base64_decode is negative, and the decoder's PJ_ASSERT_RETURN on room for the decoded
# set aborts (assertions on); one set longer than the room left (~340 base64 characters) as well.
# Reached by any video offer or answer once a video line is negotiated (H.264's SDP matcher) and
# when a video stream is made. A set without room (start code and decoded bytes) refuses the
# fmtp (PJMEDIA_SDP_EINFMTP, as an undecodable set already does).
# Test: Tests/SwiftPJSUATests/Security/FuzzFindingTests.swift and the seed Fuzz/corpus/sdp/kl53-h264-sprop-empty-sets.
KL53_5_FILE="$SRC/pjmedia/src/pjmedia/vid_codec_util.c"
if ! upstream_has KL-53.5 "$KL53_5_FILE" 'if (tmp_len < 0)'; then
    hunk KL-53.5 "$KL53_5_FILE" before '                status = pj_base64_decode(&tmp_st,' \
'                /* swift-pjsua: KL-53.5, the decoder asserts room for the whole set (after its
                 * start code): a set that does not fit refuses the fmtp instead */
                {
                    pj_ssize_t b64_len = tmp_st.slen;
                    while (b64_len > 0 && tmp_st.ptr[b64_len-1] == '"'"'='"'"')
                        --b64_len;
                    if (tmp_len < 0 || tmp_len < (int)PJ_BASE64_TO_BASE256_LEN(b64_len))
                        return PJMEDIA_SDP_EINFMTP;
                }'
    applied KL-53.5
fi
