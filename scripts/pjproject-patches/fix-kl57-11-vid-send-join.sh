# KL-57.11: destroying a video stream could deadlock with its send thread (upstream 8234bd220,
# #4989, 2026-05-28, not an advisory; after our base). With the default rate control
# (PJMEDIA_VID_STREAM_RC_SEND_THREAD) the send manager's thread sends each queued packet and then
# takes the stream's group lock to put the buffer back on the stream's free list.
# pjmedia_vid_stream_destroy() calls detach_send_manager() holding that stream lock, and
# detach_send_manager() joins the send thread: a thread caught between its send and the stream
# lock waits for the destroy, the destroy waits for it, for ever. In our engine the executor (or
# the worker, on the remote's BYE or re-INVITE) runs pjsua_vid_stop_stream() while the send
# thread is sending the call's last frames: that thread hangs in the destroy, holding what its
# caller held (pjsua_call_hangup's dialog lock), and the rest of the engine stalls behind it.
# The destroy now lets the stream lock go around detach_send_manager(), which takes it itself
# (before the manager's lock, the order send_rtp() uses, see KL-57.10) only to clear ss->mgr, and
# joins the thread holding neither (upstream drops the lock in the destroy and takes the stream
# lock inside the manager's).
# Test: Tests/Peers/probes/vid_send_join.c holds the send thread where it asks for the stream lock
# and destroys the stream: before the patch the destroy joined the thread holding that lock.
KL57_11_FILE="$SRC/pjmedia/src/pjmedia/vid_stream.c"
if ! upstream_has KL-57.11 "$KL57_11_FILE" 'MUST NOT hold stream mutex while detaching from send manager'; then
    hunk KL-57.11 "$KL57_11_FILE" replace '        detach_send_manager(stream->send_stream);' \
'        /* swift-pjsua: KL-57.11, not under the stream lock taken above:
         * detach_send_manager() joins the send thread, which takes the
         * stream lock after each packet it sends.
         */
        pj_grp_lock_release(c_strm->grp_lock);
        detach_send_manager(stream->send_stream);
        pj_grp_lock_acquire(c_strm->grp_lock);'
    hunk KL-57.11 "$KL57_11_FILE" before '    /* Remove all packets of this stream from queue */' \
'    /* swift-pjsua: KL-57.11, the stream lock (the caller no longer holds it)
     * for clearing ss->mgr, taken before the manager lock as send_rtp() does.
     */
    pj_grp_lock_acquire(ss->grp_lock);'
    hunk KL-57.11 "$KL57_11_FILE" after '    ss->mgr = NULL;' \
'    /* swift-pjsua: KL-57.11, not held while the send thread is joined */
    pj_grp_lock_release(ss->grp_lock);'
    applied KL-57.11
fi
