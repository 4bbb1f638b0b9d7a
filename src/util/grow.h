/* Growing arrays: the one doubling realloc every module with a vector of
 * records uses, huge pages for the large ones, and blocks of records freed
 * together. */
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

/* Blocks of bytes handed out in order and freed together: many records
 * that live as long as their owner (a detector's strings, its GPUs'
 * values) without a heap block each. Zeroed: empty. */
typedef struct gc_blocks {
    char **b;
    size_t n, used, cap;   /* blocks; bytes used and held by the last one */
} gc_blocks;
/* bytes, 8-aligned, out of a block of at least block_bytes (huge pages
 * from GC_HUGE_MIN up). NULL: out of memory. */
void *gc_blocks_take(gc_blocks *a, size_t bytes, size_t block_bytes);
/* p, the last take of `bytes`, keeps its first `keep`: the rest goes to
 * the next take. */
void gc_blocks_keep(gc_blocks *a, const void *p, size_t bytes, size_t keep);
void gc_blocks_free(gc_blocks *a);   /* empty again */

#endif
