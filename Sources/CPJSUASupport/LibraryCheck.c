/*
 * What the engine was compiled against, and what the loaded pjproject library is: a binary
 * built with other settings (swift-pjsip 0.2.0 was withdrawn for exactly this: Swift saw the
 * iPhone preset's limits against a binary built with larger ones) passes structs of the wrong
 * size across every call, and corrupts memory rather than failing.
 *
 * What can be checked from outside the library:
 * - the version: pj_get_version() returns the string compiled into libpj, against the version
 *   macros of the headers here (PJ_VERSION itself is a variable in libpj, so the header string
 *   is rebuilt from PJ_VERSION_NUM_* the way pjlib's config.c builds it);
 * - the size of a struct that a library function clears whole: pjsua_config_default,
 *   pjsua_acc_config_default and pjsua_media_config_default (pjsua_core.c) and
 *   pjsua_conf_get_port_info (pjsua_aud.c) begin with pj_bzero(cfg, sizeof(*cfg)), with the
 *   library's sizeof. Run on a buffer far larger than the header's struct, filled with a
 *   pattern, the last byte that no longer holds the pattern is the library's last byte (two
 *   patterns, so a field that happens to end in one of them is still seen).
 * What cannot: structs the library fills only in part (pjsua_call_info, whose text buffers are
 * written only as far as the text goes) and fields that moved without a change of size.
 */
#ifndef PJ_AUTOCONF
#  define PJ_AUTOCONF 1
#endif
#include <pjsua.h>
#include <stdlib.h>
#include <string.h>
#include "CPJSUASupport.h"

#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)

/* Room past the header's size: a library struct larger than the header's by more than this
 * would overrun the probe; the largest difference seen (pjsua_conf_port_info between two
 * PJSUA_MAX_CONF_PORTS settings) is about 1 KiB. */
#define PROBE_MARGIN 65536

const char *cpjsua_header_version(void)
{
#if PJ_VERSION_NUM_REV
    return STRINGIFY(PJ_VERSION_NUM_MAJOR) "." STRINGIFY(PJ_VERSION_NUM_MINOR) "."
           STRINGIFY(PJ_VERSION_NUM_REV) PJ_VERSION_NUM_EXTRA;
#else
    return STRINGIFY(PJ_VERSION_NUM_MAJOR) "." STRINGIFY(PJ_VERSION_NUM_MINOR) PJ_VERSION_NUM_EXTRA;
#endif
}

const char *cpjsua_library_version(void)
{
    return pj_get_version();
}

/* The bytes `fill` writes into a buffer of `header_size` + PROBE_MARGIN; 0 when it fails. */
static size_t written_extent(size_t header_size, pj_status_t (*fill)(void *buffer))
{
    static const unsigned char patterns[2] = { 0xA5, 0x5A };
    size_t capacity = header_size + PROBE_MARGIN, extent = 0;
    unsigned char *buffer = malloc(capacity);
    if (!buffer)
        return 0;
    for (int i = 0; i < 2; ++i) {
        memset(buffer, patterns[i], capacity);
        if (fill(buffer) != PJ_SUCCESS) {
            extent = 0;
            break;
        }
        size_t end = capacity;
        while (end > 0 && buffer[end - 1] == patterns[i])
            --end;
        if (end > extent)
            extent = end;
    }
    free(buffer);
    return extent;
}

static pj_status_t fill_config(void *buffer) { pjsua_config_default(buffer); return PJ_SUCCESS; }
static pj_status_t fill_acc_config(void *buffer) { pjsua_acc_config_default(buffer); return PJ_SUCCESS; }
static pj_status_t fill_media_config(void *buffer) { pjsua_media_config_default(buffer); return PJ_SUCCESS; }
static pj_status_t fill_conf_port_info(void *buffer) { return pjsua_conf_get_port_info(0, buffer); }

cpjsua_struct_size cpjsua_struct_size_of(cpjsua_struct which)
{
    cpjsua_struct_size size = { 0, 0 };
    switch (which) {
    case CPJSUA_STRUCT_CONFIG:
        size.header = sizeof(pjsua_config);
        size.library = written_extent(size.header, fill_config);
        break;
    case CPJSUA_STRUCT_ACC_CONFIG:
        size.header = sizeof(pjsua_acc_config);
        size.library = written_extent(size.header, fill_acc_config);
        break;
    case CPJSUA_STRUCT_MEDIA_CONFIG:
        size.header = sizeof(pjsua_media_config);
        size.library = written_extent(size.header, fill_media_config);
        break;
    case CPJSUA_STRUCT_CONF_PORT_INFO:
        size.header = sizeof(pjsua_conf_port_info);
        size.library = written_extent(size.header, fill_conf_port_info);
        break;
    }
    return size;
}
