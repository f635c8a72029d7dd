# SEC-2: more a=crypto lines than SDES can hold (upstream a1b707c0c, 2026-06-17).
# transport_srtp_sdes.c sdes_encode_sdp, answering an SRTP offer, parses each a=crypto of the
# remote media into `int tags[64]` on the stack, with no bound; the SDP parser keeps up to
# PJMEDIA_MAX_SDP_ATTR (68) attributes a media, so a remote offer with 65-68 a=crypto lines wrote
# up to four ints past the array. Short lines (`a=crypto:N X inline:AAAA`, 26 bytes) fit 68 of
# them in one UDP datagram under our 4000-byte PJSIP_MAX_PKT_LEN: any caller reached it.
# Refuse such an offer as one with a malformed crypto attribute (the call is answered 488).
# Test: Tests/SwiftPJSUATests/Security/SDPOfferTests.swift.
SEC2_FILE="$SRC/pjmedia/src/pjmedia/transport_srtp_sdes.c"
if ! upstream_has SEC-2 "$SEC2_FILE" 'if (cr_attr_count >= PJ_ARRAY_SIZE(tags))'; then
    hunk SEC-2 "$SEC2_FILE" before '                status = parse_attr_crypto(srtp->pool, m_rem->attr[i],' \
'                if (cr_attr_count == PJ_ARRAY_SIZE(tags))  /* swift-pjsua: SEC-2 */
                    return PJMEDIA_SRTP_ESDPINCRYPTO;'
    applied SEC-2
fi
