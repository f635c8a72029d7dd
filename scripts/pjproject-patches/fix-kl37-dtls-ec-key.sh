# KL-37: the DTLS-SRTP certificate's key is EC P-256, not RSA-2048 (upstream made the same choice
# after 2.17, f6a10f7d8, #5194, PJMEDIA_SRTP_DTLS_USE_EC_KEY; not an advisory). An RSA-2048 key
# took 0.2-0.7 s of CPU on a quiet machine and 11.3 s beside the ASan pass and stress-ng, and the
# certificate is made at a process's first DTLS-SRTP transport (install-pjproject.sh's KL-37
# block), which pjsua creates for every call, SRTP optional or not: the first call of every process
# stalled in its media set-up, before its 100 Trying. P-256 is RFC 8827's curve for DTLS-SRTP
# (what browsers use); its key takes well under a millisecond. ECDSA suites are in OpenSSL's
# DEFAULT list (PJMEDIA_SRTP_DTLS_OSSL_CIPHERS) on both ends. Upstream's RSA maker is kept under
# its own name, unused; the certificate is otherwise as pjmedia makes it (same name, same year).
# Test: DTLSMediaPortTests (an openssl s_client offered only an ECDSA suite connects to the
# engine's DTLS server and reports a 256-bit server key; fails with the RSA key).
KL37_FILE="$SRC/pjmedia/src/pjmedia/transport_srtp_dtls.c"
if ! upstream_has KL-37 "$KL37_FILE" 'PJMEDIA_SRTP_DTLS_USE_EC_KEY'; then
    hunk KL-37 "$KL37_FILE" replace 'static pj_status_t ssl_generate_cert(X509 **p_cert, EVP_PKEY **p_priv_key)' \
'/* swift-pjsua: KL-37, a self-signed certificate on an EC P-256 key (microseconds to make; an
 * RSA-2048 key stalled a loaded machine'"'"'s first call for seconds) */
static pj_status_t ssl_generate_cert(X509 **p_cert, EVP_PKEY **p_priv_key)
{
    EVP_PKEY *key = EVP_EC_gen("P-256");
    X509 *cert = X509_new();
    X509_NAME *name = NULL;

    if (!key || !cert)
        goto on_error;
    if (!X509_set_version(cert, 2) ||
        !ASN1_INTEGER_set(X509_get_serialNumber(cert), pj_rand()) ||
        !X509_gmtime_adj(X509_getm_notBefore(cert), -60*60*24) ||
        !X509_gmtime_adj(X509_getm_notAfter(cert), 60*60*24*365))
    {
        goto on_error;
    }
    name = X509_get_subject_name(cert);
    if (!name ||
        !X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                                    (const unsigned char*)"pjmedia.pjsip.org",
                                    -1, -1, 0) ||
        !X509_set_issuer_name(cert, name) ||
        !X509_set_pubkey(cert, key) ||
        !X509_sign(cert, key, EVP_sha256()))
    {
        goto on_error;
    }
    *p_cert = cert;
    *p_priv_key = key;
    return PJ_SUCCESS;

on_error:
    X509_free(cert);
    EVP_PKEY_free(key);
    return PJ_EUNKNOWN;
}

/* swift-pjsua: KL-37, upstream'"'"'s RSA-2048 maker, no longer called */
static pj_status_t __attribute__((unused)) ssl_generate_rsa_cert(X509 **p_cert, EVP_PKEY **p_priv_key)'
    applied KL-37
fi
