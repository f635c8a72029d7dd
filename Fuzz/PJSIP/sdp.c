/*
 * sdp: a remote SDP, as an INVITE, a re-INVITE, an UPDATE or an answer brings it, against our own
 * offer (the codecs this engine offers: opus, G.722, PCMU, PCMA, telephone-event, and H.264/VP8
 * video), with SDES-SRTP optional as `softphone answer --srtp optional` runs it.
 *
 * Per input (an SDP; a NUL byte, when there is one, ends it and starts a second SDP for a
 * re-offer):
 *  - pjmedia_sdp_parse, the result printed tight, cloned and compared, its attributes decoded
 *    (rtpmap, fmtp, rtcp, ssrc);
 *  - pjmedia_sdp_validate2 as pjsip_inv checks an incoming SDP; an invalid one is where pjsip
 *    answers 400, and stops here;
 *  - answerer: the SRTP transport (SDES) creates its media for the remote offer and writes its
 *    answer's a=crypto (transport_srtp_sdes.c sdes_encode_sdp: SEC-2's tags[64]), the negotiator
 *    answers from our offer, the stream infos (audio, video, text) are derived from the result
 *    as pjsua does before it creates the streams, the SRTP transport starts and stops; then the
 *    second SDP (or the same again) comes as a re-offer on the same negotiator;
 *  - offerer: our offer with its a=crypto lines, the input as the answer, negotiated, the stream
 *    infos, SRTP started and stopped.
 * Video fmtp parameters go through the H.264 and VPX fmtp parsers (this build has no H.263's), and H.264 answers
 * through pjmedia_vid_codec_h264_match_sdp (registered as the negotiator's H.264 matcher, as a
 * video build registers it).
 */
#include <pjmedia.h>
#include <pjmedia-codec.h>
#include <pjmedia-codec/openh264.h>
#include <pjmedia-codec/vpx.h>
#include <pjmedia/vid_codec_util.h>
#include "common.h"

static pjmedia_endpt *media_endpoint;
static pjmedia_transport *srtp_transport;  /* made per input: see create_srtp */
static pjmedia_srtp_setting srtp_setting;
static pjmedia_sdp_session *our_offer;
static pj_pool_t *offer_pool;
static int have_video_codecs;

/* Close to the offer the engine sends (pjsua's, with the engine's codec priorities): audio
 * with opus first, video with H.264 and VP8. */
static const char offer_text[] =
    "v=0\r\n"
    "o=- 3917000000 3917000000 IN IP4 127.0.0.1\r\n"
    "s=pjmedia\r\n"
    "b=AS:84\r\n"
    "t=0 0\r\n"
    "a=X-nat:0\r\n"
    "m=audio 4000 RTP/AVP 96 9 0 8 120 121\r\n"
    "c=IN IP4 127.0.0.1\r\n"
    "b=TIAS:64000\r\n"
    "a=rtcp:4001 IN IP4 127.0.0.1\r\n"
    "a=sendrecv\r\n"
    "a=rtpmap:96 opus/48000/2\r\n"
    "a=fmtp:96 useinbandfec=1\r\n"
    "a=rtpmap:9 G722/8000\r\n"
    "a=rtpmap:0 PCMU/8000\r\n"
    "a=rtpmap:8 PCMA/8000\r\n"
    "a=rtpmap:120 telephone-event/48000\r\n"
    "a=fmtp:120 0-16\r\n"
    "a=rtpmap:121 telephone-event/8000\r\n"
    "a=fmtp:121 0-16\r\n"
    "a=ssrc:123456789 cname:fuzz\r\n"
    "m=video 4002 RTP/AVP 97 98\r\n"
    "c=IN IP4 127.0.0.1\r\n"
    "b=TIAS:256000\r\n"
    "a=rtcp:4003 IN IP4 127.0.0.1\r\n"
    "a=sendrecv\r\n"
    "a=rtpmap:97 H264/90000\r\n"
    "a=fmtp:97 profile-level-id=42e01e; packetization-mode=1\r\n"
    "a=rtpmap:98 VP8/90000\r\n"
    "a=fmtp:98 max-fr=30; max-fs=580\r\n"
    "a=rtcp-fb:* nack pli\r\n";

