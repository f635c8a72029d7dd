# KL-57.20: a TCP listener restart whose active socket could not be made aborted the process
# (upstream 99e9c39b1, #5161, 2026-08-11, not an advisory; after our base). pjsua_handle_ip_change
# with restart_listener (the engine's default) closes each TCP listener and opens it again
# (sip_transport_tcp.c pjsip_tcp_transport_restart -> pjsip_tcp_transport_lis_start). When
# pj_activesock_create fails (PJ_ETOOMANY once the ioqueue's keys are taken: 2048 on Linux, 64 in
# the iOS profile, KL-25, which peers push toward by opening connections), lis_start ignored the
# error and called pj_activesock_start_accept(NULL), whose PJ_ASSERT_RETURN aborts our builds (no
# NDEBUG); the same at pjsua_transport_create. Had it gone on, the bound and listening socket was
# left open (connections to the port were taken by the kernel and never answered), and the restart
# returned with the TCP factory unregistered (no outgoing TCP either).
# lis_start now stops at either failure and closes what it made (the active socket, which owns the
# socket, or the socket); the restart, when the listener cannot be opened, registers the factory
# again with the address it publishes now (outgoing TCP keeps working) and returns the error
# (upstream keeps the factory registered throughout instead; this keeps 2.17 taking it off the
# transport manager while its addresses change, so no connection is made from it meanwhile: the
# transport manager's lock, taken inside (un)register only, as 2.17 does; the restart holds no
# other lock of its own).
# KL-57.20-retry (not upstream; applied with or without upstream's fix): a restart finding no
# listener only updates the published address (meant for PJSIP_TCP_TRANSPORT_DONT_CREATE_LISTENER),
# so after a failed restart pjsua's retry (restart_lis_delay) and every later IP change reported
# success and the listener never came back. The listener now remembers that its last restart
# failed, and the next restart opens it again.
# Test: Security/UpstreamFixTests (TCPListenerRestartTests runs Tests/Peers/probes/listener_restart_fail.c tcp,
# which fails the listener's pj_activesock_create during an IP change: before the patch it aborted
# (exit 3); with it the error is reported, the port is closed, outgoing TCP works, and the next IP
# change brings the listener back).
KL57_20_FILE="$SRC/pjsip/src/pjsip/sip_transport_tcp.c"
if ! upstream_has KL-57.20 "$KL57_20_FILE" 'stays usable for outgoing transports if the restart below fails'; then
    hunk KL-57.20 "$KL57_20_FILE" replace '    /* Start pending accept() operations */' \
'    /* swift-pjsua: KL-57.20, no active socket: nothing to accept on */
    if (status != PJ_SUCCESS)
        goto on_error;

    /* Start pending accept() operations */'
    hunk KL-57.20 "$KL57_20_FILE" after '                                        listener->factory.pool);' \
'    /* swift-pjsua: KL-57.20, accept() could not be started: close the listener */
    if (status != PJ_SUCCESS)
        goto on_error;'
    hunk KL-57.20 "$KL57_20_FILE" replace '    if (listener->asock == NULL && sock != PJ_INVALID_SOCKET)' \
'    /* swift-pjsua: KL-57.20, an active socket made here owns the socket */
    if (listener->asock != NULL) {
        pj_activesock_close(listener->asock);
        listener->asock = NULL;
    } else if (sock != PJ_INVALID_SOCKET)'
    hunk KL-57.20 "$KL57_20_FILE" after '                   "Unable to start listener after closing it", status);' \
'
        /* swift-pjsua: KL-57.20, lis_close() took the factory off the
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
    applied KL-57.20
fi
hunk KL-57.20-retry "$KL57_20_FILE" after '    unsigned                 initial_timeout;' \
'    pj_bool_t                swift_pjsua_restart_failed; /* swift-pjsua: KL-57.20-retry,
                                                the last restart left no listener */'
hunk KL-57.20-retry "$KL57_20_FILE" replace '    if (!listener->asock) {' \
'    /* swift-pjsua: KL-57.20-retry, unless the last restart failed to open it */
    if (!listener->asock && !listener->swift_pjsua_restart_failed) {'
hunk KL-57.20-retry "$KL57_20_FILE" after '    status = pjsip_tcp_transport_lis_start(factory, local, a_name);' \
'    /* swift-pjsua: KL-57.20-retry, the next restart opens it again */
    listener->swift_pjsua_restart_failed = (status != PJ_SUCCESS);'
if grep -qxF '    pj_activesock_close(listener->asock);' "$KL57_20_FILE"; then
    # Upstream closes the listener's active socket alone here: there is none after a failed restart.
    hunk KL-57.20-retry "$KL57_20_FILE" replace '    pj_activesock_close(listener->asock);' \
'    if (listener->asock != NULL)  /* swift-pjsua: KL-57.20-retry, none after a failed restart */
        pj_activesock_close(listener->asock);'
fi
applied KL-57.20-retry
