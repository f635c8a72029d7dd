# KL-57.8: the media transports handed a received packet to their stream holding no reference to
# it (upstream 7b6cc12b9, #5103, 2026-07-21, and 66edd91f9, #5135, 2026-08-05, not advisories;
# after our base). The UDP transport's call_rtp_cb/call_rtcp_cb (ICE's ice_on_rx_data likewise)
# copy the callbacks and their user data (the stream) under the transport's lock, release it, and
# call the stream, whose on_rx_rtp decodes the header into the stream and looks at the source
# before it takes a reference, and whose on_rx_rtcp takes none. pjmedia_stream_destroy on another
# thread in between (the engine's executor hanging up while pjsua's worker receives) detaches the
# transport, whose pj_ioqueue_clear_key waits for the read callback one second at most and then
# gives up, and frees the stream: a receive that outlasts that second works on freed memory.
# The stream now hands the transport its group lock at attach (a new last member of
# pjmedia_transport_attach_param, NULL when unset: every attach_param in pjproject and in our
# MediaTap is zeroed or copied from one), and the UDP and ICE transports take a reference on it in
# the same locked snapshot as the callbacks and drop it when the callback has returned. Detach
# clears it under that lock before the stream drops its own reference, so a lock found there
# belongs to a stream still alive. SRTP and our MediaTap copy the caller's attach_param down to
# the transport below, so the UDP or ICE transport holds the stream across them too.
# Not covered: a DTLS or other keying re-attach is told apart from a new user only by its user
# data; transport_loop and attach()-only transports take no reference (pjsua uses neither).
# Test: Security/UpstreamFixTests (ReceiveTeardownTests runs Tests/Peers/probes/rtp_rx_destroy.c
# a|b|c, which holds the worker after the transport's snapshot, in on_rx_rtp's decode, and after
# the RTCP snapshot: the stream's pool was released inside each window before the patch).
KL57_8_HEADER="$SRC/pjmedia/include/pjmedia/transport.h"
KL57_8_UDP="$SRC/pjmedia/src/pjmedia/transport_udp.c"
KL57_8_ICE="$SRC/pjmedia/src/pjmedia/transport_ice.c"
if ! upstream_has KL-57.8 "$KL57_8_UDP" 'cb_grp_lock = udp->cb_grp_lock;'; then
    hunk KL-57.8 "$KL57_8_HEADER" after '    void (*rtp_cb2)(pjmedia_tp_cb_param *param);' '
    /**
     * swift-pjsua: KL-57.8. Optional group lock of the owner of the callbacks (the stream).
     * A transport that knows it holds a reference on it while a callback runs, so that the
     * owner is not freed under a receive. The owner keeps its own reference until detach
     * has returned. NULL (a zeroed param): no reference.
     */
    pj_grp_lock_t *owner_grp_lock;'

    for KL57_8_STREAM in stream.c vid_stream.c txt_stream.c; do
        hunk KL-57.8 "$SRC/pjmedia/src/pjmedia/$KL57_8_STREAM" replace \
'    status = pjmedia_transport_attach2(tp, &att_param);' \
'    /* swift-pjsua: KL-57.8, the transport holds the stream across each receive callback */
    att_param.owner_grp_lock = c_strm->grp_lock;
    status = pjmedia_transport_attach2(tp, &att_param);'
    done

    hunk KL-57.8 "$KL57_8_UDP" after '    void               *user_data;      /**< Only valid when attached       */' \
'    pj_grp_lock_t      *owner_grp_lock; /**< swift-pjsua: KL-57.8, the callbacks owner, or NULL */'
    hunk KL-57.8 "$KL57_8_UDP" replace 'static void call_rtp_cb(struct transport_udp *udp, pj_ssize_t bytes_read,' \
'/* swift-pjsua: KL-57.8, a receive holds the owner of the callbacks from the snapshot until the
 * callback has returned. */
static void call_rtp_cb_held(struct transport_udp *udp, pj_grp_lock_t **owner,
                             pj_ssize_t bytes_read, pj_bool_t *rem_switch);
static void call_rtp_cb(struct transport_udp *udp, pj_ssize_t bytes_read,
                        pj_bool_t *rem_switch)
{
    pj_grp_lock_t *owner = NULL;

    call_rtp_cb_held(udp, &owner, bytes_read, rem_switch);
    if (owner)
        pj_grp_lock_dec_ref(owner);
}

