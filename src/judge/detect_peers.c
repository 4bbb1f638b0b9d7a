/* A GPU's peers and distributions (part of detect; see detect.h for the
 * rules): per key, the robust z of each member's value against the
 * group's median and MAD, and the one-sided Wasserstein-1 distance of its
 * quantile function from the group's median one.
 *
 * Layer 1 of detect (detect_int.h): it calls only the keys, threads and
 * verdicts of layer 0; the order of judging calls it. */
#include "judge/detect.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/detect_int.h"
#include "util/stats.h"
#include "util/grow.h"

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

/* The sampling noise of a point's distance (w1_bad over its p5, p50, p95:
 * weights 1/4, 1/2, 1/4): each quantile's standard error,
 * sqrt(q (1 - q) / n) / f, with the density f near p5 and p95 from the
 * next knots out (4% of the samples between p1 and p5, p95 and p99) and
 * near p50 the normal's 1.2533 sigma / sqrt(n), sigma = (p95 - p5) / 3.29.
 * Not the p5..p95 width alone: a bimodal bandwidth (30% of its samples
 * at 0.6x) is that wide because its slow samples are many, and their p5
 * is as sharp as any; the width called its 12% loss noise. Times and
 * latencies keep the width over sqrt(n): their tails are the host's
 * jitter (a healthy simulated GPU's validation kernel, default plan, had
 * its p95 at 2.4x its p50 with a sharp p95..p99), which the width rightly
 * calls noise. */
static double dist_noise(const val *x)
{
    double n = x->count;
    if (!(n > 0))
        return 0;
    if (x->better != GC_BETTER_HIGHER)
        return (x->q[3] - x->q[1]) / sqrt(n);
    double se_tail = sqrt(0.05 * 0.95 / n) / 0.04;
    double se5 = se_tail * fabs(x->q[1] - x->q[0]), se95 = se_tail * fabs(x->q[4] - x->q[3]);
    double se50 = 1.2533 * (x->q[3] - x->q[1]) / 3.29 / sqrt(n);
    double s = sqrt(0.0625 * se5 * se5 + 0.25 * se50 * se50 + 0.0625 * se95 * se95);
    return isfinite(s) ? s : 0;
}

/* A degraded distribution finding against the point's second measurement
 * (confirm.c), by the same rule: its distance from the same peers'
 * quantile function, at the same thresholds. A shifted distribution
 * measured again with the same shape (a transient fault) no longer lies
 * far from the peers, so the finding does not hold; the tail width alone
 * would say it did. */
static void again_distribution(const gc_detect *d, const grec *g, uint32_t key, const double *ref,
                               double dmed, double dsig, double dzt, gc_reason *r)
{
    const gc_rules *R = d->r;
    for (size_t j = 0; j < g->nrv; j++) {
        const val *y = &g->rv[j];
        if (y->key != key || !y->has_q)
            continue;
        double scale = fabs(ref[2]);
        if (!(scale > 0))
            return;
        double dist = w1_bad(y->q, ref, y->better) / scale;
        double own = dist_noise(y) / scale;
        double dz = (dist - dmed) / (isfinite(own) ? hypot(dsig, own) : dsig);
        r->again = dist;
        r->again_held = dz >= dzt && dist >= R->dist_rel_degraded ? 1 : 2;
        return;
    }
}

/* Column of one key over a peer group: (member, value index) pairs. */
typedef struct cell {
    uint32_t gi;
    uint32_t vi;
} cell;

/* A key's columns (scratch of judge_key, n floats each): the fields its
 * medians and reasons read, copied out of the staged values in one pass,
 * so that the ten or so passes below read 4 bytes a value from cache, not
 * a 36-byte val from wherever the chunk's slice lies. */
typedef struct cols {
    float *v, *count, *q[GC_DET_NQ];
    double *tmp, *dist;
} cols;

static void cols_free(cols *c)
{
    free(c->v);   /* one block: v, count, q[1..] */
    free(c->tmp);
    free(c->dist);
}

