/* Net checks. See net_checks.h. */
#include "judge/net_checks.h"

#include <math.h>
#include <stdlib.h>

#include "util/stats.h"

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
    double *v = malloc(n * sizeof *v);
    if (!v)
        return 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (pairs[i].bps > 0)
            v[k++] = pairs[i].bps;
    double med = k ? gc_median(v, k) : 0;
    for (size_t i = 0; i < k; i++)
        v[i] = fabs(v[i] - med);
    double sigma = k ? fmax(1.4826 * gc_median(v, k), r->sigma_floor_rel * med) : 0;
    free(v);
    if (k < (size_t)r->min_peers || !(med > 0) || !(sigma > 0))
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
