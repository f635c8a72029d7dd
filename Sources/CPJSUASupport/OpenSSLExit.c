/* See include/CPJSUASupport.h, cpjsua_openssl_keep_at_exit (KL-44). */
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include "CPJSUASupport.h"

#if __has_include(<openssl/crypto.h>)
#  include <openssl/crypto.h>
#  define CPJSUA_OPENSSL_INIT_NO_ATEXIT OPENSSL_INIT_NO_ATEXIT
#else
/* OpenSSL 1.1.1 and 3.x's value, for a build without OpenSSL's headers (a libcrypto may still be
 * loaded by PJSIP's libraries). */
#  define CPJSUA_OPENSSL_INIT_NO_ATEXIT 0x00080000L
#endif

int cpjsua_openssl_keep_at_exit(void)
{
    /* Looked up, not linked: PJSIP brings libcrypto in on Linux (its SSL socket and DTLS-SRTP),
     * the iOS binary has none, and the engine must not need it to link. */
    typedef int (*init_crypto_fn)(uint64_t opts, const void *settings);
    init_crypto_fn init_crypto = (init_crypto_fn)dlsym(RTLD_DEFAULT, "OPENSSL_init_crypto");
    if (init_crypto == NULL)
        return 0;
    return init_crypto((uint64_t)CPJSUA_OPENSSL_INIT_NO_ATEXIT, NULL) == 1 ? 1 : -1;
}
