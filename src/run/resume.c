/* Resume from an earlier run's shards. See resume.h. */
#include "run/resume.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "census/registry.h"
#include "util/fsutil.h"
#include "census/shard.h"

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

size_t gc_resume_sort(uint64_t *keys, size_t n)
{
    if (n < 2)
        return n;
    qsort(keys, n, sizeof *keys, cmp_u64);
    size_t m = 1;
    for (size_t i = 1; i < n; i++)
        if (keys[i] != keys[m - 1])
            keys[m++] = keys[i];
    return m;
}

int gc_resume_has(const uint64_t *keys, size_t n, uint64_t key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (keys[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && keys[lo] == key;
}

uint64_t gc_resume_task_key(const gc_task *t, int self, int rank, int local_rank)
{
    int local = !t->peer_node && t->peer_local_index >= 0;
    int id = self ? (local ? local_rank : rank) : (local ? t->peer_local_index : t->peer_rank);
    return gc_resume_key(t->item->id, local ? GC_RESUME_LOCAL | id : id);
}

/* The peer of a point of a pair or net task (as gc_resume_task_key
 * names it), -1: none. */
static int point_peer(const gc_point *p)
{
    double v = gc_ctx_num(&p->ctx, "peer_rank", -1), g = gc_ctx_num(&p->ctx, "peer_gpu", -1);
    if (v >= 0 && v < GC_RESUME_LOCAL)
        return (int)v;
    return g >= 0 && g < 65536 ? GC_RESUME_LOCAL | (int)g : -1;
}

int gc_resume_load(gc_resume *rs, const char *shard_path, const gc_run_meta *run, int reshape,
                   const char *uuid, size_t nitems, gc_err *err)
{
    memset(rs, 0, sizeof *rs);
    gc_gpu_init(&rs->old);
    rs->nbytes = (nitems + 7) / 8 ? (nitems + 7) / 8 : 1;
    rs->done = calloc(rs->nbytes, 1);
    if (!rs->done)
        return gc_fail(err, GC_ENOMEM, "out of memory");
    gc_err e = { 0 };
    if (gc_read_file_in(shard_path, 2, GC_SHARD_MAX_BYTES + 64, &rs->shard, &rs->shard_len, &e)) {
        snprintf(rs->note, sizeof rs->note, "no earlier shard (%.200s)", e.msg);
        return 0;
    }
    gc_run_meta meta;
    if (gc_shard_decode(rs->shard, rs->shard_len, &meta, &rs->old, &e)) {
        snprintf(rs->note, sizeof rs->note, "earlier shard unreadable (%.200s)", e.msg);
        return 0;
    }
    gc_err why = { 0 };
    int other = gc_run_same(&meta, run, &why);
    if (other == 1 && !reshape)
        return gc_fail(err, GC_EINVAL,
                       "%s is a shard %s: --resume needs the run's plan file; --resume-reshape "
                       "measures this GPU anew", shard_path, why.msg);
    if (other) {
        snprintf(rs->note, sizeof rs->note, "%.90s is a shard %.110s: measuring this GPU anew",
                 shard_path, why.msg);
        return 0;
    }
    if (uuid && uuid[0] && strcmp(rs->old.info.uuid, uuid) != 0) {
        snprintf(rs->note, sizeof rs->note, "earlier shard is of another GPU (%.60s, now %.60s): "
                 "measuring everything", rs->old.info.uuid, uuid);
        return 0;
    }
    /* An item (with a peer: an item and peer) is done when it has points
     * and none of them failed. */
    uint8_t *failed = calloc(rs->nbytes, 1);
    uint64_t *bad = malloc((rs->old.npoints ? rs->old.npoints : 1) * sizeof *bad);
    rs->pairs = malloc((rs->old.npoints ? rs->old.npoints : 1) * sizeof *rs->pairs);
    if (!failed || !bad || !rs->pairs) {
        free(failed), free(bad);
        return gc_fail(err, GC_ENOMEM, "out of memory");
    }
    size_t nbad = 0;
    for (size_t i = 0; i < rs->old.npoints; i++) {
        const gc_point *p = &rs->old.points[i];
        if (p->item_id >= nitems || gc_ctx_get(&p->ctx, "confirm") || gc_ctx_get(&p->ctx, "net_check"))
            continue;   /* a confirmation or net check is no measurement of the plan's (see carry) */
        uint8_t bit = (uint8_t)(1u << (p->item_id & 7));
        int peer = point_peer(p);
        /* measured with another method than this build's: measure again */
        int now = gc_bench_method(p->bench);
        int ok = p->status == GC_PT_OK && (!now || gc_gpu_method(&rs->old, p->bench) == now);
        if (peer >= 0 && ok)
            rs->pairs[rs->npairs++] = gc_resume_key(p->item_id, peer);
        else if (peer >= 0)
            bad[nbad++] = gc_resume_key(p->item_id, peer);
        else if (ok)
            rs->done[p->item_id >> 3] |= bit;
        else
            failed[p->item_id >> 3] |= bit;
    }
    for (size_t b = 0; b < rs->nbytes; b++)
        rs->done[b] &= (uint8_t)~failed[b];
    free(failed);
    nbad = gc_resume_sort(bad, nbad);
    rs->npairs = gc_resume_sort(rs->pairs, rs->npairs);
    size_t m = 0;
    for (size_t i = 0; i < rs->npairs; i++)
        if (!gc_resume_has(bad, nbad, rs->pairs[i]))
            rs->pairs[m++] = rs->pairs[i];
    rs->npairs = m;
    free(bad);
    rs->have = 1;
    return 0;
}

int gc_resume_carry(gc_resume *rs, gc_gpu *gpu, gc_err *err)
{
    if (!rs->have || gpu->npoints)
        return gpu->npoints ? gc_fail(err, GC_EINVAL, "resume: the GPU already has points") : 0;
    size_t n = 0, total = rs->old.npoints;
    for (size_t i = 0; i < total; i++) {
        gc_point *p = &rs->old.points[i];
        int peer = point_peer(p);
        /* the old run's confirmations and net checks are dropped: this run
         * confirms and checks again what its judgment then blames (no point
         * twice); so are failures of a task done (its other end's) */
        if (p->status == GC_PT_OK && !gc_ctx_get(&p->ctx, "confirm") && !gc_ctx_get(&p->ctx, "net_check") &&
            (peer >= 0 ? gc_resume_has(rs->pairs, rs->npairs, gc_resume_key(p->item_id, peer))
                      : p->item_id < rs->nbytes * 8 && gc_resume_bit(rs->done, p->item_id)))
            rs->old.points[n++] = *p;
        else
            gc_hist_free(&p->hist);
    }
    free(gpu->points);
    gpu->points = rs->old.points;
    gpu->npoints = n;
    gpu->cap_points = total > rs->old.cap_points ? total : rs->old.cap_points;
    rs->old.points = NULL;
    rs->old.npoints = rs->old.cap_points = 0;
    return 0;
}

void gc_resume_free(gc_resume *rs)
{
    gc_gpu_free(&rs->old);
    free(rs->shard);
    free(rs->done);
    free(rs->pairs);
    memset(rs, 0, sizeof *rs);
}
