/*
 * xml_bodies: the XML bodies a NOTIFY, a PUBLISH or a MESSAGE brings, through the parsers pjsua
 * runs on them: PIDF with RPID (presence), X-PIDF, dialog-info (the dialog event package) and
 * is-composing (RFC 3994, a MESSAGE). message-summary is not XML and pjsip does not parse it
 * (mwi.c passes the body on; the engine reads it in Swift): it reaches this fuzzer only as a
 * NOTIFY's body in sip_endpoint.
 *
 * Per input: pj_xml_parse, the tree printed and cloned; pjsip_pres_parse_pidf2 (pjpidf_parse, the
 * tuples, RPID's <person>), pjsip_pres_parse_xpidf2, pjsip_dlg_event_parse_dialog_info2,
 * pjsip_iscomposing_parse, each on a fresh copy of the body (they parse in place).
 *
 * The parsing runs on a worker thread with a 512 KiB stack: the stack of an iOS secondary thread,
 * where pjsua's worker runs in the iOS binary. pj_xml_parse recurses once per nesting level, so a
 * body nested deep enough overflows that stack (an AddressSanitizer stack-overflow report). Frames
 * are larger under AddressSanitizer than in a release build, so the depth that overflows here is
 * lower than on a device; what matters is that no depth limit stops it.
 */
#include <pjsip.h>
#include <pjsip_simple.h>
#include <pthread.h>
#include <semaphore.h>
#include "common.h"

enum { WORKER_STACK_BYTES = 512 * 1024 };

static pjsip_endpoint *endpoint;
static pthread_t worker;
static sem_t job_ready, job_done;
static const uint8_t *job_data;
static size_t job_size;

static char *copy_of(pj_pool_t *pool, const uint8_t *data, size_t size) {
    /* One byte more than the body: the parsers put a NUL there for the time they parse. */
    char *text = (char *)pj_pool_alloc(pool, size + 2);
    if (size > 0) memcpy(text, data, size);
    text[size] = '\0';
    text[size + 1] = '\0';
    return text;
}

static void parse_all(const uint8_t *data, size_t size) {
    pj_pool_t *pool = fuzz_pool("xml");

    pj_xml_node *root = pj_xml_parse(pool, copy_of(pool, data, size), size);
    if (root != NULL) {
        char *out = (char *)malloc(size * 2 + 4096);
        if (out == NULL) abort();
        (void)pj_xml_print(root, out, size * 2 + 4096, PJ_TRUE);
        free(out);
        pj_xml_node *copy = pj_xml_clone(pool, root);
        static const pj_str_t tuple = { "tuple", 5 }, dialog = { "dialog", 6 };
        if (copy != NULL) {
            (void)pj_xml_find_node(copy, &tuple);
            (void)pj_xml_find_node_rec(copy, &dialog);
        }
    }

    pjsip_pres_status presence;
    pj_bzero(&presence, sizeof(presence));
    (void)pjsip_pres_parse_pidf2(copy_of(pool, data, size), (unsigned)size, pool, &presence);

    pj_bzero(&presence, sizeof(presence));
    (void)pjsip_pres_parse_xpidf2(copy_of(pool, data, size), (unsigned)size, pool, &presence);

    pjsip_dlg_event_status dialogs;
    pj_bzero(&dialogs, sizeof(dialogs));
    (void)pjsip_dlg_event_parse_dialog_info2(copy_of(pool, data, size), (unsigned)size, pool, &dialogs);

    pj_bool_t composing = PJ_FALSE;
    pj_str_t *last_active = NULL, *content_type = NULL;
    int refresh = 0;
    (void)pjsip_iscomposing_parse(pool, copy_of(pool, data, size), size, &composing, &last_active, &content_type,
                                  &refresh);

    pj_pool_release(pool);
}

static void *worker_main(void *unused) {
    (void)unused;
    static pj_thread_desc desc;
    pj_thread_t *thread = NULL;
    if (pj_thread_register("fuzz-xml", desc, &thread) != PJ_SUCCESS) abort();
    for (;;) {
        while (sem_wait(&job_ready) != 0) {
        }
        parse_all(job_data, job_size);
        fuzz_check_exception_chain();
        sem_post(&job_done);
    }
    return NULL;
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    fuzz_pj_init();
    /* The endpoint sets up the SIP parser, which the presence code's URI handling uses. */
    if (pjsip_endpt_create(&fuzz_cp.factory, "fuzz", &endpoint) != PJ_SUCCESS) abort();
    pj_log_set_level(0);
    if (sem_init(&job_ready, 0, 0) != 0 || sem_init(&job_done, 0, 0) != 0) abort();
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, WORKER_STACK_BYTES);
    if (pthread_create(&worker, &attr, worker_main, NULL) != 0) abort();
    pthread_attr_destroy(&attr);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    job_data = data;
    job_size = size;
    sem_post(&job_ready);
    while (sem_wait(&job_done) != 0) {
    }
    return 0;
}
