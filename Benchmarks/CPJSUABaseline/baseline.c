/* See include/CPJSUABaseline.h. */
#define PJ_AUTOCONF 1
#define PJ_IS_LITTLE_ENDIAN 1
#define PJ_IS_BIG_ENDIAN 0
#include <pjsua-lib/pjsua.h>
#include <pthread.h>
#include <time.h>
#include "CPJSUABaseline.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int confirmed_count, disconnected_count;
static pjsua_call_id incoming_call = PJSUA_INVALID_ID;

static void on_incoming_call(pjsua_acc_id acc, pjsua_call_id call, pjsip_rx_data *rdata) {
    (void)acc; (void)rdata;
    pthread_mutex_lock(&lock);
    incoming_call = call;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
}

static void on_call_state(pjsua_call_id call, pjsip_event *e) {
    pjsua_call_info info;
    (void)e;
    if (pjsua_call_get_info(call, &info) != PJ_SUCCESS) return;
    pthread_mutex_lock(&lock);
    if (info.state == PJSIP_INV_STATE_CONFIRMED) confirmed_count++;
    if (info.state == PJSIP_INV_STATE_DISCONNECTED) disconnected_count++;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
}

static void on_call_media_state(pjsua_call_id call) {
    pjsua_call_info info;
    unsigned i;
    if (pjsua_call_get_info(call, &info) != PJ_SUCCESS) return;
    for (i = 0; i < info.media_cnt; ++i) {
        if (info.media[i].type == PJMEDIA_TYPE_AUDIO && info.media[i].status == PJSUA_CALL_MEDIA_ACTIVE) {
            pjsua_conf_connect(info.media[i].stream.aud.conf_slot, 0);
            pjsua_conf_connect(0, info.media[i].stream.aud.conf_slot);
        }
    }
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Waits until `*counter` reaches `target` (5 s bound). */
static int wait_count(int *counter, int target) {
    struct timespec deadline;
    int ok = 1;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 5;
    pthread_mutex_lock(&lock);
    while (*counter < target && ok) ok = pthread_cond_timedwait(&changed, &lock, &deadline) == 0;
    ok = *counter >= target;
    pthread_mutex_unlock(&lock);
    return ok;
}

static pjsua_call_id wait_incoming(void) {
    struct timespec deadline;
    pjsua_call_id call;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 5;
    pthread_mutex_lock(&lock);
    while (incoming_call == PJSUA_INVALID_ID) {
        if (pthread_cond_timedwait(&changed, &lock, &deadline) != 0) break;
    }
    call = incoming_call;
    incoming_call = PJSUA_INVALID_ID;
    pthread_mutex_unlock(&lock);
    return call;
}

#if defined(PJMEDIA_HAS_OPUS_CODEC) && PJMEDIA_HAS_OPUS_CODEC
/* Sets Opus's internal sample rate; `previous` gets the one it had. pjmedia keeps it in a
 * process-wide static that outlives pjsua, so the loop puts it back before it ends. */
static pj_status_t set_opus_rate(unsigned rate, unsigned *previous) {
    pjmedia_codec_mgr *manager = pjmedia_endpt_get_codec_mgr(pjsua_get_pjmedia_endpt());
    const pjmedia_codec_info *info[1];
    unsigned count = 1;
    pj_str_t id = pj_str("opus/48000");
    pjmedia_codec_param param;
    pjmedia_codec_opus_config config;
    pj_status_t status = pjmedia_codec_mgr_find_codecs_by_id(manager, &id, &count, info, NULL);
    if (status != PJ_SUCCESS || count == 0) return status != PJ_SUCCESS ? status : PJ_ENOTFOUND;
    if ((status = pjmedia_codec_mgr_get_default_param(manager, info[0], &param)) != PJ_SUCCESS) return status;
    if ((status = pjmedia_codec_opus_get_config(&config)) != PJ_SUCCESS) return status;
    if (previous != NULL) *previous = config.sample_rate;
    config.sample_rate = rate;
    param.setting.dec_fmtp.cnt = 0;  /* rebuilt from the configuration (see CPJSUASupport/OpusSettings.c) */
    return pjmedia_codec_opus_set_default_param(&config, &param);
}
#endif

/* The engine's codec choice (Configuration.preferredCodecs ["opus"], MediaSettings.opusSampleRate
 * nil): Opus first, running at the bridge's clock rate where Opus has that rate. Without it this
 * loop's calls would be pjmedia's first pick (speex/16000) and not the engine's. */
static pj_status_t prefer_opus_at(unsigned bridge_rate, unsigned *previous_rate) {
#if defined(PJMEDIA_HAS_OPUS_CODEC) && PJMEDIA_HAS_OPUS_CODEC
    pj_str_t id = pj_str("opus");
    unsigned rate = (bridge_rate == 8000 || bridge_rate == 16000 || bridge_rate == 48000) ? bridge_rate : 48000;
    pj_status_t status = set_opus_rate(rate, previous_rate);
    return status == PJ_SUCCESS ? pjsua_codec_set_priority(&id, 255) : status;
#else
    (void)bridge_rate;
    *previous_rate = 0;
    return PJ_SUCCESS;
#endif
}

int cpjsua_baseline_setup(int calls, double *setup_ms, double *durations_ms) {
    static pj_thread_desc desc;
    pj_thread_t *thread;
    pjsua_config cfg;
    pjsua_logging_config log_cfg;
    pjsua_media_config media_cfg;
    pjsua_transport_config tcfg;
    pjsua_call_setting call_opt;
    pjsua_transport_id tid;
    pjsua_transport_info tinfo;
    pjsua_acc_id acc;
    char uri[128];
    pj_str_t dst;
    int i, rc = 0;
    unsigned previous_opus_rate = 0;

    /* PJLIB first, then this thread, then pjsua: pjsua_create() takes a pool lock, which needs
     * a registered thread, and its pj_init() registers the caller only when PJLIB was down. */
    if (pj_init() != PJ_SUCCESS) return -1;
    /* Each run has a thread of its own and runs after the last one's thread ended: the static
     * descriptor outlives every one, and is cleared of the last registration first (PJLIB
     * asserts when a descriptor still names another thread). */
    pj_bzero(desc, sizeof(desc));
    if (!pj_thread_is_registered() && pj_thread_register("baseline", desc, &thread) != PJ_SUCCESS) {
        pj_shutdown();
        return -1;
    }
    if (pjsua_create() != PJ_SUCCESS) {
        pj_shutdown();
        return -1;
    }
    pjsua_config_default(&cfg);
    cfg.thread_cnt = 1;
    cfg.cb.on_incoming_call = on_incoming_call;
    cfg.cb.on_call_state = on_call_state;
    cfg.cb.on_call_media_state = on_call_media_state;
    pjsua_logging_config_default(&log_cfg);
    log_cfg.level = 0;
    log_cfg.console_level = 0;
    pjsua_media_config_default(&media_cfg);
    media_cfg.no_vad = 1;
    if (pjsua_init(&cfg, &log_cfg, &media_cfg) != PJ_SUCCESS) { rc = -2; goto done; }
    pjsua_transport_config_default(&tcfg);
    tcfg.port = 0;
    tcfg.bound_addr = pj_str("127.0.0.1");
    if (pjsua_transport_create(PJSIP_TRANSPORT_UDP, &tcfg, &tid) != PJ_SUCCESS) { rc = -3; goto done; }
    if (pjsua_start() != PJ_SUCCESS) { rc = -4; goto done; }
    if (prefer_opus_at(media_cfg.clock_rate, &previous_opus_rate) != PJ_SUCCESS) { rc = -12; goto done; }
    if (pjsua_set_null_snd_dev() != PJ_SUCCESS) { rc = -5; goto done; }
    if (pjsua_acc_add_local(tid, PJ_TRUE, &acc) != PJ_SUCCESS) { rc = -6; goto done; }
    pjsua_transport_get_info(tid, &tinfo);
    pj_ansi_snprintf(uri, sizeof(uri), "sip:bench@%.*s:%d", (int)tinfo.local_name.host.slen,
                     tinfo.local_name.host.ptr, tinfo.local_name.port);
    dst = pj_str(uri);
    /* Audio only, as the engine's calls (pjsua's default call setting offers video when the
     * library has it, and a T.140 text stream). */
    pjsua_call_setting_default(&call_opt);
    call_opt.vid_cnt = 0;
    call_opt.txt_cnt = 0;
    for (i = 0; i < calls; ++i) {
        pjsua_call_id out, in;
        int base_confirmed, base_disconnected;
        double start;
        pthread_mutex_lock(&lock);
        base_confirmed = confirmed_count;
        base_disconnected = disconnected_count;
        pthread_mutex_unlock(&lock);
        start = now_ms();
        if (pjsua_call_make_call(acc, &dst, &call_opt, NULL, NULL, &out) != PJ_SUCCESS) { rc = -7; break; }
        in = wait_incoming();
        if (in == PJSUA_INVALID_ID) { rc = -8; break; }
        if (pjsua_call_answer2(in, &call_opt, 200, NULL, NULL) != PJ_SUCCESS) { rc = -9; break; }
        if (!wait_count(&confirmed_count, base_confirmed + 2)) { rc = -10; break; }
        setup_ms[i] = now_ms() - start;
        pjsua_call_hangup(out, 0, NULL, NULL);
        if (!wait_count(&disconnected_count, base_disconnected + 2)) { rc = -11; break; }
        durations_ms[i] = now_ms() - start;
    }
done:
#if defined(PJMEDIA_HAS_OPUS_CODEC) && PJMEDIA_HAS_OPUS_CODEC
    if (previous_opus_rate != 0) set_opus_rate(previous_opus_rate, NULL);
#endif
    pjsua_destroy2(PJSUA_DESTROY_NO_RX_MSG);
    pj_shutdown();
    return rc;
}
