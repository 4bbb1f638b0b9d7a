/* The order of judging (part of detect; see detect.h for the rules):
 * the GPUs put in their positions, their verdicts and groups, then the
 * GPUs' peers on a thread of their own (gc_detect_finish_start) while the
 * caller writes and judges the links (gc_detect_finish), then each GPU's
 * other rules, the common ends and the nodes.
 *
 * Layer 4 of detect, the top (detect_int.h): it calls every layer below,
 * and none calls it. */
#include "judge/detect.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/detect_int.h"

/* ---- finish ----------------------------------------------------------- */

static int by_order(const void *a, const void *b, void *ctx)
{
    const gc_detect *d = ctx;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    size_t x = d->g[i].order ? d->g[i].order : (size_t)-1, y = d->g[j].order ? d->g[j].order : (size_t)-1;
    if (x != y)
        return x < y ? -1 : 1;
    return (i > j) - (i < j);
}

static int by_group(const void *a, const void *b, void *ctx)
{
    const gc_detect *d = ctx;
    uint32_t x = d->g[*(const uint32_t *)a].group, y = d->g[*(const uint32_t *)b].group;
    if (x != y)
        return (x > y) - (x < y);
    return (*(const uint32_t *)a > *(const uint32_t *)b) - (*(const uint32_t *)a < *(const uint32_t *)b);
}

static void *peers_main(void *arg)
{
    peers_job *j = arg;
    gc_detect *d = j->d;
    for (size_t s = 0; s < d->ng && !j->rc;) {
        size_t e = s;
        while (e < d->ng && d->g[j->order[e]].group == d->g[j->order[s]].group)
            e++;
        if (e - s >= (size_t)d->r->min_peers)
            j->rc = det_judge_gpu_peers(d, j->order + s, e - s, d->v);
        s = e;
    }
    return NULL;
}

/* The judgement's first part: GPUs in their positions, the verdicts
 * preallocated, each GPU's verdict, group and node, the run's z and the
 * GPUs ordered by group. 0, or err made. */
static int fin_setup(gc_detect *d, gc_err *err)
{
    det_fin *F = &d->fin;
    const gc_rules *R = d->r;
    if (d->ordered && d->ng > 1) {
        /* GPUs given out of order: into their positions (stable), in
         * place, cycle by cycle (a copy of the records was 15 MB of new
         * pages at 16,384 GPUs, after the last record) */
        size_t *ix = malloc(d->ng * sizeof *ix);
        if (!ix)
            return gc_fail(err, GC_ENOMEM, "detect: out of memory");
        for (size_t i = 0; i < d->ng; i++)
            ix[i] = i;
        qsort_r(ix, d->ng, sizeof *ix, by_order, d);
        for (size_t i = 0; i < d->ng; i++) {
            if (ix[i] == i || ix[i] == SIZE_MAX)
                continue;
            grec t = d->g[i];   /* slot i takes ix[i]'s record, and so on round the cycle */
            size_t j = i;
            while (ix[j] != i) {
                size_t k = ix[j];
                d->g[j] = d->g[k];
                ix[j] = SIZE_MAX;
                j = k;
            }
            d->g[j] = t;
            ix[j] = SIZE_MAX;
        }
        free(ix);
    }
    if (d->base && det_baseline_seal(d->base))
        return gc_fail(err, GC_ENOMEM, "detect: out of memory");
    /* preallocate: GPUs, links, nodes (at most one per GPU and two per link) */
    size_t want = 2 * (d->ng + 2 * d->nl) + 1;
    gc_verdict *nv = realloc(d->v, want * sizeof *nv);
    if (!nv)
        return gc_fail(err, GC_ENOMEM, "detect: out of memory");
    d->v = nv;
    d->capv = want;
    /* not advised onto huge pages: a 2 MB page is new memory zeroed at
     * its first touch, after the last record; small pages reuse freed
     * ones (measured: bench_tree -R 16384, system time 0.28-0.31 ->
     * 0.18-0.20 s) */
    F->order = malloc((d->ng ? d->ng : 1) * sizeof *F->order);
    F->lsrc = malloc((d->nl ? d->nl : 1) * sizeof *F->lsrc);
    F->ldst = malloc((d->nl ? d->nl : 1) * sizeof *F->ldst);
    d->gnode = malloc((d->ng ? d->ng : 1) * sizeof *d->gnode);
    d->ls = malloc((d->nl ? d->nl : 1) * sizeof *d->ls);
    int rc = F->order && F->lsrc && F->ldst && d->gnode && d->ls ? 0 : GC_ENOMEM;
    char key[400];
    for (size_t i = 0; i < d->ng && !rc; i++) {
        grec *g = &d->g[i];
        snprintf(key, sizeof key, "%s, %lld SMs, %lld MiB, L2 %lld MiB, PCIe gen%d x%d", g->name,
                 g->sm_count, g->mem_bytes >> 20, g->l2_bytes >> 20, g->pcie_max_gen,
                 g->pcie_max_width);
        long id = gc_strtab_id(&d->groups, key, 1);
        det_gpu_key(key, GC_NODE_MAX + 16, g->node, g->index);
        if (id < 0 || gc_strtab_id(&F->ids, key, 1) != (long)i)
            rc = id < 0 ? GC_ENOMEM : GC_EINVAL;
        g->group = (uint32_t)id;
        F->order[i] = (uint32_t)i;
        if (!rc && (rc = det_node_id(d, g->node, &d->gnode[i])))
            break;
        gc_verdict *v = det_new_verdict(d, GC_SUBJ_GPU);
        if (!v || det_set_subject(d, v, "%s/gpu%d", g->node, g->index) ||
            (id >= 0 && det_set_group(d, v, d->groups.s[id]))) {
            rc = GC_ENOMEM;
            break;
        }
        v->gpu_index = g->index;
        if (!(v->node = det_vstr(d, g->node, GC_NODE_MAX)) || !(v->uuid = det_vstr(d, g->uuid, 48))) {
            rc = GC_ENOMEM;
            break;
        }
        v->used_baseline = d->base && det_baseline_knows_plan(d->base, g->name, g->uuid, d->plan);
    }
    if (rc == GC_EINVAL)
        return gc_fail(err, GC_EINVAL, "detect: two GPUs named %s", key);
    if (rc)
        return gc_fail(err, GC_ENOMEM, "detect: out of memory");
    /* every value of every GPU is one comparison with its peers (and one
     * of its distribution): the run's false-positive rate spread over them */
    double ncomp = 0;
    for (size_t i = 0; i < d->ng; i++)
        ncomp += 2.0 * (double)d->g[i].nv;
    d->z_fleet = gc_det_z_for(R->fleet_fp_rate, ncomp);
    qsort_r(F->order, d->ng, sizeof *F->order, by_group, d);
    return 0;
}

