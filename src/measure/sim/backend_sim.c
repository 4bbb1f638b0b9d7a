/* The sim backend: synthetic samples from a GPU profile, with injected
 * faults, so that the whole pipeline (plan, phases, shards, gather, fits,
 * detection, catalogue) runs and is tested without a GPU.
 *
 * Samples come from small physical models (cache hit fractions from
 * footprint vs capacity, t = latency + bytes / bandwidth for transfers,
 * Little's-law-like loaded latency) plus jitter and rare outliers. Every
 * sample is deterministic for (plan seed, node index, local index, item
 * id): one xoshiro256** stream per item, never rand().
 *
 * Faults (plan sim.faults) matching this rank's node and GPU:
 *   scale    multiplies a metric (bandwidths: samples x factor, times /
 *            factor), or sets a state: sm_clock (clock x factor: ns latencies
 *            and SM-clocked bandwidths move, conditions report it with the
 *            HW-slowdown throttle bit), pcie_width (x16 x factor: host copy
 *            bandwidth x factor), nvlink (fraction of links up: P2P with peer
 *            access x factor), numa (host copies x factor)
 *   bimodal  a fraction `factor` of samples is 1.6x slower (latency x 1.6,
 *            bandwidth / 1.6)
 *   crash    SIGKILL when item at_item is measured; segv: a write through a
 *            null pointer there (SIGSEGV, as a bug would); hang: sleep
 *            forever; slow: item at_item takes `factor` seconds more,
 *            deadline or not.
 *   slow_end each step of the rank's end, after its items (its shard, each
 *            GPU of its node file, its record's analysis: every
 *            gc_watch_busy), takes `factor` seconds more; the rank says it
 *            is alive between steps as ever, and says on stderr that the
 *            sim slowed it (gc_sim_end_step_s; run.c).
 *   throttle, unstable (metric sustain): under sustained load, thermal
 *            throttling after `factor` seconds, or a clock that dips by up
 *            to `factor` (sim_sustain.c).
 *
 * This file opens the backend, sets up the microbenchmarks and runs the
 * sampling loop; it calls down into sim_xfer.c (transfers), sim_sustain.c
 * (sustained load) and sim_common.c (what they share), never the other way.
 *
 * The UUIDs it reports start with "GPU-51d0" ("sim"), then the node index
 * and local index in hex, then a hash of the profile name: stable across
 * runs and seeds, never confusable with a real GPU's. */
#include "measure/backend.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measure/sim/sim_int.h"
#include "measure/sim/sim_valid.h"

#define THROTTLE_HW_SLOWDOWN 0x8ull   /* nvmlClocksEventReasonHwSlowdown */

/* ---- open / conditions / close --------------------------------------- */

