# KL-57.20b: the TLS half of KL-57.20 (upstream 99e9c39b1, #5161, 2026-08-11, not an advisory;
# after our base). pjsua_handle_ip_change with restart_listener (the engine's default) closes each
# TLS listener and opens it again (sip_transport_tls.c pjsip_tls_transport_restart ->
# pjsip_tls_transport_lis_start). When pj_ssl_sock_start_accept2 failed (PJ_ETOOMANY once the
# ioqueue's keys are taken, which peers push toward by opening connections; the address taken
# meanwhile), lis_start went on and returned the status of the published address's update, success:
# the restart was reported as done (pjsua's retry never ran, the engine said the listener was back)
# with no socket listening, and the next restart found a listener to close, so only a later IP
# change brought it back.
# lis_start now closes the SSL socket and returns the error; the restart, when the listener cannot
# be opened, registers the factory again with the address it publishes now (outgoing TLS keeps
# working) and returns the error (upstream keeps the factory registered throughout; this keeps
# 2.17 taking it off the transport manager while its addresses change, as KL-57.20 does for TCP).
# KL-57.20b-retry (not upstream, as KL-57.20-retry): a restart finding no listener only updates the
# published address, so after a failed restart pjsua's retry and every later IP change reported
# success with no listener. The listener now remembers that its last restart failed, and the next
# restart opens it again.
# Not changed: a restart with new TLS settings (pjsua_transport_set_tls... -> restart2 with opt,
# not the IP change's path) whose certificate does not load returns with the factory unregistered.
# Test: Security/UpstreamFixTests (TLSListenerRestartTests runs Tests/Peers/probes/listener_restart_fail.c
# tls, which fails the TLS listener's accept start during an IP change: before the patch the restart
# was reported as success (exit 3); with it the error is reported, outgoing TLS works, and the next
# IP change brings the listener back).
KL57_20B_FILE="$SRC/pjsip/src/pjsip/sip_transport_tls.c"
if ! upstream_has KL-57.20b "$KL57_20B_FILE" 'Close the failed listener and report the error'; then
    hunk KL-57.20b "$KL57_20B_FILE" replace '    if (status == PJ_SUCCESS || status == PJ_EPENDING) {' \
'    /* swift-pjsua: KL-57.20b, accept() could not be started: close the
     * listener and say so (the published address'"'"'s update below returned
     * its own status in place of this one)
     */
    if (status != PJ_SUCCESS && status != PJ_EPENDING) {
        pj_ssl_sock_close(listener->ssock);
        listener->ssock = NULL;
        return status;
    }
    {'
    hunk KL-57.20b "$KL57_20B_FILE" after '                   "Unable to start listener after closing it", status, NULL);' \
'
        /* swift-pjsua: KL-57.20b, lis_close() took the factory off the
         * transport manager: put it back (client only), with the address
         * it publishes now, so that outgoing connections keep working.
         */
        update_factory_addr(listener, a_name);
        update_transport_info(listener);
        if (pjsip_tpmgr_register_tpfactory(listener->tpmgr,
                                           &listener->factory) == PJ_SUCCESS)
        {
            listener->is_registered = PJ_TRUE;
        }'
    applied KL-57.20b
fi
hunk KL-57.20b-retry "$KL57_20B_FILE" after '    pj_ssl_cert_t           *cert;' \
'    pj_bool_t                swift_pjsua_restart_failed; /* swift-pjsua: KL-57.20b-retry,
                                                the last restart left no listener */'
hunk KL-57.20b-retry "$KL57_20B_FILE" replace '    if (!listener->ssock) {' \
'    /* swift-pjsua: KL-57.20b-retry, unless the last restart failed to open it */
    if (!listener->ssock && !listener->swift_pjsua_restart_failed) {'
hunk KL-57.20b-retry "$KL57_20B_FILE" after '    status = pjsip_tls_transport_lis_start(factory, local, a_name);' \
'    /* swift-pjsua: KL-57.20b-retry, the next restart opens it again */
    listener->swift_pjsua_restart_failed = (status != PJ_SUCCESS);'
if grep -qxF '    pj_ssl_sock_close(listener->ssock);' "$KL57_20B_FILE"; then
    # Upstream closes the listener's SSL socket alone here: there is none after a failed restart.
    hunk KL-57.20b-retry "$KL57_20B_FILE" replace '    pj_ssl_sock_close(listener->ssock);' \
'    if (listener->ssock != NULL)  /* swift-pjsua: KL-57.20b-retry, none after a failed restart */
        pj_ssl_sock_close(listener->ssock);'
fi
applied KL-57.20b-retry
