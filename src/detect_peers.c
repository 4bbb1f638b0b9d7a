/* A GPU's peers and distributions (part of detect; see detect.h for the
 * rules): per key, the robust z of each member's value against the
 * group's median and MAD, and the one-sided Wasserstein-1 distance of its
 * quantile function from the group's median one. Split out of
 * detect_rules.c (past the module size limit). */
#include "detect.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect_int.h"

/* One-sided W1 between two quantile functions given at the knots
 * 0.01 0.05 0.5 0.95 0.99 (piecewise linear), over [0.05, 0.95]: the mass
 * moved in the bad direction, divided by the span. The outer 5% on each
 * side are left out: with a few hundred samples they are a handful of
 * samples, and mostly the host's noise (a launch-time p99 varies 2x
 * between healthy GPUs), not the GPU's. */
static double w1_bad(const float *x, const double *ref, int better)
{
    static const double qs[GC_DET_NQ] = { 0.01, 0.05, 0.5, 0.95, 0.99 };
    enum { FIRST = 1, LAST = 3 };
    double area = 0;
    for (int i = FIRST; i < LAST; i++) {
        double a = better == GC_BETTER_LOWER ? x[i] - ref[i] : ref[i] - x[i];
        double b = better == GC_BETTER_LOWER ? x[i + 1] - ref[i + 1] : ref[i + 1] - x[i + 1];
        double w = qs[i + 1] - qs[i];
        if (a >= 0 && b >= 0)
            area += 0.5 * (a + b) * w;
        else if (a > 0 || b > 0) {
            double pos = a > 0 ? a : b, neg = a > 0 ? -b : -a;
            area += 0.5 * pos * w * pos / (pos + neg);
        }
    }
    return area / (qs[LAST] - qs[FIRST]);
}

/* Column of one key over a peer group: (member, value index) pairs. */
typedef struct cell {
    uint32_t gi;
    uint32_t vi;
} cell;

/* One key's values over a peer group, member by member, a column per
 * field: each of judge_key's passes (the median, the MAD, each quantile's
 * median, the distances) reads only the field it needs, 4 bytes a member
 * rather than a 36-byte val; at 16,384 GPUs a key's vals (590 KB) with the
 * scratch no longer fit the 1 MB L2 and every pass came from L3. q[0] (p1)
 * is not read. */
typedef struct cols {
    float *v, *count, *q[GC_DET_NQ];
    int8_t *better, *has_q;
    uint32_t *m;   /* the member */
} cols;

/* Columns of cap rows each; free with cols_free. */
static int cols_alloc(cols *c, size_t cap)
{
    memset(c, 0, sizeof *c);
    c->v = malloc(cap * sizeof *c->v);
    c->count = malloc(cap * sizeof *c->count);
    for (int q = 1; q < GC_DET_NQ; q++)
        c->q[q] = malloc(cap * sizeof *c->q[q]);
    c->better = malloc(cap);
    c->has_q = malloc(cap);
    c->m = malloc(cap * sizeof *c->m);
    int ok = c->v && c->count && c->better && c->has_q && c->m;
    for (int q = 1; q < GC_DET_NQ; q++)
        ok = ok && c->q[q];
    return ok ? 0 : -1;
}

static void cols_free(cols *c)
{
    free(c->v), free(c->count), free(c->better), free(c->has_q), free(c->m);
    for (int q = 1; q < GC_DET_NQ; q++)
        free(c->q[q]);
}

/* Columns c from row off on. */
static cols cols_at(const cols *c, size_t off)
{
    cols o = { .v = c->v + off, .count = c->count + off, .better = c->better + off,
               .has_q = c->has_q + off, .m = c->m + off };
    for (int q = 1; q < GC_DET_NQ; q++)
        o.q[q] = c->q[q] + off;
    return o;
}

static void cols_put(const cols *c, size_t o, const val *x, uint32_t m)
{
    c->v[o] = x->v;
    c->count[o] = x->count;
    for (int q = 1; q < GC_DET_NQ; q++)
        c->q[q][o] = x->q[q];
    c->better[o] = x->better;
    c->has_q[o] = x->has_q;
    c->m[o] = m;
}

/* One key's peers (n rows of x, in member order): its median and MAD, its
 * distribution's reference, each member's reasons. tmp and dist: n doubles
 * of scratch, tmpf n floats (the medians of float fields: the same
 * selection on the same values, half the bytes). */
