/*
 * The Opus codec's internal sample rate. pjmedia runs Opus at 48 kHz by default
 * (PJMEDIA_CODEC_OPUS_DEFAULT_SAMPLE_RATE), so on a bridge at 8 or 16 kHz every Opus call is
 * resampled 48 kHz <-> bridge rate both ways, which costs more CPU and memory than the codec
 * (measured with `pjsua-bench media`). Opus itself encodes narrowband to fullband at 8, 12, 16,
 * 24 or 48 kHz; the SDP still says opus/48000/2 (RFC 7587) and maxplaybackrate tells the far end.
 *
 * Why C: the iOS binary (swift-pjsip) is built without Opus, so the opus functions exist only
 * where PJMEDIA_HAS_OPUS_CODEC is on; this file compiles against each platform's headers.
 */
#ifndef PJ_AUTOCONF
#  define PJ_AUTOCONF 1
#endif
#include <pjsua.h>
#include "CPJSUASupport.h"

int32_t cpjsua_opus_set_sample_rate(unsigned rate)
{
#if defined(PJMEDIA_HAS_OPUS_CODEC) && PJMEDIA_HAS_OPUS_CODEC
    pjmedia_codec_mgr *manager = pjmedia_endpt_get_codec_mgr(pjsua_get_pjmedia_endpt());
    const pjmedia_codec_info *info[1];
    unsigned count = 1;
    pj_str_t id = pj_str((char *)"opus/48000");
    pj_status_t status = pjmedia_codec_mgr_find_codecs_by_id(manager, &id, &count, info, NULL);
    if (status != PJ_SUCCESS) return status;
    if (count == 0) return PJ_ENOTFOUND;
    pjmedia_codec_param param;
    status = pjmedia_codec_mgr_get_default_param(manager, info[0], &param);
    if (status != PJ_SUCCESS) return status;
    pjmedia_codec_opus_config config;
    status = pjmedia_codec_opus_get_config(&config);
    if (status != PJ_SUCCESS) return status;
    config.sample_rate = rate;
    /* The codec's SDP parameters are rebuilt from the configuration alone. pjmedia derives them
     * from the previous rate's (the default parameter comes from opus.c's process-wide config,
     * which outlives pjsua), and its remove_fmtp() shifts the wrong entries (it copies
     * param[i + 1] to param[i] for every j): going back to 48 kHz from another rate then left a
     * stale sprop-maxcapturerate=8000 in the offer, and calls ran Opus at 8 kHz (pjproject 2.17
     * opus.c; for upstream: the loop should copy param[j + 1] to param[j]). With no entries
     * there is nothing to remove: generate_fmtp() adds every one the configuration needs. */
    param.setting.dec_fmtp.cnt = 0;
    return pjmedia_codec_opus_set_default_param(&config, &param);
#else
    (void)rate;
    return PJ_ENOTSUP;
#endif
}

unsigned cpjsua_opus_sample_rate(void)
{
#if defined(PJMEDIA_HAS_OPUS_CODEC) && PJMEDIA_HAS_OPUS_CODEC
    pjmedia_codec_opus_config config;
    if (pjmedia_codec_opus_get_config(&config) != PJ_SUCCESS) return 0;
    return config.sample_rate;
#else
    return 0;
#endif
}
