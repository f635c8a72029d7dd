# KL-61: a caller chose where we connect, and what we look up, before its INVITE was answered
# (upstream c111a3042, #5051, 2026-07-07, not an advisory; after our base; upstream reworked it
# since as pjsua_acc_get_uas_addr, 6b27565e5). For an incoming call on an account without a Via
# address of its own (no registration has rewritten it: every local account, the one a server's
# bot answers on), pjsua_call_on_incoming picks the dialog's Via sent-by with
# pjsua_acc_get_uac_addr toward the dialog's remote target, the caller's Contact. With
# contact_use_src_port (pjsua's default, and the engine's for every account but a TLS local one)
# and a Contact naming a stream transport (transport=tcp or tls, or sips:), that function resolves
# the Contact's host with getaddrinfo on the thread that handles the INVITE (a name's lookup
# blocks the SIP worker for as long as the caller's nameserver takes) and opens a TCP or TLS
# connection to the host and port the caller named (any address, any port: a connection of the
# caller's choosing from our host, made before anyone decides to answer). None of it is needed:
# the answers follow the INVITE's Via over the connection it came on, and our requests in the
# dialog get their Via from the connection they are sent over.
# The Via is now chosen this way only when the Contact names a datagram transport (which looks
# nothing up unless PJSIP_RESOLVE_HOSTNAME_TO_GET_INTERFACE is set, and connects nothing), read
# from the URI alone (pjsip_get_dest_info resolves nothing).
# An incoming SUBSCRIBE does the same in pres_on_rx_request (pjsua_pres.c), toward the
# subscriber's Contact, before the app's policy is asked: a watcher we refuse still chose a
# connection and a lookup. Patched the same way.
# (Upstream's fix skips the same call for a stream target at both places, and at the outgoing
# call, where the target is our own account's id, not a peer's choice: not patched here.)
# Test: Tests/SwiftPJSUATests/Security/CallerContactConnectionTests.swift (a softphone answering
# on TCP, and on /opt/pjproject-unpatched, where the connection to the test's listener arrives;
# an engine refusing a watcher's SUBSCRIBE over TCP, which connected before the patch).
KL61_FILE="$SRC/pjsip/src/pjsua-lib/pjsua_call.c"
if ! upstream_has KL-61 "$KL61_FILE" 'pjsua_acc_get_uas_addr(acc_id, dlg->pool, dlg,' \
   && ! upstream_has KL-61 "$KL61_FILE" 'reliable_dest = (dest_info.flag & PJSIP_TRANSPORT_RELIABLE) != 0;'; then
    hunk KL-61 "$SRC/pjsip/include/pjsua-lib/pjsua_internal.h" after 'pj_bool_t pjsua_sip_acc_is_using_upnp(pjsua_acc_id acc_id);' \
'
/* swift-pjsua: KL-61, whether a UAS dialog'"'"'s remote target (the peer'"'"'s
 * Contact) names a stream transport (pjsua_acc.c)
 */
pj_bool_t pjsua_kl61_target_is_stream(pjsip_dialog *dlg);'
    hunk KL-61 "$SRC/pjsip/src/pjsua-lib/pjsua_acc.c" before 'pj_status_t pjsua_acc_get_uac_addr(pjsua_acc_id acc_id,' \
'/* swift-pjsua: KL-61, whether a UAS dialog'"'"'s remote target (the caller'"'"'s or
 * the watcher'"'"'s Contact) names a stream transport, read from the URI alone
 * (pjsip_get_dest_info resolves nothing): toward such a target
 * pjsua_acc_get_uac_addr below resolves the host and connects to it.
 */
pj_bool_t pjsua_kl61_target_is_stream(pjsip_dialog *dlg)
{
    pjsip_host_info dest;

    return pjsip_get_dest_info(dlg->target, NULL, dlg->pool, &dest) == PJ_SUCCESS &&
           (dest.flag & PJSIP_TRANSPORT_RELIABLE) != 0;
}
'
    hunk KL-61 "$KL61_FILE" replace '        if (pjsua_acc_get_uac_addr(acc_id, dlg->pool, &target,' \
'        /* swift-pjsua: KL-61, not toward a stream Contact: no lookup of the
         * caller'"'"'s name, no connection to where the caller says
         */
        if (!pjsua_kl61_target_is_stream(dlg) &&
            pjsua_acc_get_uac_addr(acc_id, dlg->pool, &target,'
    hunk KL-61 "$SRC/pjsip/src/pjsua-lib/pjsua_pres.c" replace '        if (pjsua_acc_get_uac_addr(acc_id, dlg->pool, &target,' \
'        /* swift-pjsua: KL-61, not toward a stream Contact: no lookup of the
         * watcher'"'"'s name, no connection to where the watcher says
         */
        if (!pjsua_kl61_target_is_stream(dlg) &&
            pjsua_acc_get_uac_addr(acc_id, dlg->pool, &target,'
    applied KL-61
fi
