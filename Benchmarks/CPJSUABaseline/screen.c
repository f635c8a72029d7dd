/* See include/CPJSUABaseline.h: cpjsua_baseline_screen_cost. */
#define PJ_AUTOCONF 1
#define PJ_IS_LITTLE_ENDIAN 1
#define PJ_IS_BIG_ENDIAN 0
#include <pjsua-lib/pjsua.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include "CPJSUABaseline.h"

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* The engine's screen module, found by name: the endpoint keeps every module in one circular
 * list (its head is a zeroed module of the endpoint's own), so a probe module registered for a
 * moment meets all the others by walking from itself. */
static pjsip_module *find_module(pjsip_endpoint *endpoint, const char *name) {
    static pjsip_module probe = {
        NULL, NULL, { "mod-bench-screen-probe", 22 }, -1, PJSIP_MOD_PRIORITY_APPLICATION,
        NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
    };
    if (pjsip_endpt_register_module(endpoint, &probe) != PJ_SUCCESS) return NULL;
    pjsip_module *found = NULL;
    for (pjsip_module *m = probe.next; m != &probe; m = m->next) {
        if (m->name.slen > 0 && pj_strcmp2(&m->name, name) == 0) {
            found = m;
            break;
        }
    }
    pjsip_endpt_unregister_module(endpoint, &probe);
    return found;
}

/* How many alternating blocks of parses and screenings each message's rounds are cut into. */
enum { SCREEN_BLOCKS = 20 };

struct screen_job {
    const char *const *messages;
    const unsigned *lengths;
    unsigned count;
    unsigned rounds;
    double *parse_ns;
    double *screen_ns;
    int result;
};

/* The rdata a UDP transport would hand the endpoint for `length` bytes already in its packet:
 * parsed again from scratch, its pool emptied first. */
static pjsip_msg *parse(pjsip_rx_data *rdata, pj_pool_t *pool, pj_size_t length) {
    pj_pool_reset(pool);
    pj_bzero(&rdata->msg_info, sizeof(rdata->msg_info));
    pj_list_init(&rdata->msg_info.parse_err);
    rdata->msg_info.msg_buf = rdata->pkt_info.packet;
    rdata->msg_info.len = (int)length;
    return pjsip_parse_rdata(rdata->pkt_info.packet, length, rdata);
}

static void run_job(struct screen_job *job) {
    pjsip_endpoint *endpoint = pjsua_get_pjsip_endpt();
    if (endpoint == NULL) { job->result = -1; return; }
    pjsip_module *screen = find_module(endpoint, "mod-swiftpjsua-screen");
    if (screen == NULL || screen->on_rx_request == NULL || screen->on_rx_response == NULL) { job->result = -2; return; }
    pj_pool_t *pool = pjsip_endpt_create_pool(endpoint, "bench-screen", 8000, 8000);
    if (pool == NULL) { job->result = -3; return; }

    /* Only the fields the transport layer fills before the modules see a datagram. */
    static pjsip_rx_data rdata;
    static pjsip_transport udp;
    pj_bzero(&rdata, sizeof(rdata));
    pj_bzero(&udp, sizeof(udp));
    udp.flag = pjsip_transport_get_flag_from_type(PJSIP_TRANSPORT_UDP);
    rdata.tp_info.pool = pool;
    rdata.tp_info.transport = &udp;
    pj_sockaddr_in_init(&rdata.pkt_info.src_addr.ipv4, NULL, 5060);
    rdata.pkt_info.src_addr_len = sizeof(pj_sockaddr_in);
    pj_ansi_strxcpy(rdata.pkt_info.src_name, "127.0.0.1", sizeof(rdata.pkt_info.src_name));
    rdata.pkt_info.src_port = 5060;

    job->result = 0;
    for (unsigned i = 0; i < job->count && job->result == 0; ++i) {
        pj_size_t length = job->lengths[i];
        if (length == 0 || length >= sizeof(rdata.pkt_info.packet)) { job->result = -4; break; }
        memcpy(rdata.pkt_info.packet, job->messages[i], length);
        rdata.pkt_info.packet[length] = '\0';
        rdata.pkt_info.len = (pj_ssize_t)length;

        /* Parse and screen alternate in blocks, and each keeps its fastest block: the code is
         * deterministic, so a slower block is the machine's doing (another process, an
         * interrupt), and alternating puts both under the same machine. */
        if (parse(&rdata, pool, length) == NULL || !pj_list_empty(&rdata.msg_info.parse_err)) { job->result = -5; break; }
        pj_bool_t is_request = rdata.msg_info.msg->type == PJSIP_REQUEST_MSG;
        unsigned per_block = job->rounds / SCREEN_BLOCKS > 0 ? job->rounds / SCREEN_BLOCKS : 1;
        double fastest_parse = -1, fastest_screen = -1;
        for (unsigned block = 0; block < SCREEN_BLOCKS && job->result == 0; ++block) {
            uint64_t started = now_ns();
            for (unsigned r = 0; r < per_block; ++r) {
                if (parse(&rdata, pool, length) == NULL) { job->result = -5; break; }
            }
            double each = (double)(now_ns() - started) / per_block;
            if (fastest_parse < 0 || each < fastest_parse) fastest_parse = each;

            /* The message as parsed last, screened: a clean message passes (PJ_FALSE), and
             * passing changes nothing the next round reads. */
            started = now_ns();
            for (unsigned r = 0; r < per_block; ++r) {
                pj_bool_t taken = is_request ? screen->on_rx_request(&rdata) : screen->on_rx_response(&rdata);
                if (taken) { job->result = -6; break; }
            }
            each = (double)(now_ns() - started) / per_block;
            if (fastest_screen < 0 || each < fastest_screen) fastest_screen = each;
        }
        job->parse_ns[i] = fastest_parse;
        job->screen_ns[i] = fastest_screen;
    }
    pj_pool_release(pool);
}

static void *screen_thread(void *argument) {
    struct screen_job *job = argument;
    /* PJLIB keeps this for as long as the thread runs; the thread is joined before it goes. */
    static pj_thread_desc descriptor;
    pj_thread_t *thread = NULL;
    pj_bzero(descriptor, sizeof(descriptor));
    if (pj_thread_register("bench-screen", descriptor, &thread) != PJ_SUCCESS) {
        job->result = -7;
        return NULL;
    }
    run_job(job);
    return NULL;
}

int cpjsua_baseline_screen_cost(const char *const *messages, const unsigned *lengths, unsigned count, unsigned rounds,
                                double *parse_ns, double *screen_ns) {
    if (messages == NULL || lengths == NULL || parse_ns == NULL || screen_ns == NULL || rounds == 0) return -8;
    struct screen_job job = { messages, lengths, count, rounds, parse_ns, screen_ns, 0 };
    pthread_t thread;
    if (pthread_create(&thread, NULL, screen_thread, &job) != 0) return -9;
    pthread_join(thread, NULL);
    return job.result;
}
