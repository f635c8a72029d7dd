# SEC-7: a certificate's DNS name cut at an embedded NUL (upstream 43d3bd77b, 2026-07-17).
# ssl_sock_ossl.c get_cert_info copies each subjectAltName of the peer's certificate with
# pj_strdup2, which takes the length from strlen: `localhost\0.attacker.example` became
# `localhost`. SIP over TLS (sip_transport_tls.c, which does its own name check against these
# entries) and our agent bridge's WebSocket client both matched it: anyone a trusted CA signs that
# name for could impersonate localhost (reproduced: `softphone call sips:...` answered, the agent
# bridge connected). Keep the length ASN1_STRING_to_UTF8 gave, so such a name matches nothing.
# Test: Tests/SwiftPJSUATests/Security/CertificateNameTests.swift.
SEC7_FILE="$SRC/pjlib/src/pj/ssl_sock_ossl.c"
if ! upstream_has SEC-7 "$SEC7_FILE" 'pj_strset(&tmp, (char*)p, len);'; then
    [ "$(grep -cxF '                          (char*)p);' "$SEC7_FILE")" = 1 ] \
        || die "ssl_sock_ossl.c changed: review the SEC-7 subjectAltName copy"
    hunk SEC-7 "$SEC7_FILE" after '                          (char*)p);' \
'                    {   /* swift-pjsua: SEC-7, the whole name, embedded NULs included */
                        pj_str_t whole;
                        pj_strset(&whole, (char*)p, (pj_size_t)len);
                        pj_strdup_with_null(pool,
                            &ci->subj_alt_name.entry[ci->subj_alt_name.cnt].name, &whole);
                    }'
    applied SEC-7
fi