static int cols_new(cols *c, size_t n)
{
    size_t m = n ? n : 1;
    memset(c, 0, sizeof *c);
    float *b = malloc((1 + GC_DET_NQ) * m * sizeof *b);   /* v, count, q[1..]: p1 is not read */
    c->tmp = malloc(m * sizeof *c->tmp);
    c->dist = malloc(m * sizeof *c->dist);
    if (!b || !c->tmp || !c->dist) {
        free(b);
        cols_free(c);
        return GC_ENOMEM;
    }
    c->v = b;
    c->count = b + m;
    for (int q = 1; q < GC_DET_NQ; q++)
        c->q[q] = b + (1 + q) * m;
    return 0;
}

static double median_of_floats(double *tmp, const float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        tmp[i] = x[i];
    return gc_median(tmp, n);
}

/* A key's spread from its pool (small groups): a key's MAD over n GPUs
 * misses their spread by 1.17 / sqrt(n) (20% at 32 GPUs), and a GPU
 * drawn low on every bandwidth is judged at hundreds of keys: at the one
 * whose MAD came out lowest it crossed the threshold (a healthy simulated
 * H100 2.2% below its peers on every HBM and L2 point, 0.65% being the
 * GPUs' spread, came out suspect at -3.1%, robust z -5.7 over 32 GPUs, on
 * the one HBM write point whose MAD read 0.54%). So in a group of fewer
 * than POOL_BELOW GPUs a first pass takes each key's relative spread, and
 * a key's sigma is at least the median spread of its benchmark's keys
 * (the key's text up to its first blank: "hbm_bw.bandwidth", its points'
 * family, measured by the same GPUs): the same units, many estimates of
 * their spread. From POOL_BELOW GPUs on a key's MAD is within 7%. */
enum { POOL_BELOW = 256 };
typedef struct pool {
    double *rel;          /* first pass: per key its relative spread (out) */
    const double *floor;  /* second: per key the least relative sigma (NULL: none) */
} pool;

/* One key's peers (n values xs of members xm, in member order; member m's
 * verdict verd[members[m]], its record d->g[gids[m]]): its median
 * and MAD, its distribution's reference, each member's reasons. */