int gc_detect_finish_start(gc_detect *d, gc_err *err)
{
    det_fin *F = &d->fin;
    if (d->finished)
        return F->state == FIN_STARTED ? F->rc : 0;
    d->finished = 1;
    F->state = FIN_STARTED;
    if ((F->rc = fin_setup(d, err)))
        return F->rc;
    /* the GPUs' peers on a thread of their own while the caller goes on
     * (a writer writes, then gc_detect_finish judges the links): the
     * verdicts are preallocated, so neither moves the other's, neither
     * touches what the other writes, and each GPU's reasons come in the
     * same order as on one thread */
    F->pj = (peers_job){ d, F->order, 0 };
    F->threaded = det_threads_allowed() && pthread_create(&F->peers, NULL, peers_main, &F->pj) == 0;   /* signals: stop.h */
    return 0;
}

int gc_detect_finish(gc_detect *d, gc_err *err)
{
    det_fin *F = &d->fin;
    if (!d->finished && gc_detect_finish_start(d, err))
        return F->state = FIN_DONE, det_fin_free(d), F->rc;
    if (F->state != FIN_STARTED)
        return F->state == FIN_DONE ? F->rc : 0;   /* judged (or verdicts read, not judged) */
    F->state = FIN_DONE;
    if (F->rc) {
        det_fin_free(d);
        return F->rc;
    }
    const gc_rules *R = d->r;
    int rc = det_judge_links(d, &F->ids, F->lsrc, F->ldst);
    if (F->threaded)
        pthread_join(F->peers, NULL);
    else
        peers_main(&F->pj);
    if (!rc)
        rc = F->pj.rc;
    for (size_t s = 0; s < d->ng && !rc;) {
        size_t e = s;
        int links = 0;
        while (e < d->ng && d->g[F->order[e]].group == d->g[F->order[s]].group) {
            if (d->g[F->order[e]].nvlink_links > links)
                links = d->g[F->order[e]].nvlink_links;
            e++;
        }
        size_t n = e - s;
        for (size_t j = s; j < e && !rc; j++) {
            const grec *g = &d->g[F->order[j]];
            gc_verdict *v = &d->v[F->order[j]];
            v->peers = (int)n;
            v->used_peers = n >= (size_t)R->min_peers;
            if (n < (size_t)R->min_peers)
                rc = det_set_note(d, v,
                         "%zu GPU(s) of this SKU and topology in the run (< %d): judged from %s", n,
                         R->min_peers,
                         v->used_baseline ? "the baseline and limits alone"
                         : d->base && det_baseline_knows(d->base, g->name, g->uuid)
                             ? "limits alone (the baseline has no values of this plan for this SKU: it "
                               "judges only what the same plan measured)"
                         : d->base ? "limits alone (the baseline has nothing for this SKU)"
                                   : "limits alone (no baseline given)");
            if (!rc && v->used_baseline)
                rc = det_judge_baseline(d, g, v);
            if (!rc)
                rc = det_judge_limits(d, g, links, v);
            if (!rc)
                rc = det_temper_gpu(d, g, v);
            if (!rc && !strcmp(g->status, "incomplete"))
                det_temper_incomplete(v);
            if (!rc)
                rc = gc_verdict_group_reasons(v);
        }
        s = e;
    }
    if (!rc)
        rc = det_note_noisy_links(d, F->lsrc, F->ldst);
    det_hostgroups hg = { 0 };
    if (!rc)
        rc = det_host_groups(d, F->lsrc, F->ldst, &hg);
    if (!rc)
        rc = det_common_end(d, F->lsrc, F->ldst, hg.covered);
    if (!rc)
        rc = det_judge_nodes(d, &hg);
    det_host_groups_free(&hg);
    if (rc)
        rc = gc_fail(err, GC_ENOMEM, "detect: out of memory");
    det_fin_free(d);
    return F->rc = rc;
}
