/* `gpucensus run --resume OUT`: what an earlier run of the same plan left
 * in OUT's shards, so that only the rest is measured.
 *
 * Each rank reads its own GPU's shard (the same node name and GPU index),
 * if there is one: the work items with results and no failure are done,
 * failed items are measured again. Its results are carried into the new
 * run, whose shard then holds old and new together. A shard of another
 * plan (plan SHA-256) is refused; a shard of another GPU (UUID) is
 * ignored with a warning. A pair or net item is one task per partner (the
 * same item id with several peers), so what is done is kept per item and
 * peer: such a task is skipped only when the rank that initiates it has it
 * done with that peer, and one that failed is measured again by both; the
 * caller shares the initiators' lists between ranks (MPI stays in run.c). */
#ifndef GC_RESUME_H
#define GC_RESUME_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"
#include "census/results.h"
#include "plan/schedule.h"

typedef struct gc_resume {
    uint8_t *shard;        /* the old shard's bytes: carried points borrow from them */
    size_t shard_len;
    gc_gpu old;            /* decoded; its done points move into the new run */
    int have;              /* 1: a usable shard was found */
    size_t nbytes;         /* bytes of one bitmap: (nitems + 7) / 8 */
    uint8_t *done;         /* this rank's bitmap of done items without a peer */
    uint64_t *pairs;       /* done (item, peer) of its items with a peer, sorted (gc_resume_key) */
    size_t npairs;
    char note[256];        /* why nothing was taken (no shard, other GPU), for a message */
} gc_resume;

/* Read shard_path (missing: nothing done). It must be of run, the run
 * being resumed (gc_run_same: its plan, and its start time where known):
 * one of another plan is GC_EINVAL, naming the file and --resume-reshape,
 * unless reshape (then, as one of another run of the plan or of another
 * GPU than uuid, it is set aside with a note: the GPU is measured anew). */
int gc_resume_load(gc_resume *rs, const char *shard_path, const gc_run_meta *run, int reshape,
                   const char *uuid, size_t nitems, gc_err *err);
/* Move the points of skipped tasks into gpu (which holds no points yet):
 * rs->done and rs->pairs, as the caller left them, say which. */
int gc_resume_carry(gc_resume *rs, gc_gpu *gpu, gc_err *err);
static inline int gc_resume_bit(const uint8_t *bitmap, uint32_t item)
{
    return (bitmap[item >> 3] >> (item & 7)) & 1;
}
static inline uint64_t gc_resume_key(uint32_t item, int peer_rank)
{
    return (uint64_t)item << 32 | (uint32_t)peer_rank;
}
/* A pair task's peer is a GPU of the node (its points say peer_gpu, the
 * local index), a net task's a rank (peer_rank): keys of the first kind
 * carry this bit. */
#define GC_RESUME_LOCAL 0x40000000
/* The key of a task with a peer as its initiator records it: with the
 * peer's id, or, for the responder's look-up (self), with this rank's own
 * (rank, local_rank). */
uint64_t gc_resume_task_key(const gc_task *t, int self, int rank, int local_rank);
/* Whether the sorted keys hold key. */
int gc_resume_has(const uint64_t *keys, size_t n, uint64_t key);
/* Sort keys and drop repeats; returns the new count. */
size_t gc_resume_sort(uint64_t *keys, size_t n);
void gc_resume_free(gc_resume *rs);

#endif