static void fill_info(const gc_backend *b, const gc_backend_args *a, gc_gpu_info *in)
{
    const gc_sim_profile *p = &b->prof;
    /* A GPU's UUID is the GPU's, not the job's: from the profile, the node's
     * name and the index on it (FNV-1a), the same in every run that has
     * that node, so its history follows it (history.c keys on UUIDs). */
    uint64_t h = 1469598103934665603ull, hn = h;
    for (const char *c = p->name; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ull;
    for (const char *c = b->node; *c; c++)
        hn = (hn ^ (unsigned char)*c) * 1099511628211ull;
    memset(in, 0, sizeof *in);
    snprintf(in->node, sizeof in->node, "%s", b->node);
    in->local_index = a->local_index;
    in->rank = a->rank;
    snprintf(in->uuid, sizeof in->uuid, "GPU-51d0%04x-%04x-5100-8000-%012llx",
             (unsigned)(hn >> 48), (unsigned)a->local_index & 0xffff,
             (unsigned long long)((h ^ hn) & 0xffffffffffffull));
    if (a->local_index >= 0 && a->local_index < p->nbus_ids)
        snprintf(in->pci_bus_id, sizeof in->pci_bus_id, "%s", p->bus_ids[a->local_index]);
    else
        snprintf(in->pci_bus_id, sizeof in->pci_bus_id, "00000000:%02X:00.0",
                 (unsigned)(0x10 + 0x10 * a->local_index) & 0xff);
    snprintf(in->name, sizeof in->name, "%s", p->name);
    in->cc_major = p->cc_major;
    in->cc_minor = p->cc_minor;
    in->sm_count = p->sm_count;
    in->cores_per_sm = p->cores_per_sm;
    in->warp_size = p->warp_size;
    in->max_threads_per_sm = p->max_threads_per_sm;
    in->regs_per_sm = p->regs_per_sm;
    in->smem_per_sm_bytes = (uint64_t)(p->smem_per_sm_kib * KIB);
    in->l2_bytes = (uint64_t)(p->l2_mib * MIB);
    in->mem_bytes = (uint64_t)(p->mem_mib * MIB);
    in->sm_clock_mhz = p->sm_clock_mhz;
    in->mem_clock_mhz = p->mem_clock_mhz;
    in->bus_width_bits = p->bus_width_bits;
    in->ecc_enabled = p->ecc_enabled;
    int gpus = b->plan->sim.gpus_per_node > 0 ? b->plan->sim.gpus_per_node : a->local_size;
    in->numa_node = gpus > 0 ? a->local_index * p->numa_nodes / gpus : 0;
    if (in->numa_node >= p->numa_nodes)
        in->numa_node = p->numa_nodes - 1;
    if (p->pcie_switches > 0 && gpus > 0) {
        /* the switch's upstream port, as sysfs names it (hostinfo.c) */
        int s = a->local_index * p->pcie_switches / gpus;
        snprintf(in->pcie_switch, sizeof in->pcie_switch, "0000:%02x:00.0",
                 (unsigned)(0x10 + 0x30 * (s < p->pcie_switches ? s : p->pcie_switches - 1)) & 0xff);
    }
    snprintf(in->driver_version, sizeof in->driver_version, "sim");
    int w = (int)lround(p->pcie_width * b->f.scale[F_PCIE_WIDTH]);
    in->pcie_gen = in->pcie_max_gen = p->pcie_gen;
    in->pcie_width = w < 1 ? 1 : w;
    in->pcie_max_width = p->pcie_width;
    in->nvlink_links = (int)lround(p->nvlink_links * b->f.scale[F_NVLINK]);
    in->nvlink_bps_per_link = p->nvlink_gb_per_s_per_link * 1e9;
}

static int load_profile(const gc_plan *plan, gc_sim_profile *prof, gc_err *err)
{
    char path[4200];
    int rc = gc_plan_sim_profile(plan, path, sizeof path, err);
    return rc ? rc : gc_sim_profile_load(path, prof, err);
}

int gc_sim_plan_check(const gc_plan *plan, gc_err *err)
{
    gc_sim_profile *prof = malloc(sizeof *prof);
    if (!prof)
        return gc_fail(err, GC_ENOMEM, "sim: out of memory");
    int rc = load_profile(plan, prof, err);
    free(prof);
    return rc;
}

static void spread(gc_backend *b);

static int sim_open(const gc_backend_args *a, gc_backend **out, gc_gpu_info *info,
                    gc_err *err)
{
    *out = NULL;
    gc_backend *b = calloc(1, sizeof *b);
    if (!b)
        return gc_fail(err, GC_ENOMEM, "sim: out of memory");
    int rc = load_profile(a->plan, &b->prof, err);
    for (size_t i = 0; !rc && i < a->plan->sim.nfaults; i++)
        rc = sim_check_fault(a->plan, &a->plan->sim.faults[i], err);
    if (rc) {
        free(b);
        return rc;
    }
    b->plan = a->plan;
    snprintf(b->node, sizeof b->node, "%s", a->node ? a->node : "");
    b->node_index = a->node_index;
    b->local_index = a->local_index;
    b->rank = a->rank;
    b->sub_bits = a->sub_bits;
    b->peer = a->peer;
    sim_faults_for(a->plan, b->node, b->local_index, &b->f);
    spread(b);
    if (!(b->attempts = calloc(GC_MAX_ITEMS, 1))) {
        free(b);
        return GC_ENOMEM;
    }
    fill_info(b, a, info);
    b->numa_node = info->numa_node;
    *out = b;
    return 0;
}

/* This GPU's draw of the profile's spread: how it differs from others of
 * its SKU (its chip, its HBM, its host path), from its place alone (not the
 * run's seed): a simulated GPU keeps its own factors from run to run, as a
 * real one does (history, drift). */
static void spread(gc_backend *b)
{
    sim_rng r;
    uint64_t keys[] = { (uint64_t)b->node_index, (uint64_t)b->local_index, 0x5354524541ull };
    sim_rng_seed(&r, keys, 3);
    const gc_sim_profile *p = &b->prof;
    double bw = 1 + p->spread_gpu_bw * sim_rng_normal(&r);
    double lat = 1 + p->spread_gpu_latency * sim_rng_normal(&r);
    /* the host path: one draw per node (its CPUs, root complexes, memory) */
    uint64_t hkeys[] = { (uint64_t)b->node_index, 0x484f5354ull };
    sim_rng_seed(&r, hkeys, 2);
    double host = 1 + p->spread_host_link * sim_rng_normal(&r);
    b->f.scale[F_HBM_BW] *= fmax(bw, 0.5);
    b->f.scale[F_L2_BW] *= fmax(bw, 0.5);
    b->f.scale[F_SMEM_BW] *= fmax(bw, 0.5);
    b->f.scale[F_L2_LAT] *= fmax(lat, 0.5);
    b->f.scale[F_DRAM_LAT] *= fmax(lat, 0.5);
    b->f.scale[F_H2D_BW] *= fmax(host, 0.5);
    b->f.scale[F_D2H_BW] *= fmax(host, 0.5);
}

static int sim_conditions(gc_backend *b, gc_conditions *c)
{
    sim_rng r;
    uint64_t keys[] = { b->plan->sim.seed, (uint64_t)b->node_index,
                        (uint64_t)b->local_index, 0xc0d1ull, b->cond_calls++ };
    sim_rng_seed(&r, keys, 5);
    double clk = b->f.scale[F_SM_CLOCK];
    memset(c, 0, sizeof *c);
    c->valid = 1;
    c->sm_clock_mhz = b->prof.sm_clock_mhz * clk;
    c->mem_clock_mhz = b->prof.mem_clock_mhz;
    /* a GPU held at a lower clock by the hardware runs hot */
    c->temperature_c = round(b->prof.idle_temperature_c + 3.0 * sim_rng_unif(&r) +
                             (clk < 1.0 ? 40.0 : 0.0));
    c->power_w = b->prof.power_w * (1.0 + 0.02 * sim_rng_normal(&r));
    c->throttle_reasons = clk < 1.0 ? THROTTLE_HW_SLOWDOWN : 0;
    c->ecc_corrected = 0;
    c->ecc_uncorrected = 0;
    return 0;
}

static void sim_close(gc_backend *b)
{
    if (b)
        free(b->net_buf), free(b->attempts);
    free(b);
}

/* ---- sampling: one job per work item --------------------------------- */

static const char *const M_LAT[] = { "latency" };
static const char *const M_DEPART[] = { "completion" };
static const char *const M_INST_LAT[] = { "latency", "timer_cost" };
static const char *const M_INST_THR[] = { "throughput" };
static const char *const M_BW[] = { "bandwidth" };
static const char *const M_TIME[] = { "time" };
static const char *const M_MLP_SECT[] = { "sector_cycles" };
static const char *const M_BLOCKS[] = { "block_interval" };

static void draw_bw(const job *j, sim_rng *r, double launch, double *v)
{
    const bw_m *m = &j->u.bw;
    double bps = m->bps * sim_lognorm(r, m->sigma) / sim_bimodal(r, m->slow) / launch /
                 sim_outlier(r, j->p->outlier_prob, j->p->outlier_max);
    v[0] = m->bytes / (m->overhead_s + m->bytes / bps);
}

static void draw_time(const job *j, sim_rng *r, double launch, double *v)
{
    const gc_sim_profile *p = j->p;
    v[0] = j->u.t.ns * sim_lognorm(r, p->time_sigma) * launch * sim_bimodal(r, j->u.t.slow) *
           sim_outlier(r, 5 * p->outlier_prob, 2 * p->outlier_max);
}

/* ---- setup per benchmark --------------------------------------------- */

static int setup_chase(const gc_backend *b, const gc_task *t, job *j, gc_err *err)
{
    (void)err;
    const gc_sim_profile *p = &b->prof;
    double fp = sim_pnum(t->item, "footprint_bytes");
    lat_m *m = &j->u.lat;
    int page = !strcmp(sim_pstr(t->item, "order"), "page");
    /* page order: one access per page before reuse; page-aligned strides map
     * to the same cache sets, so no credit for sparse lines, and TLB misses
     * beyond the TLB's reach */
    sim_chase_levels(b, fp, page ? p->line_bytes : sim_pnum(t->item, "line_bytes"), m);
    if (page)
        m->extra_cycles = (1 - sim_hit(fp, p->tlb_reach_mib * MIB, p->transition_sharpness)) *
                          p->tlb_miss_cycles;
    m->ns_slot = 1;
    m->timer_slot = 2;
    j->draw = sim_draw_latency;
    j->metrics = M_CHASE;
    j->nmetrics = 3;
    return 0;
}

static int setup_chase_loaded(const gc_backend *b, const gc_task *t, job *j, gc_err *err)
{
    (void)err;
    const gc_sim_profile *p = &b->prof;
    double w = sim_pnum(t->item, "warps_per_sm");
    lat_m *m = &j->u.lat;
    sim_chase_levels(b, sim_pnum(t->item, "footprint_bytes"), p->line_bytes, m);
    m->extra_cycles = m->p[3] * p->dram_slope_cycles_per_warp *
                          fmax(0.0, w - p->dram_knee_warps_per_sm) +
                      (m->p[1] + m->p[2]) * p->l2_slope_cycles_per_warp * (w - 1);
    m->rel_sigma *= 1.0 + w / 16.0;   /* contention spreads the samples */
    j->draw = sim_draw_latency;
    j->metrics = M_LAT;
    j->nmetrics = 1;
    return 0;
}

/* A single-level latency model: p[0] = 1 at lat cycles. */
static void single_level(const gc_backend *b, double lat, double slow, lat_m *m)
{
    sim_lat_common(b, m);
    m->p[0] = 1;
    m->lat[0] = lat;
    m->slow[0] = slow;
}

static int setup_departure(const gc_backend *b, const gc_task *t, job *j, gc_err *err)
{
    (void)err;
    const gc_sim_profile *p = &b->prof;
    int unco = !strcmp(sim_pstr(t->item, "access"), "uncoalesced");
    double k = sim_pnum(t->item, "requests");
    lat_m *m = &j->u.lat;
    single_level(b, p->dram_latency_cycles * b->f.scale[F_DRAM_LAT],
                 b->f.bimodal[F_DRAM_LAT], m);
    m->extra_cycles = (k - 1) * (unco ? p->departure_uncoalesced_cycles
                                      : p->departure_coalesced_cycles);
    m->sd_abs *= 2;   /* one warp's requests: a noisier sample than a chase */
    j->draw = sim_draw_latency;
    j->metrics = M_DEPART;
    j->nmetrics = 1;
    return 0;
}

#define SCHEDULERS_PER_SM 4

static int setup_inst(const gc_backend *b, const gc_task *t, job *j, gc_err *err)
{
    const gc_sim_profile *p = &b->prof;
    const char *opname = sim_pstr(t->item, "op");
    const gc_sim_op *op = gc_sim_profile_op(p, opname);
    if (!op)
        return gc_fail(err, GC_EUNSUPPORTED, "sim profile %s has no op \"%s\"", p->file, opname);
    double ilp = sim_pnum(t->item, "ilp");
    if (!strcmp(sim_pstr(t->item, "mode"), "throughput")) {
        bw_m *m = &j->u.bw;
        m->bytes = 1;
        m->bps = op->ops_per_cycle_per_sm * (0.97 - 0.1 / ilp);
        m->sigma = 0.5 * p->bw_sigma;
        j->draw = draw_bw;
        j->metrics = M_INST_THR;
        j->nmetrics = 1;
        return 0;
    }
    /* a warp issues one op per (warp lanes / lanes per scheduler) cycles */
    double issue = p->warp_size * SCHEDULERS_PER_SM / op->ops_per_cycle_per_sm;
    double lat = fmax(op->latency_cycles * b->f.scale[F_INST_LAT], ilp * issue);
    lat_m *m = &j->u.lat;
    single_level(b, lat, b->f.bimodal[F_INST_LAT], m);
    m->sd_abs = 0.02;
    m->rel_sigma = 0.001;
    m->timer_slot = 1;
    j->draw = sim_draw_latency;
    j->metrics = M_INST_LAT;
    j->nmetrics = 2;
    return 0;
}

static double l2_bps(const gc_backend *b)
{
    return b->prof.l2_tb_per_s * 1e12 * b->f.scale[F_SM_CLOCK] * b->f.scale[F_L2_BW];
}

/* Harmonic mix of L2 and HBM rates by the fraction of bytes that hit L2. */
static double mix_bps(const gc_backend *b, double footprint, double hbm)
{
    double h = sim_hit(footprint, b->prof.l2_mib * MIB, b->prof.transition_sharpness);
    return 1.0 / (h / l2_bps(b) + (1 - h) / hbm);
}

static void bw_job(const gc_backend *b, job *j, double bytes, double overhead_s,
                   double bps, double slow)
{
    j->u.bw = (bw_m){ bytes, overhead_s, bps, slow, b->prof.bw_sigma };
    j->draw = draw_bw;
    j->metrics = M_BW;
    j->nmetrics = 1;
}

static int setup_hbm(const gc_backend *b, const gc_task *t, job *j, gc_err *err)
{
    (void)err;
    double fp = sim_pnum(t->item, "footprint_bytes");
    int full = !strcmp(sim_pstr(t->item, "grid"), "full");   /* as many blocks as fit */
    double hbm = sim_hbm_bps(b, sim_pstr(t->item, "kernel"), full ? 32 : sim_pnum(t->item, "blocks_per_sm"));
    bw_job(b, j, fp, b->prof.kernel_overhead_us * 1e-6, mix_bps(b, fp, hbm),
           b->f.bimodal[F_HBM_BW]);
    return 0;
}

static int setup_l2(const gc_backend *b, const gc_task *t, job *j, gc_err *err)
{
    (void)err;
    double fp = sim_pnum(t->item, "footprint_bytes");
    double bytes = fmax(fp, 1024 * MIB);   /* passes over the footprint */
    bw_job(b, j, bytes, b->prof.kernel_overhead_us * 1e-6,
           mix_bps(b, fp, sim_hbm_bps(b, "triad", 32)), b->f.bimodal[F_L2_BW]);
    return 0;
}

static int gcd(int a, int b) { return b ? gcd(b, a % b) : a; }

static int setup_smem(const gc_backend *b, const gc_task *t, job *j, gc_err *err)
{
    (void)err;
    const gc_sim_profile *p = &b->prof;
    int stride = (int)sim_pnum(t->item, "stride_words");
    int ways = gcd(stride < 1 ? 1 : stride, 32);   /* bank-conflict degree */
    double bps = p->smem_bytes_per_cycle_per_sm * p->sm_count * p->sm_clock_mhz * 1e6 *
                 b->f.scale[F_SM_CLOCK] * p->smem_efficiency / ways *
                 b->f.scale[F_SMEM_BW];
    bw_job(b, j, 1, 0, bps, b->f.bimodal[F_SMEM_BW]);
    j->u.bw.sigma = 0.5 * p->bw_sigma;
    return 0;
}

static int setup_launch(const gc_backend *b, const gc_task *t, job *j, gc_err *err)
{
    (void)err;
    const gc_sim_profile *p = &b->prof;
    const char *mode = sim_pstr(t->item, "mode");
    int blocks = !strcmp(mode, "blocks");
    int one = blocks && !strcmp(sim_pstr(t->item, "resident"), "one");
    double us = one ? p->block_replacement_ns / 1000 : blocks ? p->block_interval_ns / 1000
                : !strcmp(mode, "launch_sync") ? p->launch_sync_us : p->launch_back_to_back_us;
    j->u.t.ns = us * 1000 * b->f.scale[F_LAUNCH];
    j->u.t.slow = b->f.bimodal[F_LAUNCH];
    j->draw = draw_time;
    j->metrics = blocks ? M_BLOCKS : M_TIME;
    j->nmetrics = 1;
    return 0;
}

/* Validation kernels: the ground truth of sim_valid.c, with time noise. */
static int setup_valid(const gc_backend *b, const gc_task *t, job *j, gc_err *err)
{
    j->u.t.slow = 0;   /* no bimodal samples */
    j->draw = draw_time;
    j->metrics = M_TIME;
    j->nmetrics = 1;
    /* the GPU records whole ns (census/metrics.c); the sim, as it always did, 0.001 ns */
    j->own_scale = 1000;
    return gc_sim_valid(&b->prof, sim_pstr(t->item, "kernel"), b->f.scale[F_SM_CLOCK],
                        b->f.scale[F_HBM_BW], &j->u.t.ns, &j->ctx, err);
}

/* bench mlp (cuda_mlp.c): the sim's own rules, not the GPU's. inflight:
 * the unloaded DRAM latency until N = warps x requests 128-byte requests
 * per SM fill the achieved bandwidth, then N x 128 bytes over it; gather:
 * the DRAM latency and one uncoalesced departure; scattered
 * loads: a sector at the L2 bandwidth, scattered stores: a DRAM fetch
 * (dram_fetch_bytes) each way at the HBM bandwidth; oneshot(_sync)'s block
 * excess: a quarter (a third with the barrier) of the DRAM latency x
 * (1 - 1 / warps per block). */
static int setup_mlp(const gc_backend *b, const gc_task *t, job *j, gc_err *err)
{
    (void)err;
    const gc_sim_profile *p = &b->prof;
    double cyc_s = p->sm_count * p->sm_clock_mhz * 1e6 * b->f.scale[F_SM_CLOCK];
    double hbm_bpc = sim_hbm_bps(b, "read", 32) / cyc_s, l2_bpc = p->l2_tb_per_s * 1e12 / cyc_s;
    const char *mode = sim_pstr(t->item, "mode");
    double n = sim_pnum(t->item, "warps_per_sm") * sim_pnum(t->item, "requests");
    if (!strcmp(mode, "inflight_copy"))   /* loads and stores: copy bandwidth, 2n requests */
        j->u.t.ns = fmax(p->dram_latency_cycles * b->f.scale[F_DRAM_LAT],
                         2 * n * 128 / (sim_hbm_bps(b, "copy", 32) / cyc_s));
    else if (!strncmp(mode, "inflight", 8))   /* sync: a 20% tail */
        j->u.t.ns = fmax(p->dram_latency_cycles * b->f.scale[F_DRAM_LAT], n * 128 / hbm_bpc) *
                    (strcmp(mode, "inflight") ? 1.2 : 1.0);
    else if (!strncmp(mode, "oneshot", 7))
        j->u.t.ns = p->dram_latency_cycles * b->f.scale[F_DRAM_LAT] / (strcmp(mode, "oneshot") ? 3 : 4) *
                    (1 - 32 / sim_pnum(t->item, "block_threads"));
    else if (!strcmp(mode, "gather"))   /* one uncoalesced request's departure on top */
        j->u.t.ns = p->dram_latency_cycles * b->f.scale[F_DRAM_LAT] + p->departure_uncoalesced_cycles;
    else if (!strcmp(mode, "scatter_load"))
        j->u.t.ns = 32 / l2_bpc;
    else
        j->u.t.ns = 2 * p->dram_fetch_bytes / hbm_bpc;
    j->u.t.slow = 0;
    j->draw = draw_time;
    j->metrics = strncmp(mode, "inflight", 8) && strcmp(mode, "gather") &&
                         strncmp(mode, "oneshot", 7) ? M_MLP_SECT : M_LAT;
    j->nmetrics = 1;
    return 0;
}

typedef int (*setup_fn)(const gc_backend *, const gc_task *, job *, gc_err *);

static const struct { const char *name; setup_fn setup; } setups[] = {
    { "chase", setup_chase }, { "chase_loaded", setup_chase_loaded },
    { "departure", setup_departure }, { "inst", setup_inst },
    { "hbm_bw", setup_hbm }, { "l2_bw", setup_l2 }, { "smem_bw", setup_smem },
    { "launch", setup_launch }, { "xfer", sim_setup_xfer }, { "p2p", sim_setup_p2p },
    { "net", sim_setup_net }, { "valid", setup_valid }, { "mlp", setup_mlp },
};

/* ---- the sampling loop ----------------------------------------------- */

static int deadline_passed(const gc_task *t, uint32_t i)
{
    return i > 0 && (i == 1 || (i & 31) == 0) && t->deadline_s > 0 &&
           gc_now_s() > t->deadline_s;
}

static int run_job(const gc_backend *b, const gc_task *t, gc_gpu *gpu, const job *j,
                   gc_err *err)
{
    const gc_bench_spec *spec = t->item->spec;
    gc_point *pts[MAXV];
    size_t first = gpu->npoints;
    for (int k = 0; k < j->nmetrics; k++) {
        gc_point *p;
        int rc = gc_metric_add_point(&p, gpu, t->item->id, spec->name, spec->label, &j->ctx,
                                     j->metrics[k], b->sub_bits, err);
        if (rc)
            return rc;
        if (j->own_scale > 0)
            p->scale = j->own_scale;
    }
    for (int k = 0; k < j->nmetrics; k++)   /* adding may move the array */
        pts[k] = &gpu->points[first + k];
    sim_rng r;
    /* the first pass's stream is the one it always was */
    uint64_t keys[] = { b->plan->sim.seed, (uint64_t)b->node_index,
                        (uint64_t)b->local_index, t->item->id, b->attempt,
                        (uint64_t)t->round };
    /* a confirming re-run (attempt) or a re-measure round draws afresh */
    sim_rng_seed(&r, keys, (b->attempt || t->round) ? 6 : 4);
    uint32_t n = spec->samples ? spec->samples : 1;
    uint32_t reps = spec->repetitions ? spec->repetitions : 1;
    uint32_t per_rep = (n + reps - 1) / reps;
    double launch = 1, v[MAXV];
    for (uint32_t i = 0; i < n; i++) {
        if (deadline_passed(t, i)) {
            for (int k = 0; k < j->nmetrics; k++)
                pts[k]->flags |= GC_FLAG_BUDGET_HIT;
            break;
        }
        if (i % per_rep == 0)
            launch = sim_lognorm(&r, b->prof.launch_to_launch_sigma);
        j->draw(j, &r, launch, v);
        for (int k = 0; k < j->nmetrics; k++)
            if (gc_hist_record(&pts[k]->hist, sim_to_units(v[k], pts[k]->scale)))
                return gc_fail(err, GC_ENOMEM, "sim: out of memory recording a sample");
    }
    return 0;
}

static int sim_measure(gc_backend *b, const gc_task *t, gc_gpu *gpu, gc_err *err)
{
    const gc_item *it = t->item;
    if (!t->round)   /* a crash or stall fault fires on the first pass only */
        sim_fault_events(b->plan, b->node, b->local_index, it->id);
    const char *name = it->spec->name;
    if (!strcmp(name, "net") && b->peer && b->peer->send && t->peer_rank >= 0)
        return sim_net_real(b, t, gpu, err);
    if ((!strcmp(name, "p2p") || !strcmp(name, "net")) && !t->initiator)
        return 0;   /* the initiator records the pair */
    size_t first = gpu->npoints;
    int rc = GC_EUNSUPPORTED;
    b->attempt = it->id < GC_MAX_ITEMS ? b->attempts[it->id] : 0;
    if (it->id < GC_MAX_ITEMS && b->attempts[it->id] < 255)
        b->attempts[it->id]++;
    /* a transient fault: its scale on the first measurement of an item only */
    faultset keep = b->f;
    /* a pair item runs once per peer: its first pass is its round 0 */
    int first_pass = t->peer_local_index >= 0 ? !t->round : b->attempt == 0;
    for (int m = 0; m < F_COUNT && first_pass; m++)
        if (b->f.transient[m] > 0)
            b->f.scale[m] *= b->f.transient[m];
    if (!strcmp(name, "sustain"))
        rc = sim_sustain(b, t, gpu, err);
    for (size_t i = 0; rc == GC_EUNSUPPORTED && i < sizeof setups / sizeof setups[0]; i++) {
        if (strcmp(setups[i].name, name))
            continue;
        /* a host chase per NUMA node (numa = "each") reads each node's
         * memory in turn, as the cuda backend does (cuda_xfer.c) */
        int nodes = !strcmp(name, "xfer") && !strcmp(sim_pstr(it, "mode"), "chase") &&
                    !strcmp(sim_pstr(it, "numa"), "each") ? b->prof.numa_nodes : 1;
        for (int k = 0; (rc == GC_EUNSUPPORTED || !rc) && k < nodes; k++) {
            job j;
            memset(&j, 0, sizeof j);
            j.p = &b->prof;
            j.ctx = it->params;
            j.numa_node = k;
            rc = setups[i].setup(b, t, &j, err);
            rc = rc ? rc : run_job(b, t, gpu, &j, err);
        }
    }
    b->f = keep;
    if (rc != GC_EUNSUPPORTED) {
        /* another process on the GPU: NVML sees it in some items (the
         * cuda backend's gpu_shared flag) */
        if (b->f.foreign > 0 && sim_foreign_seen(b->plan, b->node, b->local_index, it->id, b->f.foreign))
            for (size_t k = first; k < gpu->npoints; k++)
                gpu->points[k].flags |= GC_FLAG_SHARED;
        return rc;
    }
    return gc_fail(err, GC_EUNSUPPORTED, "sim: no model for benchmark \"%s\"", name);
}

const gc_backend_ops gc_backend_sim = {
    .name = "sim",
    .open = sim_open,
    .conditions = sim_conditions,
    .measure = sim_measure,
    .close = sim_close,
};