static void call_rtp_cb_held(struct transport_udp *udp, pj_grp_lock_t **owner,
                             pj_ssize_t bytes_read,'
    hunk KL-57.8 "$KL57_8_UDP" replace '    cb2 = udp->rtp_cb2;' \
'    cb2 = udp->rtp_cb2;
    /* swift-pjsua: KL-57.8, detach clears it under this lock before the owner lets go */
    *owner = udp->owner_grp_lock;
    if (*owner)
        pj_grp_lock_add_ref(*owner);'
    hunk KL-57.8 "$KL57_8_UDP" replace 'static void call_rtcp_cb(struct transport_udp *udp, pj_ssize_t bytes_read)' \
'/* swift-pjsua: KL-57.8, as call_rtp_cb */
static void call_rtcp_cb_held(struct transport_udp *udp, pj_grp_lock_t **owner,
                              pj_ssize_t bytes_read);
static void call_rtcp_cb(struct transport_udp *udp, pj_ssize_t bytes_read)
{
    pj_grp_lock_t *owner = NULL;

    call_rtcp_cb_held(udp, &owner, bytes_read);
    if (owner)
        pj_grp_lock_dec_ref(owner);
}

static void call_rtcp_cb_held(struct transport_udp *udp, pj_grp_lock_t **owner,
                              pj_ssize_t bytes_read)'
    hunk KL-57.8 "$KL57_8_UDP" replace '    cb = udp->rtcp_cb;' \
'    cb = udp->rtcp_cb;
    /* swift-pjsua: KL-57.8, as in call_rtp_cb */
    *owner = udp->owner_grp_lock;
    if (*owner)
        pj_grp_lock_add_ref(*owner);'
    hunk KL-57.8 "$KL57_8_UDP" replace 'static pj_status_t transport_attach2(pjmedia_transport *tp,' \
'static pj_status_t transport_attach2_callbacks(pjmedia_transport *tp,
                                    pjmedia_transport_attach_param *att_param);

/* swift-pjsua: KL-57.8, the owner is recorded under the lock of the snapshots; detach clears it
 * with the callbacks. A re-attach by the same user without an owner (DTLS re-attaching its SRTP
 * transport to a new source address, the stream still attached above) keeps it. */
static pj_status_t transport_attach2(pjmedia_transport *tp,
                                     pjmedia_transport_attach_param *att_param)
{
    struct transport_udp *udp = (struct transport_udp*) tp;
    void *previous_user;
    pj_status_t status;

    if (udp->base.grp_lock)
        pj_grp_lock_acquire(udp->base.grp_lock);
    previous_user = udp->user_data;
    if (udp->base.grp_lock)
        pj_grp_lock_release(udp->base.grp_lock);

    status = transport_attach2_callbacks(tp, att_param);
    if (status == PJ_SUCCESS) {
        if (udp->base.grp_lock)
            pj_grp_lock_acquire(udp->base.grp_lock);
        if (att_param->owner_grp_lock || att_param->user_data != previous_user)
            udp->owner_grp_lock = att_param->owner_grp_lock;
        if (udp->base.grp_lock)
            pj_grp_lock_release(udp->base.grp_lock);
    }
    return status;
}

static pj_status_t transport_attach2_callbacks(pjmedia_transport *tp,'
    hunk KL-57.8 "$KL57_8_UDP" after '        udp->user_data = NULL;' \
'        udp->owner_grp_lock = NULL;     /* swift-pjsua: KL-57.8 */'

    hunk KL-57.8 "$KL57_8_ICE" after '    void               (*rtp_cb2)(pjmedia_tp_cb_param*);' \
'    pj_grp_lock_t       *owner_grp_lock; /* swift-pjsua: KL-57.8, the callbacks owner */'
    hunk KL-57.8 "$KL57_8_ICE" before '    tp_ice->stream = att_param->user_data;' \
'    /* swift-pjsua: KL-57.8, as the UDP transport: a re-attach by the same user without an
     * owner keeps it */
    if (att_param->owner_grp_lock || att_param->user_data != tp_ice->stream)
        tp_ice->owner_grp_lock = att_param->owner_grp_lock;'
    hunk KL-57.8 "$KL57_8_ICE" after '    tp_ice->stream = NULL;' \
'    tp_ice->owner_grp_lock = NULL;     /* swift-pjsua: KL-57.8 */'
    hunk KL-57.8 "$KL57_8_ICE" replace 'static void ice_on_rx_data(pj_ice_strans *ice_st, unsigned comp_id,' \
'/* swift-pjsua: KL-57.8, a receive holds the owner of the callbacks from the snapshot until the
 * callback has returned (as the UDP transport). */
static void ice_on_rx_data_held(pj_ice_strans *ice_st, pj_grp_lock_t **owner,
                                unsigned comp_id, void *pkt, pj_size_t size,
                                const pj_sockaddr_t *src_addr,
                                unsigned src_addr_len);
static void ice_on_rx_data(pj_ice_strans *ice_st, unsigned comp_id,
                           void *pkt, pj_size_t size,
                           const pj_sockaddr_t *src_addr,
                           unsigned src_addr_len)
{
    pj_grp_lock_t *owner = NULL;

    ice_on_rx_data_held(ice_st, &owner, comp_id, pkt, size, src_addr,
                        src_addr_len);
    if (owner)
        pj_grp_lock_dec_ref(owner);
}

static void ice_on_rx_data_held(pj_ice_strans *ice_st, pj_grp_lock_t **owner,
                                unsigned comp_id,'
    hunk KL-57.8 "$KL57_8_ICE" replace '    stream = tp_ice->stream;' \
'    stream = tp_ice->stream;
    /* swift-pjsua: KL-57.8, detach clears it under this lock before the owner lets go */
    *owner = tp_ice->owner_grp_lock;
    if (*owner)
        pj_grp_lock_add_ref(*owner);'
    applied KL-57.8
fi
