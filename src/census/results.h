/* The in-memory census: run metadata, GPUs, their benchmark points. Every
 * stage (backends, shards, gather, catalogue) passes this on; none of them
 * reads JSON to talk to another. */
#ifndef GC_RESULTS_H
#define GC_RESULTS_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"
#include "census/hist.h"

#define GC_KEY_MAX 32
#define GC_STR_MAX 48
#define GC_MAX_CTX 24   /* a both-ways xfer point re-measured holds 21 on a real H100, 24 with spin_timeouts, dropped_chunks and over_nominal_samples; median_stable was dropped at 16 */
#define GC_NODE_MAX 64

/* One context entry of a point: a parameter of the measurement, e.g.
 * footprint_bytes = 65536 or kernel = "triad". */
typedef struct gc_ctxv {
    char key[GC_KEY_MAX];
    int is_str;
    double num;
    char str[GC_STR_MAX];
} gc_ctxv;

typedef struct gc_ctx {
    int n;
    gc_ctxv v[GC_MAX_CTX];
} gc_ctx;

int gc_ctx_set_num(gc_ctx *c, const char *key, double v);
int gc_ctx_set_str(gc_ctx *c, const char *key, const char *s);
const gc_ctxv *gc_ctx_get(const gc_ctx *c, const char *key);
double gc_ctx_num(const gc_ctx *c, const char *key, double dflt);
const char *gc_ctx_str(const gc_ctx *c, const char *key, const char *dflt);

/* A process other than the job's that held the GPU (NVML). */
#define GC_FOREIGN_MAX 4
typedef struct gc_foreign_proc {
    uint32_t pid;
    char name[32];              /* "" when NVML and /proc do not say */
} gc_foreign_proc;

/* GPU state sampled around a measurement (NVML on real GPUs). */
typedef struct gc_conditions {
    int valid;                  /* 0: not available (no NVML) */
    double sm_clock_mhz, mem_clock_mhz;
    double temperature_c, power_w;
    uint64_t throttle_reasons;  /* NVML clocksEventReasons bit mask */
    int64_t ecc_corrected, ecc_uncorrected; /* -1: unknown */
    /* Foreign load: processes outside the job with a context on the GPU
     * at this reading, and the highest SM / memory utilisation NVML
     * sampled for any of them since the work item began (percent). -1:
     * unknown. foreign[] lists up to GC_FOREIGN_MAX of those processes
     * (present now or seen in the samples). */
    int foreign_procs;
    int foreign_sm_util_pct, foreign_mem_util_pct;
    int nforeign;
    gc_foreign_proc foreign[GC_FOREIGN_MAX];
} gc_conditions;

enum { GC_PT_OK = 0, GC_PT_FAILED = 1 };
/* A transfer sample faster than its link's nominal rate times this is a
 * timing fault, not a fast link (the drivers flag it, the links' fit drops it). */
#define GC_OVER_NOMINAL 1.02

/* Flags on a point: conditions that make it suspect. */
enum {
    GC_FLAG_CLOCKS_MOVED = 1u << 0,
    GC_FLAG_THROTTLED = 1u << 1,
    GC_FLAG_BUDGET_HIT = 1u << 2,   /* fewer samples than asked: time budget */
    GC_FLAG_OVER_NOMINAL = 1u << 3, /* a transfer sample faster than the link's nominal x GC_OVER_NOMINAL */
    GC_FLAG_SHARED = 1u << 4,       /* another process used the GPU while it was measured */
};

/* Distribution summary in the point's unit. */
typedef struct gc_summary {
    uint64_t count;
    double min, p1, p5, p50, p95, p99, max, mean, stddev;
} gc_summary;

/* One measured distribution: a benchmark at one point of its sweep. The
 * histogram holds integers: value_in_unit * scale (e.g. ns recorded as ps
 * with scale 1000). */
typedef struct gc_point {
    uint32_t item_id;
    char bench[GC_KEY_MAX];
    char metric[GC_STR_MAX];
    char unit[GC_KEY_MAX];
    double scale;
    gc_ctx ctx;
    int status;
    uint32_t flags;
    char error[160];
    gc_conditions before, after;
    gc_hist hist;
    /* The histogram's bytes as encoded in the shard it was read from
     * (borrowed from the shard's buffer; NULL otherwise). The codec is
     * canonical, so these are the bytes gc_hist_encode would produce. */
    const uint8_t *enc;
    size_t enc_len;
    /* A point read from a compact record (record.h) has its summary and no
     * histogram: has_sum set, hist empty. */
    int has_sum;
    gc_summary sum;
} gc_point;

/* A scalar derived from points on rank 0 (plateaus, knees, fits). */
typedef struct gc_param {
    char name[GC_STR_MAX];
    double value;
    char unit[16];
    char source[96];   /* which benchmark/metric it came from */
} gc_param;

