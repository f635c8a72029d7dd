#ifndef SWIFT_PJSUA_PJSIP_SHIM_H
#define SWIFT_PJSUA_PJSIP_SHIM_H

/* libpjproject.pc passes these as -D flags, which SwiftPM drops for system libraries
 * ("prohibited flags"); the headers need them to select the autoconf configuration that the
 * library was built with. */
#ifndef PJ_AUTOCONF
#  define PJ_AUTOCONF 1
#endif
#if !defined(PJ_IS_LITTLE_ENDIAN) && !defined(PJ_IS_BIG_ENDIAN)
#  if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#    define PJ_IS_BIG_ENDIAN 1
#    define PJ_IS_LITTLE_ENDIAN 0
#  else
#    define PJ_IS_BIG_ENDIAN 0
#    define PJ_IS_LITTLE_ENDIAN 1
#  endif
#endif

/* The C API of pjsua1 (and everything it includes: pjsip, pjmedia, pjnath, pjlib). */
#include <pjsua-lib/pjsua.h>

/* Status codes that pjproject defines as arithmetic macros, which Swift cannot import. */
enum {
    SWIFTPJSUA_EINVALIDURI = PJSIP_EINVALIDURI,
    SWIFTPJSUA_EINVALIDREQURI = PJSIP_EINVALIDREQURI,
    SWIFTPJSUA_EINVALIDSCHEME = PJSIP_EINVALIDSCHEME,
    SWIFTPJSUA_EAUD_NODEFDEV = PJMEDIA_EAUD_NODEFDEV,
    SWIFTPJSUA_EAUD_INVDEV = PJMEDIA_EAUD_INVDEV,
    SWIFTPJSUA_EAUD_SYSERR = PJMEDIA_EAUD_SYSERR,
    SWIFTPJSUA_EAUD_INIT = PJMEDIA_EAUD_INIT,
    SWIFTPJSUA_EAUD_NODEV = PJMEDIA_EAUD_NODEV,
    SWIFTPJSUA_ETOOMANY = PJ_ETOOMANY,
    SWIFTPJSUA_ETIMEDOUT = PJ_ETIMEDOUT,
    SWIFTPJSUA_ENOTFOUND = PJ_ENOTFOUND,
    SWIFTPJSUA_EBUSY = PJ_EBUSY,
    SWIFTPJSUA_SIP_EBUSY = PJSIP_EBUSY,
    SWIFTPJSUA_EINVAL = PJ_EINVAL,
    SWIFTPJSUA_SND_DEFAULT_CAPTURE_DEV = PJSUA_SND_DEFAULT_CAPTURE_DEV,
    SWIFTPJSUA_SND_DEFAULT_PLAYBACK_DEV = PJSUA_SND_DEFAULT_PLAYBACK_DEV,
    SWIFTPJSUA_MAX_CALLS = PJSUA_MAX_CALLS,
    SWIFTPJSUA_MAX_ACC = PJSUA_MAX_ACC,
    SWIFTPJSUA_MAX_CONF_PORTS = PJSUA_MAX_CONF_PORTS,
};

#endif
