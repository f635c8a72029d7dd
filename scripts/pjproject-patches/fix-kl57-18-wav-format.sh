# KL-57.18: a WAV file whose fmt chunk says 0 Hz or 0 channels aborted the process that opened it
# as a player (upstream e0f76d691, #5030, and 0ee248125, #5050, 2026-06; not advisories; after our
# base). pjmedia_wav_player_port_create checks the format tag, the bits per sample and the block
# alignment against the channel count, which a channel count of 0 with a block alignment of 0
# passes, and nothing checks the rate: the values reach pjmedia_port_info_init, whose
# PJ_ASSERT_RETURN(clock_rate && channel_count) aborts our builds (they do not define NDEBUG). A
# file cut short inside its fmt chunk was read as a whole one: the fields past the cut were left
# as whatever the stack held, and decided what the checks saw.
# In the engine: PJSUA.makePlayer and play(_:into:) (pjsua_player_create) on a file a bot is given
# (an uploaded prompt), documented to throw .file for a file pjmedia cannot play.
# KL-57.18 (what upstream fixed): a short read of the fmt chunk is PJMEDIA_EWAVETOOSHORT, and a
# rate or channel count of 0 is PJMEDIA_ENOTVALIDWAVE. With the channel count at least 1, the
# block alignment the format check ties to it is not 0 either, and the bits are the fixed 16 (PCM)
# or 8 (A-law, u-law) that check already demands.
# KL-57.18b (not upstream, whose tree still aborts on it): a rate that is not 0 but absurd. Below
# about 50 Hz (say 25 Hz and two channels, which the player takes) pjsua's bridge makes a
# resampler for a frame of 0 samples, and pjmedia_resample_create asserts (aborts); a rate near
# 2^30 makes ptime * rate * channels wrap to a small frame size the player takes, for a frame of
# under a microsecond. The player now takes 1000 to 384000 Hz only (PJMEDIA_EWAVEUNSUPP), a frame
# of a whole number of samples per channel (PJMEDIA_ENOTCOMPATIBLE; a half sample per channel was
# refused by the bridge later anyway), ptime * rate * channels that fits 32 bits, and a fmt chunk
# of at least the 16 bytes the player reads from it (PJMEDIA_ENOTVALIDWAVE).
# Test: Tests/SwiftPJSUATests/Security/MalformedWAVTests.swift (makePlayer on crafted files: each
# throws .file and the engine then plays a valid file into a call; before the patch the test
# process died of SIGABRT on the first of them).
KL57_18_FILE="$SRC/pjmedia/src/pjmedia/wav_player.c"
if ! upstream_has KL-57.18 "$KL57_18_FILE" 'wave_hdr.fmt_hdr.sample_rate == 0 || wave_hdr.fmt_hdr.nchan == 0'; then
    hunk KL-57.18 "$KL57_18_FILE" after '    status = pj_file_read(fport->fd, &wave_hdr.fmt_hdr.fmt_tag, &size_read);' \
'    /* swift-pjsua: KL-57.18, a file cut inside the fmt chunk is too short:
     * the fields past the cut would be left unset.
     */
    if (status == PJ_SUCCESS &&
        size_read != (pj_ssize_t)(sizeof(wave_hdr.fmt_hdr) - sizeof(chunk)))
    {
        status = PJMEDIA_EWAVETOOSHORT;
    }'
    hunk KL-57.18 "$KL57_18_FILE" before '    fport->fmt_tag = (pjmedia_wave_fmt_tag)wave_hdr.fmt_hdr.fmt_tag;' \
'    /* swift-pjsua: KL-57.18, no rate or channel count of 0: the port info
     * asserts both (and the block alignment checked above is 0 with them).
     */
    if (wave_hdr.fmt_hdr.sample_rate == 0 || wave_hdr.fmt_hdr.nchan == 0) {
        pj_file_close(fport->fd);
        status = PJMEDIA_ENOTVALIDWAVE;
        goto on_error;
    }
'
    applied KL-57.18
fi
hunk KL-57.18b "$KL57_18_FILE" before '    fport->fmt_tag = (pjmedia_wave_fmt_tag)wave_hdr.fmt_hdr.fmt_tag;' \
'    /* swift-pjsua: KL-57.18b, a fmt chunk shorter than the 16 bytes read
     * from it lent them from the next chunk.
     */
    if (wave_hdr.fmt_hdr.len < 16) {
        pj_file_close(fport->fd);
        status = PJMEDIA_ENOTVALIDWAVE;
        goto on_error;
    }
    /* swift-pjsua: KL-57.18b, no absurd rate: below 1000 Hz the bridge made a
     * resampler for 0 samples (an assertion), and ptime * rate * nchan must
     * not wrap (to a frame size the checks below would take).
     */
    if (wave_hdr.fmt_hdr.sample_rate < 1000 ||
        wave_hdr.fmt_hdr.sample_rate > 384000 ||
        (pj_uint64_t)ptime * wave_hdr.fmt_hdr.sample_rate *
        wave_hdr.fmt_hdr.nchan > 0xFFFFFFFFu)
    {
        pj_file_close(fport->fd);
        status = PJMEDIA_EWAVEUNSUPP;
        goto on_error;
    }
    /* swift-pjsua: KL-57.18b, a frame holds whole samples of each channel */
    if ((pj_uint64_t)ptime * wave_hdr.fmt_hdr.sample_rate % 1000 != 0) {
        pj_file_close(fport->fd);
        status = PJMEDIA_ENOTCOMPATIBLE;
        goto on_error;
    }
'
applied KL-57.18b
