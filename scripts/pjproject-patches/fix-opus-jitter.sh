# KL-50: an Opus call's RTCP statistics were read at the codec's rate, not the RTP clock's.
# RFC 7587 4.1: Opus's RTP timestamps step at 48 kHz whatever rate the codec runs at inside, and
# pjmedia's stream sends and expects them so (stream.c, opus_ts_modifier). But it set up the
# call's RTCP session with info->fmt.clock_rate, which stream_info.c lowers for Opus to the rate
# both sides run the codec at (maxplaybackrate, sprop-maxcapturerate: 16000 at our default).
# rtcp.c converts each packet's arrival time to that clock and subtracts the RTP timestamp, so at
# 16 kHz every 20 ms packet moved the transit by 960 - 320 = 640 units: RFC 3550's estimator
# converged to 640 / 16000 s = 40 ms on a perfect network (`softphone demo`: "jitter 35.2 ms",
# MOS 4.36; 100 ms at 8 kHz, 20 ms at 24 kHz, right only at 48 kHz), our RRs told the peer the
# same, and the jitter in the peer's RRs was read 3x too long. The session now runs at 48 kHz for
# Opus, its samples per frame scaled to match (lost-packet periods stay right), including the
# frame size set again when the far end changes its ptime. Upstream has no fix (master b7317ffca,
# 2026-08-20): a pjproject upgrade reviews this (the build stops if an anchor moved).
# Test: QualityTests (an Opus call reports jitter under 5 ms at every opusSampleRate).
OPUS_STREAM_FILE="$SRC/pjmedia/src/pjmedia/stream.c"
hunk KL-50 "$OPUS_STREAM_FILE" before '        pjmedia_rtcp_init2(&c_strm->rtcp, &rtcp_setting);' \
'        /* swift-pjsua: KL-50, Opus RTP timestamps are at 48 kHz (RFC 7587), whatever the
         * codec runs at, and RTCP reads them (the jitter) in its own clock_rate. */
        if (!pj_stricmp2(&info->fmt.encoding_name, "opus") &&
            info->fmt.clock_rate && 48000 % info->fmt.clock_rate == 0)
        {
            rtcp_setting.samples_per_frame *= 48000 / info->fmt.clock_rate;
            rtcp_setting.clock_rate = 48000;
        }'
hunk KL-50 "$OPUS_STREAM_FILE" before '            pjmedia_rtcp_update(&c_strm->rtcp, &setting);' \
'            /* swift-pjsua: KL-50, in the RTCP session'"'"'s clock (48 kHz for Opus) */
            setting.dec_samples_per_frame = (unsigned)
                ((pj_uint64_t)setting.dec_samples_per_frame * c_strm->rtcp.clock_rate /
                 stream->codec_param.info.clock_rate);'
applied KL-50

# pjproject #5122 (fixed upstream by fa326c605, after 2.17): rtcp.c converts the arrival time
# (nanoseconds since boot) to the RTP clock as ts * clock_rate / 1e9, which overflows 64 bits
# after 2^64 / clock_rate ns of uptime: the once-per-period wrap puts a spike of up to 2^31 units
# into the jitter estimate. At 8 kHz that is every 27 days; KL-50 runs Opus's session at 48 kHz,
# every 4.4 days, so both go together. Whole seconds and the rest are converted apart.
OPUS_RTCP_FILE="$SRC/pjmedia/src/pjmedia/rtcp.c"
if ! upstream_has '#5122' "$OPUS_RTCP_FILE" '(ts.u64 / sess->ts_freq.u64) * sess->clock_rate'; then
    hunk '#5122' "$OPUS_RTCP_FILE" replace '        ts.u64 = ts.u64 * sess->clock_rate / sess->ts_freq.u64;' \
'        {   /* swift-pjsua: #5122, no 64-bit overflow on a long uptime */
            pj_uint64_t whole = ts.u64 / sess->ts_freq.u64;
            pj_uint64_t part = ts.u64 % sess->ts_freq.u64;
            ts.u64 = whole * sess->clock_rate + part * sess->clock_rate / sess->ts_freq.u64;
        }'
    applied '#5122'
fi
