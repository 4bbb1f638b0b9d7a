/* See confirm.h. */
#include "run/confirm.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/detect.h"
#include "judge/rules.h"
#include "util/stats.h"

#define NV 2   /* values per item: the median and the p95 of its first judged point */

int gc_confirm_is_remeasure(const gc_ctx *ctx)
{
    const gc_ctxv *v = gc_ctx_get(ctx, "confirm");
    return v && v->is_str && !strcmp(v->str, "remeasure");
}

static double sku_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; s && *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return (double)(h & 0xffffff);
}

/* This rank's value per GPU item: [sku, (p50, p95, better) per item]. */
static void screen_values(const gc_confirm_io *io, double *out)
{
    size_t w = 1 + 3 * io->nitems;
    for (size_t i = 0; i < w; i++)
        out[i] = NAN;
    out[0] = sku_hash(io->gpu->info.name);
    for (size_t i = 0; i < io->gpu->npoints; i++) {
        const gc_point *p = &io->gpu->points[i];
        if (p->item_id >= io->nitems || p->status != GC_PT_OK || !p->hist.total ||
            io->items[p->item_id].phase != GC_PHASE_GPU || gc_confirm_is_remeasure(&p->ctx) ||
            !strcmp(p->bench, "sustain"))
            continue;
        int better = gc_det_better_of_unit(p->unit);
        double *o = out + 1 + 3 * (size_t)p->item_id;
        if (!better || !isnan(o[0]))
            continue;   /* the item's first judged point speaks for it */
        gc_summary s;
        gc_point_summary(p, &s);
        o[0] = s.p50;
        o[1] = s.p95;
        o[2] = better;
    }
}

/* Rank 0: the (rank, item) pairs to measure again, into chk[1..]; chk[0] their number. */
static void pick(const gc_confirm_io *io, const double *all, int *chk, size_t cap)
{
    gc_rules R;
    gc_rules_default(&R);
    size_t w = 1 + 3 * io->nitems, n = 0;
    double zd = fmax(R.z_degraded, gc_det_z_for(R.fleet_fp_rate, (double)io->size * NV * (double)io->nitems));
    double *col = malloc((size_t)io->size * sizeof *col);
    int *per_rank = calloc((size_t)io->size, sizeof *per_rank);
    for (size_t it = 0; col && per_rank && it < io->nitems; it++)
        for (int k = 0; k < NV; k++)
            for (int q = 0; q < io->size; q++) {
                const double *x = all + (size_t)q * w;
                double v = x[1 + 3 * it + k], better = x[1 + 3 * it + 2];
                if (isnan(v) || per_rank[q] >= GC_CONFIRM_MAX_PER_RANK || n >= cap)
                    continue;
                /* its SKU's values of this item */
                size_t m = 0;
                for (int o = 0; o < io->size; o++) {
                    const double *y = all + (size_t)o * w;
                    if (y[0] == x[0] && !isnan(y[1 + 3 * it + k]))
                        col[m++] = y[1 + 3 * it + k];
                }
                if (m < (size_t)R.min_peers)
                    continue;
                double med = gc_median(col, m);
                for (size_t o = 0; o < m; o++)
                    col[o] = fabs(col[o] - med);
                double sigma = fmax(1.4826 * gc_median(col, m), R.sigma_floor_rel * fabs(med));
                double bad = better > 0 ? med - v : v - med;
                double rel = med != 0 ? bad / fabs(med) : 0;
                double floor = k ? R.dist_rel_degraded : R.rel_degraded;
                if (bad / sigma >= zd && rel >= floor) {
                    int seen = 0;
                    for (size_t e = 0; e < n && !seen; e++)
                        seen = chk[1 + 2 * e] == q && chk[2 + 2 * e] == (int)it;
                    if (!seen) {
                        chk[1 + 2 * n] = q, chk[2 + 2 * n] = (int)it;
                        n++;
                        per_rank[q]++;
                    }
                }
            }
    chk[0] = (int)n;
    free(col);
    free(per_rank);
}

/* ---- P2P links --------------------------------------------------------- */

