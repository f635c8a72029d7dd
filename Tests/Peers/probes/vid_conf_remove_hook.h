/* A hook on the removal of a video conference slot, for the video window probes
 * (vid_capture_window.c, vid_win_op_teardown.c): the first step of free_vid_win's teardown of a
 * window, which it runs with PJSUA_LOCK let go.
 *
 * This file defines pjsua_vid_conf_remove_port and pjmedia_vid_conf_remove_port, so PJSIP's calls
 * to them come here first (libpjsua calls the first through its PLT, and the second, in
 * libpjmedia, from the first); each calls the probe's before_vid_conf_remove(slot), then the real
 * function (dlsym(RTLD_NEXT)). A probe holds the thread that frees a window there.
 *
 * One .c file per probe (Tests/PJSUATestSupport/PJSIPProbe.swift): this header is included with
 * quotes. */
#ifndef VID_CONF_REMOVE_HOOK_H
#define VID_CONF_REMOVE_HOOK_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <pjsua-lib/pjsua.h>

typedef pj_status_t (*pjsua_remove_fn)(pjsua_conf_port_id);
typedef pj_status_t (*pjmedia_remove_fn)(pjmedia_vid_conf *, unsigned);

/* The probe's: called before every removal of a video conference slot, on the removing thread. */
static void before_vid_conf_remove(int slot);

pj_status_t pjsua_vid_conf_remove_port(pjsua_conf_port_id id)
{
    static pjsua_remove_fn real;

    if (real == NULL) real = (pjsua_remove_fn)dlsym(RTLD_NEXT, "pjsua_vid_conf_remove_port");
    before_vid_conf_remove(id);
    return real(id);
}

/* Where pjsua_vid_conf_remove_port is inlined into free_vid_win. */
pj_status_t pjmedia_vid_conf_remove_port(pjmedia_vid_conf *conf, unsigned slot)
{
    static pjmedia_remove_fn real;

    if (real == NULL) real = (pjmedia_remove_fn)dlsym(RTLD_NEXT, "pjmedia_vid_conf_remove_port");
    before_vid_conf_remove((int)slot);
    return real(conf, slot);
}

#endif
