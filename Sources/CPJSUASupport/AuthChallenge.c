/*
 * Credentials on demand: the C side of answering a 401/407 later, with a credential the engine
 * does not keep.
 *
 * pjsua 2.17 hands every challenge to `on_auth_challenge` (pjsua_acc.c, pjsua_auth_on_challenge)
 * with the account's shared auth session, a single-use token, the response and the challenged
 * request. The response is valid only during the callback (so it is cloned here) and the request
 * only while its transaction holds it (so a reference is taken). The answer is built the way
 * pjsua2's AuthChallenge::respond(creds) builds it (endpoint.cpp): set the credential on the
 * session, pjsip_auth_clt_reinit_req, pjsip_auth_clt_async_send_req; and then the credential is
 * taken out of the session again, its bytes zeroed first, because pjsip_auth_clt_set_credentials
 * copies it into the session's pool and an account given a provider must hold no password.
 *
 * Why C: the challenge headers are pjsip lists and parsed header structs, and the whole answer
 * is a sequence of pjsip calls with nothing for Swift to decide in between.
 *
 * No PJSUA_LOCK is taken (it is not public): the engine makes every call that could remove the
 * account or the call (pjsua_acc_del, pjsua_call_hangup) on its one executor thread, the same
 * thread that calls answer/abandon, and abandons pending challenges before it makes them.
 *
 * The one lock taken is a dialog's (KL-58): a challenge of a dialog's request (an INVITE, BYE,
 * SUBSCRIBE, REFER or NOTIFY, or any request sent in the dialog) is answered or given up holding
 * that dialog's lock, as pjsip's own answer does inside the transaction's callback; for the
 * others the challenged transaction is only referenced. See hold_transaction below.
 */
#ifndef PJ_AUTOCONF
#  define PJ_AUTOCONF 1
#endif
#include <pjsua.h>
#include "CPJSUASupport.h"

static cpjsua_auth_text text_of(const pj_str_t *value)
{
    cpjsua_auth_text text;
    text.ptr = value->slen > 0 ? value->ptr : NULL;
    text.length = value->slen > 0 ? (int32_t)value->slen : 0;
    return text;
}

/* The first digest challenge of the response (the one pjsip answers first), or NULL. */
static const pjsip_www_authenticate_hdr *first_digest_challenge(const pjsip_msg *msg)
{
    const pjsip_hdr *hdr;
    for (hdr = msg->hdr.next; hdr != &msg->hdr; hdr = hdr->next) {
        if (hdr->type != PJSIP_H_WWW_AUTHENTICATE && hdr->type != PJSIP_H_PROXY_AUTHENTICATE)
            continue;
        const pjsip_www_authenticate_hdr *chal = (const pjsip_www_authenticate_hdr *)hdr;
        if (pj_stricmp2(&chal->scheme, "digest") == 0)
            return chal;
    }
    return NULL;
}

/* Whether `request` already carried an Authorization (or Proxy-Authorization) for `realm`:
 * then this challenge refuses the answer we sent, unless the server says the nonce was stale. */
static int answered_before(const pjsip_msg *request, const pjsip_www_authenticate_hdr *chal)
{
    const pjsip_hdr *hdr;
    pjsip_hdr_e wanted = chal->type == PJSIP_H_PROXY_AUTHENTICATE ? PJSIP_H_PROXY_AUTHORIZATION
                                                                  : PJSIP_H_AUTHORIZATION;
    if (chal->challenge.digest.stale)
        return 0;
    for (hdr = request->hdr.next; hdr != &request->hdr; hdr = hdr->next) {
        if (hdr->type != wanted)
            continue;
        const pjsip_authorization_hdr *sent = (const pjsip_authorization_hdr *)hdr;
        if (pj_stricmp2(&sent->scheme, "digest") == 0 &&
            pj_strcmp(&sent->credential.digest.realm, &chal->challenge.digest.realm) == 0)
            return 1;
    }
    return 0;
}

int32_t cpjsua_auth_challenge_capture(const void *rdata_, void *tdata_, cpjsua_auth_challenge *out)
{
    const pjsip_rx_data *rdata = (const pjsip_rx_data *)rdata_;
    pjsip_tx_data *tdata = (pjsip_tx_data *)tdata_;
    pjsip_rx_data *clone = NULL;
    pj_status_t status;

    pj_bzero(out, sizeof(*out));
    if (!rdata->msg_info.msg || rdata->msg_info.msg->type != PJSIP_RESPONSE_MSG ||
        !tdata->msg || tdata->msg->type != PJSIP_REQUEST_MSG)
        return PJ_EINVAL;
    status = pjsip_rx_data_clone(rdata, 0, &clone);
    if (status != PJ_SUCCESS)
        return status;
    const pjsip_www_authenticate_hdr *chal = first_digest_challenge(clone->msg_info.msg);
    if (!chal) {
        /* pjsip answers digest only (sip_auth_client.c): nothing to ask for. */
        pjsip_rx_data_free_cloned(clone);
        return PJSIP_EINVALIDAUTHSCHEME;
    }
    pjsip_tx_data_add_ref(tdata);
    out->response = clone;
    out->request = tdata;
    out->status_code = clone->msg_info.msg->line.status.code;
    out->scheme = text_of(&chal->scheme);
    out->realm = text_of(&chal->challenge.digest.realm);
    out->algorithm = text_of(&chal->challenge.digest.algorithm);
    out->method = text_of(&tdata->msg->line.req.method.name);
    out->is_retry = answered_before(tdata->msg, chal);
    return PJ_SUCCESS;
}

