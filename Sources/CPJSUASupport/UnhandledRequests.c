/*
 * Answers for requests nothing else answers: a pjsip module that runs after every other module
 * and gives each request still unhandled a final response, as RFC 3261 8.2 asks of a UAS.
 *
 * Why: pjsip drops a request no module takes (sip_endpoint.c, endpt_on_rx_msg: "dropped/
 * unhandled by any modules"), and pjsua's own modules take only INVITE, OPTIONS, MESSAGE,
 * SUBSCRIBE and, with pjsua_config.enable_unsolicited_mwi, out-of-dialog NOTIFYs of
 * message-summary. A REGISTER, a PUBLISH, an unknown method or a PBX's check-sync met silence,
 * and every sender retransmitted for 32 s before reporting a timeout. (The pjsua app answers
 * them from a module of its own, pjsua_app.c's mod-default-handler; the library has none.)
 *
 * What each request gets (statelessly, unless said otherwise):
 *  - ACK: nothing (no response is ever sent to an ACK).
 *  - a request a transaction or dialog already holds: nothing here (its owner answers).
 *  - a method not in the endpoint's Allow capability: 405 with that Allow header when the method
 *    is a SIP method we know of (REGISTER, PUBLISH...), 501 when it is not (RFC 3261 8.2.1).
 *  - an allowed method with a To tag: 481 (the UA layer answers most of those itself; this
 *    catches what it passes on).
 *  - NOTIFY outside any subscription: 200, answered through a transaction so that a
 *    retransmission is absorbed and the app sees it once, for the event packages the app
 *    accepts (it then gets the request through `deliver`); 489 Bad Event for the others, 400
 *    for a NOTIFY without an Event header (RFC 6665 8.2.1).
 *  - any other allowed method outside a dialog (BYE, CANCEL, PRACK, UPDATE, INFO, REFER: this
 *    engine only acts on them inside a call): 481.
 * SUBSCRIBE never arrives here: pjsua's presence module answers every one (pjsua_pres.c).
 *
 * Why C: the module is a struct with function pointers that pjsip keeps, and the work is
 * pjsip's list and header macros and stateless responses, on pjsua's worker thread; no Swift
 * is needed on the path of a rejection. Only an accepted NOTIFY crosses into Swift, through
 * `deliver`, to become an event.
 *
 * Lifetime: registered at engine start, after pjsua_init. pjsua_destroy unregisters it, as it
 * does every module (pjsip_endpt_destroy unloads them all), and the unload callback forgets the
 * accepted packages and `deliver`. An explicit pjsip_endpt_unregister_module would sleep 100 ms
 * and leave the endpoint taking its module lock for every message from then on.
 */
#ifndef PJ_AUTOCONF
#  define PJ_AUTOCONF 1
#endif
#include <pjsua.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "CPJSUASupport.h"

static pthread_mutex_t unhandled_lock = PTHREAD_MUTEX_INITIALIZER;
/* Guarded by unhandled_lock: the accepted event packages, comma-separated (NULL: none), and
 * where an accepted NOTIFY goes. */
static char *accepted_events;
static cpjsua_notify_delivery deliver_notify;

/* The SIP methods of RFC 3261 and its extensions (IANA's registry): a method outside the Allow
 * header that is one of these gets 405, any other 501. Method names are case-sensitive. */
static const char *const known_methods[] = {
    "ACK", "BYE", "CANCEL", "INFO", "INVITE", "MESSAGE", "NOTIFY", "OPTIONS",
    "PRACK", "PUBLISH", "REFER", "REGISTER", "SUBSCRIBE", "UPDATE",
};

static pj_bool_t unhandled_on_rx_request(pjsip_rx_data *rdata);
static pj_status_t unhandled_on_unload(void);

static pjsip_module unhandled_module = {
    NULL, NULL,                                     /* prev, next */
    { "mod-swiftpjsua-unhandled", 24 },             /* name */
    -1,                                             /* id */
    PJSIP_MOD_PRIORITY_APPLICATION + 99,            /* after every module of pjsip, pjsua and the app */
    NULL, NULL, NULL,                               /* load, start, stop */
    &unhandled_on_unload,                           /* unload */
    &unhandled_on_rx_request,                       /* on_rx_request */
    NULL, NULL, NULL, NULL,                         /* on_rx_response, on_tx_*, on_tsx_state */
};

static int is_known_method(const pj_str_t *name) {
    for (size_t i = 0; i < PJ_ARRAY_SIZE(known_methods); ++i) {
        if (pj_strcmp2(name, known_methods[i]) == 0) return 1;
    }
    return 0;
}

static int is_allowed_method(const pjsip_allow_hdr *allow, const pj_str_t *name) {
    if (allow == NULL) return 0;
    for (unsigned i = 0; i < allow->count; ++i) {
        if (pj_strcmp(&allow->values[i], name) == 0) return 1;
    }
    return 0;
}

/* Whether the app accepts out-of-dialog NOTIFYs of `package` (compared ignoring case, as pjsip
 * compares event packages); sets *deliver to where they go. */
