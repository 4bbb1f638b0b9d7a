/* Net checks: after the net phase, which slow node pairs to measure again
 * so that the verdict can name the slow side. A judgement with the peers
 * rule's thresholds (rules.h), picked on rank 0 (run.c) from the net
 * phase's bandwidths; the schedule only says who meets whom. */
#ifndef GC_NET_CHECKS_H
#define GC_NET_CHECKS_H

#include <stddef.h>
#include <stdint.h>

#include "judge/rules.h"

/* Every slow pair (the peers rule of detect on the bandwidth at the
 * largest size: robust z >= z_suspect and >= rel_suspect below the median,
 * with >= min_peers pairs) has each of its sides, once, measured again
 * against a rank of a node with good results (an end of a pair that is not
 * slow, neither end of that slow pair). pairs: src, dst ranks, bps; out:
 * (side, good partner) as (src, dst). Returns the count (<= cap). */
typedef struct gc_net_pair {
    int src, dst;
    double bps;
} gc_net_pair;
size_t gc_net_checks(const gc_net_pair *pairs, size_t n, const gc_rules *r, gc_net_pair *out,
                     size_t cap);

/* Which ends of a set of network links are a slow side: an end whose
 * links' median bandwidth is below the median of the links that do not
 * touch it by the peers rule's suspect thresholds (robust z of those
 * links, and rel_suspect), with >= min_peers such links. A slow NIC
 * slows every link of its node: in a small set (4 nodes, each in half of
 * the links) the median over all links falls between the slow and the
 * good ones and hides them; the links of the other ends do not.
 * bps: n values (not finite or <= 0: not measured); ends: 2 per link,
 * ids < nids (UINT32_MAX: none); slow: nids flags, set here.
 * Returns the count of slow ends, or -1 out of memory. */
long gc_net_slow_ends(const double *bps, const uint32_t *ends, size_t n, size_t nids,
                      const gc_rules *r, uint8_t *slow);

/* Median and robust sigma (1.4826 MAD, at least sigma_floor_rel x the
 * median) of the links with no slow end (gc_net_slow_ends), where >=
 * min_peers are; else of all finite ones. used: how many. 0, or -1 out
 * of memory. */
int gc_net_reference(const double *bps, const uint32_t *ends, size_t n, const uint8_t *slow,
                     const gc_rules *r, double *med, double *sigma, size_t *used);

#endif
