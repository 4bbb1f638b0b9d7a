/* Growing arrays: the one doubling realloc every module with a vector of
 * records uses, and huge pages for the large ones. */
#ifndef GC_GROW_H
#define GC_GROW_H

#include <stddef.h>

/* Make room in *arr (capacity *cap elements of elem bytes) for need
 * elements, doubling from 16. Returns 0, or GC_ENOMEM with *arr and *cap
 * unchanged. An array of GC_HUGE_MIN bytes or more is advised onto huge
 * pages (gc_huge_advise). */
int gc_grow(void **arr, size_t *cap, size_t need, size_t elem);

/* Asks for transparent huge pages (MADV_HUGEPAGE) under the 2 MiB-aligned
 * part of [p, p + bytes) when bytes >= GC_HUGE_MIN: rank 0 of a census of
 * thousands of GPUs keeps hundreds of MB of values, links and verdicts,
 * and on 4 KiB pages every pass over them misses the TLB per GPU and every
 * new page faults (on a virtual machine each fault goes to the host). A
 * no-op where THP is off ("never") or unknown; the memory is the same. */
#define GC_HUGE_MIN (4u << 20)
void gc_huge_advise(void *p, size_t bytes);

#endif
