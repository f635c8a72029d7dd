/* KL-48 probe. pjmedia_conf_remove_port removes a port whose add is still queued (is_new) on the
 * caller's thread, with the bridge's mutex released, and calls the bridge's op callback in the
 * middle (after the teardown, before the slot is freed). Another thread's connect or remove that
 * lands in that window must be refused: accepted, the clock thread runs the connect on a slot that
 * is freed a moment later, and the next tick dereferences it.
 *
 * The race's window, made deterministic: the op callback of the victim's removal plays the other
 * threads. It connects a live port to the victim, ticks the bridge once, as the clock thread would,
 * and asks to remove the victim again. After the removal returns, the bridge ticks again.
 * Patched (the port is marked as being removed before the mutex is released): both requests fail,
 * no listener is left, the ticks run. Unpatched: both requests are queued, the first tick connects
 * the live port to the dying slot, the removal frees the slot, and the second tick dereferences
 * it in get_frame (SIGSEGV).
 *
 * Prints "connect C remove R listeners L ticks T". Exit 0: both refused, no listener, both ticks
 * ran; 1: setup failed; 2: any other outcome. */
#include <pjlib.h>
#include <pjmedia.h>
#include <stdio.h>

enum { RATE = 8000, SAMPLES = 160, BITS = 16 };

static pjmedia_conf *conf;
static pjmedia_port *master;
static unsigned live_slot, victim_slot;
static pj_status_t connect_status = PJ_EUNKNOWN, remove_status = PJ_EUNKNOWN;
static int in_window, ticks;
static pj_int16_t samples[SAMPLES];

static void tick(void)
{
    pjmedia_frame frame;

    pj_bzero(&frame, sizeof frame);
    frame.type = PJMEDIA_FRAME_TYPE_AUDIO;
    frame.buf = samples;
    frame.size = sizeof samples;
    if (pjmedia_port_get_frame(master, &frame) == PJ_SUCCESS)
        ++ticks;
}

static void on_op(const pjmedia_conf_op_info *info)
{
    if (info->op_type != PJMEDIA_CONF_OP_REMOVE_PORT || info->op_param.remove_port.port != victim_slot
        || in_window)
        return;
    in_window = 1;
    connect_status = pjmedia_conf_connect_port(conf, live_slot, victim_slot, 0);
    tick();
    remove_status = pjmedia_conf_remove_port(conf, victim_slot);
}

int main(void)
{
    pj_caching_pool cp;
    pj_pool_t *pool;
    pjmedia_port *live, *victim;
    pjmedia_conf_port_info info;

    pj_log_set_level(0);
    if (pj_init() != PJ_SUCCESS) return 1;
    pj_caching_pool_init(&cp, NULL, 0);
    pool = pj_pool_create(&cp.factory, "probe", 4000, 4000, NULL);
    if (pool == NULL) return 1;
    if (pjmedia_conf_create(pool, 8, RATE, 1, SAMPLES, BITS, PJMEDIA_CONF_NO_DEVICE, &conf) != PJ_SUCCESS)
        return 1;
    master = pjmedia_conf_get_master_port(conf);
    if (pjmedia_null_port_create(pool, RATE, 1, SAMPLES, BITS, &live) != PJ_SUCCESS
        || pjmedia_null_port_create(pool, RATE, 1, SAMPLES, BITS, &victim) != PJ_SUCCESS)
        return 1;
    if (pjmedia_conf_add_port(conf, pool, live, NULL, &live_slot) != PJ_SUCCESS) return 1;
    tick();  /* the live port's add runs */
    if (pjmedia_conf_set_op_cb(conf, &on_op) != PJ_SUCCESS) return 1;

    /* Added and removed within one tick: the synchronous removal. */
    if (pjmedia_conf_add_port(conf, pool, victim, NULL, &victim_slot) != PJ_SUCCESS) return 1;
    if (pjmedia_conf_remove_port(conf, victim_slot) != PJ_SUCCESS || !in_window) return 1;
    tick();
    pj_bzero(&info, sizeof info);
    if (pjmedia_conf_get_port_info(conf, live_slot, &info) != PJ_SUCCESS) return 1;
    printf("connect %d remove %d listeners %u ticks %d\n", connect_status, remove_status,
           info.listener_cnt, ticks);
    fflush(stdout);

    pjmedia_conf_destroy(conf);
    pj_pool_release(pool);
    pj_caching_pool_destroy(&cp);
    pj_shutdown();
    return connect_status != PJ_SUCCESS && remove_status != PJ_SUCCESS && info.listener_cnt == 0
        && ticks == 3 ? 0 : 2;
}
