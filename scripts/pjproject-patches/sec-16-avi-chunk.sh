# SEC-16: an AVI video chunk read past its frame (upstream 7ecc65849, 2026-07-13).
# pjmedia's AVI player (avi_player.c avi_get_frame) reads a video chunk whole into a frame sized
# from the file's own width and height; that the chunk fits was only a pj_assert (an abort in a
# build with asserts, ours; a heap overflow without). A chunk longer than its frame is now an
# invalid file, as a chunk of length 0 already is (PJMEDIA_ENOTVALIDWAVE): playback ends there.
# Upstream reads the part that fits and skips the rest; a cut frame is no frame to a decoder.
# Not reachable in our builds: the engine plays WAV files only (pjsua_player_create); the AVI
# player is reached by pjsua_avi_player_create and the AVI video device, which nothing of ours
# calls (the pjsua app does with --play-avi, a file its user chooses).
SEC16_FILE="$SRC/pjmedia/src/pjmedia/avi_player.c"
if ! upstream_has SEC-16 "$SEC16_FILE" '"AVI video chunk (%u) exceeds frame buffer "'; then
    hunk SEC-16 "$SEC16_FILE" replace '            pj_assert(frame->size >= ch.len);' \
'            if (ch.len > frame->size) {  /* swift-pjsua: SEC-16, the file'"'"'s, not a bug */
                PJ_LOG(2,(THIS_FILE, "%.*s: a video chunk of %u bytes for a frame of %u",
                          (int)fport->base.info.name.slen, fport->base.info.name.ptr,
                          (unsigned)ch.len, (unsigned)frame->size));
                status = PJMEDIA_ENOTVALIDWAVE;
                goto on_error2;
            }'
    applied SEC-16
fi