static void init_video(void) {
    pj_pool_t *pool = fuzz_pool("video");
    if (pjmedia_video_format_mgr_create(pool, 64, 0, NULL) != PJ_SUCCESS) return;
    if (pjmedia_converter_mgr_create(pool, NULL) != PJ_SUCCESS) return;
    if (pjmedia_event_mgr_create(pool, 0, NULL) != PJ_SUCCESS) return;
    if (pjmedia_vid_codec_mgr_create(pool, NULL) != PJ_SUCCESS) return;
    /* The build's own video codecs, as pjsua registers them (the installed headers do not say
     * which the library has: PJMEDIA_HAS_*_CODEC are decided in its build, so each is asked). */
    int registered = 0;
    registered |= pjmedia_codec_openh264_vid_init(NULL, &fuzz_cp.factory) == PJ_SUCCESS;
    registered |= pjmedia_codec_vpx_vid_init(NULL, &fuzz_cp.factory) == PJ_SUCCESS;
    have_video_codecs = registered;
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    fuzz_pj_init();
    if (pjmedia_endpt_create(&fuzz_cp.factory, NULL, 0, &media_endpoint) != PJ_SUCCESS) abort();
    if (pjmedia_codec_register_audio_codecs(media_endpoint, NULL) != PJ_SUCCESS) abort();
    init_video();
    static const pj_str_t h264 = { "H264", 4 };
    (void)pjmedia_sdp_neg_register_fmt_match_cb(&h264, &pjmedia_vid_codec_h264_match_sdp);

    /* SRTP over a loop transport: no socket, nothing sent anywhere. SDES only, as DTLS would
     * make a certificate. */
    pjmedia_srtp_setting_default(&srtp_setting);
    srtp_setting.use = PJMEDIA_SRTP_OPTIONAL;
    srtp_setting.close_member_tp = PJ_TRUE;
    srtp_setting.keying_count = 1;
    srtp_setting.keying[0] = PJMEDIA_SRTP_KEYING_SDES;
    /* libsrtp's one-time start-up here, not in the first input: Debian's libsrtp2 loads NSS
     * (NSS_InitContext, SECMOD_LoadModule), which took over libFuzzer's 10 s per-input timeout on
     * a busy machine and was reported as a timeout of whatever input came first. */
    if (pjmedia_srtp_init_lib(media_endpoint) != PJ_SUCCESS) abort();

    offer_pool = fuzz_pool("offer");
    char *text = fuzz_cstring((const uint8_t *)offer_text, sizeof(offer_text) - 1);
    if (pjmedia_sdp_parse(offer_pool, text, sizeof(offer_text) - 1, &our_offer) != PJ_SUCCESS) abort();
    if (pjmedia_sdp_validate(our_offer) != PJ_SUCCESS) abort();
    pj_log_set_level(0);
    return 0;
}

static int print_sdp(const void *sdp, char *buf, pj_size_t size) {
    return pjmedia_sdp_print((const pjmedia_sdp_session *)sdp, buf, size);
}

static void decode_attributes(pj_pool_t *pool, const pjmedia_sdp_session *sdp) {
    for (unsigned i = 0; i < sdp->media_count; ++i) {
        const pjmedia_sdp_media *m = sdp->media[i];
        for (unsigned a = 0; a < m->attr_count; ++a) {
            const pjmedia_sdp_attr *attr = m->attr[a];
            if (pj_strcmp2(&attr->name, "rtpmap") == 0) {
                pjmedia_sdp_rtpmap rtpmap;
                (void)pjmedia_sdp_attr_get_rtpmap(attr, &rtpmap);
            } else if (pj_strcmp2(&attr->name, "fmtp") == 0) {
                pjmedia_sdp_fmtp fmtp;
                (void)pjmedia_sdp_attr_get_fmtp(attr, &fmtp);
            } else if (pj_strcmp2(&attr->name, "rtcp") == 0) {
                pjmedia_sdp_rtcp_attr rtcp;
                (void)pjmedia_sdp_attr_get_rtcp(attr, &rtcp);
            } else if (pj_strcmp2(&attr->name, "ssrc") == 0) {
                pjmedia_sdp_ssrc_attr ssrc;
                (void)pjmedia_sdp_attr_get_ssrc(attr, &ssrc);
            }
        }
        for (unsigned f = 0; f < m->desc.fmt_count && f < 32; ++f) {
            const pjmedia_sdp_attr *map = pjmedia_sdp_media_find_attr2(m, "rtpmap", &m->desc.fmt[f]);
            pjmedia_sdp_rtpmap *rtpmap = NULL;
            if (map != NULL) (void)pjmedia_sdp_attr_to_rtpmap(pool, map, &rtpmap);
            unsigned pt = (unsigned)pj_strtoul(&m->desc.fmt[f]);
            pjmedia_codec_fmtp fmtp;
            if (pt > 127 || pjmedia_stream_info_parse_fmtp(pool, m, pt, &fmtp) != PJ_SUCCESS) continue;
            if (rtpmap == NULL || pj_stricmp2(&m->desc.media, "video") != 0) continue;
            if (pj_stricmp2(&rtpmap->enc_name, "H264") == 0) {
                pjmedia_vid_codec_h264_fmtp h264;
                (void)pjmedia_vid_codec_h264_parse_fmtp(&fmtp, &h264);
            } else if (pj_stricmp2(&rtpmap->enc_name, "VP8") == 0 || pj_stricmp2(&rtpmap->enc_name, "VP9") == 0) {
                pjmedia_vid_codec_vpx_fmtp vpx;
                (void)pjmedia_vid_codec_vpx_parse_fmtp(&fmtp, &vpx);
            }
        }
    }
}

