/* The pool releases a probe watches (each that includes this defines `note_release`, which may
 * report and exit before the pool is released): this program's pj_pool_release and
 * pj_pool_safe_release interpose on the library's (libpjmedia calls both through its PLT). */
#ifndef POOL_RELEASE_HOOK_H
#define POOL_RELEASE_HOOK_H

#include <dlfcn.h>
#include <pjlib.h>

static void note_release(pj_pool_t *pool);

typedef void (*pool_release_fn)(pj_pool_t *);
typedef void (*pool_safe_release_fn)(pj_pool_t **);

void pj_pool_release(pj_pool_t *pool)
{
    static pool_release_fn real;
    if (real == NULL) real = (pool_release_fn)dlsym(RTLD_NEXT, "pj_pool_release");
    note_release(pool);
    real(pool);
}

void pj_pool_safe_release(pj_pool_t **ppool)
{
    static pool_safe_release_fn real;
    if (real == NULL) real = (pool_safe_release_fn)dlsym(RTLD_NEXT, "pj_pool_safe_release");
    if (ppool != NULL) note_release(*ppool);
    real(ppool);
}

#endif
