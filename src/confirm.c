/* See confirm.h. */
#include "confirm.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect.h"
#include "rules.h"

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

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
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
                double med = median(col, m);
                for (size_t o = 0; o < m; o++)
                    col[o] = fabs(col[o] - med);
                double sigma = fmax(1.4826 * median(col, m), R.sigma_floor_rel * fabs(med));
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

int gc_confirm_run(const gc_confirm_io *io)
{
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
