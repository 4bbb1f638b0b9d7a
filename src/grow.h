/* Growing arrays: the one doubling realloc every module with a vector of
 * records uses. */
#ifndef GC_GROW_H
#define GC_GROW_H

#include <stddef.h>

/* Make room in *arr (capacity *cap elements of elem bytes) for need
 * elements, doubling from 16. Returns 0, or GC_ENOMEM with *arr and *cap
 * unchanged. */
int gc_grow(void **arr, size_t *cap, size_t need, size_t elem);

#endif
