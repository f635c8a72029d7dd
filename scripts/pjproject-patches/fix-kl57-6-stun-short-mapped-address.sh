# KL-57.6: pjlib-util's simple STUN client read an address attribute's fields whatever its length
# (upstream 9e9ba9595, #5201, 2026-08-18, not an advisory; after our base). pjstun_parse_msg only
# checks that an attribute's declared length fits the message, and the client then read the family,
# port and IPv4 address (8 bytes) of the (XOR-)MAPPED-ADDRESS it found: one declared shorter takes
# our public address from the bytes of the attribute after it (an address the answerer chooses
# without sending one), or, at the end of a 128-byte answer, from past the receive buffer on the
# stack (six bytes of our stack then sent in every Via, Contact and SDP). pjsua asks with it, from
# the SIP socket and from each call's RTP pair without ICE, whenever a STUN server is configured:
# the server or anyone on its path (SEC-12 keeps off-path forgers out) can answer so. An address
# attribute shorter than 8 bytes is now no address (ESTUNNOMAP), like a missing one.
# Test: Security/UpstreamFixTests (a MAPPED-ADDRESS of length 0 followed by an attribute that
# reads as 203.0.113.66; and one at the end of a 128-byte answer, a stack-buffer-overflow on the
# ASan build).
KL57_6_FILE="$SRC/pjlib-util/src/pjlib-util/stun_simple_client.c"
if ! upstream_has KL-57.6 "$KL57_6_FILE" 'pj_ntohs(attr->hdr.length) < 8'; then
    hunk KL-57.6 "$KL57_6_FILE" before '                rec[sock_idx].srv[srv_idx].mapped_addr = attr->addr;' \
'                /* swift-pjsua: KL-57.6, an address shorter than family, port and IPv4 is none */
                if (pj_ntohs(attr->hdr.length) < sizeof(*attr) - sizeof(attr->hdr)) {
                    status = PJLIB_UTIL_ESTUNNOMAP;
                    continue;
                }'
    applied KL-57.6
fi
