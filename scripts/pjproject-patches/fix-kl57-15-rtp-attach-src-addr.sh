# KL-57.15: a packet received while the UDP media transport was being attached could reach the
# stream with a zeroed source address, which aborts our builds (upstream 469151c48, #5001,
# 2026-05-29, not an advisory; after our base). The transport reads each datagram into its own
# rtp_src_addr (the ioqueue under the key lock, or on_rx_rtp's loop with no lock), then
# call_rtp_cb snapshots the callbacks under the same lock and hands the stream a pointer to
# rtp_src_addr; on_rx_rtp then copies it again when the stream asks for the remote address to be
# switched. attach (pjsua: each stream creation, on the SIP thread, right after media_start has
# posted the reads) clears rtp_src_addr under that lock, so an attach between the read and the
# snapshot, or during the callback, leaves the stream with an address of family 0: the new
# stream switches to the first source it hears and pj_sockaddr_cp asserts on it
# (stream_imp_common.c on_rx_rtp; transport_udp.c on_rx_rtp likewise). A peer makes it likely:
# RTP sent before its 200 (or during a media-changing re-INVITE) queues on our socket and is
# drained by the media worker exactly while the SIP thread attaches the new stream (a burst of
# 60 queued packets: 4 to 26 aborts in 100 before this patch, none in 500 with it; a video
# keyframe is such a burst). An attach during the callback: a new stream attached after the old
# stream detach gave up waiting for a stalled receive (KL-57.8), or a transport attached twice.
# The snapshot now also copies the source into rtp_rx_src, a field only the receive path writes
# (the ioqueue runs on_rx_rtp one thread at a time: concurrency is off for the key); the stream
# gets that copy, a packet whose copied source was cleared by an attach since its read is dropped
# (its source is lost), and the switch reads the copy and writes the remote addresses under the
# lock attach writes them under (that one lock, nothing else held: no new lock order). The
# snapshot also resets rem_switch, so a switch only follows a callback that saw a valid copy.
# Applies before KL-57.8 (name order); KL-57.8 then adds its owner reference around the same
# snapshot: a packet dropped here returns through its wrapper, which drops that reference.
# Not covered: a datagram read by on_rx_rtp's own lockless recvfrom at the instant attach clears
# rtp_src_addr could be a mix of both (a valid family with a zeroed address or port); the RTCP
# switch in on_rx_rtcp still reads rem_rtcp_addr/rtcp_src_addr without the lock (no assertion:
# pj_sockaddr_cmp returns on differing families first; KL-57.16, decided not reachable).
# Test: Security/UpstreamFixTests (AttachSourceAddressTests runs Tests/Peers/probes/rtp_attach_race.c
# a|b|c: the stream attached between the read and the snapshot, the transport re-attached while
# the stream compares the source, and while the transport is about to switch to it).
KL57_15_UDP="$SRC/pjmedia/src/pjmedia/transport_udp.c"
if ! upstream_has KL-57.15 "$KL57_15_UDP" 'param.src_addr = src_addr;'; then
    hunk KL-57.15 "$KL57_15_UDP" after '    pj_sockaddr         rtp_src_addr;   /**< Actual packet src addr.        */' \
'    pj_sockaddr         rtp_rx_src;     /**< swift-pjsua: KL-57.15, source of the packet being
                                             delivered, copied from rtp_src_addr in the
                                             snapshot; written by the receive path only    */'
    hunk KL-57.15 "$KL57_15_UDP" replace '    cb2 = udp->rtp_cb2;' \
'    cb2 = udp->rtp_cb2;
    /* swift-pjsua: KL-57.15, the source of this packet, copied under the lock that attach holds
     * when it clears rtp_src_addr: the callback and the address switch read this copy */
    pj_memcpy(&udp->rtp_rx_src, &udp->rtp_src_addr, sizeof(udp->rtp_rx_src));
    if (rem_switch)
        *rem_switch = PJ_FALSE;'
    hunk KL-57.15 "$KL57_15_UDP" before '        param.user_data = user_data;' \
'        /* swift-pjsua: KL-57.15, an attach between the read and the snapshot cleared the
         * source: drop the packet rather than hand the stream an address of family 0 */
        if (bytes_read > 0 &&
            udp->rtp_rx_src.addr.sa_family != pj_AF_INET() &&
            udp->rtp_rx_src.addr.sa_family != pj_AF_INET6())
        {
            return;
        }
'
    hunk KL-57.15 "$KL57_15_UDP" replace '        param.src_addr = &udp->rtp_src_addr;' \
'        param.src_addr = &udp->rtp_rx_src;    /* swift-pjsua: KL-57.15 */'
    hunk KL-57.15 "$KL57_15_UDP" after '    pj_bool_t rem_switch = PJ_FALSE;' \
'    pj_bool_t switch_locked = PJ_FALSE;    /* swift-pjsua: KL-57.15 */'
    hunk KL-57.15 "$KL57_15_UDP" replace '        if (rem_switch &&' \
'        /* swift-pjsua: KL-57.15, the switch writes the remote addresses attach writes: under the
         * same lock (released below, before the next read) */
        if (rem_switch && udp->base.grp_lock &&
            (udp->options & PJMEDIA_UDP_NO_SRC_ADDR_CHECKING)==0)
        {
            pj_grp_lock_acquire(udp->base.grp_lock);
            switch_locked = PJ_TRUE;
        }
        if (rem_switch &&'
    hunk KL-57.15 "$KL57_15_UDP" replace '            pj_sockaddr_cp(&udp->rem_rtp_addr, &udp->rtp_src_addr);' \
'            pj_sockaddr_cp(&udp->rem_rtp_addr, &udp->rtp_rx_src);  /* swift-pjsua: KL-57.15 */'
    hunk KL-57.15 "$KL57_15_UDP" replace '                      pj_sockaddr_print(&udp->rtp_src_addr, addr_text,' \
'                      pj_sockaddr_print(&udp->rtp_rx_src, addr_text, /* swift-pjsua: KL-57.15 */'
    hunk KL-57.15 "$KL57_15_UDP" before '        bytes_read = sizeof(udp->rtp_pkt);' \
'        /* swift-pjsua: KL-57.15, the switch above is done */
        if (switch_locked) {
            pj_grp_lock_release(udp->base.grp_lock);
            switch_locked = PJ_FALSE;
        }
'
    applied KL-57.15
fi
