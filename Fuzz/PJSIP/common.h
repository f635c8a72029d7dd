/*
 * What every PJSIP fuzz target shares: PJLIB set up once (pj_init, a caching pool, logging off),
 * a pool per input, and printing into buffers of an exact size.
 *
 * The caching pool keeps no released memory (capacity 0): a pool released after an input gives
 * its blocks back to malloc at once, so AddressSanitizer sees a later use of them.
 *
 * Printing: PJSIP's printers take a buffer and a size and must stop at its end. fuzz_print_tight
 * prints an object into a block the size of its output, then into each size just short of that,
 * each time into the last bytes of one heap block, so a write one byte past the size given is a
 * heap-buffer-overflow report (SEC-5 and SEC-6 were such writes).
 *
 * Exceptions: PJLIB's PJ_TRY keeps a record in its stack frame on a per-thread chain that PJ_END
 * takes off again. A function that leaves its PJ_TRY some other way (a goto, a return) leaves a
 * record of a frame that no longer exists at the head of the chain, and the next exception thrown
 * outside a live PJ_TRY on that thread jumps into it (KL-53.12). Each target checks after every
 * input that the chain is empty (fuzz_check_exception_chain), so such an input is a finding; an
 * exception thrown with no PJ_TRY at all (KL-53.11) is one already: pj_throw_exception_ asserts.
 */
#ifndef SWIFT_PJSUA_FUZZ_COMMON_H
#define SWIFT_PJSUA_FUZZ_COMMON_H

#include <pjlib.h>
#include <pjlib-util.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pj_caching_pool fuzz_cp;

/* pj_init and the caching pool; call from LLVMFuzzerInitialize. Aborts when PJLIB cannot start:
 * a target that runs without it would report nothing. */
static inline void fuzz_pj_init(void) {
    pj_log_set_level(0);
    if (pj_init() != PJ_SUCCESS || pjlib_util_init() != PJ_SUCCESS) abort();
    pj_log_set_level(0);
    pj_caching_pool_init(&fuzz_cp, NULL, 0);
}

static inline pj_pool_t *fuzz_pool(const char *name) {
    return pj_pool_create(&fuzz_cp.factory, name, 4000, 4000, NULL);
}

/* Aborts, naming the leak, when this thread's exception chain is not empty between inputs. */
static inline void fuzz_check_exception_chain(void) {
    PJ_USE_EXCEPTION;
    volatile int left = 0;
    PJ_TRY {
        left = pj_x_except__.prev != NULL;  /* the record under ours: none when the chain was empty */
    }
    PJ_CATCH_ANY {}
    PJ_END;
    if (left) {
        fprintf(stderr, "fuzz: a PJ_TRY handler was left in the exception chain (a PJ_TRY left without PJ_END)\n");
        abort();
    }
}

/* A heap copy of the input with a NUL after it (PJSIP's scanners read to a NUL, and the
 * transport layer NUL-terminates every packet it hands the parser). */
static inline char *fuzz_cstring(const uint8_t *data, size_t size) {
    char *copy = (char *)malloc(size + 1);
    if (copy == NULL) abort();
    if (size > 0) memcpy(copy, data, size);
    copy[size] = '\0';
    return copy;
}

/* A printer of PJSIP's shape: writes at most `size` bytes of `object` into `buf`, returns the
 * length written, or -1 (some printers 0) when it does not fit. */
typedef int (*fuzz_printer)(const void *object, char *buf, pj_size_t size);

/* Prints `object` into a roomy buffer to learn its length n, then again into blocks of exactly n
 * bytes and fewer: every size from n down to n - tail and from head down to 0 (an output cut
 * near its start is where a header's name and its ": " are written). Each print goes into the
 * end of one malloc'd block, so writing past the size given lands in AddressSanitizer's redzone. */
static inline void fuzz_print_tight(fuzz_printer print, const void *object, pj_size_t roomy, pj_size_t head,
                             pj_size_t tail) {
    char *buf = (char *)malloc(roomy);
    if (buf == NULL) abort();
    int full = print(object, buf, roomy);
    free(buf);
    if (full <= 0 || (pj_size_t)full >= roomy) return;
    pj_size_t n = (pj_size_t)full;
    char *block = (char *)malloc(n);
    if (block == NULL) abort();
    for (pj_size_t size = n + 1; size-- > 0;) {
        pj_size_t from_top = n - size;
        if (from_top > tail && size > head) {
            size = head + 1;  /* skip the middle: sizes far from both ends */
            continue;
        }
        (void)print(object, block + (n - size), size);
    }
    free(block);
}

#endif
