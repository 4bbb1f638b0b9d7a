/* Net checks: after the net phase, which slow node pairs to measure again
 * so that the verdict can name the slow side. A judgement with the peers
 * rule's thresholds (rules.h), picked on rank 0 (run.c) from the net
 * phase's bandwidths; the schedule only says who meets whom. */
#ifndef GC_NET_CHECKS_H
#define GC_NET_CHECKS_H

#include <stddef.h>

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

#endif
