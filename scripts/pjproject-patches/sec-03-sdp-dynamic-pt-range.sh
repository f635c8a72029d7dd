# SEC-3: payload types past 127 indexing the dynamic PT map (upstream 673b978aa, 2026-06-17).
# sdp_neg.c assign_pt_and_update_map indexes arrays of DYNAMIC_PT_SIZE (96..127) with `pt - 96`
# for the payload number of every a=rtpmap, a=fmtp and format of an SDP, checked against 96 only:
# a remote `a=rtpmap:65535 ...` read and wrote far past them (2.17 has three such checks;
# upstream's tree later added a fourth, for RED references, which this patch bounds too). The
# remote SDP reaches that function only with PJMEDIA_SDP_NEG_MAINTAIN_REMOTE_PT_MAP (pjmedia's
# default 0, and ours: neither config_site sets it; otherwise it sees our own SDP only), so no
# packet reaches it in our builds; patched for a build that turns the map on. Every lower-bound
# check of a remote number in the function also checks the upper bound.
SEC3_FILE="$SRC/pjmedia/src/pjmedia/sdp_neg.c"
if ! upstream_has SEC-3 "$SEC3_FILE" 'is_dynamic_pt('; then
    [ "$(grep -cxF '            if (pt < START_DYNAMIC_PT)' "$SEC3_FILE")" = 3 ] \
        && [ "$(grep -cF 'if (ref_pt >= START_DYNAMIC_PT &&' "$SEC3_FILE")" -le 1 ] \
        || die "sdp_neg.c changed: review the SEC-3 payload type range"
    sed -i -e 's|^            if (pt < START_DYNAMIC_PT)$|            if (pt < START_DYNAMIC_PT \|\| pt > 127)  /* swift-pjsua: SEC-3 */|' \
        -e 's|if (ref_pt >= START_DYNAMIC_PT &&|if (ref_pt >= START_DYNAMIC_PT \&\& ref_pt <= 127 \&\&  /* swift-pjsua: SEC-3 */|' "$SEC3_FILE"
    [ "$(grep -c 'swift-pjsua: SEC-3' "$SEC3_FILE")" -ge 3 ] || die "the SEC-3 patch did not apply to all checks"
    applied SEC-3
fi
