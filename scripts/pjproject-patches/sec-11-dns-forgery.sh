# SEC-11: DNS answers taken from anyone (upstream d9514ce3e, 2026-08-14).
# pjlib-util's resolver (resolver.c on_read_complete) matched an answer to its query by the 16-bit
# transaction ID alone, and gave out IDs in sequence from 1: whoever could send a datagram to the
# resolver's port could answer its next query with the address of their choice, and the answer was
# cached (RFC 5452's cache poisoning; in SIP, a call or REGISTER sent to the forger). Three checks,
# the essentials of RFC 5452: the ID is drawn from pj_rand (pjsua seeds it from the host, the time
# and the process), never one still in use; a datagram from an address and port that is not one of
# the resolver's nameservers is dropped unparsed; an answer must be a response (QR) whose question
# is the query's name, type and class IN. A question-less error answer (some minimal servers) now
# times out instead. Not done: upstream's keyed-hash IDs, and its rule that only an answer matched
# to a query may mark a nameserver bad or good again (a packet spoofed from the nameserver's own
# address can still take it out of rotation for bad_ns_ttl).
# The engine never creates this resolver (it sets no pjsua_config.nameserver: names go to the
# system's getaddrinfo); the pjsua app does with --nameserver, as does any app that sets one.
# Test: Tests/SwiftPJSUATests/Security/DNSForgeryTests.swift (the pjsua app of this build).
SEC11_FILE="$SRC/pjlib-util/src/pjlib-util/resolver.c"
if ! upstream_has SEC-11 "$SEC11_FILE" '!is_response_from_ns(resolver, src_addr))'; then
    hunk SEC-11 "$SEC11_FILE" replace '    q->id = resolver->last_id++;' \
'    {   /* swift-pjsua: SEC-11, an ID a forger cannot count on (2.17 counted from 1), not in use */
        unsigned tries = 0;
        do {
            q->id = (pj_uint16_t)pj_rand();
        } while ((q->id == 0 ||
                  pj_hash_get(resolver->hquerybyid, &q->id, sizeof(q->id), NULL)) &&
                 ++tries < 64);
        if (tries == 64) {
            pj_list_push_back(&resolver->query_free_nodes, q);
            status = PJ_EBUSY;
            goto on_return;
        }
    }'
    hunk SEC-11 "$SEC11_FILE" before '    /* Create temporary pool from a fixed buffer */' \
'    {   /* swift-pjsua: SEC-11, only a nameserver of this resolver (address and port) answers */
        unsigned ns_i;
        for (ns_i = 0; ns_i < resolver->ns_count; ++ns_i) {
            if (pj_sockaddr_cmp(&resolver->ns[ns_i].addr, src_addr) == 0)
                break;
        }
        if (ns_i == resolver->ns_count) {
            PJ_LOG(5,(resolver->name.ptr, "DNS packet from %s:%d dropped: not a nameserver",
                      pj_sockaddr_print(src_addr, addr, sizeof(addr), 2),
                      pj_sockaddr_get_port(src_addr)));
            goto read_next_packet;
        }
    }
'
    hunk SEC-11 "$SEC11_FILE" before '    /* Map DNS Rcode in the response into PJLIB status name space */' \
'    /* swift-pjsua: SEC-11, and only a response to the question this query asked */
    if (PJ_DNS_GET_QR(dns_pkt->hdr.flags) == 0 || dns_pkt->hdr.qdcount == 0 ||
        dns_pkt->q[0].dnsclass != PJ_DNS_CLASS_IN ||
        dns_pkt->q[0].type != q->key.qtype ||
        pj_stricmp2(&dns_pkt->q[0].name, q->key.name) != 0)
    {
        PJ_LOG(5,(resolver->name.ptr, "DNS answer from %s:%d id=%d dropped: not a response "
                  "to the question asked", pj_sockaddr_print(src_addr, addr, sizeof(addr), 2),
                  pj_sockaddr_get_port(src_addr), (unsigned)dns_pkt->hdr.id));
        goto read_next_packet;
    }
'
    applied SEC-11
fi