static void release(cpjsua_auth_challenge *challenge)
{
    if (challenge->response)
        pjsip_rx_data_free_cloned((pjsip_rx_data *)challenge->response);
    if (challenge->request)
        pjsip_tx_data_dec_ref((pjsip_tx_data *)challenge->request);
    pj_bzero(challenge, sizeof(*challenge));
}

/* Zeroes the session's copies of its credentials' secrets and leaves it with none. */
static void forget_credentials(pjsip_auth_clt_sess *sess)
{
    pjsip_auth_clt_sess *owner = sess->parent ? sess->parent : sess;
    pjsip_cred_info none;
    unsigned i;
    for (i = 0; i < owner->cred_cnt; ++i) {
        pjsip_cred_info *cred = &owner->cred_info[i];
        if (cred->data.ptr && cred->data.slen > 0)
            pj_bzero(cred->data.ptr, (pj_size_t)cred->data.slen);
    }
    pj_bzero(&none, sizeof(none));
    pjsip_auth_clt_set_credentials(sess, 0, &none);
}

/* Upstream defect (pjproject 2.17, sip_reg.c; written up in docs/KNOWN-LIMITS.md, KL-35):
 * a REGISTER challenge consumed outside the challenge callback reaches pjsua's regc_cb with no
 * reference on the registration client. async_auth_abandon_impl (and async_auth_send_impl when
 * pjsip_regc_send fails) call call_callback -> pjsua's regc_cb, whose failure branch
 * destroy_regc(acc, PJ_FALSE) frees the client at once (no transaction, busy_ctr 0: lock set to
 * NULL, pool released), and regc_cb then reads it (pjsip_regc_get_info: assertion
 * `lock != NULL` in pj_lock_acquire; a use-after-free without assertions). Inside the callback
 * regc_tsx_callback holds pjsip_regc_add_ref, which defers the destroy. Reproduction: pjsua
 * with on_auth_challenge that sets handled and calls pjsip_auth_clt_async_abandon later from
 * another registered thread, registering against a digest registrar. Workaround: hold the same
 * reference around the consumption. pjsua sends REGISTER only through its pjsip_regc, so a
 * REGISTER token's user_data is that client (sip_reg.c sets auth_token->user_data = regc). */
static pjsip_regc *hold_registration(void *token, const cpjsua_auth_challenge *challenge)
{
    const pjsip_tx_data *request = (const pjsip_tx_data *)challenge->request;
    pjsip_auth_clt_async_impl_token *impl = (pjsip_auth_clt_async_impl_token *)token;
    if (!request || request->msg->line.req.method.id != PJSIP_REGISTER_METHOD || !impl->user_data)
        return NULL;
    pjsip_regc_add_ref((pjsip_regc *)impl->user_data);
    return (pjsip_regc *)impl->user_data;
}

/* Upstream defect (pjproject 2.17, unchanged upstream; docs/KNOWN-LIMITS.md, KL-58): a token
 * consumed outside the challenge callback runs its owner's send_impl or abandon_impl with no lock
 * of the owner held ("No lock is held by the caller"), and the owners of dialog requests change
 * the dialog's state there: evsub.c's evsub_async_auth_abandon_impl sets the subscription
 * TERMINATED (the evsub, presence and pjsua buddy or transfer callbacks, which rely on the
 * dialog's lock, pjsua_pres.c #937; evsub_destroy erasing the dialog's list node,
 * pjsip_dlg_dec_session), sip_inv.c's abandon_impls set the INVITE session DISCONNECTED, and its
 * send_impl restarts an initial INVITE's session (pjsip_inv_uac_restart) before sending; while
 * pjsua's worker may handle a request or response of the same dialog under that lock. Inside the
 * callback the dialog's lock is held by the caller (pjsip_dlg_on_tsx_state).
 * Workaround: take that lock around the consumption. A dialog's requests are sent by
 * pjsip_dlg_send_request, which chains the dialog's group lock first into its transaction's
 * (sip_dialog.c 2.17:1419-1424; the chain stays until the transaction is destroyed,
 * sip_transaction.c tsx_on_destroy), and the token's grp_lock is that transaction's, referenced
 * until the token is consumed: acquiring it takes the dialog's lock, then the transaction's, the
 * order of the worker's transaction callbacks, followed there as here by PJSUA_LOCK in pjsua's
 * callbacks (dialog, then PJSUA_LOCK, as pjsua's own code takes them). It finds the dialog even
 * where its remote tag no longer matches the request's To tag (a NOTIFY or a 1xx that came before
 * the challenge sets it), and whether or not the dialog is still in the user agent's table; and
 * it counts no session on the dialog, so it never destroys one (pjsip_dlg_dec_lock would destroy
 * a dialog that ended meanwhile a second time). The other tokens (REGISTER, PUBLISH, an
 * out-of-dialog MESSAGE) have no dialog: their transaction is only referenced.
 * Either way the transaction, and the token in its pool, outlive the consumption: a send that
 * fails consumes the token and drops its reference (sip_auth_client.c), and the abandon after it
 * reads the token again; the last reference may be the one let go here (the transaction, then a
 * dialog's pool, go then). Returns the held group lock, *locked saying whether it is acquired. */
