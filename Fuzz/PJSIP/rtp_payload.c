/*
 * rtp_payload: an RTP packet's payload as a call's stream hands it to its decoder: the codec's
 * parser (pjmedia_codec_parse, which splits a packet into frames; Opus repacketizes a packet of
 * several frames into one packet per frame: KL-57.2), then each frame decoded as the stream
 * decodes it for the bridge.
 *
 * Input: the first byte picks the codec (of those the audio codec manager registers, in its
 * order), the rest is the payload. The payload is a heap block of exactly its size, as the
 * transport's buffer holds a datagram of that size: a parser writing past it is a report.
 */
#include <pjmedia.h>
#include <pjmedia-codec.h>
#include "common.h"

static pjmedia_endpt *media_endpoint;
static pj_pool_t *codec_pool;
enum { MAX_CODECS = 32, MAX_FRAMES = 64 };
static pjmedia_codec *codecs[MAX_CODECS];
static pjmedia_codec_param params[MAX_CODECS];
static pjmedia_codec_info names[MAX_CODECS];
static unsigned codec_count;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    fuzz_pj_init();
    if (pjmedia_endpt_create(&fuzz_cp.factory, NULL, 0, &media_endpoint) != PJ_SUCCESS) abort();
    if (pjmedia_codec_register_audio_codecs(media_endpoint, NULL) != PJ_SUCCESS) abort();
    pj_log_set_level(0);
    codec_pool = fuzz_pool("codecs");
    pjmedia_codec_mgr *manager = pjmedia_endpt_get_codec_mgr(media_endpoint);
    pjmedia_codec_info infos[MAX_CODECS];
    unsigned count = MAX_CODECS;
    if (pjmedia_codec_mgr_enum_codecs(manager, &count, infos, NULL) != PJ_SUCCESS) abort();
    for (unsigned i = 0; i < count && codec_count < MAX_CODECS; ++i) {
        pjmedia_codec *codec = NULL;
        pjmedia_codec_param *param = &params[codec_count];
        if (pjmedia_codec_mgr_get_default_param(manager, &infos[i], param) != PJ_SUCCESS) continue;
        if (pjmedia_codec_mgr_alloc_codec(manager, &infos[i], &codec) != PJ_SUCCESS) continue;
        if (pjmedia_codec_init(codec, codec_pool) != PJ_SUCCESS || pjmedia_codec_open(codec, param) != PJ_SUCCESS) {
            (void)pjmedia_codec_mgr_dealloc_codec(manager, codec);
            continue;
        }
        names[codec_count] = infos[i];
        codecs[codec_count++] = codec;
    }
    if (codec_count == 0) abort();
    if (getenv("FUZZ_LIST_CODECS") != NULL) {  /* which first byte picks which codec */
        for (unsigned i = 0; i < codec_count; ++i) {
            fprintf(stderr, "%u %.*s/%u\n", i, (int)names[i].encoding_name.slen, names[i].encoding_name.ptr,
                    names[i].clock_rate);
        }
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2 || size > 1 + PJMEDIA_MAX_MTU) return 0;
    unsigned which = data[0] % codec_count;
    pjmedia_codec *codec = codecs[which];
    const pjmedia_codec_param *param = &params[which];
    size_t payload_size = size - 1;
    uint8_t *payload = (uint8_t *)malloc(payload_size);
    if (payload == NULL) abort();
    memcpy(payload, data + 1, payload_size);

    pjmedia_frame frames[MAX_FRAMES];
    pj_bzero(frames, sizeof(frames));
    unsigned count = MAX_FRAMES;
    pj_timestamp ts = { .u64 = 0 };
    if (pjmedia_codec_parse(codec, payload, payload_size, &ts, &count, frames) == PJ_SUCCESS) {
        /* Room for the longest a frame decodes to (Opus: 120 ms), every channel, 16 bits. */
        pj_size_t pcm_size = (pj_size_t)param->info.clock_rate * 120 / 1000 * param->info.channel_cnt * 2;
        int16_t *pcm = (int16_t *)malloc(pcm_size);
        if (pcm == NULL) abort();
        for (unsigned i = 0; i < count && i < MAX_FRAMES; ++i) {
            if (frames[i].buf == NULL) continue;
            pjmedia_frame out = { .buf = pcm, .size = pcm_size };
            (void)pjmedia_codec_decode(codec, &frames[i], (unsigned)pcm_size, &out);
        }
        free(pcm);
    }
    free(payload);
    fuzz_check_exception_chain();
    return 0;
}
