/* Net checks. See net_checks.h. */
#include "judge/net_checks.h"

#include <math.h>
#include <stdlib.h>

#include "util/stats.h"

/* Network links' robust sigma is at least this x their median (the rules'
 * sigma_floor_rel, 0.5%, is a GPU benchmark's run-to-run noise): on the
 * test bed (tests/net, 4 nodes behind tc tbf on a shared 2-core host) the
 * healthy pairs' robust sigma was 0.9-5.4% over 20 censuses, and one link
 * 5.8% low among pairs that read alike (sigma 0.86%) came out suspect. */
#define NET_SIGMA_FLOOR_REL 0.02

static double net_floor(const gc_rules *r)
{
    return fmax(r->sigma_floor_rel, NET_SIGMA_FLOOR_REL);
}

static int good_bps(double v)
{
    return isfinite(v) && v > 0;
}

/* median and robust sigma of v[0..k) (reordered) */
static void robust_of(double *v, size_t k, double floor_rel, double *med, double *sigma)
{
    *med = k ? gc_median(v, k) : 0;
    for (size_t i = 0; i < k; i++)
        v[i] = fabs(v[i] - *med);
    *sigma = k ? fmax(1.4826 * gc_median(v, k), floor_rel * fabs(*med)) : 0;
}

static int touches(const uint32_t *ends, size_t i, size_t id)
{
    return ends[2 * i] == id || ends[2 * i + 1] == id;
}

long gc_net_slow_ends(const double *bps, const uint32_t *ends, size_t n, size_t nids,
                      const gc_rules *r, uint8_t *slow)
{
    double *mine = malloc((n ? n : 1) * sizeof *mine), *rest = malloc((n ? n : 1) * sizeof *rest);
    if (!mine || !rest) {
        free(mine), free(rest);
        return -1;
    }
    long count = 0;
    for (size_t id = 0; id < nids; id++) {
        slow[id] = 0;
        size_t a = 0, b = 0;
        for (size_t i = 0; i < n; i++) {
            if (!good_bps(bps[i]))
                continue;
            if (touches(ends, i, id))
                mine[a++] = bps[i];
            else
                rest[b++] = bps[i];
        }
        if (!a || b < (size_t)r->min_peers)
            continue;
        double m = gc_median(mine, a), med, sigma;
        robust_of(rest, b, net_floor(r), &med, &sigma);
        if (med > 0 && sigma > 0 && (med - m) / sigma >= r->z_suspect &&
            (med - m) / med >= r->rel_suspect) {
            slow[id] = 1;
            count++;
        }
    }
    free(mine), free(rest);
    return count;
}

int gc_net_reference(const double *bps, const uint32_t *ends, size_t n, const uint8_t *slow,
                     const gc_rules *r, double *med, double *sigma, size_t *used)
{
    double *v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!good_bps(bps[i]))
            continue;
        int bad = 0;
        for (int e = 0; e < 2 && slow; e++)
            bad |= ends[2 * i + e] != UINT32_MAX && slow[ends[2 * i + e]];
        if (!bad)
            v[k++] = bps[i];
    }
    if (k < (size_t)r->min_peers) {   /* too few clean links: all of them */
        k = 0;
        for (size_t i = 0; i < n; i++)
            if (good_bps(bps[i]))
                v[k++] = bps[i];
    }
    robust_of(v, k, net_floor(r), med, sigma);
    *used = k;
    free(v);
    return 0;
}

static int is_slow(const gc_net_pair *p, double med, double sigma, const gc_rules *r)
{
    return p->bps > 0 && (med - p->bps) / sigma >= r->z_suspect &&
           (med - p->bps) / med >= r->rel_suspect;
}

size_t gc_net_checks(const gc_net_pair *pairs, size_t n, const gc_rules *r, gc_net_pair *out,
                     size_t cap)
{
    if (n < (size_t)r->min_peers)
        return 0;
    /* the reference: the pairs of no slow side (gc_net_slow_ends) */
    double *bps = malloc(n * sizeof *bps);
    uint32_t *ends = malloc(2 * n * sizeof *ends);
    size_t nids = 0;
    for (size_t i = 0; bps && ends && i < n; i++) {
        bps[i] = pairs[i].bps;
        ends[2 * i] = pairs[i].src >= 0 ? (uint32_t)pairs[i].src : UINT32_MAX;
        ends[2 * i + 1] = pairs[i].dst >= 0 ? (uint32_t)pairs[i].dst : UINT32_MAX;
        for (int e = 0; e < 2; e++)
            if (ends[2 * i + e] != UINT32_MAX && ends[2 * i + e] + 1 > nids)
                nids = ends[2 * i + e] + 1;
    }
    uint8_t *slow = bps && ends ? calloc(nids ? nids : 1, 1) : NULL;
    double med = 0, sigma = 0;
    size_t k = 0;
    int bad = !slow || gc_net_slow_ends(bps, ends, n, nids, r, slow) < 0 ||
              gc_net_reference(bps, ends, n, slow, r, &med, &sigma, &k);
    free(bps), free(ends), free(slow);
    if (bad || k < (size_t)r->min_peers || !(med > 0) || !(sigma > 0))
        return 0;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (!is_slow(&pairs[i], med, sigma, r))
            continue;
        int side[2] = { pairs[i].src, pairs[i].dst };
        for (int s = 0; s < 2 && m < cap; s++) {
            int done = 0;
            for (size_t q = 0; q < m; q++)
                done |= out[q].src == side[s];
            /* a good partner: an end of a pair that is not slow; one this
             * side has not met yet if there is one */
            int good = -1;
            for (int pass = 0; pass < 2 && good < 0 && !done; pass++)
                for (size_t j = 0; j < n && good < 0; j++) {
                    if (is_slow(&pairs[j], med, sigma, r) || !(pairs[j].bps > 0))
                        continue;
                    int c[2] = { pairs[j].src, pairs[j].dst };
                    for (int e = 0; e < 2 && good < 0; e++) {
                        int met = 0;
                        for (size_t q = 0; q < n; q++)
                            met |= (pairs[q].src == side[s] && pairs[q].dst == c[e]) ||
                                   (pairs[q].dst == side[s] && pairs[q].src == c[e]);
                        if (c[e] != pairs[i].src && c[e] != pairs[i].dst && (pass || !met))
                            good = c[e];
                    }
                }
            if (!done && good >= 0) {
                out[m].src = side[s];
                out[m].dst = good;
                out[m++].bps = 0;
            }
        }
    }
    return m;
}
