/*
 * rtp_payload: an RTP packet's payload as a call's stream hands it to its decoder. Audio: the
 * codec's parser (pjmedia_codec_parse, which splits a packet into frames; Opus repacketizes a
 * packet of several frames into one packet per frame: KL-57.2), then each frame decoded as the
 * stream decodes it for the bridge. Video: the packets of one picture handed to the codec's
 * decoder (pjmedia_vid_codec_decode, which unpacketizes and decodes them: KL-57.3).
 *
 * Input: the first byte picks the codec: below 0x80 one of the audio codec manager's, 0x80 and
 * up one of the video codec manager's (each in its manager's order; FUZZ_LIST_CODECS=1 prints
 * them). The rest is the payload (video: one packet, or several separated by the four bytes
 * "|PK|"). Each payload is a heap block of exactly its size, as the transport's buffer holds a
 * datagram of that size, and the video packets an array of exactly their count: a parser or
 * decoder reading or writing past either is a report.
 */
#define _GNU_SOURCE 1 /* memmem */
#include <pjmedia.h>
#include <pjmedia-codec.h>
#include <pjmedia-codec/ffmpeg_vid_codecs.h>
#include <pjmedia-codec/openh264.h>
#include <pjmedia-codec/vpx.h>
#include "common.h"

static pjmedia_endpt *media_endpoint;
static pj_pool_t *codec_pool;
enum { MAX_CODECS = 32, MAX_FRAMES = 64 };
static pjmedia_codec *codecs[MAX_CODECS];
static pjmedia_codec_param params[MAX_CODECS];
static pjmedia_codec_info names[MAX_CODECS];
static unsigned codec_count;
static pjmedia_vid_codec *video_codecs[MAX_CODECS];
static pjmedia_vid_codec_param video_params[MAX_CODECS];
static pjmedia_vid_codec_info video_names[MAX_CODECS];
static unsigned video_codec_count;

/* The video codecs the build has, each opened for decoding at CIF. Every factory of the Linux
 * build is registered unconditionally (configure's flags that enable them are not in the installed
 * headers); one a build lacks fails to register. FFmpeg's codecs list no frame rate, and their
 * default parameters assert on that: theirs are made here, as pjsua's are for a stream. */
static void open_video_codecs(void) {
#if defined(PJMEDIA_HAS_VIDEO) && PJMEDIA_HAS_VIDEO
    pj_pool_t *pool = fuzz_pool("video");
    if (pjmedia_video_format_mgr_create(pool, 64, 0, NULL) != PJ_SUCCESS) return;
    if (pjmedia_converter_mgr_create(pool, NULL) != PJ_SUCCESS) return;
    if (pjmedia_event_mgr_create(pool, 0, NULL) != PJ_SUCCESS) return;
    if (pjmedia_vid_codec_mgr_create(pool, NULL) != PJ_SUCCESS) return;
    (void)pjmedia_codec_openh264_vid_init(NULL, &fuzz_cp.factory);
    (void)pjmedia_codec_vpx_vid_init(NULL, &fuzz_cp.factory);
    (void)pjmedia_codec_ffmpeg_vid_init(NULL, &fuzz_cp.factory);
    pjmedia_vid_codec_info infos[MAX_CODECS];
    unsigned count = MAX_CODECS;
    if (pjmedia_vid_codec_mgr_enum_codecs(NULL, &count, infos, NULL) != PJ_SUCCESS) return;
    for (unsigned i = 0; i < count && video_codec_count < MAX_CODECS; ++i) {
        if ((infos[i].dir & PJMEDIA_DIR_DECODING) == 0) continue;
        pjmedia_vid_codec_param *param = &video_params[video_codec_count];
        if (infos[i].fps_cnt > 0 && infos[i].fps[0].denum != 0) {
            if (pjmedia_vid_codec_mgr_get_default_param(NULL, &infos[i], param) != PJ_SUCCESS) continue;
        } else {
            pj_bzero(param, sizeof(*param));
            param->packing = PJMEDIA_VID_PACKING_PACKETS;
            pjmedia_format_init_video(&param->enc_fmt, infos[i].fmt_id, 352, 288, 15, 1);
            pjmedia_format_init_video(&param->dec_fmt, PJMEDIA_FORMAT_I420, 352, 288, 15, 1);
            param->enc_mtu = PJMEDIA_MAX_VID_PAYLOAD_SIZE;
        }
        param->dir = PJMEDIA_DIR_DECODING;
        pjmedia_vid_codec *codec = NULL;
        if (pjmedia_vid_codec_mgr_alloc_codec(NULL, &infos[i], &codec) != PJ_SUCCESS) continue;
        if (pjmedia_vid_codec_init(codec, codec_pool) != PJ_SUCCESS || pjmedia_vid_codec_open(codec, param) != PJ_SUCCESS) {
            (void)pjmedia_vid_codec_mgr_dealloc_codec(NULL, codec);
            continue;
        }
        video_names[video_codec_count] = infos[i];
        video_codecs[video_codec_count++] = codec;
    }
#endif
}

