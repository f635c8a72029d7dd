# SEC-5: ": " after a generic array header's name written past the buffer (upstream d6a0e7f76,
# 2026-06-17). sip_msg.c pjsip_generic_array_hdr_print (Allow, Supported, Require, Unsupported,
# Accept...) checks that the name fits, then writes ':' and ' ' unchecked: a name ending one byte
# before the end wrote the space one byte past it. The bytes before it are the message's other
# headers, which a peer shapes (the Via, From, To and Call-ID a response copies), so a request
# could place an Allow or Supported header of our answer there. Check room for both before writing.
SEC5_FILE="$SRC/pjsip/src/pjsip/sip_msg.c"
if ! upstream_has SEC-5 "$SEC5_FILE" "    copy_advance_char_check(p, ':');"; then
    fn_line=$(grep -n '^static int pjsip_generic_array_hdr_print( pjsip_generic_array_hdr \*hdr, *$' "$SEC5_FILE" | cut -d: -f1)
    [ -n "$fn_line" ] || die "sip_msg.c changed: review the SEC-5 array header printer"
    colon=$(awk -v from="$fn_line" 'NR > from && $0 == "    *p++ = '"':'"';" { print NR; exit }' "$SEC5_FILE")
    [ -n "$colon" ] && [ "$(sed -n "$((colon + 1))p" "$SEC5_FILE")" = "    *p++ = ' ';" ] \
        && [ "$(sed -n "$((colon - 1))p" "$SEC5_FILE")" = '    copy_advance(p, (*hname));' ] \
        || die "sip_msg.c changed: review the SEC-5 array header printer"
    sed -i "${colon}i\\    if (endbuf - p < 2) return -1;  /* swift-pjsua: SEC-5, room for \": \" */" "$SEC5_FILE"
    grep -q 'swift-pjsua: SEC-5' "$SEC5_FILE" || die "the SEC-5 patch did not apply"
    applied SEC-5
fi
