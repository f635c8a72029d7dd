# KL-57.17: a registrar's answer aborted pjsua through its top Via's received= (upstream bd00abb5e,
# #5149, 2026-08-07, not an advisory; after our base). acc_check_nat_addr (pjsua_acc.c) takes the
# address the registrar saw from the response's top Via, received= or else the sent-by host, and,
# when it differs from the account's Contact, builds a new Contact of it (contact rewrite, on in
# pjsua and the engine: allow_contact_rewrite 1, method 6) and stores it unchecked. The Via parser
# takes any token, `[:]` or a quoted string as received= (`a!b`, `x:y`, `"q r"`), and anything up
# to `]` as a bracketed sent-by host; an IPv6 address was bracketed only on an IPv6 transport, so
# an IPv6 received= on IPv4 built `sip:alice@2001:db8::10:5060`. Such a Contact does not parse, and
# the next check of it hits pj_assert(contact_hdr != NULL): on the 2xx after a 401 (whose Via
# already rewrote it), at the next refresh after a 2xx, or at once in update_regc_contact with
# push parameters (reg_contact_uri_params). Any registrar, or anyone on the path of a plaintext
# REGISTER, aborted the process. The same value also became our Via sent-by (allow_via_rewrite), so
# a registrar echoing `a!b` there got answers we could not parse (the registration timed out), and
# a host name there was resolved, blocking the SIP worker.
# The address is now checked before anything takes it (the Via sent-by, the SDP's mapped address,
# the Contact): received= must be an IPv4 or IPv6 address (RFC 3261 18.2.1 and 25.1 via-received,
# RFC 3581), a port after it tolerated as before; without received= the sent-by host must be one.
# Otherwise the response's NAT address is ignored; the registration itself stands (it is the
# registrar's 2xx). An IPv6 address is bracketed because it is one, whatever the transport. A
# built Contact that does not parse is not stored, and a stored one that does not parse (or is no
# SIP URI) skips the check instead of asserting. The copy of the Contact update_regc_contact
# parses is NUL-terminated, as the parser requires.
# (Upstream parses the built Contact and refuses it if it does not parse; it still takes the value
# for the Via and the mapped address first, and takes a host name as a Contact.)
# Test: Tests/SwiftPJSUATests/Security/RegistrarViaReceivedTests.swift (the softphone against a
# fake registrar, and the engine with push parameters; the softphone on /opt/pjproject-unpatched
# dies of SIGABRT).
KL57_17_FILE="$SRC/pjsip/src/pjsua-lib/pjsua_acc.c"
if ! upstream_has KL-57.17 "$KL57_17_FILE" 'Not rewriting Contact of account'; then
    hunk KL-57.17 "$KL57_17_FILE" before '/* Update NAT address from the REGISTER response */' \
'/* swift-pjsua: KL-57.17, whether addr is a bare IP address of family af
 * (inet_pton reads up to a NUL, which the message could carry inside it)
 */
static pj_bool_t kl57_17_is_ip(int af, const pj_str_t *addr)
{
    pj_in6_addr bin;            /* room for either family */

    return addr->slen > 0 && pj_memchr(addr->ptr, 0, addr->slen) == NULL &&
           pj_inet_pton(af, addr, &bin) == PJ_SUCCESS;
}

/* swift-pjsua: KL-57.17, the address a REGISTER response says the registrar
 * saw us at: its Via received= (RFC 3261 18.2.1, RFC 3581: an IPv4 or IPv6
 * address, which some registrars follow with a port), or without one the
 * sent-by host (which a registrar must follow with received= unless it is
 * the IP address the request came from; the parser takes anything between
 * brackets there). Only an IP address will do: not a token, not a host name
 * (resolving it would block this thread). On success *host is the bare
 * address (no brackets, no port), pointing into the message.
 */