static pj_grp_lock_t *hold_transaction(void *token, const cpjsua_auth_challenge *challenge,
                                       int *locked)
{
    const pjsip_tx_data *request = (const pjsip_tx_data *)challenge->request;
    pjsip_auth_clt_async_impl_token *impl = (pjsip_auth_clt_async_impl_token *)token;
    pj_grp_lock_t *lock = impl->grp_lock;
    *locked = 0;
    if (!lock)
        return NULL;
    if (request && request->msg) {
        const pjsip_msg *msg = request->msg;
        const pjsip_to_hdr *to = PJSIP_MSG_TO_HDR(msg);
        const pj_str_t *method = &msg->line.req.method.name;
        *locked = (to && to->tag.slen > 0) || msg->line.req.method.id == PJSIP_INVITE_METHOD ||
                  pj_stricmp2(method, "SUBSCRIBE") == 0 || pj_stricmp2(method, "REFER") == 0;
    }
    if (*locked)
        pj_grp_lock_acquire(lock);  /* holds a reference of its own until the release */
    else
        pj_grp_lock_add_ref(lock);
    return lock;
}

static void let_go(pj_grp_lock_t *lock, int locked)
{
    if (lock && locked)
        pj_grp_lock_release(lock);
    else if (lock)
        pj_grp_lock_dec_ref(lock);
}

int32_t cpjsua_auth_challenge_answer(void *sess_, void *token, cpjsua_auth_challenge *challenge,
                                     const char *realm, const char *username, const char *password)
{
    pjsip_auth_clt_sess *sess = (pjsip_auth_clt_sess *)sess_;
    pjsip_tx_data *request = NULL;
    pjsip_cred_info cred;
    pj_status_t status;

    pj_bzero(&cred, sizeof(cred));
    cred.realm = pj_str((char *)realm);
    cred.scheme = pj_str("digest");
    cred.username = pj_str((char *)username);
    cred.data_type = PJSIP_CRED_DATA_PLAIN_PASSWD;
    cred.data = pj_str((char *)password);
    int locked;
    pj_grp_lock_t *held = hold_transaction(token, challenge, &locked);
    status = pjsip_auth_clt_set_credentials(sess, 1, &cred);
    if (status == PJ_SUCCESS)
        status = pjsip_auth_clt_reinit_req(sess, (const pjsip_rx_data *)challenge->response,
                                           (pjsip_tx_data *)challenge->request, &request);
    forget_credentials(sess);
    pjsip_regc *regc = hold_registration(token, challenge);
    if (status == PJ_SUCCESS && request) {
        status = pjsip_auth_clt_async_send_req(sess, token, request);
        /* A send that failed before consuming the token leaves it valid: give it up, or its
         * transaction's group lock stays referenced. On a consumed token (still in memory: see
         * hold_transaction) this returns PJ_EINVAL and does nothing. */
        if (status != PJ_SUCCESS)
            pjsip_auth_clt_async_abandon(sess, token);
    } else {
        pjsip_auth_clt_async_abandon(sess, token);
        if (status == PJ_SUCCESS)
            status = PJ_EINVALIDOP;
    }
    let_go(held, locked);
    if (regc)
        pjsip_regc_dec_ref(regc);
    release(challenge);
    return status;
}

void cpjsua_auth_challenge_abandon(void *sess, void *token, cpjsua_auth_challenge *challenge)
{
    pjsip_regc *regc = hold_registration(token, challenge);
    int locked;
    pj_grp_lock_t *held = hold_transaction(token, challenge, &locked);
    pjsip_auth_clt_async_abandon((pjsip_auth_clt_sess *)sess, token);
    let_go(held, locked);
    if (regc)
        pjsip_regc_dec_ref(regc);
    release(challenge);
}