static int judge_key(gc_detect *d, size_t k, const cols *x, size_t n, const uint32_t *members,
                     gc_verdict *verd, double *tmp, float *tmpf, double *dist)
{
    const gc_rules *R = d->r;
    int rc = 0;
    memcpy(tmpf, x->v, n * sizeof *tmpf);
    double med = det_median_of_f(tmpf, n);
    for (size_t i = 0; i < n; i++)
        tmp[i] = fabs(x->v[i] - med);
    double mad = det_median_of(tmp, n);
    double sigma = fmax(1.4826 * mad, R->sigma_floor_rel * fabs(med));
    /* distribution: the peers' median quantile function */
    double ref[GC_DET_NQ];
    int nq = 0, with_q = R->dist_enabled;
    for (size_t i = 0; i < n && with_q; i++)
        with_q = x->has_q[i];
    double dmed = 0, dsig = 0, cmin = 0;
    if (with_q && fabs(med) > 0) {
        /* a point with far fewer samples than its peers' (a time
         * budget hit) has tails that are not comparable */
        memcpy(tmpf, x->count, n * sizeof *tmpf);
        cmin = fmax(R->dist_min_samples_rel * det_median_of_f(tmpf, n), R->dist_min_samples);
        nq = 1;
        /* p5, p50, p95 judge (w1_bad); p99 is only shown, when a
         * distribution reason fires (below); p1 is not read */
        ref[0] = ref[4] = NAN;
        for (int q = 1; q < GC_DET_NQ - 1; q++) {
            memcpy(tmpf, x->q[q], n * sizeof *tmpf);
            ref[q] = det_median_of_f(tmpf, n);
        }
        for (size_t i = 0; i < n; i++) {
            const float xq[GC_DET_NQ] = { 0, x->q[1][i], x->q[2][i], x->q[3][i], 0 };
            dist[i] = w1_bad(xq, ref, x->better[i]) / fabs(ref[2] ? ref[2] : med);
            tmp[i] = dist[i];
        }
        dmed = det_median_of(tmp, n);
        for (size_t i = 0; i < n; i++)
            tmp[i] = fabs(dist[i] - dmed);
        /* one-sided distances of a fleet whose GPUs differ (manufacturing)
         * bunch near zero: their MAD understates how far a healthy GPU
         * lies; the peers' own relative spread is the least it can be */
        dsig = fmax(fmax(1.4826 * det_median_of(tmp, n), R->dist_sigma_floor), sigma / fabs(med));
    }
    const char *name = d->keys.s[k], *unit = det_unit_of(d, (uint32_t)k);
    /* thresholds no lower than what the run's number of comparisons
     * allows at its false-positive rate (rules fleet) */
    double zs = fmax(R->z_suspect, d->z_fleet), zd = fmax(R->z_degraded, d->z_fleet);
    double dzt = fmax(R->dist_z, d->z_fleet);
    for (size_t i = 0; i < n && !rc; i++) {
        float xv = x->v[i], cnt = x->count[i], q1 = x->q[1][i], q3 = x->q[3][i];
        int better = x->better[i];
        gc_verdict *v = &verd[members[x->m[i]]];
        double bad = better == GC_BETTER_HIGHER ? med - xv : xv - med;
        /* the point's own sampling noise: the standard error of a
         * median of count samples whose p5..p95 spans 3.29 sigma */
        double own = x->has_q[i] && cnt > 0 ? 1.2533 * (q3 - q1) / 3.29 / sqrt(cnt) : 0;
        double sig = isfinite(own) ? hypot(sigma, own) : sigma;
        double z = bad / sig, rel = med != 0 ? bad / fabs(med) : 0;
        int sev = z >= zd && rel >= R->rel_degraded ? GC_V_DEGRADED
                : z >= zs && rel >= R->rel_suspect   ? GC_V_SUSPECT : GC_V_OK;
        if (sev) {
            char a[48], b[48];
            det_fmt_val(a, sizeof a, xv, unit);
            det_fmt_val(b, sizeof b, med, unit);
            rc = det_add_reason(v, "peers", name, xv, med, (xv - med) / sigma, "robust_z", sev,
                                "%s vs peers' median %s (%+.1f%%, robust z %+.1f over %zu GPUs)",
                                a, b, 100.0 * (xv - med) / fabs(med), (xv - med) / sigma, n);
        }
        if (nq && !rc && cnt >= cmin) {
            /* the distance's own sampling noise: its p5..p95 width over
             * the reference median, by the square root of its samples */
            double ownd = (q3 - q1) / fabs(ref[2] ? ref[2] : med) / sqrt(cnt);
            double dz = (dist[i] - dmed) / (isfinite(ownd) ? hypot(dsig, ownd) : dsig);
            int ds = dz >= dzt && dist[i] >= R->dist_rel_degraded ? GC_V_DEGRADED
                   : dz >= dzt && dist[i] >= R->dist_rel_suspect  ? GC_V_SUSPECT : GC_V_OK;
            if (ds && isnan(ref[4])) {   /* tmpf's values are used up: cmin is known */
                memcpy(tmpf, x->q[4], n * sizeof *tmpf);
                ref[4] = det_median_of_f(tmpf, n);
            }
            if (ds)
                rc = det_add_reason(v, "distribution", name, dist[i], dmed, dz, "wasserstein_rel", ds,
                                    "distribution %s than the peers': Wasserstein-1 %.1f%% of the median "
                                    "(peers %.1f%%); p50/p95/p99 %.5g/%.5g/%.5g vs %.5g/%.5g/%.5g",
                                    better == GC_BETTER_HIGHER ? "lower" : "higher",
                                    100 * dist[i], 100 * dmed, x->q[2][i], q3, x->q[4][i], ref[2],
                                    ref[3], ref[4]);
        }
    }
    return rc;
}

