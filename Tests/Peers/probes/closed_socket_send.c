/* KL-42 probe. A socket's ioqueue key becomes NULL when another thread closes the socket
 * (pj_activesock_close, the SIP and media UDP transports' destroy and restart), and senders read
 * the key without the closer's lock: a sender that lost that race hands pj_ioqueue_sendto (or
 * pj_ioqueue_send) the NULL key. This probe makes those two calls with the key such a sender read.
 * The installed PJSIP must fail both with PJ_ECANCELLED, as it fails a send on a closing key; an
 * unpatched one aborts on the functions' argument assert.
 * Exit 0: both failed with PJ_ECANCELLED; 1: setup failed; 2: either did something else. */
#include <pjlib.h>
#include <stdio.h>

int main(void)
{
    pj_caching_pool cp;
    pj_pool_t *pool;
    pj_ioqueue_op_key_t send_key;
    pj_sockaddr target;
    pj_str_t loopback = pj_str("127.0.0.1");
    pj_ioqueue_key_t *closed = NULL;   /* what the racing sender read */
    char payload[] = "ping";
    pj_ssize_t size = sizeof payload;
    pj_status_t to, connected;

    pj_log_set_level(0);
    if (pj_init() != PJ_SUCCESS) return 1;
    pj_caching_pool_init(&cp, NULL, 0);
    pool = pj_pool_create(&cp.factory, "probe", 4000, 4000, NULL);
    if (pool == NULL) return 1;
    pj_ioqueue_op_key_init(&send_key, sizeof send_key);
    pj_sockaddr_init(pj_AF_INET(), &target, &loopback, 9);
    to = pj_ioqueue_sendto(closed, &send_key, payload, &size, 0, &target, pj_sockaddr_get_len(&target));
    size = sizeof payload;
    connected = pj_ioqueue_send(closed, &send_key, payload, &size, 0);
    printf("sendto %d send %d\n", to, connected);
    pj_pool_release(pool);
    pj_caching_pool_destroy(&cp);
    pj_shutdown();
    return to == PJ_ECANCELLED && connected == PJ_ECANCELLED ? 0 : 2;
}