static int judge_key(gc_detect *d, size_t k, const val *xs, const uint32_t *xm, size_t n,
                     const uint32_t *members, const uint32_t *gids, gc_verdict *verd, cols *c,
                     const pool *pl)
{
    const gc_rules *R = d->r;
    int rc = 0;
    int with_q = R->dist_enabled;
    for (size_t i = 0; i < n; i++) {
        const val *x = &xs[i];
        c->v[i] = x->v;
        c->count[i] = x->count;
        for (int q = 1; q < GC_DET_NQ; q++)   /* p1 is not read */
            c->q[q][i] = x->q[q];
        with_q &= x->has_q != 0;
    }
    double *tmp = c->tmp, *dist = c->dist;
    double med = median_of_floats(tmp, c->v, n);
    for (size_t i = 0; i < n; i++)
        tmp[i] = fabs(c->v[i] - med);
    double mad = gc_median(tmp, n);
    if (pl && pl->rel) {
        pl->rel[k] = fabs(med) > 0 ? 1.4826 * mad / fabs(med) : NAN;
        return 0;
    }
    double sigma = fmax(1.4826 * mad, R->sigma_floor_rel * fabs(med));
    if (pl && pl->floor && isfinite(pl->floor[k]))
        sigma = fmax(sigma, pl->floor[k] * fabs(med));
    /* distribution: the peers' median quantile function */
    double ref[GC_DET_NQ];
    int nq = 0;
    double dmed = 0, dsig = 0, cmin = 0;
    if (with_q && fabs(med) > 0) {
        /* a point with far fewer samples than its peers' (a time
         * budget hit) has tails that are not comparable */
        cmin = fmax(R->dist_min_samples_rel * median_of_floats(tmp, c->count, n), R->dist_min_samples);
        nq = 1;
        /* p5, p50, p95 judge (w1_bad); p99 is only shown, when a
         * distribution reason fires (below); p1 is not read */
        ref[0] = ref[4] = NAN;
        for (int q = 1; q < GC_DET_NQ - 1; q++)
            ref[q] = median_of_floats(tmp, c->q[q], n);
        for (size_t i = 0; i < n; i++) {
            dist[i] = w1_bad(xs[i].q, ref, xs[i].better) / fabs(ref[2] ? ref[2] : med);
            tmp[i] = dist[i];
        }
        dmed = gc_median(tmp, n);
        for (size_t i = 0; i < n; i++)
            tmp[i] = fabs(dist[i] - dmed);
        /* one-sided distances of a fleet whose GPUs differ (manufacturing)
         * bunch near zero: their MAD understates how far a healthy GPU
         * lies; the peers' own relative spread is the least it can be */
        dsig = fmax(fmax(1.4826 * gc_median(tmp, n), R->dist_sigma_floor), sigma / fabs(med));
    }
    const char *name = d->keys.s[k], *unit = det_unit_of(d, (uint32_t)k);
    /* thresholds no lower than what the run's number of comparisons
     * allows at its false-positive rate (rules fleet) */
    double zs = fmax(R->z_suspect, d->z_fleet), zd = fmax(R->z_degraded, d->z_fleet);
    double dzt = fmax(R->dist_z, d->z_fleet);
    /* A member's own noise only widens its sigma (hypot(s, own) >= s, and
     * a division by more is no larger): a member below the lower of the two
     * (positive) thresholds over the peers' sigma alone is below it over
     * its own, and its own noise (a square root, a hypot) is not worked out. */
    double zmin = fmin(zs, zd);
    for (size_t i = 0; i < n && !rc; i++) {
        const val *x = &xs[i];
        gc_verdict *v = &verd[members[xm[i]]];
        double bad = x->better == GC_BETTER_HIGHER ? med - x->v : x->v - med;
        int sev = GC_V_OK;
        if (!(zmin > 0 && bad / sigma < zmin)) {
            /* the point's own sampling noise: the standard error of a
             * median of count samples whose p5..p95 spans 3.29 sigma */
            double own = x->has_q && x->count > 0 ? 1.2533 * (x->q[3] - x->q[1]) / 3.29 / sqrt(x->count) : 0;
            double sig = isfinite(own) ? hypot(sigma, own) : sigma;
            double z = bad / sig, rel = med != 0 ? bad / fabs(med) : 0;
            sev = z >= zd && rel >= R->rel_degraded ? GC_V_DEGRADED
                : z >= zs && rel >= R->rel_suspect   ? GC_V_SUSPECT : GC_V_OK;
        }
        if (sev) {
            char a[48], b[48];
            det_fmt_val(a, sizeof a, x->v, unit);
            det_fmt_val(b, sizeof b, med, unit);
            rc = det_add_reason(v, "peers", name, x->v, med, (x->v - med) / sigma, "robust_z", sev,
                                "%s vs peers' median %s (%+.1f%%, robust z %+.1f over %zu GPUs)",
                                a, b, 100.0 * (x->v - med) / fabs(med), (x->v - med) / sigma, n);
        }
        if (nq && !rc && x->count >= cmin && !(dzt > 0 && (dist[i] - dmed) / dsig < dzt)) {   /* as zmin */
            double ownd = dist_noise(x) / fabs(ref[2] ? ref[2] : med);
            double dz = (dist[i] - dmed) / (isfinite(ownd) ? hypot(dsig, ownd) : dsig);
            int ds = dz >= dzt && dist[i] >= R->dist_rel_degraded ? GC_V_DEGRADED
                   : dz >= dzt && dist[i] >= R->dist_rel_suspect  ? GC_V_SUSPECT : GC_V_OK;
            if (ds && isnan(ref[4])) {   /* tmp's distances are used up: dsig is known */
                ref[4] = median_of_floats(tmp, c->q[4], n);
            }
            if (ds)
                rc = det_add_reason(v, "distribution", name, dist[i], dmed, dz, "wasserstein_rel", ds,
                                    "distribution %s than the peers': Wasserstein-1 %.1f%% of the median "
                                    "(peers %.1f%%); p50/p95/p99 %.5g/%.5g/%.5g vs %.5g/%.5g/%.5g",
                                    x->better == GC_BETTER_HIGHER ? "lower" : "higher",
                                    100 * dist[i], 100 * dmed, x->q[2], x->q[3], x->q[4], ref[2],
                                    ref[3], ref[4]);
            if (ds >= GC_V_DEGRADED && !rc)
                again_distribution(d, &d->g[gids[xm[i]]], (uint32_t)k, ref, dmed, dsig, dzt,
                                   &v->reasons[v->nreasons - 1]);
        }
    }
    return rc;
}

