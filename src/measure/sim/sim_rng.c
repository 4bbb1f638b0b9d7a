/* The sim backend's PRNG, apart from backend_sim.c (which keeps the
 * physical models): splitmix64 seeding, one xoshiro256** stream per item,
 * and the draws the models use (normal, lognormal, outliers, bimodal).
 * Never rand(): every sample is deterministic for its seed keys. */
#include "measure/sim/sim_rng.h"

#include <math.h>

#define BIMODAL_SLOWDOWN 1.6

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t rng_next(sim_rng *r)
{
    uint64_t *s = r->s, out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3];
    s[2] ^= t; s[3] = rotl(s[3], 45);
    return out;
}

/* Seed from a list of integers (plan seed, node, gpu, item, stream). */
void sim_rng_seed(sim_rng *r, const uint64_t *keys, int n)
{
    uint64_t x = 0x51d0c3c5u;
    for (int i = 0; i < n; i++) {
        x ^= keys[i];
        x = splitmix64(&x);
    }
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
    r->has_spare = 0;
    r->spare = 0;
}

double sim_rng_unif(sim_rng *r)   /* (0, 1) */
{
    return ((double)(rng_next(r) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

double sim_rng_normal(sim_rng *r)
{
    if (r->has_spare) {
        r->has_spare = 0;
        return r->spare;
    }
    double u, v, s;   /* Marsaglia's polar method: no trigonometry */
    do {
        u = 2.0 * sim_rng_unif(r) - 1.0;
        v = 2.0 * sim_rng_unif(r) - 1.0;
        s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    double m = sqrt(-2.0 * log(s) / s);
    r->spare = v * m;
    r->has_spare = 1;
    return u * m;
}

double sim_lognorm(sim_rng *r, double sigma) { return exp(sigma * sim_rng_normal(r)); }

/* 1 most of the time; with probability p a factor in (1, max]. */
double sim_outlier(sim_rng *r, double p, double max)
{
    double u = sim_rng_unif(r);
    return u < p ? 1.0 + (max - 1.0) * (u / p) : 1.0;
}

/* 1 or BIMODAL_SLOWDOWN; always draws, so faults keep streams aligned. */
double sim_bimodal(sim_rng *r, double frac)
{
    return sim_rng_unif(r) < frac ? BIMODAL_SLOWDOWN : 1.0;
}
