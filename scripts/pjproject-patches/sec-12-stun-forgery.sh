# SEC-12: forged STUN Binding responses taken for ours (upstream 082948b0a, 2026-08-03).
# pjlib-util's simple STUN client (stun_simple_client.c pjstun_get_mapped_addr2) is what pjsua
# asks for the public address of its SIP UDP socket (pjsua_core.c create_sip_udp_sock) and of a
# call's RTP and RTCP sockets without ICE (pjsua_media.c create_rtp_rtcp_sock). Its transaction ID
# was never random: words 0 and 1 zero (or the magic cookie), words 2 and 3 the socket and server
# indexes, written over the random ones before each send; a response carrying those indexes was
# ours. Anyone who could send a datagram to our SIP port during the exchange could set the address
# we put in Via, Contact and SDP. The template now gets a random word 1, and a random word 0 unless
# it carries the cookie (pjsua's default, stun_map_use_stun2 off: 64 random bits; 32 with the
# cookie), and a response whose words 0 and 1 are not ours is ignored like an unparsable packet,
# not counted as an answer or an error. Upstream randomises all four words per socket and server
# and matches the whole ID; here the index words stay as 2.17 wrote and checked them.
# Test: Tests/SwiftPJSUATests/Security/STUNForgeryTests.swift.
SEC12_FILE="$SRC/pjlib-util/src/pjlib-util/stun_simple_client.c"
if ! upstream_has SEC-12 "$SEC12_FILE" 'if (pj_memcmp(msg.hdr->tsx, rec[i].srv[j].tsx_id,'; then
    hunk SEC-12 "$SEC12_FILE" before '    TRACE_((THIS_FILE, "  Binding request created."));' \
'    {   /* swift-pjsua: SEC-12, the words of the transaction ID a response must carry back */
        pjstun_msg_hdr *hdr = (pjstun_msg_hdr*)out_msg;
        if (!opt->use_stun2)
            hdr->tsx[0] = pj_htonl((pj_uint32_t)pj_rand() ^ ((pj_uint32_t)pj_rand() << 16));
        hdr->tsx[1] = pj_htonl((pj_uint32_t)pj_rand() ^ ((pj_uint32_t)pj_rand() << 16));
    }
'
    hunk SEC-12 "$SEC12_FILE" before '                sock_idx = pj_ntohl(msg.hdr->tsx[2]);' \
'                /* swift-pjsua: SEC-12, another transaction'"'"'s response (forged, stray) */
                if (msg.hdr->tsx[0] != ((pjstun_msg_hdr*)out_msg)->tsx[0] ||
                    msg.hdr->tsx[1] != ((pjstun_msg_hdr*)out_msg)->tsx[1])
                {
                    PJ_LOG(4,(THIS_FILE, "STUN response of another transaction ignored"));
                    continue;
                }
'
    applied SEC-12
fi
