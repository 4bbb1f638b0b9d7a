/* `gpucensus run --resume OUT`: what an earlier run of the same plan left
 * in OUT's shards, so that only the rest is measured.
 *
 * Each rank reads its own GPU's shard (the same node name and GPU index),
 * if there is one: the work items with results and no failure are done,
 * failed items are measured again. Its results are carried into the new
 * run, whose shard then holds old and new together. A shard of another
 * plan (plan SHA-256) is refused; a shard of another GPU (UUID) is
 * ignored with a warning. Pair and net items are skipped only when the
 * rank that initiates them has them done; the caller shares the bitmaps
 * between ranks (MPI stays in run.c). */
#ifndef GC_RESUME_H
#define GC_RESUME_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"
#include "census/results.h"

typedef struct gc_resume {
    uint8_t *shard;        /* the old shard's bytes: carried points borrow from them */
    size_t shard_len;
    gc_gpu old;            /* decoded; its done points move into the new run */
    int have;              /* 1: a usable shard was found */
    size_t nbytes;         /* bytes of one bitmap: (nitems + 7) / 8 */
    uint8_t *done;         /* this rank's bitmap of done items */
    char note[256];        /* why nothing was taken (no shard, other GPU), for a message */
} gc_resume;

/* Read shard_path (missing: nothing done). plan_sha256 must match the
 * shard's; uuid (the GPU now) should. GC_EINVAL for another plan. */
int gc_resume_load(gc_resume *rs, const char *shard_path, const char *plan_sha256,
                   const char *uuid, size_t nitems, gc_err *err);
/* Move the done items' points into gpu (which holds no points yet). */
int gc_resume_carry(gc_resume *rs, gc_gpu *gpu, gc_err *err);
static inline int gc_resume_bit(const uint8_t *bitmap, uint32_t item)
{
    return (bitmap[item >> 3] >> (item & 7)) & 1;
}
void gc_resume_free(gc_resume *rs);

#endif