static int accepts_event(const pj_str_t *package, cpjsua_notify_delivery *deliver) {
    int accepted = 0;
    pthread_mutex_lock(&unhandled_lock);
    *deliver = deliver_notify;
    for (const char *start = accepted_events; start != NULL && *start != '\0' && !accepted;) {
        const char *comma = strchr(start, ',');
        size_t length = comma != NULL ? (size_t)(comma - start) : strlen(start);
        pj_str_t name = { (char *)start, (pj_ssize_t)length };
        accepted = pj_stricmp(&name, package) == 0;
        start = comma != NULL ? comma + 1 : NULL;
    }
    pthread_mutex_unlock(&unhandled_lock);
    return accepted;
}

static void respond(pjsip_rx_data *rdata, int code, const char *reason, const pjsip_hdr *extra) {
    pjsip_hdr headers;
    pj_list_init(&headers);
    if (extra != NULL) {
        /* A clone in the request's pool: the endpoint's own header must stay out of our list. */
        pjsip_hdr *copy = (pjsip_hdr *)pjsip_hdr_clone(rdata->tp_info.pool, extra);
        if (copy != NULL) pj_list_push_back(&headers, copy);
    }
    pj_str_t text = reason != NULL ? pj_str((char *)reason) : pj_str("");
    pjsip_endpt_respond_stateless(pjsua_get_pjsip_endpt(), rdata, code, reason != NULL ? &text : NULL,
                                  &headers, NULL);
}

static pj_bool_t answer_notify(pjsip_rx_data *rdata) {
    static const pj_str_t event_name = { "Event", 5 };
    static const pj_str_t event_short = { "o", 1 };
    const pjsip_event_hdr *event = (const pjsip_event_hdr *)
        pjsip_msg_find_hdr_by_names(rdata->msg_info.msg, &event_name, &event_short, NULL);
    if (event == NULL || event->event_type.slen == 0) {
        respond(rdata, PJSIP_SC_BAD_REQUEST, "Missing Event header", NULL);
        return PJ_TRUE;
    }
    cpjsua_notify_delivery deliver = NULL;
    if (!accepts_event(&event->event_type, &deliver)) {
        respond(rdata, PJSIP_SC_BAD_EVENT, NULL, NULL);
        return PJ_TRUE;
    }
    pjsua_acc_id account = pjsua_acc_find_for_incoming(rdata);
    if (pjsip_endpt_respond(pjsua_get_pjsip_endpt(), NULL, rdata, PJSIP_SC_OK, NULL, NULL, NULL, NULL) != PJ_SUCCESS) {
        return PJ_TRUE;  /* not answered (no memory, no transport): the sender retransmits */
    }
    if (deliver != NULL) deliver(rdata, account);
    return PJ_TRUE;
}

static pj_bool_t unhandled_on_rx_request(pjsip_rx_data *rdata) {
    const pjsip_method *method = &rdata->msg_info.msg->line.req.method;
    if (method->id == PJSIP_ACK_METHOD) return PJ_FALSE;
    /* Whoever holds the request's transaction or dialog answers it. */
    if (pjsip_rdata_get_tsx(rdata) != NULL || pjsip_rdata_get_dlg(rdata) != NULL) return PJ_FALSE;
    if (rdata->msg_info.to == NULL) return PJ_FALSE;  /* the transport layer rejects those first */

    const pjsip_hdr *allow = pjsip_endpt_get_capability(pjsua_get_pjsip_endpt(), PJSIP_H_ALLOW, NULL);
    if (!is_allowed_method((const pjsip_allow_hdr *)allow, &method->name)) {
        if (is_known_method(&method->name)) {
            respond(rdata, PJSIP_SC_METHOD_NOT_ALLOWED, NULL, allow);
        } else {
            respond(rdata, PJSIP_SC_NOT_IMPLEMENTED, NULL, NULL);
        }
        return PJ_TRUE;
    }
    if (rdata->msg_info.to->tag.slen == 0 && pjsip_method_cmp(method, pjsip_get_notify_method()) == 0) {
        return answer_notify(rdata);
    }
    respond(rdata, PJSIP_SC_CALL_TSX_DOES_NOT_EXIST, NULL, NULL);
    return PJ_TRUE;
}

static pj_status_t unhandled_on_unload(void) {
    pthread_mutex_lock(&unhandled_lock);
    free(accepted_events);
    accepted_events = NULL;
    deliver_notify = NULL;
    pthread_mutex_unlock(&unhandled_lock);
    return PJ_SUCCESS;
}

int32_t cpjsua_unhandled_requests_install(const char *accepted, cpjsua_notify_delivery deliver) {
    char *copy = NULL;
    if (accepted != NULL && *accepted != '\0') {
        copy = strdup(accepted);
        if (copy == NULL) return PJ_ENOMEM;
    }
    pthread_mutex_lock(&unhandled_lock);
    free(accepted_events);
    accepted_events = copy;
    deliver_notify = deliver;
    pthread_mutex_unlock(&unhandled_lock);
    if (unhandled_module.id != -1) return PJ_SUCCESS;  /* pjsua_destroy unregisters it (id back to -1) */
    return pjsip_endpt_register_module(pjsua_get_pjsip_endpt(), &unhandled_module);
}