/* A group's values come per key. When every member's values are in
 * strictly increasing key order (one plan: the first GPU's order names the
 * keys; grec.keys_rising), a chunk of keys at a time is filled member by member, each
 * member's values read in order; else (cells) each key's values are found
 * through a (member, value) index: a read of another GPU's array each, a
 * cache miss each at 16,384 GPUs, and 8 bytes of index a value. Both give
 * a key's values in member order: the same verdicts.
 * A chunk holds KEY_CHUNK keys whatever the group's size, so that each
 * member is visited (a cache miss: its values lie anywhere, fetched
 * VISIT_AHEAD members ahead) once per KEY_CHUNK keys and the visits grow
 * with the members, not with their square. 8 keys, not 32: a chunk of 32
 * was 19 MB at 16,384 GPUs, written and read back through memory once the
 * last-level cache (shared, and with the links judged and the catalogue
 * written beside it) no longer held it; of 8, 4.7 MB. Measured (perf,
 * the peers' thread, bench_tree -R): 4096 GPUs 604 -> 555-615 samples,
 * 16,384 GPUs 2404-3184 -> 2212-2287. judge_key reads a key's slice
 * three times (columns, distances, reasons), not once per median. */
enum { KEY_CHUNK = 8, VISIT_AHEAD = 8 };

/* Keys [k_lo, k_hi) of a group whose members' keys rise, a chunk at a
 * time; member m's verdict: verd[members[m]]. */
typedef struct half {
    gc_detect *d;
    const uint32_t *members, *gids;   /* gids: the members' records (d->g) */
    gc_verdict *verd;
    size_t nm, k_lo, k_hi;
    const val *const *vp0;
    const size_t *vn;
    const pool *pl;
    int rc;
} half;

static void *judge_half(void *arg)
{
    half *h = arg;
    const gc_rules *R = h->d->r;
    size_t nm = h->nm;
    cols c;
    if ((h->rc = cols_new(&c, nm)))
        return NULL;
    /* a key's slice a few vals more than nm apart: slices of every key
     * written at once do not share cache sets */
    size_t stride = nm + 7, kc = KEY_CHUNK, cn[KEY_CHUNK];
    val *cb = malloc(kc * stride * sizeof *cb);
    uint32_t *cm = malloc(kc * stride * sizeof *cm);
    size_t *cur = malloc((nm ? nm : 1) * sizeof *cur);
    if (!cb || !cm || !cur)
        h->rc = GC_ENOMEM;
    gc_huge_advise(cb, kc * stride * sizeof *cb);
    for (size_t m = 0; m < nm && !h->rc; m++)
        cur[m] = h->k_lo && h->vp0[m] ? det_first_key_at(h->vp0[m], h->vn[m], h->k_lo) : 0;
    for (size_t k0 = h->k_lo; k0 < h->k_hi && !h->rc; k0 += kc) {
        size_t kend = k0 + kc < h->k_hi ? k0 + kc : h->k_hi;
        memset(cn, 0, sizeof cn);
        for (size_t m = 0; m < nm; m++) {
            if (m + VISIT_AHEAD < nm && h->vp0[m + VISIT_AHEAD])
                __builtin_prefetch(h->vp0[m + VISIT_AHEAD] + cur[m + VISIT_AHEAD]);
            const val *v = h->vp0[m];
            size_t i = cur[m], n = h->vn[m];
            for (; i < n && v[i].key < kend; i++) {
                size_t kk = v[i].key - k0;   /* keys below k0 were read by earlier chunks */
                cb[kk * stride + cn[kk]] = v[i];
                cm[kk * stride + cn[kk]++] = (uint32_t)m;
            }
            cur[m] = i;
        }
        for (size_t kk = 0; k0 + kk < kend && !h->rc; kk++)
            if (cn[kk] >= (size_t)R->min_peers)
                h->rc = judge_key(h->d, k0 + kk, cb + kk * stride, cm + kk * stride, cn[kk], h->members,
                                  h->gids, h->verd, &c, h->pl);
    }
    free(cb), free(cm), free(cur);
    cols_free(&c);
    return NULL;
}

