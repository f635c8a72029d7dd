/*
 * swift-pjsua: PJSIP build settings of the iOS profile (PJPROJECT_PROFILE=ios).
 * Copied to pjlib/include/pj/config_site.h by scripts/install-pjproject.sh, which installs the
 * profile in a prefix of its own (/opt/pjproject-ios), never over the Linux build.
 *
 * Why: the first users run swift-pjsip 0.2.1's binary on iOS (pjproject master 288de6142, its
 * config_site.h = PJ_CONFIG_IPHONE 1 + config_site_sample.h + overrides), and no Apple toolchain
 * runs here. This profile builds the same pjproject source as the Linux build with that binary's
 * limits, codecs and switches, so the engine's defaults and limits are tested against them on
 * every `make test` (make test-ios-profile). Values read from swift-pjsip 0.2.1's repository
 * (shared/PJSIP-FACTS.md, "The iOS binary in detail").
 *
 * PJ_CONFIG_IPHONE itself cannot be set on Linux: it selects the CoreAudio backend and the
 * CoreAudio iLBC codec. Its settings are spelled out below instead, each marked with its source.
 *
 * What cannot be mirrored off Apple, and what stands in for it here:
 *   - TLS: Network.framework (PJ_SSL_SOCK_IMP_APPLE) -> OpenSSL (Debian's libssl). The Apple
 *     backend works only with the select ioqueue, which this profile uses too (below).
 *   - DTLS-SRTP: absent on iOS (pjproject turns it off with the Apple TLS backend) -> off here
 *     as well, although OpenSSL could do it. SDES-SRTP (libsrtp2) is on in both.
 *   - Audio device: CoreAudio (with its built-in echo canceller) -> ALSA, or pjsua's null device
 *     as the tests use. Speex AEC is off in both (PJ_CONFIG_IPHONE turns it off).
 *   - iLBC: the iOS binary's comes from CoreAudio (PJMEDIA_ILBC_CODEC_USE_COREAUDIO); pjproject's
 *     own iLBC source is removed from Debian's DFSG tree and Debian packages no replacement, so
 *     this profile has NO iLBC (the one codec it lacks; KL-36). G.729 (bcg729) is the profile's
 *     narrowband codec that pjmedia would otherwise rank as the iOS binary ranks iLBC.
 *   - Video: VideoToolbox H.264 -> OpenH264 (H.264 only: VP8/VP9 and FFmpeg's codecs are off,
 *     as the iOS binary has no other video codec); AVFoundation capture -> the colour-bar
 *     generator and V4L2; the Metal/UIView renderer -> SDL.
 *   - Resampler: pjproject's bundled libresample (not in the DFSG tree) -> libsamplerate, as in
 *     the Linux build; PJSUA_DEFAULT_CODEC_QUALITY 4 asks both for a small filter.
 */

/* --- PJ_CONFIG_IPHONE (config_site_sample.h), the parts that apply off Apple --- */
#define PJ_HAS_FLOATING_POINT            1
#define PJMEDIA_HAS_SPEEX_AEC            0    /* CoreAudio cancels echo on iOS */
#define PJMEDIA_HAS_L16_CODEC            0
#define PJSUA_DEFAULT_CODEC_QUALITY      4    /* small resampler filter (pjproject default: 8) */
#define PJSIP_MAX_TSX_COUNT              31   /* pjproject default: 1024*16-1 */
#define PJSIP_MAX_DIALOG_COUNT           31   /* pjproject default: 1024*16-1 */
#define PJSUA_MAX_PLAYERS                4    /* pjproject default: 32 */
#define PJSUA_MAX_RECORDERS              4    /* pjproject default: 32 */
#define PJSUA_MAX_BUDDIES                32   /* pjproject default: 256 */

/* --- swift-pjsip 0.2.1's overrides of the preset --- */
#define PJSUA_MAX_CALLS                  8    /* preset: 4 */
#define PJSUA_MAX_ACC                    8    /* preset: 4 */
#define PJSUA_MAX_CONF_PORTS             254  /* preset: PJSUA_MAX_CALLS + 2 * PJSUA_MAX_PLAYERS */
#define PJSIP_MAX_PKT_LEN                16000 /* pjproject default: 4000 (Linux has 16000 too) */
#define PJMEDIA_RTP_PT_TELEPHONE_EVENTS  101  /* pjproject default: 120 */
#define PJMEDIA_SRTP_HAS_DTLS            0    /* absent with the Apple TLS backend */
#define PJMEDIA_HAS_VIDEO                1    /* VideoToolbox there; OpenH264 here */

/* --- the ioqueue: select (pjproject's default off Linux's --enable-epoll), 64 handles --- */
/* pjproject's default PJ_IOQUEUE_MAX_HANDLES is 64 and the iOS binary keeps it; stated so that
 * the Linux build's 2048 can never leak in. Closed keys linger 500 ms before reuse (KL-25). */
#define PJ_IOQUEUE_MAX_HANDLES           64

/* --- codecs: exactly PCMU, PCMA, G.722, G.729 (bcg729); iLBC cannot be built here (above) ---
 * configure turns Opus, GSM, Speex, L16, G.722.1 and iLBC off; these keep them off whatever
 * configure finds. */
#define PJMEDIA_HAS_OPUS_CODEC           0
#define PJMEDIA_HAS_GSM_CODEC            0
#define PJMEDIA_HAS_SPEEX_CODEC          0
#define PJMEDIA_HAS_G7221_CODEC          0
#define PJMEDIA_HAS_ILBC_CODEC           0
#define PJMEDIA_HAS_G722_CODEC           1
#define PJMEDIA_HAS_BCG729               1
#define PJMEDIA_HAS_FFMPEG_VID_CODEC     0    /* H.264 only, as VideoToolbox */
