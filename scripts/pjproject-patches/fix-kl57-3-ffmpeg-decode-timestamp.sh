# KL-57.3: FFmpeg's video decoder read the timestamp of a packet past the ones it was given
# (upstream 98ed66217, #5160, 2026-08-10, not an advisory; after our 2.17 base, in the iOS binary,
# which has no FFmpeg codec). ffmpeg_codec_decode gathers a picture's packets in a loop and then
# stamps the picture with packets[i].timestamp, i being the count by then: one pjmedia_frame past
# the array. The video stream hands it its array of received packets: when a picture fills every
# slot, the read is past that array (a peer's video call through FFmpeg's H.263-1998 decoder,
# KL-7, on Linux). All of a picture's packets carry its timestamp: the first one's is read now.
# Test: the fuzz seed Fuzz/corpus/rtp_payload/kl57-h263-1998-one-packet (make fuzz-smoke; the
# packets are an array of exactly their count: a heap-buffer-overflow without the patch).
KL57_3_FILE="$SRC/pjmedia/src/pjmedia-codec/ffmpeg_vid_codecs.c"
if ! upstream_has KL-57.3 "$KL57_3_FILE" 'whole_frm.timestamp = output->timestamp = packets[0].timestamp;'; then
    hunk KL-57.3 "$KL57_3_FILE" replace '        whole_frm.timestamp = output->timestamp = packets[i].timestamp;' \
'        /* swift-pjsua: KL-57.3, the picture'"'"'s timestamp: its first packet'"'"'s (i is the count) */
        whole_frm.timestamp = output->timestamp = packets[0].timestamp;'
    applied KL-57.3
fi
