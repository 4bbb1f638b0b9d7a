/* The sim backend's injected faults (sim_faults.c), private to the sim
 * backend. */
#ifndef GC_SIM_FAULTS_H
#define GC_SIM_FAULTS_H

#include <stdint.h>

#include "measure/backend.h"

enum { F_HBM_BW, F_L2_BW, F_SMEM_BW, F_L1_LAT, F_L2_LAT, F_DRAM_LAT,
       F_INST_LAT, F_LAUNCH, F_H2D_BW, F_D2H_BW, F_P2P_BW, F_NET_BW,
       F_SM_CLOCK, F_PCIE_WIDTH, F_NVLINK, F_NUMA, F_SUSTAIN, F_COUNT };

/* The faults in effect for one GPU, per metric. */
typedef struct faultset {
    double scale[F_COUNT];      /* product of scale factors, 1 = none */
    double bimodal[F_COUNT];    /* fraction of slow samples, 0 = none */
    double throttle_after_s;    /* sustained load: thermal throttling from then on; INFINITY none */
    double unstable;            /* sustained load: the clock dips by up to this fraction; 0 none */
    double foreign;             /* another process uses the GPU: the fraction of items NVML sees it in */
    double flap[F_COUNT];       /* a flapping link: half its items run at this factor; 0 none */
    double transient[F_COUNT];  /* the first measurement of each item at this factor; 0 none */
} faultset;

/* 1: a flapping link of fs runs slow for this item (half of them, by the seed and item). */
int sim_flap_slow(const gc_plan *plan, const char *node, int gpu, uint32_t item_id);
/* 1: NVML would see the other process during this item (fraction fs->foreign of items). */
int sim_foreign_seen(const gc_plan *plan, const char *node, int gpu, uint32_t item_id, double frac);

/* 0, or GC_EINVAL with a message when a fault is not one the sim knows. */
int sim_check_fault(const gc_plan *plan, const gc_fault *f, gc_err *err);
/* The faults in effect for GPU `gpu` of `node`. */
void sim_faults_for(const gc_plan *plan, const char *node, int gpu, faultset *fs);
/* crash / segv / hang / slow at this item: never returns when crash, segv or
 * hang matches. */
void sim_fault_events(const gc_plan *plan, const char *node, int gpu, uint32_t item_id);

#endif