/* What pjsua derives from a negotiated pair before it creates the streams. */
static void stream_infos(pj_pool_t *pool, const pjmedia_sdp_session *local, const pjmedia_sdp_session *remote) {
    unsigned count = local->media_count < remote->media_count ? local->media_count : remote->media_count;
    for (unsigned i = 0; i < count; ++i) {
        if (local->media[i]->desc.port == 0 || remote->media[i]->desc.port == 0) continue;
        const pj_str_t *type = &local->media[i]->desc.media;
        if (pj_stricmp2(type, "audio") == 0) {
            pjmedia_stream_info info;
            (void)pjmedia_stream_info_from_sdp(&info, pool, media_endpoint, local, remote, i);
        } else if (pj_stricmp2(type, "video") == 0 && have_video_codecs) {
            pjmedia_vid_stream_info info;
            (void)pjmedia_vid_stream_info_from_sdp(&info, pool, media_endpoint, local, remote, i);
        } else if (pj_stricmp2(type, "text") == 0) {
            pjmedia_txt_stream_info info;
            (void)pjmedia_txt_stream_info_from_sdp(&info, pool, media_endpoint, local, remote, i);
        }
    }
}

static void negotiated(pj_pool_t *pool, pjmedia_sdp_neg *neg, int srtp_ready) {
    const pjmedia_sdp_session *local = NULL, *remote = NULL;
    if (pjmedia_sdp_neg_get_active_local(neg, &local) != PJ_SUCCESS ||
        pjmedia_sdp_neg_get_active_remote(neg, &remote) != PJ_SUCCESS) {
        return;
    }
    fuzz_print_tight(print_sdp, local, 16384, 4, 4);
    stream_infos(pool, local, remote);
    if (srtp_ready && local->media_count > 0 && remote->media_count > 0) {
        (void)pjmedia_transport_media_start(srtp_transport, pool, local, remote, 0);
    }
}

/* Our answer's SDP for `remote`: our offer, with SRTP's answer to the remote's a=crypto lines
 * when its media creation accepts the offer (pjsua builds its answer this way). */
static pjmedia_sdp_session *local_answer(pj_pool_t *pool, pjmedia_sdp_session *remote, int *srtp_ready) {
    pjmedia_sdp_session *local = pjmedia_sdp_session_clone(pool, our_offer);
    *srtp_ready = 0;
    if (remote->media_count > 0 &&
        pjmedia_transport_media_create(srtp_transport, pool, 0, remote, 0) == PJ_SUCCESS) {
        *srtp_ready = pjmedia_transport_encode_sdp(srtp_transport, pool, local, remote, 0) == PJ_SUCCESS;
        if (!*srtp_ready) (void)pjmedia_transport_media_stop(srtp_transport);
    }
    return local;
}

/* As the answerer: an INVITE (or UPDATE) with an offer, then a re-offer in the same session
 * (pjsip_inv sets it as the remote offer, pjsua gives a fresh local answer). */
static void answer(pj_pool_t *pool, pjmedia_sdp_session *remote, pjmedia_sdp_session *reoffer, unsigned flags) {
    int srtp_ready = 0;
    pjmedia_sdp_session *local = local_answer(pool, remote, &srtp_ready);
    pjmedia_sdp_neg *neg = NULL;
    if (pjmedia_sdp_neg_create_w_remote_offer(pool, local, remote, &neg) == PJ_SUCCESS) {
        (void)pjmedia_sdp_neg_set_prefer_remote_codec_order(neg, (flags & 1) != 0);
        (void)pjmedia_sdp_neg_set_answer_multiple_codecs(neg, (flags & 2) != 0);
        if (pjmedia_sdp_neg_negotiate(pool, neg, 0) == PJ_SUCCESS) {
            negotiated(pool, neg, srtp_ready);
            if (srtp_ready) (void)pjmedia_transport_media_stop(srtp_transport);
            if (pjmedia_sdp_neg_get_state(neg) == PJMEDIA_SDP_NEG_STATE_DONE &&
                pjmedia_sdp_neg_set_remote_offer(pool, neg, reoffer) == PJ_SUCCESS) {
                pjmedia_sdp_session *local2 = local_answer(pool, reoffer, &srtp_ready);
                if (pjmedia_sdp_neg_set_local_answer(pool, neg, local2) == PJ_SUCCESS &&
                    pjmedia_sdp_neg_negotiate(pool, neg, 0) == PJ_SUCCESS) {
                    negotiated(pool, neg, srtp_ready);
                }
            }
        }
    }
    if (srtp_ready) (void)pjmedia_transport_media_stop(srtp_transport);
}

