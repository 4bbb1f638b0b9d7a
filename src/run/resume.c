/* Resume from an earlier run's shards. See resume.h. */
#include "run/resume.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "census/registry.h"
#include "util/fsutil.h"
#include "census/shard.h"

int gc_resume_load(gc_resume *rs, const char *shard_path, const char *plan_sha256,
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
    if (strcmp(meta.plan_sha256, plan_sha256) != 0)
        return gc_fail(err, GC_EINVAL,
                       "%s was written by another plan (%s, sha256 %.12s...; this one is "
                       "%.12s...): resume needs the same plan file", shard_path, meta.plan_file,
                       meta.plan_sha256, plan_sha256);
    if (uuid && uuid[0] && strcmp(rs->old.info.uuid, uuid) != 0) {
        snprintf(rs->note, sizeof rs->note, "earlier shard is of another GPU (%.60s, now %.60s): "
                 "measuring everything", rs->old.info.uuid, uuid);
        return 0;
    }
    /* An item is done when it has points and none of them failed. */
    uint8_t *failed = calloc(rs->nbytes, 1);
    if (!failed)
        return gc_fail(err, GC_ENOMEM, "out of memory");
    for (size_t i = 0; i < rs->old.npoints; i++) {
        const gc_point *p = &rs->old.points[i];
        if (p->item_id >= nitems)
            continue;
        uint8_t bit = (uint8_t)(1u << (p->item_id & 7));
        /* measured with another method than this build's: measure again */
        int now = gc_bench_method(p->bench);
        if (p->status == GC_PT_OK && (!now || gc_gpu_method(&rs->old, p->bench) == now))
            rs->done[p->item_id >> 3] |= bit;
        else
            failed[p->item_id >> 3] |= bit;
    }
    for (size_t b = 0; b < rs->nbytes; b++)
        rs->done[b] &= (uint8_t)~failed[b];
    free(failed);
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
        if (p->item_id < rs->nbytes * 8 && gc_resume_bit(rs->done, p->item_id))
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
    memset(rs, 0, sizeof *rs);
}
