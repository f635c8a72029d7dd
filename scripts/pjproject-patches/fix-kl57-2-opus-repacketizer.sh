# KL-57.2: Opus's codec_parse wrote a received packet's frames back over the packet, where they
# can take more room than the packet had (upstream d0cbf57ac, #5006, 2026-06-08, not an advisory;
# after our 2.17 base, in the iOS binary, whose profile here has no Opus). A packet of several
# frames shares one table-of-contents byte; the repacketizer splits it into one packet per frame,
# each with its own, so the frames written back are longer than the packet by up to one byte a
# frame (47 for 48 frames of 2.5 ms): written past the payload into the rest of the transport's
# buffer, and past that buffer for a datagram near its size. Any peer in an Opus call.
# The frames now go to a buffer of this thread's, twice the largest packet (more than the
# repacketizer can make of one), which the stream reads before it parses its next packet: it
# copies each frame into its jitter buffer in the same call, on the same thread.
# Test: the fuzz seed Fuzz/corpus/rtp_payload/kl57-opus-48-frames (make fuzz-smoke; without the
# patch a heap-buffer-overflow in opus_repacketizer_out_range).
KL57_2_FILE="$SRC/pjmedia/src/pjmedia-codec/opus.c"
if ! upstream_has KL-57.2 "$KL57_2_FILE" 'parse_buf'; then
    hunk KL-57.2 "$KL57_2_FILE" replace '    out_pos = 0;' \
'    /* swift-pjsua: KL-57.2, the frames into a buffer of their own: split, they can be longer
     * than the packet they came in. Read by the caller before its next parse on this thread. */
    {
        static __thread unsigned char swift_pjsua_frames[MAX_ENCODED_PACKET_SIZE * 2];
        pkt = swift_pjsua_frames;
    }
    out_pos = 0;'
    applied KL-57.2
fi