/* This rank's P2P links as their driver: per (peer, direction, peer
 * access) the bandwidth median at the largest size, as (rank, item, peer
 * rank, bandwidth) x GC_CONFIRM_MAX_LINKS (rank -1: none). */
static void link_values(const gc_confirm_io *io, double *out)
{
    const size_t W = GC_CONFIRM_LINK_W;
    double size[GC_CONFIRM_MAX_LINKS] = { 0 };
    char cls[GC_CONFIRM_MAX_LINKS][24];
    for (size_t k = 0; k < GC_CONFIRM_MAX_LINKS; k++)
        out[k * W] = -1;
    const char *node = io->roster[io->rank].node;
    for (size_t i = 0; i < io->gpu->npoints; i++) {
        const gc_point *p = &io->gpu->points[i];
        if (strcmp(p->bench, "p2p") || strcmp(p->metric, "bandwidth") || p->status != GC_PT_OK ||
            !p->hist.total || gc_ctx_get(&p->ctx, "confirm") || p->item_id >= io->nitems ||
            io->items[p->item_id].phase != GC_PHASE_PAIR ||
            !strcmp(gc_ctx_str(&p->ctx, "mode", ""), "chase"))
            continue;
        int peer_gpu = (int)gc_ctx_num(&p->ctx, "peer_gpu", -1), peer = -1;
        for (int r = 0; r < io->size && peer < 0; r++)
            if (io->roster[r].local_index == peer_gpu && !strcmp(io->roster[r].node, node))
                peer = r;
        double sz = gc_ctx_num(&p->ctx, "size_bytes", 0);
        char c[24];
        snprintf(c, sizeof c, "%.10s %.10s", gc_ctx_str(&p->ctx, "direction", "oneway"),
                 gc_ctx_str(&p->ctx, "peer_access", "on"));
        size_t k = 0;
        while (k < GC_CONFIRM_MAX_LINKS && out[k * W] >= 0 &&
               !(out[k * W + 2] == peer && !strcmp(cls[k], c)))
            k++;
        if (peer < 0 || k == GC_CONFIRM_MAX_LINKS || (out[k * W] >= 0 && sz < size[k]))
            continue;
        gc_summary sm;
        gc_point_summary(p, &sm);
        if (!sm.count)
            continue;
        out[k * W] = io->rank;
        out[k * W + 1] = p->item_id;
        out[k * W + 2] = peer;
        out[k * W + 3] = sm.p50;
        size[k] = sz;
        snprintf(cls[k], sizeof cls[k], "%s", c);
    }
}

/* Slow links of item that touch r, those with src or dst left out (a GPU
 * slow with everyone makes every partner an end of a slow link). */
static int slow_ends(const int *slow, size_t nslow, int item, int r, int src, int dst)
{
    int n = 0;
    for (size_t k = 0; k < nslow; k++) {
        int a = slow[3 * k], b = slow[3 * k + 1];
        if (slow[3 * k + 2] == item && (a == r || b == r) && a != src && a != dst && b != src && b != dst)
            n++;
    }
    return n;
}

static int by_item(const void *a, const void *b, void *ctx)
{
    const double *l = ctx;
    double x = l[*(const size_t *)a * GC_CONFIRM_LINK_W + 1], y = l[*(const size_t *)b * GC_CONFIRM_LINK_W + 1];
    return (x > y) - (x < y);
}

