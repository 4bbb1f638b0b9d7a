/* Growing arrays. See grow.h. */
#include "grow.h"

#include <stdlib.h>

#include "err.h"

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
    *arr = p;
    *cap = ncap;
    return 0;
}
