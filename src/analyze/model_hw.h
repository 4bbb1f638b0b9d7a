/* The hardware inputs of the two kernel-time models (model_mwp.c: Hong &
 * Kim's MWP-CWP; model_little.c: the Little's-law model of source document
 * 001), each taken from one measurement of the census with a `source`
 * naming it, and the launch geometry both models share (occupancy, active
 * SMs, warps per SM, repetitions).
 *
 * A parameter is one named value: the catalogue lists, per GPU and model,
 * the parameters that model reads (models.<model>.parameters), and predict
 * reads them back by name, so a catalogue is predicted from exactly the
 * values it shows. */
#ifndef GC_MODEL_HW_H
#define GC_MODEL_HW_H

#include "util/err.h"
#include "census/kdesc.h"
#include "census/occupancy.h"
#include "census/results.h"

enum {
    HW_FREQ_HZ = 0,      /* measured SM clock */
    HW_SM_COUNT,
    HW_WARP_SIZE,
    HW_SIMD_WIDTH,       /* CUDA cores per SM (properties) */
    HW_SCHEDULERS,       /* warp schedulers per SM (architecture) */
    HW_MEM_LD,           /* unloaded DRAM latency, cycles */
    HW_DEP_COAL,         /* cycles between coalesced warp requests (128 B) */
    HW_DEP_UNCOAL,       /* cycles between transactions (sectors) of an uncoalesced request */
    HW_ISSUE_FP32, HW_ISSUE_FP64, HW_ISSUE_INT, HW_ISSUE_SFU, HW_ISSUE_SMEM,
    HW_LANES_FP32, HW_LANES_FP64, HW_LANES_INT, HW_LANES_SFU, HW_LANES_SMEM,
    HW_LAT_FP32, HW_LAT_FP64, HW_LAT_INT, HW_LAT_SFU, HW_LAT_SMEM, HW_LAT_GMEM,
    HW_ISSUE_INTERVAL,   /* cycles between two instructions of one warp */
    HW_BW_READ, HW_BW_WRITE, HW_BW_COPY, HW_BW_TRIAD, HW_BW_THEO,
    HW_GMEM_BPC,         /* read bandwidth in bytes per cycle per SM (document 001 eq. 4.7) */
    HW_GMEM_BPC_THEO,
    HW_LAUNCH_NS,        /* kernel time floor: back-to-back empty launch */
    HW_BLOCK_CYCLES,     /* block scheduler: an SM retires a block and gets the next (throughput) */
    HW_FETCH_BYTES,      /* DRAM traffic of one isolated 32-byte sector */
    HW_BLOCK_LAT,        /* block replacement: a block's end to the next one's start, one per SM */
    /* bench mlp: a DRAM request's latency with N coalesced 128-byte requests
     * in flight per SM, N = 4 .. 512 by powers of 2 (HW_INFL_N4 + log2(N / 4)) */
    HW_INFL_N4, HW_INFL_N8, HW_INFL_N16, HW_INFL_N32, HW_INFL_N64, HW_INFL_N128,
    HW_INFL_N256, HW_INFL_N512,
    /* the same with a barrier ending each round: the slowest of 8 warps */
    HW_SYNC_N8, HW_SYNC_N16, HW_SYNC_N32, HW_SYNC_N64,
    /* the loads' latency when each round stores as much: N = 16 .. 512
     * requests (loads + stores) in flight per SM */
    HW_COPY_N16, HW_COPY_N32, HW_COPY_N64, HW_COPY_N128, HW_COPY_N256, HW_COPY_N512,
    HW_GATHER_LAT,       /* a dependent load whose 32 lanes lie in 32 random lines */
    HW_SCAT_LD,          /* SM cycles per sector of a load with one lane per line (L2-resident) */
    HW_SCAT_ST,          /* SM cycles per sector of a transpose's one-lane-per-line stores */
    HW_SCAT_LD_L1,       /* the same loads L1-resident (every line hits L1) */
    /* how long a one-shot block of T = 64 .. 1024 threads with a barrier
     * after its load holds its slots beyond its warps' own lives
     * (HW_OSW_T64 + log2(T / 64)) */
    HW_OSW_T64, HW_OSW_T128, HW_OSW_T256, HW_OSW_T512, HW_OSW_T1024,
    HW_L2_BPC,           /* L2 bandwidth in bytes per cycle per SM (l2_bw_bps) */
    HW_N
};

typedef struct gc_hw_def {
    const char *name, *symbol, *unit;
} gc_hw_def;
extern const gc_hw_def gc_hw_defs[HW_N];

typedef struct gc_hwp {
    double v[HW_N];          /* NAN: not available */
    char source[HW_N][96];
} gc_hwp;

/* Every parameter from the GPU's derived parameters (derive.c), its points
 * (the measured SM clock) and its properties. */
void gc_hwp_from_gpu(const gc_gpu *g, gc_hwp *h);
int gc_hwp_index(const char *name);   /* -1: unknown */
/* The first of ids[0..n) that is missing, or -1. */
int gc_hwp_missing(const gc_hwp *h, const int *ids, int n);

/* DRAM bandwidth for a kernel's mix of loads and stores: piecewise linear
 * in the store fraction of its bytes through the measured STREAM kernels,
 * read (0), triad (1/3), copy (1/2), write (1). */
double gc_hwp_bw_for(const gc_hwp *h, double load_bytes, double store_bytes);

#define HW_INFL_COUNT (HW_INFL_N512 - HW_INFL_N4 + 1)
/* A DRAM request's latency at n coalesced requests in flight per SM:
 * log-log interpolation between the measured N; below the first, its
 * value; beyond the last, the last one's bandwidth (latency grows as n).
 * NAN when none was measured. *src (may be NULL): the parameters used. */
double gc_hwp_inflight_latency(const gc_hwp *h, double n, const char **src);
/* The same when a share store_share of the requests are stores (the
 * kernel's): log-linear between the read-only table (share 0) and the
 * copy table (HW_COPY_N*, share 1/2; at least 1/2: the copy table), the
 * read-only one alone where the copy table is missing. */
double gc_hwp_mixed_latency(const gc_hwp *h, double n, double store_share, const char **src);
/* The same from the barrier-ended rounds (HW_SYNC_N8 .. N64). */
double gc_hwp_sync_latency(const gc_hwp *h, double n, const char **src);
/* How long a one-shot block of `threads` with a barrier after its loads
 * holds its slots beyond its warps' own lives (bench mlp oneshot_sync):
 * linear in log2(threads) between the measured block sizes, from 0 at one
 * warp (a lone warp's block is its life), the largest measured one beyond;
 * NAN when none measured. */
double gc_hwp_oneshot_excess(const gc_hwp *h, double threads);

/* Launch geometry of a kernel on one GPU, shared by both models. */
typedef struct gc_mlaunch {
    gc_occ occ;
    double active_sms;            /* min(SMs, grid) */
    double active_blocks_per_sm;  /* min(resident, ceil(grid / SMs)) */
    double warps_per_sm;          /* N: active warps per SM */
    double rep;                   /* grid / (active blocks per SM x active SMs) */
    double warps_launched;        /* grid x ceil(block / warp size) */
} gc_mlaunch;

int gc_mlaunch_of(const gc_occ_limits *lim, const gc_hwp *h, const gc_kdesc *d,
                  gc_mlaunch *m, gc_err *err);

#endif