size_t gc_confirm_pick_links(const double *links, size_t n, const gc_roster_entry *roster,
                             int size, int *out, size_t cap)
{
    const size_t W = GC_CONFIRM_LINK_W;
    gc_rules R;
    gc_rules_default(&R);
    double *col = malloc((n ? n : 1) * sizeof *col);
    int *slow = malloc((n ? n : 1) * 3 * sizeof *slow);
    size_t *idx = malloc((n ? n : 1) * sizeof *idx);
    size_t nslow = 0, m = 0, nv = 0;
    for (size_t i = 0; idx && i < n; i++)
        if (links[i * W] >= 0 && links[i * W + 3] > 0)
            idx[nv++] = i;
    double zd = fmax(R.z_degraded, gc_det_z_for(R.fleet_fp_rate, (double)nv));
    if (idx)
        qsort_r(idx, nv, sizeof *idx, by_item, (void *)links);
    /* per item: its links' median and MAD, then the slow ones */
    for (size_t s0 = 0; col && slow && idx && s0 < nv;) {
        size_t e = s0;
        while (e < nv && links[idx[e] * W + 1] == links[idx[s0] * W + 1])
            e++;
        size_t k = e - s0;
        if (k >= (size_t)R.min_peers) {
            for (size_t j = 0; j < k; j++)
                col[j] = links[idx[s0 + j] * W + 3];
            double med = gc_median(col, k);
            for (size_t j = 0; j < k; j++)
                col[j] = fabs(links[idx[s0 + j] * W + 3] - med);
            double sigma = fmax(1.4826 * gc_median(col, k), R.sigma_floor_rel * med);
            for (size_t j = s0; j < e; j++) {
                const double *x = links + idx[j] * W;
                double bad = med - x[3];
                if (bad / sigma >= zd && bad / med >= R.rel_degraded) {
                    slow[3 * nslow] = (int)x[0];
                    slow[3 * nslow + 1] = (int)x[2];
                    slow[3 * nslow + 2] = (int)x[1];
                    nslow++;
                }
            }
        }
        s0 = e;
    }
    for (size_t k = 0; k < nslow && m < cap; k++) {
        int src = slow[3 * k], dst = slow[3 * k + 1], item = slow[3 * k + 2], seen = 0;
        for (size_t e = 0; e < m && !seen; e++)
            seen = (out[4 * e] == src && out[4 * e + 1] == dst) || (out[4 * e] == dst && out[4 * e + 1] == src);
        if (seen || src < 0 || src >= size || dst < 0 || dst >= size)
            continue;
        int g = -1, best = 0;   /* the partner touching the fewest other slow links, none best */
        for (int r = 0; r < size && (g < 0 || best > 0); r++) {
            if (r == src || r == dst || strcmp(roster[r].node, roster[src].node))
                continue;
            int c = slow_ends(slow, nslow, item, r, src, dst);
            if (g < 0 || c < best)
                g = r, best = c;
        }
        out[4 * m] = src, out[4 * m + 1] = dst, out[4 * m + 2] = item, out[4 * m + 3] = g;
        m++;
    }
    free(col);
    free(slow);
    free(idx);
    return m;
}

/* One pair item again with peer, this rank's new points tagged. */
static int pair_again(const gc_confirm_io *io, int item, int peer, int initiator, const char *tag)
{
    size_t first = io->gpu->npoints;
    int rc = io->remeasure_pair(io->ctx, (uint32_t)item, peer, initiator);
    for (size_t q = first; q < io->gpu->npoints; q++)
        gc_ctx_set_str(&io->gpu->points[q].ctx, "confirm", tag);
    return rc;
}

/* Collective: the slow P2P links picked by rank 0, one check at a time:
 * the pair again, then each end against the partner. Returns the number
 * of checks, -1 abandoned. */
