# SEC-4: a matched format without an a=rtpmap (upstream fd9074547, 2026-08-04).
# sdp_neg.c match_offer looks up the rtpmap of each answer format in two places, when matching a
# RED (RFC 2198) offer and when removing unwanted telephone-event formats (dynamic formats only),
# and asserts that one exists: a pj_assert, so an abort in our builds (assertions on), a NULL read
# where they are off. A format without an rtpmap can be neither RED nor telephone-event: skip it.
# Test: Tests/SwiftPJSUATests/Security/SDPOfferTests.swift (if a packet reaches it; see SECURITY.md).
SEC4_FILE="$SRC/pjmedia/src/pjmedia/sdp_neg.c"
if ! upstream_has SEC-4 "$SEC4_FILE" 'can never be RED, so skip them'; then
    [ "$(grep -cxF '            pj_assert(a);' "$SEC4_FILE")" = 2 ] \
        && grep -qxF '            /* Get the rtpmap. */' "$SEC4_FILE" \
        && grep -qxF '            /* Get the rtpmap for format. */' "$SEC4_FILE" \
        || die "sdp_neg.c changed: review the SEC-4 rtpmap lookups"
    # The first assert is the RED loop's (a for loop: continue), the second the telephone-event
    # loop's (which advances i itself).
    awk '$0 == "            pj_assert(a);" {
            n++
            if (n == 1) print "            if (!a) continue;  /* swift-pjsua: SEC-4, static formats have none */"
            else print "            if (!a) { ++i; continue; }  /* swift-pjsua: SEC-4, no rtpmap: no telephone-event */"
            next
        } { print }' "$SEC4_FILE" > "$SEC4_FILE.new" && mv "$SEC4_FILE.new" "$SEC4_FILE"
    [ "$(grep -c 'swift-pjsua: SEC-4' "$SEC4_FILE")" = 2 ] || die "the SEC-4 patch did not apply"
    applied SEC-4
fi