/* As the offerer: our INVITE's offer, the input as the answer. */
static void offer(pj_pool_t *pool, pjmedia_sdp_session *remote) {
    pjmedia_sdp_session *local = pjmedia_sdp_session_clone(pool, our_offer);
    int srtp_ready = 0;
    if (pjmedia_transport_media_create(srtp_transport, pool, 0, NULL, 0) == PJ_SUCCESS) {
        srtp_ready = pjmedia_transport_encode_sdp(srtp_transport, pool, local, NULL, 0) == PJ_SUCCESS;
        if (!srtp_ready) (void)pjmedia_transport_media_stop(srtp_transport);
    }
    pjmedia_sdp_neg *neg = NULL;
    if (pjmedia_sdp_neg_create_w_local_offer(pool, local, &neg) == PJ_SUCCESS &&
        pjmedia_sdp_neg_set_remote_answer(pool, neg, remote) == PJ_SUCCESS &&
        pjmedia_sdp_neg_negotiate(pool, neg, PJ_TRUE) == PJ_SUCCESS) {
        negotiated(pool, neg, srtp_ready);
    }
    if (srtp_ready) (void)pjmedia_transport_media_stop(srtp_transport);
}

static pjmedia_sdp_session *parse(pj_pool_t *pool, const uint8_t *data, size_t size) {
    char *text = (char *)pj_pool_alloc(pool, size + 1);
    if (size > 0) memcpy(text, data, size);
    text[size] = '\0';
    pjmedia_sdp_session *sdp = NULL;
    if (pjmedia_sdp_parse(pool, text, size, &sdp) != PJ_SUCCESS) return NULL;
    return sdp;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) return 0;
    /* A fresh SRTP transport and member per input, closed together as pjsua closes a call's:
     * the SRTP transport lives as long as its member's group lock, and its pool grows with every
     * SDES negotiation (fixed upstream after 2.17, #5203), so a pair kept for the whole run would
     * grow without end and make every input look like a leak. */
    pjmedia_transport *member = NULL;
    if (pjmedia_transport_loop_create(media_endpoint, &member) != PJ_SUCCESS ||
        pjmedia_transport_srtp_create(media_endpoint, member, &srtp_setting, &srtp_transport) != PJ_SUCCESS) {
        abort();
    }
    const uint8_t *split = memchr(data, '\0', size);
    size_t first = split != NULL ? (size_t)(split - data) : size;

    pj_pool_t *pool = fuzz_pool("sdp");
    pjmedia_sdp_session *remote = parse(pool, data, first);
    if (remote != NULL) {
        fuzz_print_tight(print_sdp, remote, 65536, 4, 16);
        pjmedia_sdp_session *copy = pjmedia_sdp_session_clone(pool, remote);
        if (copy != NULL) (void)pjmedia_sdp_session_cmp(remote, copy, 0);
        decode_attributes(pool, remote);

        if (pjmedia_sdp_validate2(remote, PJ_FALSE) == PJ_SUCCESS) {
            pjmedia_sdp_session *reoffer = NULL;
            if (split != NULL) {
                reoffer = parse(pool, split + 1, size - first - 1);
                if (reoffer != NULL && pjmedia_sdp_validate2(reoffer, PJ_FALSE) != PJ_SUCCESS) reoffer = NULL;
            }
            if (reoffer == NULL) reoffer = pjmedia_sdp_session_clone(pool, remote);
            answer(pool, pjmedia_sdp_session_clone(pool, remote), reoffer, (unsigned)size);
            offer(pool, pjmedia_sdp_session_clone(pool, remote));
        }
    }
    pj_pool_release(pool);
    (void)pjmedia_transport_close(srtp_transport);
    srtp_transport = NULL;
    fuzz_check_exception_chain();
    return 0;
}