static pj_bool_t kl57_17_nat_host(const pjsip_via_hdr *via, pj_str_t *host)
{
    pj_uint16_t port;
    int af;

    if (via->recvd_param.slen == 0) {
        *host = via->sent_by.host;
        return kl57_17_is_ip(pj_AF_INET(), host) ||
               kl57_17_is_ip(pj_AF_INET6(), host);
    }
    if (pj_sockaddr_parse2(pj_AF_UNSPEC(), 0, &via->recvd_param, host,
                           &port, &af) != PJ_SUCCESS)
    {
        return PJ_FALSE;
    }
    return kl57_17_is_ip(af, host);
}
'
    hunk KL-57.17 "$KL57_17_FILE" after '    const pj_str_t STR_CONTACT = { "Contact", 7 };' \
'    pj_str_t nat_host;          /* swift-pjsua: KL-57.17, the checked via_addr */'
    hunk KL-57.17 "$KL57_17_FILE" after '        via_addr = &via->sent_by.host;' \
'
    /* swift-pjsua: KL-57.17, nothing below takes the response at its word
     * unless it names an address: a received= that is no IP address
     * built a Contact that does not parse (an assert at the next check).
     */
    if (!kl57_17_nat_host(via, &nat_host)) {
        PJ_LOG(2,(THIS_FILE, "Acc %d: the REGISTER response names no address "
                  "in its Via (%.*s), its NAT address is ignored",
                  acc->index,
                  (int)(via_addr->slen < 64 ? via_addr->slen : 64),
                  via_addr->ptr));
        return PJ_FALSE;
    }
    via_addr = &nat_host;'
    hunk KL-57.17 "$KL57_17_FILE" replace '    pj_assert(contact_hdr != NULL);' \
'    /* swift-pjsua: KL-57.17, a Contact that does not parse, or is no SIP
     * URI, has no address to compare: skip the check, do not assert.
     */
    if (contact_hdr == NULL || contact_hdr->uri == NULL ||
        (!PJSIP_URI_SCHEME_IS_SIP(contact_hdr->uri) &&
         !PJSIP_URI_SCHEME_IS_SIPS(contact_hdr->uri)))
    {
        PJ_LOG(2,(THIS_FILE, "Acc %d: its Contact is no SIP URI, no NAT "
                  "address check", acc->index));
        pj_pool_release(pool);
        return PJ_FALSE;
    }'
    hunk KL-57.17 "$KL57_17_FILE" replace "        if ((tp->key.type & PJSIP_TRANSPORT_IPV6) && via_addr->ptr[0] != '[') {" \
'        /* swift-pjsua: KL-57.17, by the address, not the transport: the
         * registrar may have seen the other family (via_addr is bare here)
         */
        if (kl57_17_is_ip(pj_AF_INET6(), via_addr)) {'
    hunk KL-57.17 "$KL57_17_FILE" before '        pj_strdup2_with_null(acc->pool, &acc->contact, tmp);' \
'        /* swift-pjsua: KL-57.17, never store a Contact that does not parse:
         * every later use parses it again (and asserted)
         */
        {
            pjsip_contact_hdr *built = (pjsip_contact_hdr*)
                pjsip_parse_hdr(pool, &STR_CONTACT, tmp, len, NULL);
            if (built == NULL || built->uri == NULL ||
                (!PJSIP_URI_SCHEME_IS_SIP(built->uri) &&
                 !PJSIP_URI_SCHEME_IS_SIPS(built->uri)))
            {
                PJ_LOG(1,(THIS_FILE, "Acc %d: the rewritten Contact %s does "
                          "not parse, the old one is kept", acc->index, tmp));
                pj_pool_release(pool);
                if (contact_rewrite_method == PJSUA_CONTACT_REWRITE_UNREGISTER) {
                    /* Its binding was removed above: register it again */
                    pjsua_acc_set_registration(acc->index, PJ_TRUE);
                    return PJ_TRUE;
                }
                return PJ_FALSE;
            }
        }'
    hunk KL-57.17 "$KL57_17_FILE" after '            pj_strcpy(&reg_contact, &acc->contact);' \
'            /* swift-pjsua: KL-57.17, parsed below: the parser needs the NUL
             * (len is more than the copy, so there is room for it)
             */
            reg_contact.ptr[reg_contact.slen] = 0;'
    applied KL-57.17
fi
