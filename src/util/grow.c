/* Growing arrays. See grow.h. */
#include "util/grow.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "util/err.h"

void gc_huge_advise(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    const uintptr_t huge = (uintptr_t)2 << 20;
    if (!p || bytes < GC_HUGE_MIN)
        return;
    uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1), hi = ((uintptr_t)p + bytes) & ~(huge - 1);
    if (hi > lo)
        (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);   /* refused: 4 KiB pages, as before */
#else
    (void)p, (void)bytes;
#endif
}

int gc_grow(void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t ncap = *cap ? *cap * 2 : 16;
    while (ncap < need)
        ncap *= 2;
    void *p = realloc(*arr, ncap * elem);
    if (!p)
        return GC_ENOMEM;
    gc_huge_advise(p, ncap * elem);   /* from GC_HUGE_MIN up */
    *arr = p;
    *cap = ncap;
    return 0;
}

void *gc_blocks_take(gc_blocks *a, size_t bytes, size_t block_bytes)
{
    size_t at = (a->used + 7) & ~(size_t)7;
    if (!a->n || at + bytes > a->cap) {
        size_t cap = bytes > block_bytes ? bytes : block_bytes;
        char **nb = realloc(a->b, (a->n + 1) * sizeof *nb);
        if (!nb)
            return NULL;
        a->b = nb;
        if (!(nb[a->n] = malloc(cap ? cap : 1)))
            return NULL;
        gc_huge_advise(nb[a->n], cap);
        a->n++;
        a->cap = cap;
        at = 0;
    }
    a->used = at + bytes;
    return a->b[a->n - 1] + at;
}

void gc_blocks_keep(gc_blocks *a, const void *p, size_t bytes, size_t keep)
{
    if (a->n && (const char *)p + bytes == a->b[a->n - 1] + a->used)
        a->used -= bytes - keep;
}

void gc_blocks_free(gc_blocks *a)
{
    for (size_t i = 0; i < a->n; i++)
        free(a->b[i]);
    free(a->b);
    *a = (gc_blocks){ 0 };
}
