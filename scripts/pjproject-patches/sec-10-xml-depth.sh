# SEC-10: XML nested without a bound (upstream 12306eaf9, 2026-08-12).
# pj_xml_parse (pjlib-util xml.c) reads a document with xml_parse_node, which calls itself once per
# nested element and once per processing instruction or comment before an element, with no limit:
# the document's depth is the stack's. Every XML body PJSIP parses comes from a peer: PIDF, XPIDF
# and dialog-info in a NOTIFY, isComposing in a MESSAGE. A level costs 3 bytes of body ("<a>") and
# 96 bytes of stack (x86-64, -O2; upstream puts it at about 112 on 64-bit): the iOS profile's
# 16000-byte packets nest 5,200 levels, 500 KB against the 512 KiB of an iOS secondary thread (the
# iOS profile's pjsua app, its threads given 448 KiB, died of SIGSEGV on one such MESSAGE; given
# 512 KiB it lived, on x86-64), Linux's 4000 bytes 1,300 levels (125 KB of 8 MiB). Every call the
# parser makes to itself now goes through one macro, which counts the level and makes one deeper
# than 256 a syntax error: pj_xml_parse returns NULL, the NOTIFY gets 488. 256 levels are 25 KB of
# stack, and no presence document nests past ten. Upstream counts elements only and loops over
# instructions and comments; counting them too (a document with 256 of them in a row is refused)
# leaves the body of the parser as it is.
# Test: Tests/SwiftPJSUATests/Security/PresenceBodyDepthTests.swift.
SEC10_FILE="$SRC/pjlib-util/src/pjlib-util/xml.c"
if ! upstream_has SEC-10 "$SEC10_FILE" 'if (rec_level >= PJ_XML_MAX_NESTING)'; then
    hunk SEC-10 "$SEC10_FILE" replace 'static pj_xml_node *xml_parse_node( pj_pool_t *pool, pj_scanner *scanner)' \
'/* swift-pjsua: SEC-10, each call the parser makes to itself is one level deeper (an element, or
 * an instruction or comment before one); past SWIFT_PJSUA_XML_MAX_DEPTH it is a syntax error. */
#define SWIFT_PJSUA_XML_MAX_DEPTH 256
#define xml_parse_node(pool, scanner) \
    (depth >= SWIFT_PJSUA_XML_MAX_DEPTH ? (on_syntax_error(scanner), (pj_xml_node*)NULL) \
                                        : xml_parse_node_at(pool, scanner, depth + 1))
static pj_xml_node *xml_parse_node_at( pj_pool_t *pool, pj_scanner *scanner,
                                       unsigned depth)'
    hunk SEC-10 "$SEC10_FILE" replace '        node =  xml_parse_node(pool, &scanner);' \
'        node =  xml_parse_node_at(pool, &scanner, 0);  /* swift-pjsua: SEC-10, the top level */'
    applied SEC-10
fi
