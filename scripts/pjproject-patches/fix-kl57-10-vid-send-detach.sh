# KL-57.10: a video frame being queued for sending could use the send manager after the stream's
# destruction freed it (upstream 0ed917eb9, #5023, 2026-06-15, not an advisory; after our base).
# With the default rate control (PJMEDIA_VID_STREAM_RC_SEND_THREAD) send_rtp() in vid_stream.c
# checks under the stream's group lock that the send manager is attached, lets the lock go, and
# only then reads ss->mgr again to lock the manager and queue the packet. In between,
# pjmedia_vid_stream_destroy() can take the stream lock and run detach_send_manager(), which clears
# ss->mgr, stops the manager's thread and drops the last reference of its group lock, releasing the
# manager's pool: send_rtp() then reads a NULL ss->mgr, or locks a destroyed group lock and pushes
# the packet on a list in freed memory. In our engine the vid_conf clock thread encodes the
# captured frame into the call's stream (put_frame -> send_rtp) while the executor ends the call
# or removes or re-offers the video (pjsua_vid_stop_stream): pjsua_vid_conf_remove_port() only
# queues the port's removal for the next clock tick, so the frame in flight and
# pjmedia_vid_stream_destroy() run at the same time.
# The packet is now queued with the stream lock taken again: if the manager was detached meanwhile
# the entry goes back to the stream's free list and the stream reference taken for it is dropped;
# otherwise the manager is locked inside the stream lock, the order in which the stream's destroy
# takes them (around detach_send_manager(), or inside it with KL-57.11)
# (upstream instead keeps a reference on the manager's group lock and checks ss->mgr again under
# the manager's lock).
# Test: Tests/Peers/probes/vid_send_detach.c holds the encoding thread at the manager's lock and
# destroys the stream meanwhile: before the patch the manager's pool was released under it.
KL57_10_FILE="$SRC/pjmedia/src/pjmedia/vid_stream.c"
if ! upstream_has KL-57.10 "$KL57_10_FILE" 'if (ss->mgr == mgr) {'; then
    hunk KL-57.10 "$KL57_10_FILE" replace '    /* Queue the packet */' \
'    /* swift-pjsua: KL-57.10, queue the packet under the stream lock again,
     * as the stream destroy may have detached (and freed) the manager since
     * the lock was released above. Lock order: stream, then manager, as
     * the stream destroy takes them.
     */
    pj_grp_lock_acquire(ss->grp_lock);
    if (ss->mgr == NULL) {
        pj_list_push_back(&ss->free_list, entry);
        pj_grp_lock_release(ss->grp_lock);
        pj_grp_lock_dec_ref(ss->grp_lock);
        return;
    }'
    hunk KL-57.10 "$KL57_10_FILE" after '    pj_grp_lock_release(ss->mgr->grp_lock);' \
'    /* swift-pjsua: KL-57.10, the stream lock taken above */
    pj_grp_lock_release(ss->grp_lock);'
    applied KL-57.10
fi