static int confirm_links(const gc_confirm_io *io)
{
    const size_t W = GC_CONFIRM_LINK_W, per = GC_CONFIRM_MAX_LINKS * W;
    double *mine = malloc(per * sizeof *mine), *all = NULL;
    int *chk = calloc(1 + 4 * GC_CONFIRM_MAX_PAIRS, sizeof *chk);
    if (io->rank == 0 && mine && chk)
        all = malloc((size_t)io->size * per * sizeof *all);
    if (!mine || !chk || (io->rank == 0 && !all)) {
        fprintf(stderr, "gpucensus: rank %d: out of memory screening links for measuring again\n",
                io->rank);
        MPI_Abort(io->world, 1);
    }
    link_values(io, mine);
    MPI_Request rq;
    int rc = io->wait(io->ctx, MPI_Igather(mine, (int)per, MPI_DOUBLE, all, (int)per, MPI_DOUBLE, 0,
                                           io->world, &rq),
                      &rq, "the link confirmation's gather");
    if (!rc && io->rank == 0) {
        chk[0] = (int)gc_confirm_pick_links(all, (size_t)io->size * GC_CONFIRM_MAX_LINKS, io->roster,
                                            io->size, chk + 1, GC_CONFIRM_MAX_PAIRS);
        if (chk[0] && !io->quiet)
            fprintf(stderr, "gpucensus: %d P2P link(s) that peers would call degraded measured again, "
                            "and their ends against a good partner, before blaming\n", chk[0]);
    }
    if (!rc)
        rc = io->wait(io->ctx, MPI_Ibcast(chk, 1 + 4 * GC_CONFIRM_MAX_PAIRS, MPI_INT, 0, io->world, &rq),
                      &rq, "the link confirmation's broadcast");
    int me = io->rank;
    for (int k = 0; !rc && k < chk[0]; k++) {
        int src = chk[1 + 4 * k], dst = chk[2 + 4 * k], item = chk[3 + 4 * k], g = chk[4 + 4 * k];
        if (me == src)
            pair_again(io, item, dst, 1, "remeasure");
        else if (me == dst)
            pair_again(io, item, src, 0, "remeasure");
        if (g >= 0) {   /* src -> partner, then partner -> dst */
            if (me == src)
                pair_again(io, item, g, 1, "partner");
            else if (me == g)
                pair_again(io, item, src, 0, "partner");
            if (me == g)
                pair_again(io, item, dst, 1, "partner");
            else if (me == dst)
                pair_again(io, item, g, 0, "partner");
        }
        rc = io->wait(io->ctx, MPI_Ibarrier(io->world, &rq), &rq, "the link confirmation's step");
    }
    int n = chk[0];
    free(mine);
    free(all);
    free(chk);
    return rc ? -1 : n;
}

int gc_confirm_run(const gc_confirm_io *io)
{
    if (io->remeasure_pair && io->roster && confirm_links(io) < 0)
        return -1;
    size_t w = 1 + 3 * io->nitems;
    if ((double)io->size * (double)w > GC_CONFIRM_MAX_VALUES) {
        if (io->rank == 0 && !io->quiet)
            fprintf(stderr, "gpucensus: %d ranks x %zu items: too many to screen for measuring again; "
                            "verdicts stay unconfirmed\n", io->size, io->nitems);
        return 0;
    }
    size_t cap = (size_t)io->size * GC_CONFIRM_MAX_PER_RANK;
    if (cap > 4096)
        cap = 4096;
    double *mine = malloc(w * sizeof *mine), *all = NULL;
    int *chk = calloc(2 * cap + 1, sizeof *chk);
    if (io->rank == 0 && mine && chk)
        all = malloc((size_t)io->size * w * sizeof *all);
    if (!mine || !chk || (io->rank == 0 && !all)) {
        /* every rank must take part in the collectives, or the others hang */
        fprintf(stderr, "gpucensus: rank %d: out of memory screening for measuring again\n", io->rank);
        MPI_Abort(io->world, 1);
    }
    screen_values(io, mine);
    MPI_Request rq;
    int rc = io->wait(io->ctx, MPI_Igather(mine, (int)w, MPI_DOUBLE, all, (int)w, MPI_DOUBLE, 0,
                                           io->world, &rq),
                      &rq, "the confirmation's gather");
    if (!rc && io->rank == 0) {
        pick(io, all, chk, cap);
        if (chk[0] && !io->quiet)
            fprintf(stderr, "gpucensus: %d item(s) that peers would call degraded measured again "
                            "before blaming\n", chk[0]);
    }
    if (!rc)
        rc = io->wait(io->ctx, MPI_Ibcast(chk, (int)(2 * cap + 1), MPI_INT, 0, io->world, &rq),
                      &rq, "the confirmation's broadcast");
    int done = 0;
    for (int k = 0; !rc && k < chk[0]; k++) {
        if (chk[1 + 2 * k] != io->rank)
            continue;
        size_t first = io->gpu->npoints;
        if (io->remeasure(io->ctx, (uint32_t)chk[2 + 2 * k]) == 0)
            done++;
        for (size_t q = first; q < io->gpu->npoints; q++)
            gc_ctx_set_str(&io->gpu->points[q].ctx, "confirm", "remeasure");
    }
    free(mine);
    free(all);
    free(chk);
    return rc ? -1 : done;
}