/* One picture's packets to a video decoder, as the video stream hands them over. */
static void decode_video(unsigned which, const uint8_t *data, size_t size) {
    static const uint8_t separator[4] = { '|', 'P', 'K', '|' };
    enum { MAX_PACKETS = 16 };
    const uint8_t *starts[MAX_PACKETS];
    size_t sizes[MAX_PACKETS];
    unsigned count = 0;
    const uint8_t *p = data, *end = data + size;
    while (count < MAX_PACKETS) {
        const uint8_t *next = memmem(p, (size_t)(end - p), separator, sizeof(separator));
        starts[count] = p;
        sizes[count++] = (size_t)((next != NULL ? next : end) - p);
        if (next == NULL) break;
        p = next + sizeof(separator);
    }
    pjmedia_frame *packets = (pjmedia_frame *)calloc(count, sizeof(pjmedia_frame));
    if (packets == NULL) abort();
    for (unsigned i = 0; i < count; ++i) {
        packets[i].type = PJMEDIA_FRAME_TYPE_VIDEO;
        packets[i].buf = malloc(sizes[i] > 0 ? sizes[i] : 1);
        if (packets[i].buf == NULL) abort();
        memcpy(packets[i].buf, starts[i], sizes[i]);
        packets[i].size = sizes[i];
        packets[i].timestamp.u64 = 90000;
    }
    /* Room for a decoded picture of up to 1920x1080 in any of the formats decoders write. */
    unsigned out_size = 1920 * 1080 * 4;
    pjmedia_frame output;
    pj_bzero(&output, sizeof(output));
    output.type = PJMEDIA_FRAME_TYPE_VIDEO;
    output.buf = malloc(out_size);
    if (output.buf == NULL) abort();
    output.size = out_size;
    (void)pjmedia_vid_codec_decode(video_codecs[which], count, packets, out_size, &output);
    free(output.buf);
    for (unsigned i = 0; i < count; ++i) free(packets[i].buf);
    free(packets);
}

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
    open_video_codecs();
    if (getenv("FUZZ_LIST_CODECS") != NULL) {  /* which first byte picks which codec */
        for (unsigned i = 0; i < codec_count; ++i) {
            fprintf(stderr, "0x%02x %.*s/%u\n", i, (int)names[i].encoding_name.slen, names[i].encoding_name.ptr,
                    names[i].clock_rate);
        }
        for (unsigned i = 0; i < video_codec_count; ++i) {
            fprintf(stderr, "0x%02x %.*s (video)\n", 0x80 + i, (int)video_names[i].encoding_name.slen,
                    video_names[i].encoding_name.ptr);
        }
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2 || size > 1 + PJMEDIA_MAX_MTU * 4) return 0;
    if (data[0] >= 0x80) {
        if (video_codec_count > 0) decode_video((data[0] - 0x80u) % video_codec_count, data + 1, size - 1);
        fuzz_check_exception_chain();
        return 0;
    }
    if (size > 1 + PJMEDIA_MAX_MTU) return 0;
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
