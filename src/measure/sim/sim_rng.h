/* The sim backend's PRNG (sim_rng.c): deterministic streams and draws,
 * private to the sim backend. */
#ifndef GC_SIM_RNG_H
#define GC_SIM_RNG_H

#include <stdint.h>

typedef struct sim_rng {
    uint64_t s[4];
    int has_spare;
    double spare;
} sim_rng;

/* Seed from a list of integers (plan seed, node, gpu, item, stream). */
void sim_rng_seed(sim_rng *r, const uint64_t *keys, int n);
double sim_rng_unif(sim_rng *r);     /* (0, 1) */
double sim_rng_normal(sim_rng *r);   /* standard normal */
double sim_lognorm(sim_rng *r, double sigma);
/* 1 most of the time; with probability p a factor in (1, max]. */
double sim_outlier(sim_rng *r, double p, double max);
/* 1 or 1.6 (a slow sample); always draws, so faults keep streams aligned. */
double sim_bimodal(sim_rng *r, double frac);

#endif
