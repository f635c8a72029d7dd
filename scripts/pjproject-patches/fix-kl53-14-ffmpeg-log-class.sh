# KL-53.14: pjmedia's FFmpeg log callback read the class of a context that has none (not fixed
# upstream). FFmpeg's av_log takes any struct whose first member is an AVClass pointer, and that
# pointer may be NULL (FFmpeg's own callback checks it); ffmpeg_log_cb called item_name through it
# unchecked: a NULL read, a SIGSEGV in any build. FFmpeg's H.263 decoder logs so about a malformed
# picture header: a peer's video through FFmpeg's H.263-1998 decoder (Linux, KL-7; the iOS binary
# has no FFmpeg codec) stopped the process with one packet. Found by the rtp_payload fuzz target
# (its video half, 2026-12-06, 56 k inputs in; UBSan's null check named it). The sender's name is
# now added only when the context has a class, as FFmpeg's own callback does.
# Test: the fuzz seed Fuzz/corpus/rtp_payload/kl53-ffmpeg-log-context-without-class (make fuzz-smoke).
KL53_14_FILE="$SRC/pjmedia/src/pjmedia/ffmpeg_util.c"
if ! upstream_has KL-53.14 "$KL53_14_FILE" 'if (ptr && *(AVClass**)ptr) {'; then
    hunk KL-53.14 "$KL53_14_FILE" replace '    if (ptr) {' \
'    /* swift-pjsua: KL-53.14, a context may have no class (its first member NULL) */
    if (ptr && *(AVClass**)ptr) {'
    applied KL-53.14
fi
