# KL-53.3: a PIDF <tuple> without its id attribute, or without <status>, in a NOTIFY aborted or
# crashed the process (not fixed upstream). pidf.c pjpidf_tuple_get_id asserts that the attribute
# is there and returns &attr->value, a read through NULL without assertions; presence_body.c
# pjsip_pres_parse_pidf2 calls it on every tuple of a received PIDF (any notifier a buddy of ours
# subscribes to). pjpidf_tuple_get_status asserts <status>, whose absence its caller handles (the
# tuple is taken as closed). Both are required by RFC 3863 but are a peer's data: a missing id reads
# as empty, a missing status as NULL, without the asserts.
# Test: Tests/SwiftPJSUATests/Security/FuzzFindingTests.swift and the seeds Fuzz/corpus/*/kl53-*pidf-tuple-*.
KL53_3_FILE="$SRC/pjsip/src/pjsip-simple/pidf.c"
if ! upstream_has KL-53.3 "$KL53_3_FILE" 'return attr ? &attr->value : &EMPTY_STRING;'; then
    [ "$(grep -cxF '    pj_assert(attr);' "$KL53_3_FILE")" = 2 ] \
        && grep -qxF '    const pj_xml_attr *attr = pj_xml_find_attr((pj_xml_node*)t, &ID, NULL);' "$KL53_3_FILE" \
        || die "pidf.c changed: review the KL-53.3 tuple id"
    # The first of the two asserts is pjpidf_tuple_get_id's (the second, set_id's, is our own
    # tuples': left alone); the return after it reads the attribute.
    awk '$0 == "    pj_assert(attr);" && !done { getline ret
            if (ret != "    return &attr->value;") { print "KL-53.3: unexpected" > "/dev/stderr"; exit 1 }
            print "    /* swift-pjsua: KL-53.3, a received tuple may lack its id: empty, no assert */"
            print "    return attr ? &attr->value : &EMPTY_STRING;"
            done = 1; next }
         { print }' "$KL53_3_FILE" > "$KL53_3_FILE.new" && mv "$KL53_3_FILE.new" "$KL53_3_FILE" \
        || die "the KL-53.3 tuple id patch did not apply"
    hunk KL-53.3 "$KL53_3_FILE" replace '    pj_assert(st);' \
'    /* swift-pjsua: KL-53.3, a received tuple may lack <status>: NULL (callers check), no assert */'
    [ "$(grep -c 'swift-pjsua: KL-53.3' "$KL53_3_FILE")" = 2 ] || die "the KL-53.3 patch did not apply"
    applied KL-53.3
fi