/* A group's values come per key. When every member's values are in
 * strictly increasing key order (one plan: the first GPU's order names the
 * keys; noted as they were added), a chunk of keys at a time is filled
 * member by member, each member's values read in order; else (cells) each
 * key's values are found through a (member, value) index: a read of
 * another GPU's array each, a cache miss each at 16,384 GPUs, and 8 bytes
 * of index a value. Both give a key's values in member order: the same
 * verdicts. */
enum { KEY_CHUNK = 32 };

int det_judge_gpu_peers(gc_detect *d, const uint32_t *members, size_t nm, gc_verdict *verd)
{
    const gc_rules *R = d->r;
    size_t nk = d->keys.n;
    /* per member its values (NULL: failed, not judged) and their number,
     * read once: a member's grec is ~700 bytes, and the chunks below go
     * over every member once each */
    size_t mm = nm ? nm : 1;
    const val **vp = malloc(mm * sizeof *vp);
    size_t *vn = malloc(mm * sizeof *vn);
    double *tmp = malloc(mm * sizeof *tmp), *dist = malloc(mm * sizeof *dist);
    float *tmpf = malloc(mm * sizeof *tmpf);
    int rc = tmp && dist && tmpf && vp && vn ? 0 : GC_ENOMEM;
    int sorted = 1;
    for (size_t m = 0; m < nm && !rc; m++) {
        const grec *g = &d->g[members[m]];
        int failed = !strcmp(g->status, "failed");
        vp[m] = failed ? NULL : g->v;
        vn[m] = failed ? 0 : g->nv;
        sorted &= failed || g->keys_rising;
    }
    cols cb = { 0 };
    if (!rc && sorted) {
        size_t *cur = calloc(mm, sizeof *cur), cn[KEY_CHUNK];
        if (cols_alloc(&cb, KEY_CHUNK * mm) || !cur)
            rc = GC_ENOMEM;
        for (size_t k0 = 0; k0 < nk && !rc; k0 += KEY_CHUNK) {
            memset(cn, 0, sizeof cn);
            for (size_t m = 0; m < nm; m++) {
                const val *v = vp[m];
                size_t i = cur[m], n = vn[m];
                for (; i < n && v[i].key < k0 + KEY_CHUNK; i++) {
                    size_t kk = v[i].key - k0;   /* keys below k0 were read by earlier chunks */
                    cols_put(&cb, kk * nm + cn[kk]++, &v[i], (uint32_t)m);
                }
                cur[m] = i;
            }
            for (size_t kk = 0; kk < KEY_CHUNK && k0 + kk < nk && !rc; kk++)
                if (cn[kk] >= (size_t)R->min_peers) {
                    cols x = cols_at(&cb, kk * nm);
                    rc = judge_key(d, k0 + kk, &x, cn[kk], members, verd, tmp, tmpf, dist);
                }
        }
        free(cur);
    } else if (!rc) {
        size_t *cnt = calloc(nk + 1, sizeof *cnt);
        size_t total = 0;
        for (size_t m = 0; m < nm && cnt; m++) {
            for (size_t i = 0; i < vn[m]; i++)
                cnt[vp[m][i].key + 1]++;
            total += vn[m];
        }
        for (size_t k = 0; k < nk && cnt; k++)
            cnt[k + 1] += cnt[k];
        cell *cells = malloc((total ? total : 1) * sizeof *cells);
        size_t *fill = malloc((nk ? nk : 1) * sizeof *fill);
        if (!cnt || !cells || !fill || cols_alloc(&cb, mm))
            rc = GC_ENOMEM;
        if (!rc) {
            memcpy(fill, cnt, nk * sizeof *fill);
            for (size_t m = 0; m < nm; m++)
                for (size_t i = 0; i < vn[m]; i++)
                    cells[fill[vp[m][i].key]++] = (cell){ (uint32_t)m, (uint32_t)i };
        }
        for (size_t k = 0; k < nk && !rc; k++) {
            size_t n = cnt[k + 1] - cnt[k];
            const cell *c = cells + cnt[k];
            if (n < (size_t)R->min_peers)
                continue;
            /* each read another GPU's array: fetched a few ahead */
            for (size_t i = 0; i < n; i++) {
                if (i + 16 < n)
                    __builtin_prefetch(vp[c[i + 16].gi] + c[i + 16].vi);
                cols_put(&cb, i, &vp[c[i].gi][c[i].vi], c[i].gi);
            }
            rc = judge_key(d, k, &cb, n, members, verd, tmp, tmpf, dist);
        }
        free(cnt), free(cells), free(fill);
    }
    cols_free(&cb);
    free(vp), free(vn), free(tmp), free(tmpf), free(dist);
    return rc;
}
