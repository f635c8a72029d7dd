# KL-53.6: three printers wrote one or two bytes past a buffer that their output filled exactly
# (not fixed upstream; 31953349f bounds print_media_type, not these). sip_msg.c pjsip_msg_print
# ends its output with a NUL that it writes even at the buffer's end (pjsip_tx_data_encode prints
# every outgoing message into PJSIP_MAX_PKT_LEN: a message of exactly that size wrote one byte
# past); pjsip_ctype_hdr_print the same, and it added print_media_type's -1 to its cursor;
# sip_multipart.c multipart_print_body writes the blank line after a part's headers without
# checking for room (two bytes past); and both write the CRLF after a Content-Type whose
# parameters filled the room (found by the coverage-instrumented fuzzer, -fsanitize=fuzzer-no-link,
# in seconds). Each now says "does not fit" (-1) instead.
# Test: the fuzz seeds Fuzz/corpus/sip_parser/kl53-*-print-nul and Fuzz/corpus/multipart/kl53-blank-line (the
# reproducers), which make fuzz-smoke replays on the instrumented build.
KL53_6_MSG="$SRC/pjsip/src/pjsip/sip_msg.c"
KL53_6_MP="$SRC/pjsip/src/pjsip/sip_multipart.c"
if ! upstream_has KL-53.6 "$KL53_6_MP" 'if (SIZE_LEFT() < 2)'; then
    # pjsip_msg_print's last lines: the NUL, then its one "return p-buf;".
    [ "$(grep -cxF '    return p-buf;' "$KL53_6_MSG")" = 1 ] || die "sip_msg.c changed: review the KL-53.6 message NUL"
    awk '{ line[NR] = $0 }
         END { for (i = 1; i <= NR; i++) {
                   if (line[i] == "    *p = '"'\\\\0'"';" && line[i+1] == "    return p-buf;") {
                       print "    if (p >= end)  /* swift-pjsua: KL-53.6, no room for the NUL */"
                       print "        return -1;"
                   }
                   print line[i]
               } }' "$KL53_6_MSG" > "$KL53_6_MSG.new" && mv "$KL53_6_MSG.new" "$KL53_6_MSG"
    [ "$(grep -c 'swift-pjsua: KL-53.6' "$KL53_6_MSG")" = 1 ] || die "the KL-53.6 message NUL patch did not apply"
    hunk KL-53.6 "$KL53_6_MSG" after '    len = print_media_type(p, (unsigned)(buf+size-p), &hdr->media);' \
'    if (len < 0 || len >= (int)(buf+size-p))  /* swift-pjsua: KL-53.6, room for the NUL too */
        return -1;'
    # The message's and a part's Content-Type: parameters that fill the room left no room for
    # the CRLF written after them (and a -1 from the printer moved the cursor back one).
    if grep -qxF '            len = print_media_type(p, (unsigned)(end-p), media);' "$KL53_6_MSG"; then
        # A newer pjsip_msg_print (3ea416ec6) returns -1 on len < 0 just below: fold the room in.
        hunk KL-53.6 "$KL53_6_MSG" after '            len = print_media_type(p, (unsigned)(end-p), media);' \
'            if (len >= 0 && end - p < len + 2)  /* swift-pjsua: KL-53.6, room for the CRLF */
                len = -1;'
    else
        hunk KL-53.6 "$KL53_6_MSG" replace '            p += print_media_type(p, (unsigned)(end-p), media);' \
'            {   /* swift-pjsua: KL-53.6, the CRLF after the media type needs its room */
                int printed = print_media_type(p, (unsigned)(end-p), media);
                if (printed < 0 || end - p < printed + 2)
                    return -1;
                p += printed;
            }'
    fi
    hunk KL-53.6 "$KL53_6_MP" replace '            p += pjsip_media_type_print(p, (unsigned)(end-p), media);' \
'            {   /* swift-pjsua: KL-53.6, the CRLF after the media type needs its room */
                int printed = pjsip_media_type_print(p, (unsigned)(end-p), media);
                if (printed < 0 || end - p < printed + 2)
                    return -1;
                p += printed;
            }'
    hunk KL-53.6 "$KL53_6_MP" after '        /* Empty newline */' \
'        if (SIZE_LEFT() < 2)  /* swift-pjsua: KL-53.6, the blank line needs its room */
            return -1;'
    applied KL-53.6
fi
