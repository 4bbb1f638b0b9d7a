/* One rank's share of a plan on the sim backend, without MPI: the items
 * gc_schedule gives the rank (pair and net items by their initiator, as a
 * run measures them), measured in order with every sample the plan asks
 * (no wall budget), conditions before and after each item, into a gc_gpu
 * as a run's rank holds it before its shard. For the benchmarks that build
 * censuses of many simulated GPUs in one process (bench_merge,
 * bench_verdicts); a run goes through run.c instead. */
#ifndef GC_SIM_RANK_H
#define GC_SIM_RANK_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"
#include "plan/plan.h"
#include "census/results.h"

/* rank of ranks, spread over nodes in contiguous blocks (gc_geom_simulated);
 * items: the plan's expanded items. gpu is initialised here; free it with
 * gc_gpu_free. An item whose measure fails is left out and said on stderr
 * (as a run records nothing for it). */
int gc_sim_rank_measure(const gc_plan *plan, const gc_item *items, size_t nitems, int ranks,
                        int nodes, int rank, uint32_t sub_bits, gc_gpu *gpu, gc_err *err);

#endif
