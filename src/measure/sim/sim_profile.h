/* A sim profile: the numbers that describe one GPU model (and its links) to
 * the sim backend. Loading it is separate from sampling so that the format
 * (libconfig, documented at the top of configs/sim/h100-sxm.cfg) can be
 * checked on its own and read by tools without a backend. */
#ifndef GC_SIM_PROFILE_H
#define GC_SIM_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

#define GC_SIM_MAX_OPS 32
#define GC_SIM_MAX_BUS_IDS 16

typedef struct gc_sim_op {
    char name[16];               /* registry op name, e.g. "f32_fma" */
    double latency_cycles;
    double ops_per_cycle_per_sm; /* peak warp-lane ops per SM cycle */
} gc_sim_op;

typedef struct gc_sim_profile {
    char file[256];              /* the path it was loaded from */
    /* device: static properties */
    char name[96];
    int cc_major, cc_minor;
    int sm_count, cores_per_sm, warp_size;
    int max_threads_per_sm, regs_per_sm;
    double smem_per_sm_kib, l2_mib, mem_mib;
    double sm_clock_mhz, mem_clock_mhz;
    int bus_width_bits, ecc_enabled, numa_nodes;
    int nbus_ids;
    char bus_ids[GC_SIM_MAX_BUS_IDS][24];
    /* memory: capacities and unloaded latencies */
    double l1_kib, line_bytes;
    double l1_latency_cycles, l2_near_latency_cycles, l2_far_latency_cycles;
    double dram_latency_cycles;
    double tlb_reach_mib, tlb_miss_cycles;
    double timer_cost_cycles;
    double transition_sharpness;
    double accesses_per_sample;
    /* memory.loaded and memory.departure */
    double dram_knee_warps_per_sm, dram_slope_cycles_per_warp;
    double l2_slope_cycles_per_warp;
    double departure_coalesced_cycles, departure_uncoalesced_cycles;
    /* bandwidth */
    double hbm_theoretical_tb_per_s, hbm_achieved_tb_per_s;
    double hbm_read_factor, hbm_write_factor, hbm_copy_factor, hbm_triad_factor;
    double dram_fetch_bytes;   /* bytes DRAM moves for one isolated 32-byte sector */
    double hbm_blocks_per_sm_scale;
    double l2_tb_per_s;
    double smem_bytes_per_cycle_per_sm, smem_efficiency;
    double kernel_overhead_us;
    /* inst */
    int nops;
    gc_sim_op ops[GC_SIM_MAX_OPS];
    /* launch */
    double launch_back_to_back_us, launch_sync_us, block_interval_ns, block_replacement_ns;
    /* pcie */
    int pcie_gen, pcie_width;
    int pcie_switches;           /* PCIe switches per node, GPUs split evenly; 0: on root ports */
    double pcie_gt_per_s_per_lane;
    double h2d_pinned_gb_per_s, d2h_pinned_gb_per_s;
    double pageable_factor, pageable_extra_latency_us;
    double sm_engine_factor, pcie_latency_us, pcie_bidir_loss;
    /* nvlink */
    int nvlink_links;
    double nvlink_gb_per_s_per_link, p2p_achieved_gb_per_s, p2p_latency_us;
    double p2p_staged_gb_per_s, p2p_staged_latency_us, p2p_bidir_loss;
    /* net */
    double net_gb_per_s, net_latency_us;
    /* noise */
    double bw_sigma, latency_sd_cycles, latency_rel_sigma, time_sigma;
    double outlier_prob, outlier_max, launch_to_launch_sigma;
    /* spread: how GPUs of one SKU differ (tools/fleet-spread.py on tests/data/fleet and lab/fleet) */
    double spread_gpu_bw, spread_gpu_latency, spread_host_link;
    /* conditions */
    double idle_temperature_c, power_w;
    /* sustain: a healthy GPU under a steady HBM or FMA load */
    double sus_hbm_sm_clock_mhz, sus_fma_sm_clock_mhz;
    double sus_hbm_power_w, sus_fma_power_w;
    double sus_temperature_rise_c, sus_temperature_tau_s;
    double sus_clock_jitter_rel;       /* relative sd of one clock reading */
    double sus_throttle_clock_ratio;   /* fault throttle: clock after it / before */
} gc_sim_profile;

/* Load and validate a profile. Errors name the file, and the line for
 * syntax errors and bad values ("FILE:LINE: key: what is wrong"). */
int gc_sim_profile_load(const char *path, gc_sim_profile *p, gc_err *err);

const gc_sim_op *gc_sim_profile_op(const gc_sim_profile *p, const char *name);


#endif