typedef struct gc_gpu_info {
    char node[GC_NODE_MAX];
    int local_index;     /* GPU index on the node = node-local rank */
    int rank;            /* MPI rank that drove it */
    char uuid[48];
    char pci_bus_id[24];
    char name[96];
    int cc_major, cc_minor;
    int sm_count, cores_per_sm, warp_size;
    int max_threads_per_sm, regs_per_sm;
    uint64_t smem_per_sm_bytes, l2_bytes, mem_bytes;
    double sm_clock_mhz, mem_clock_mhz;  /* maximum (application) clocks */
    int bus_width_bits;
    int ecc_enabled;     /* -1 unknown */
    int numa_node;       /* host NUMA node nearest the GPU, -1 unknown */
    char driver_version[24];
    /* Links (NVML on real GPUs; 0: unknown). PCIe generation and width as
     * trained while a transfer ran, and the link's maximum. */
    int pcie_gen, pcie_width, pcie_max_gen, pcie_max_width;
    /* The PCIe switch above the GPU: its upstream port's bus id (sysfs;
     * the sim's profile), "" when the GPU sits on a root port or unknown. */
    char pcie_switch[24];
    int nvlink_links;              /* active NVLinks */
    double nvlink_bps_per_link;    /* nominal, per direction */
    /* The host as the rank saw it (hostinfo.c; "" unknown): CPU frequency
     * governor, the CPUs and NUMA nodes the rank is bound to. */
    char host_governor[24];
    char host_cpus[64], host_mems[32];
} gc_gpu_info;

/* incomplete: the run stopped (a signal, a time limit, a lost rank) before
 * the GPU finished its plan; what it measured is kept, it is not judged in
 * full, and --resume finishes it */
enum { GC_GPU_OK = 0, GC_GPU_PARTIAL = 1, GC_GPU_FAILED = 2, GC_GPU_INCOMPLETE = 3 };

/* The method version a benchmark was measured with (registry.c). */
#define GC_MAX_METHODS 32
typedef struct gc_method {
    char bench[GC_KEY_MAX];
    int version;
} gc_method;

typedef struct gc_gpu {
    gc_gpu_info info;
    int status;               /* derived when a census is assembled */
    char status_reason[160];
    uint32_t items_total;     /* work items the plan gave this GPU */
    uint32_t items_done;
    int complete;             /* the rank reached the end of its plan */
    gc_conditions start, end;
    size_t npoints, cap_points;
    gc_point *points;
    size_t nparams, cap_params;
    gc_param *params;
    /* the method of every benchmark among its points: as recorded where
     * read, else this build's (gc_gpu_methods_fill) */
    int nmethods;
    gc_method methods[GC_MAX_METHODS];
} gc_gpu;

void gc_gpu_init(gc_gpu *g);
void gc_gpu_free(gc_gpu *g);
/* New point for a work item, its context copied from ctx; the histogram is
 * initialised with sub_bits. Returns NULL on allocation failure. */
gc_point *gc_gpu_add_point(gc_gpu *g, uint32_t item_id, const char *bench,
                           const gc_ctx *ctx, const char *metric,
                           const char *unit, double scale, uint32_t sub_bits);
int gc_gpu_add_param(gc_gpu *g, const char *name, double value,
                     const char *unit, const char *source);
const gc_point *gc_gpu_find_point(const gc_gpu *g, const char *bench,
                                  const char *metric, const gc_ctx *match);

/* The version recorded for bench, 0: none. */
int gc_gpu_method(const gc_gpu *g, const char *bench);
/* Record version for bench (replacing one recorded); -1 when full. */
int gc_gpu_set_method(gc_gpu *g, const char *bench, int version);
/* Every benchmark among the points without a recorded version gets
 * start_time's (gc_bench_method_at; NULL: this build's, gc_bench_method). */
void gc_gpu_methods_fill(gc_gpu *g, const char *start_time);
/* The method of each benchmark among the points, in the points' order: as
 * recorded, else this build's. Returns how many (at most GC_MAX_METHODS). */
int gc_gpu_methods_of(const gc_gpu *g, gc_method out[GC_MAX_METHODS]);

void gc_point_summary(const gc_point *p, gc_summary *s);
/* Samples behind the point (its histogram's, or its summary's count). */
uint64_t gc_point_count(const gc_point *p);

typedef struct gc_run_meta {
    char tool_version[16];
    char git_commit[48];
    char plan_name[64];
    char plan_file[256];
    char plan_sha256[65];
    char start_time[32];   /* ISO 8601 UTC */
    char end_time[32];
    char backend[8];       /* "cuda" or "sim" */
    char sim_profile[256]; /* sim only */
    uint64_t seed;         /* sim only */
    int ranks, nodes;
    double precision;      /* relative histogram precision */
    uint32_t sub_bits;
} gc_run_meta;

#endif
