/* The video stream of the vid_send_* probes (each includes this; a probe is one program): pjlib
 * and pjmedia with one media worker, the first video codec the build has (VP8, then H.264, then
 * any), and an encoding stream to 127.0.0.1 over a loop transport with the default rate control
 * (the send manager's thread, as pjsua's), started, with its encoding port in `enc_port`.
 * `receives`: whether the loop transport also receives. NULL, having said why, when it cannot be
 * made or started. Stdout unbuffered (each line out before any exit), SDL without a display. */
#ifndef VID_SEND_STREAM_H
#define VID_SEND_STREAM_H

#include <pjlib.h>
#include <pjlib-util.h>
#include <pjmedia.h>
#include <pjmedia-codec.h>
#include <stdio.h>
#include <stdlib.h>

static pjmedia_vid_stream *probe_send_stream(pj_bool_t receives, pjmedia_port **enc_port)
{
    static pj_caching_pool cp;
    pj_pool_t *pool;
    pjmedia_endpt *endpt;
    pjmedia_vid_codec_info codec_info;
    pjmedia_vid_codec_param codec_param;
    pjmedia_vid_stream_info info;
    pjmedia_transport *tp;
    pjmedia_vid_stream *stream;
    pjmedia_loop_tp_setting loop_cfg;
    const char *ids[] = { "VP8", "H264", NULL };
    pj_str_t addr = pj_str("127.0.0.1");
    unsigned count;
    int i, found = 0;

    setvbuf(stdout, NULL, _IONBF, 0);
    setenv("SDL_VIDEODRIVER", "dummy", 1);
    setenv("SDL_NO_SIGNAL_HANDLERS", "1", 1);
    if (pj_init() != PJ_SUCCESS || pjlib_util_init() != PJ_SUCCESS) return NULL;
    pj_log_set_level(1);
    pj_caching_pool_init(&cp, NULL, 0);
    pool = pj_pool_create(&cp.factory, "probe", 4000, 4000, NULL);
    if (pjmedia_endpt_create(&cp.factory, NULL, 1, &endpt) != PJ_SUCCESS) return NULL;
    pjmedia_video_format_mgr_create(pool, 64, 0, NULL);
    pjmedia_converter_mgr_create(pool, NULL);
    pjmedia_event_mgr_create(pool, 0, NULL);
    pjmedia_vid_codec_mgr_create(pool, NULL);
    /* Whichever of these the build has (each fails harmlessly without its library). */
    pjmedia_codec_vpx_vid_init(NULL, &cp.factory);
    pjmedia_codec_openh264_vid_init(NULL, &cp.factory);
    pjmedia_codec_ffmpeg_vid_init(NULL, &cp.factory);
    for (i = 0; ids[i] && !found; ++i) {
        const pjmedia_vid_codec_info *ci;
        pj_str_t id = pj_str((char *)ids[i]);
        count = 1;
        if (pjmedia_vid_codec_mgr_find_codecs_by_id(NULL, &id, &count, &ci, NULL) == PJ_SUCCESS &&
            count > 0) {
            codec_info = *ci;
            found = 1;
        }
    }
    if (!found) {
        pjmedia_vid_codec_info all[1];
        count = 1;
        if (pjmedia_vid_codec_mgr_enum_codecs(NULL, &count, all, NULL) != PJ_SUCCESS || count == 0) {
            printf("setup: no video codec\n");
            return NULL;
        }
        codec_info = all[0];
    }
    if (pjmedia_vid_codec_mgr_get_default_param(NULL, &codec_info, &codec_param) != PJ_SUCCESS)
        return NULL;

    pj_bzero(&info, sizeof(info));
    info.type = PJMEDIA_TYPE_VIDEO;
    info.proto = PJMEDIA_TP_PROTO_RTP_AVP;
    info.dir = PJMEDIA_DIR_ENCODING;
    info.codec_info = codec_info;
    info.codec_param = &codec_param;
    info.tx_pt = info.rx_pt = (pj_uint8_t)codec_info.pt;
    info.ssrc = 0x1234;
    pj_sockaddr_in_init(&info.rem_addr.ipv4, &addr, 40000);
    pj_sockaddr_in_init(&info.rem_rtcp.ipv4, &addr, 40001);
    pjmedia_vid_stream_rc_config_default(&info.rc_cfg);   /* RC_SEND_THREAD, as pjsua's default */
    pjmedia_vid_stream_sk_config_default(&info.sk_cfg);

    pjmedia_loop_tp_setting_default(&loop_cfg);
    if (!receives)
        loop_cfg.disable_rx = PJ_TRUE;          /* a probe of the send side only */
    if (pjmedia_transport_loop_create2(endpt, &loop_cfg, &tp) != PJ_SUCCESS) {
        printf("setup: loop transport\n");
        return NULL;
    }
    if (pjmedia_vid_stream_create(endpt, pool, &info, tp, NULL, &stream) != PJ_SUCCESS) {
        printf("setup: stream create\n");
        return NULL;
    }
    if (pjmedia_vid_stream_start(stream) != PJ_SUCCESS ||
        pjmedia_vid_stream_get_port(stream, PJMEDIA_DIR_ENCODING, enc_port) != PJ_SUCCESS) {
        printf("setup: stream start\n");
        return NULL;
    }
    return stream;
}

#endif
