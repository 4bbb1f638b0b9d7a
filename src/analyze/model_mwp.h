/* Hong & Kim's MWP-CWP model: S. Hong, H. Kim, "An Analytical Model for a
 * GPU Architecture with Memory-level and Thread-level Parallelism
 * Awareness", ISCA 2009. Kernel cycles from memory warp parallelism (MWP),
 * computation warp parallelism (CWP) and the number of repetitions. */
#ifndef GC_MODEL_MWP_H
#define GC_MODEL_MWP_H

#include "census/kdesc.h"
#include "analyze/model_hw.h"

/* The hardware parameters the model reads (model_hw.h ids). */
extern const int gc_mwp_params[];
extern const int gc_mwp_nparams;

typedef struct gc_mwp_pred {
    double cycles;             /* Exec_cycles_app + Synch_cost */
    double exec_ns;            /* cycles / Freq, without the launch floor */
    double ns;                 /* exec_ns + launch floor (lambda = 1) */
    int case_no;               /* 1: MWP = N = CWP; 2: CWP >= MWP or Comp > Mem;
                                  3: MWP > CWP; 0: no global memory instruction */
    double n, mwp, cwp, cwp_full, mwp_without_bw_full, mwp_peak_bw;
    double mem_l, mem_l_coal, mem_l_uncoal, departure_delay, bw_per_warp_bps;
    double load_bytes_per_warp, mem_bandwidth_bps;
    double comp_cycles, mem_cycles, synch_cycles, exec_cycles_app;
    double block_floor_cycles;   /* grid / active SMs x block interval (0: not measured) */
    double mem_insts, coal_mem_insts, uncoal_mem_insts, uncoal_per_mw, coal_per_mw;
    double rep, active_sms, active_blocks_per_sm;
} gc_mwp_pred;

/* GC_EINVAL naming the missing parameter when the GPU lacks one. */
int gc_mwp_predict(const gc_hwp *h, const gc_mlaunch *l, const gc_kdesc *d, gc_mwp_pred *o,
                   gc_err *err);

#endif
