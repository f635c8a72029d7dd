# SEC-17: H.263 unpacketizing past the bitstream buffer (upstream 9c4a28404, 2026-08-04).
# pjmedia_h263_unpacketize (pjmedia-codec h263_packetizer.c) appends an RTP payload to the picture
# being assembled after checking room for the payload and 2 bytes, but can write 2 zero bytes and
# the payload header's PLEN (up to 63) bytes of picture header, then 2 more zero bytes at a sync
# point, before the payload: up to 65 bytes past the buffer. And the check that fails is a
# pj_assert, which a peer's packet reaches (an abort in our build, asserts on). The check now
# counts all of it; the assert goes (the payload is still dropped and the loss flagged).
# Not reachable in our builds: its one caller, FFmpeg's H263-1998 codec (ffmpeg_vid_codecs.c
# ffmpeg_codec_decode, KL-7; the iOS profile has no FFmpeg codec), passes it a packet only when the
# whole packet fits what is left of the buffer, and the most the function writes is the packet's
# length (PLEN is part of it); the flaw is for a caller without that check.
SEC17_FILE="$SRC/pjmedia/src/pjmedia-codec/h263_packetizer.c"
if ! upstream_has SEC-17 "$SEC17_FILE" 'if (bits_size < *pos + payload_len + PLEN + 4) {'; then
    hunk SEC-17 "$SEC17_FILE" replace '    if (bits_size < *pos + payload_len + 2) {' \
'    /* swift-pjsua: SEC-17, room for all the writing below can add: 2 zero bytes and PLEN bytes
     * of picture header, 2 zero bytes at a sync point, the payload */
    if (bits_size < *pos + payload_len + PLEN + 4) {'
    hunk SEC-17 "$SEC17_FILE" replace '        pj_assert(!"Insufficient H.263 bitstream buffer");' \
'        /* swift-pjsua: SEC-17, a peer'"'"'s packet, not a bug: no assert */'
    applied SEC-17
fi
