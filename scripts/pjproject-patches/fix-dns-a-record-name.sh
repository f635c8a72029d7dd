# KL-52: a resolved server's name pointed into a stack frame that had ended (upstream d4041b871,
# #5145, 2026-08-06, after 2.17). sip_resolve.c dns_a_callback and dns_aaaa_callback set each
# pjsip_server_addresses entry's name to the parsed DNS record's, which lives in a
# pj_dns_addr_record declared inside an inner block; the resolver callback reads it after the block
# (pj_strdup in stateless_send_resolver_callback). Found by the instrumented PJSIP (make deps-asan):
# AddressSanitizer stack-use-after-scope in DNSForgeryTests' pjsua app, on every name resolved
# through PJSIP's resolver (a configured nameserver). Name the entry by the name the query asked
# for instead (query->naptr[0].name, in the query's pool), as valid as the query.
KL52_FILE="$SRC/pjsip/src/pjsip/sip_resolve.c"
if ! upstream_has KL-52 "$KL52_FILE" 'srv->entry[srv->count].name = name;'; then
    [ "$(grep -cxF '            srv->entry[srv->count].name = rec.name;' "$KL52_FILE")" = 2 ] \
        || die "sip_resolve.c changed: review the KL-52 record name"
    sed -i 's|^            srv->entry\[srv->count\].name = rec.name;$|            srv->entry[srv->count].name = query->naptr[0].name;  /* swift-pjsua: KL-52 */|' "$KL52_FILE"
    [ "$(grep -c 'swift-pjsua: KL-52' "$KL52_FILE")" = 2 ] || die "the KL-52 patch did not apply"
    applied KL-52
fi