/* The keys in two halves, the second on a thread of its own: its reasons
 * go to verdicts of its own (shadow), appended to the members' after
 * both halves, so each verdict's reasons come in key order, as on one
 * thread (the first half's keys all come before the second's). */
static int judge_sorted(gc_detect *d, const uint32_t *members, size_t nm, const val *const *vp0,
                        const size_t *vn, gc_verdict *verd, const pool *pl)
{
    size_t nk = d->keys.n, kmid = nk / 2;
    half h0 = { d, members, members, verd, nm, 0, nk, vp0, vn, pl, 0 };
    gc_verdict *shadow = kmid ? calloc(nm ? nm : 1, sizeof *shadow) : NULL;
    uint32_t *self = shadow ? malloc((nm ? nm : 1) * sizeof *self) : NULL;
    pthread_t t;
    int threaded = 0;
    if (self) {
        for (size_t m = 0; m < nm; m++)
            self[m] = (uint32_t)m;
        h0.k_hi = kmid;
    }
    half h1 = { d, self, members, shadow, nm, kmid, nk, vp0, vn, pl, 0 };
    if (self && !(threaded = det_threads_allowed() && pthread_create(&t, NULL, judge_half, &h1) == 0))
        h0.k_hi = nk;   /* no thread: every key here */
    judge_half(&h0);
    if (threaded)
        pthread_join(t, NULL);
    int rc = h0.rc ? h0.rc : h1.rc;
    for (size_t m = 0; threaded && m < nm; m++)
        if (det_move_reasons(&verd[members[m]], &shadow[m]) && !rc)
            rc = GC_ENOMEM;
    free(shadow), free(self);
    return rc;
}

static int judge_group(gc_detect *d, const uint32_t *members, size_t nm, gc_verdict *verd, const pool *pl)
{
    const gc_rules *R = d->r;
    size_t nk = d->keys.n;
    /* per member its values (NULL: failed, not judged) and their number,
     * read once: a member's grec is ~700 bytes, and each chunk below goes
     * over every member; whether its keys rise was noted as they were
     * added (no pass over every value here) */
    size_t mm = nm ? nm : 1;
    const val **vp0 = malloc(mm * sizeof *vp0);
    size_t *vn = malloc(mm * sizeof *vn);
    int sorted = 1;
    for (size_t m = 0; m < nm && vp0 && vn; m++) {
        const grec *g = &d->g[members[m]];
        int failed = !strcmp(g->status, "failed");
        vp0[m] = failed ? NULL : g->v;
        vn[m] = failed ? 0 : g->nv;
        sorted &= failed || g->keys_rising;
    }
    if (vp0 && vn && sorted) {
        int rc = judge_sorted(d, members, nm, vp0, vn, verd, pl);
        free(vp0), free(vn);
        return rc;
    }
    cols c;
    int rc = vp0 && vn ? cols_new(&c, nm) : GC_ENOMEM;
    free(vp0), free(vn);
    size_t *cnt = rc ? NULL : calloc(nk + 1, sizeof *cnt);
    size_t total = 0;
    if (!cnt) {
        if (!rc)
            cols_free(&c);
        return GC_ENOMEM;
    }
    for (size_t m = 0; m < nm; m++) {
        const grec *g = &d->g[members[m]];
        if (!strcmp(g->status, "failed"))
            continue;
        for (size_t i = 0; i < g->nv; i++)
            cnt[g->v[i].key + 1]++;
        total += g->nv;
    }
    for (size_t k = 0; k < nk; k++)
        cnt[k + 1] += cnt[k];
    cell *cells = malloc((total ? total : 1) * sizeof *cells);
    size_t *fill = malloc((nk ? nk : 1) * sizeof *fill);
    val *xs = malloc((nm ? nm : 1) * sizeof *xs);
    uint32_t *xm = malloc((nm ? nm : 1) * sizeof *xm);
    const val **vp = malloc((nm ? nm : 1) * sizeof *vp);   /* per member its values (no grec per read) */
    if (!cells || !fill || !xs || !xm || !vp) {
        free(cnt), free(cells), free(fill), free(xs), free(xm), free(vp);
        cols_free(&c);
        return GC_ENOMEM;
    }
    for (size_t m = 0; m < nm; m++)
        vp[m] = d->g[members[m]].v;
    memcpy(fill, cnt, nk * sizeof *fill);
    for (size_t m = 0; m < nm; m++) {
        const grec *g = &d->g[members[m]];
        if (!strcmp(g->status, "failed"))
            continue;
        for (size_t i = 0; i < g->nv; i++)
            cells[fill[g->v[i].key]++] = (cell){ (uint32_t)m, (uint32_t)i };
    }
    for (size_t k = 0; k < nk && !rc; k++) {
        size_t n = cnt[k + 1] - cnt[k];
        const cell *ce = cells + cnt[k];
        if (n < (size_t)R->min_peers)
            continue;
        /* each read another GPU's array: fetched a few ahead */
        for (size_t i = 0; i < n; i++) {
            if (i + 16 < n)
                __builtin_prefetch(vp[ce[i + 16].gi] + ce[i + 16].vi);
            xs[i] = vp[ce[i].gi][ce[i].vi];
            xm[i] = ce[i].gi;
        }
        rc = judge_key(d, k, xs, xm, n, members, members, verd, &c, pl);
    }
    free(cnt), free(cells), free(fill), free(xs), free(xm), free(vp);
    cols_free(&c);
    return rc;
}

