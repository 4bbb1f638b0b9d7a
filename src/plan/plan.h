/* Plans: a libconfig file naming benchmarks with parameter sweeps, sample
 * counts, time budgets, phases, the output directory and, for sim runs, the
 * profile and injected faults. Loading validates everything and reports the
 * first error as "FILE:LINE: KEY.PATH: what is wrong" (exit code 2 in the
 * CLI) before any rank measures anything. Expanding turns the plan into work
 * items: benchmark x point of the sweep (cartesian product of its axes). */
#ifndef GC_PLAN_H
#define GC_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "census/registry.h"
#include "util/err.h"
#include "census/results.h"

#define GC_MAX_AXES 8
#define GC_MAX_SWEEP 4096      /* points per benchmark entry */
#define GC_MAX_ITEMS 65536      /* work items per plan */
#define GC_MAX_BENCH 1024       /* benchmark entries per plan */
#define GC_MAX_FAULTS 1024      /* sim faults per plan */

typedef struct gc_axis {
    char name[GC_KEY_MAX];
    int is_str;
    size_t n;
    double *nums;                  /* n values when !is_str */
    char (*strs)[GC_STR_MAX];      /* n values when is_str */
} gc_axis;

typedef struct gc_bench_spec {
    char name[GC_KEY_MAX];         /* registry name */
    char label[GC_KEY_MAX];        /* unique label in the plan (= name unless given) */
    const gc_bench_def *def;
    gc_phase phase;
    uint32_t samples;              /* samples per point (target) */
    uint32_t repetitions;          /* kernel launches per point (>= 1) */
    double budget_s;               /* wall budget per point */
    size_t naxes;
    gc_axis axes[GC_MAX_AXES];
    int line;                      /* where it was declared */
} gc_bench_spec;

/* A fault injected into the sim backend. kind:
 *   "scale"   multiply metric's samples by factor
 *   "bimodal" move a fraction (factor) of samples to 1.6x (e.g. L2 latency)
 *   "crash"   the rank dies (SIGKILL) when it reaches work item at_item
 *   "hang"    the rank stops responding at work item at_item
 *   "slow"    work item at_item takes `factor` seconds more, past its budget */
typedef struct gc_fault {
    char node[GC_NODE_MAX];        /* "" = any node */
    int gpu;                       /* -1 = any GPU of the node */
    char metric[GC_KEY_MAX];       /* e.g. hbm_bw, l2_latency, h2d_bw, nvlink */
    char kind[16];
    double factor;
    int at_item;
    int line;
} gc_fault;

typedef struct gc_sim_spec {
    int present;
    char profile[256];             /* path, relative to the plan's directory, the
                                      installed configs or cwd (gc_plan_sim_profile) */
    int profile_line;              /* where the plan gives it */
    uint64_t seed;
    int nodes;                     /* simulated nodes, ranks are spread over them;
                                      0 (absent) = the real node names */
    int gpus_per_node;
    size_t nfaults;
    gc_fault *faults;
} gc_sim_spec;

typedef struct gc_plan {
    char file[256];
    char name[64];
    char sha256[65];               /* of the file's bytes */
    char output[256];              /* "results/%t": %t = UTC timestamp, %j = job id */
    double precision;              /* relative histogram precision, default 0.01 */
    double budget_s;               /* whole plan per GPU, 0 = none */
    double pair_budget_s;          /* pair phase per GPU, split over its peers (schedule.h); 0 = none */
    double shard_interval_s;       /* a rank rewrites its shard at most this often, default 1 */
    size_t nbench;
    gc_bench_spec *bench;
    gc_sim_spec sim;
} gc_plan;

/* Parse and validate. On error fills err with "file:line: key: message" and
 * returns GC_EINVAL (GC_EIO when the file cannot be read). */
int gc_plan_load(const char *path, gc_plan *plan, gc_err *err);
/* The same from bytes in memory (a plan sent over MPI, a fuzzer's input);
 * name stands for the file in messages and in plan->file. */
int gc_plan_load_mem(const char *name, const char *bytes, size_t len, gc_plan *plan,
                     gc_err *err);
void gc_plan_free(gc_plan *plan);

/* A work item: one benchmark at one point of its sweep. Items are numbered
 * in plan order; the number is stable for a given plan file, so shards and
 * --resume can refer to it. */
typedef struct gc_item {
    uint32_t id;
    const gc_bench_spec *spec;
    gc_phase phase;
    gc_ctx params;                 /* the sweep point, one value per param */
} gc_item;

int gc_plan_expand(const gc_plan *plan, gc_item **items, size_t *nitems, gc_err *err);

/* The sim profile's path, for the sim backend only (a plan copied anywhere
 * still validates for a real run): absolute as given; relative, the first
 * readable of the plan's directory, the installed configs (util/datadir.h:
 * a plan copied out of configs/ names sim/h100-sxm.cfg) and the working
 * directory. GC_EINVAL "PLAN:LINE: sim.profile: ..." naming where it
 * looked when none is. */
int gc_plan_sim_profile(const gc_plan *plan, char *out, size_t cap, gc_err *err);

#endif
