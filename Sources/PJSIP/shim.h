#ifndef SWIFT_PJSUA_PJSIP_SHIM_H
#define SWIFT_PJSUA_PJSIP_SHIM_H

/* The Linux `PJSIP` module: pjproject's C API as installed by scripts/install-pjproject.sh. On iOS
 * the module of the same name comes from swift-pjsip and is, like this one, PJ_AUTOCONF plus
 * pjsua. What Swift cannot import from these headers (arithmetic macros, limits, threads) lives
 * in the CPJSUASupport target, which is built on both platforms.
 *
 * libpjproject.pc passes these as -D flags, which SwiftPM refuses for system libraries; the
 * install script writes swift-pjsua-pjproject.pc without them and they are defined here. The
 * headers need them to select the autoconf configuration the library was built with. */
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

#endif