/* A key's family: its text up to the first blank (the benchmark and
 * metric of a point; a derived parameter is a family of its own). */
static size_t family_len(const char *s)
{
    const char *b = strchr(s, ' ');
    return b ? (size_t)(b - s) : strlen(s);
}

static int by_family(const void *a, const void *b, void *ctx)
{
    const gc_detect *d = ctx;
    const char *x = d->keys.s[*(const uint32_t *)a], *y = d->keys.s[*(const uint32_t *)b];
    size_t lx = family_len(x), ly = family_len(y);
    int c = memcmp(x, y, lx < ly ? lx : ly);
    if (c || lx != ly)
        return c ? c : (lx > ly) - (lx < ly);
    return (*(const uint32_t *)a > *(const uint32_t *)b) - (*(const uint32_t *)a < *(const uint32_t *)b);
}

/* rel (nk, NAN: not judged) -> per key its family's median (in place) */
static int family_floors(const gc_detect *d, double *rel, size_t nk)
{
    uint32_t *ix = malloc((nk ? nk : 1) * sizeof *ix);
    double *t = malloc((nk ? nk : 1) * sizeof *t);
    if (!ix || !t) {
        free(ix), free(t);
        return GC_ENOMEM;
    }
    size_t m = 0;
    for (size_t k = 0; k < nk; k++)
        if (isfinite(rel[k]))
            ix[m++] = (uint32_t)k;
    qsort_r(ix, m, sizeof *ix, by_family, (void *)d);
    for (size_t a = 0; a < m;) {
        size_t e = a;
        const char *fa = d->keys.s[ix[a]];
        size_t la = family_len(fa);
        while (e < m && family_len(d->keys.s[ix[e]]) == la && !memcmp(d->keys.s[ix[e]], fa, la))
            e++;
        for (size_t i = a; i < e; i++)
            t[i - a] = rel[ix[i]];
        double med = gc_median(t, e - a);
        for (size_t i = a; i < e; i++)
            rel[ix[i]] = med;
        a = e;
    }
    free(ix), free(t);
    return 0;
}

int det_judge_gpu_peers(gc_detect *d, const uint32_t *members, size_t nm, gc_verdict *verd)
{
    size_t nk = d->keys.n;
    if (nm >= POOL_BELOW || !nk)
        return judge_group(d, members, nm, verd, NULL);
    double *rel = malloc(nk * sizeof *rel);
    if (!rel)
        return GC_ENOMEM;
    for (size_t k = 0; k < nk; k++)
        rel[k] = NAN;
    pool first = { rel, NULL }, second = { NULL, rel };
    int rc = judge_group(d, members, nm, verd, &first);
    if (!rc)
        rc = family_floors(d, rel, nk);
    if (!rc)
        rc = judge_group(d, members, nm, verd, &second);
    free(rel);
    return rc;
}
