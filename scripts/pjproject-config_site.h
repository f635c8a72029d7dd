/*
 * swift-pjsua: PJSIP build limits for Linux (server-side and desktop load).
 * Copied to pjlib/include/pj/config_site.h by scripts/install-pjproject.sh.
 * Swift code reads these limits from the C headers; it never hard-codes them.
 */
#define PJSUA_MAX_CALLS          128   /* pjproject default: 4 */
#define PJSUA_MAX_ACC            32    /* pjproject default: 4 */
#define PJSUA_MAX_CONF_PORTS     512   /* pjproject default: 254 */
#define PJSUA_MAX_PLAYERS        64
#define PJSUA_MAX_RECORDERS      64
/* Closed ioqueue keys linger before reuse, so size for call rate, not only concurrency. */
#define PJ_IOQUEUE_MAX_HANDLES   2048
/* Video on, as in the iOS binary (swift-pjsip): the engine keeps calls audio-only with its call
 * settings (vid_cnt 0) unless video is asked for, and the tests check that on this build. */
#define PJMEDIA_HAS_VIDEO        1
/* DTLS-SRTP (RFC 5764) next to SDES: keys agreed on the media path, none in the SDP. OpenSSL is
 * in the build already (TLS). */
#define PJMEDIA_SRTP_HAS_DTLS    1
