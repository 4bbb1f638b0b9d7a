/* The sim backend's injected faults (plan sim.faults), apart from
 * backend_sim.c: checking them, the per-metric scale / bimodal factors in
 * effect for one GPU, and the crash / hang / slow events at an item. */
#include "measure/sim/sim_faults.h"

#include <math.h>
#include <stdio.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const fault_metrics[F_COUNT] = {
    "hbm_bw", "l2_bw", "smem_bw", "l1_latency", "l2_latency", "dram_latency",
    "inst_latency", "launch", "h2d_bw", "d2h_bw", "p2p_bw", "net_bw",
    "sm_clock", "pcie_width", "nvlink", "numa", "sustain" };

static int fault_index(const char *metric)
{
    for (int i = 0; i < F_COUNT; i++)
        if (strcmp(fault_metrics[i], metric) == 0)
            return i;
    return -1;
}

int sim_check_fault(const gc_plan *plan, const gc_fault *f, gc_err *err)
{
    int m = fault_index(f->metric);
    int is_ev = !strcmp(f->kind, "crash") || !strcmp(f->kind, "segv") || !strcmp(f->kind, "hang") ||
                !strcmp(f->kind, "slow") || !strcmp(f->kind, "slow_end");
    int is_sus = !strcmp(f->kind, "throttle") || !strcmp(f->kind, "unstable");
    if (!strcmp(f->kind, "foreign_load")) {
        /* another process on the GPU (as tests/data/fleet *-quick-shared): factor = the
         * fraction of items NVML sees it in */
        if (strcmp(f->metric, "gpu") || !(f->factor > 0 && f->factor <= 1))
            return gc_fail(err, GC_EINVAL, "%s:%d: sim.faults: foreign_load takes metric \"gpu\" and a "
                           "factor in (0, 1] (the fraction of items it is seen in)", plan->file, f->line);
        return 0;
    }
    if (!strcmp(f->kind, "flap")) {
        if ((m != F_H2D_BW && m != F_D2H_BW && m != F_P2P_BW && m != F_NET_BW) ||
            !(f->factor > 0 && f->factor < 1))
            return gc_fail(err, GC_EINVAL, "%s:%d: sim.faults: flap takes a link metric (h2d_bw, d2h_bw, "
                           "p2p_bw, net_bw) and a factor in (0, 1)", plan->file, f->line);
        return 0;
    }
    if (!strcmp(f->kind, "transient")) {
        /* a deviation that does not repeat (jitter, a one-off stall): the
         * first measurement of each item at factor, a re-measure without */
        if (m < 0 || m >= F_SM_CLOCK || !(f->factor > 0 && f->factor <= 16))
            return gc_fail(err, GC_EINVAL, "%s:%d: sim.faults: transient takes a measured metric "
                           "(not a link or clock state) and a factor in (0, 16]", plan->file, f->line);
        return 0;
    }
    if (!is_ev && !is_sus && strcmp(f->kind, "scale") && strcmp(f->kind, "bimodal"))
        return gc_fail(err, GC_EINVAL, "%s:%d: sim.faults: unknown kind \"%s\"",
                       plan->file, f->line, f->kind);
    if (is_sus && m != F_SUSTAIN)
        return gc_fail(err, GC_EINVAL, "%s:%d: sim.faults: %s applies to metric sustain only",
                       plan->file, f->line, f->kind);
    if (m == F_SUSTAIN && !is_sus && strcmp(f->kind, "scale"))
        return gc_fail(err, GC_EINVAL, "%s:%d: sim.faults: metric sustain takes kinds throttle, "
                       "unstable or scale", plan->file, f->line);
    if (is_sus)
        return 0;
    if (!is_ev && m < 0)
        return gc_fail(err, GC_EINVAL, "%s:%d: sim.faults: unknown metric \"%s\" for the sim backend",
                       plan->file, f->line, f->metric);
    if (!strcmp(f->kind, "bimodal") && m >= F_SM_CLOCK)
        return gc_fail(err, GC_EINVAL, "%s:%d: sim.faults: bimodal does not apply to %s",
                       plan->file, f->line, f->metric);
    if (!is_ev && !(f->factor > 0 && f->factor <= 16))
        return gc_fail(err, GC_EINVAL, "%s:%d: sim.faults: factor %g outside (0, 16]",
                       plan->file, f->line, f->factor);
    return 0;
}

static int fault_matches(const gc_fault *f, const char *node, int gpu)
{
    return (f->node[0] == '\0' || strcmp(f->node, node) == 0) &&
           (f->gpu < 0 || f->gpu == gpu);
}

void sim_faults_for(const gc_plan *plan, const char *node, int gpu, faultset *fs)
{
    for (int i = 0; i < F_COUNT; i++) {
        fs->scale[i] = 1.0;
        fs->bimodal[i] = 0.0;
    }
    fs->throttle_after_s = INFINITY;
    fs->unstable = 0.0;
    fs->foreign = 0.0;
    for (int i = 0; i < F_COUNT; i++)
        fs->flap[i] = fs->transient[i] = 0.0;
    for (size_t i = 0; i < plan->sim.nfaults; i++) {
        const gc_fault *f = &plan->sim.faults[i];
        int m = fault_index(f->metric);
        if (!strcmp(f->kind, "foreign_load") && fault_matches(f, node, gpu)) {
            /* what a second process streaming HBM did to a real H100 and H200
             * (tests/data/fleet *-quick-shared): L2 latency 2.35x (it evicts L2
             * between time slices), launch + sync ~45x; HBM bandwidth kept */
            fs->foreign = fmax(fs->foreign, f->factor);
            fs->scale[F_L2_LAT] *= 2.35;
            fs->scale[F_LAUNCH] *= 45;
            continue;
        }
        if (m < 0 || !fault_matches(f, node, gpu))
            continue;
        if (!strcmp(f->kind, "flap")) {
            fs->flap[m] = f->factor;
            continue;
        }
        if (!strcmp(f->kind, "transient")) {
            fs->transient[m] = f->factor;
            continue;
        }
        if (!strcmp(f->kind, "scale"))
            fs->scale[m] *= f->factor;
        else if (!strcmp(f->kind, "bimodal"))
            fs->bimodal[m] = fmin(1.0, fs->bimodal[m] + f->factor);
        else if (!strcmp(f->kind, "throttle"))
            fs->throttle_after_s = fmin(fs->throttle_after_s, f->factor);
        else if (!strcmp(f->kind, "unstable"))
            fs->unstable = fmax(fs->unstable, f->factor);
    }
}

/* crash / hang at this item: never returns when one matches. */
void sim_fault_events(const gc_plan *plan, const char *node, int gpu, uint32_t item_id)
{
    const gc_sim_spec *s = &plan->sim;
    for (size_t i = 0; i < s->nfaults; i++) {
        const gc_fault *f = &s->faults[i];
        if (f->at_item != (int)item_id || !fault_matches(f, node, gpu))
            continue;
        if (!strcmp(f->kind, "crash"))
            raise(SIGKILL);
        if (!strcmp(f->kind, "segv")) {
            /* A real invalid access, as a bug would make: the crash
             * report's fault address and backtrace are the real ones. */
            volatile int *volatile nowhere = NULL;
            *nowhere = 1;
        }
        if (!strcmp(f->kind, "hang"))
            for (;;)
                sleep(60);
        if (!strcmp(f->kind, "slow")) {
            struct timespec ts = { (time_t)f->factor,
                                   (long)((f->factor - (double)(time_t)f->factor) * 1e9) };
            while (nanosleep(&ts, &ts) != 0) {}
        }
    }
}

double gc_sim_end_step_s(const gc_plan *plan, const char *node, int gpu)
{
    double s = 0;
    for (size_t i = 0; i < plan->sim.nfaults; i++) {
        const gc_fault *f = &plan->sim.faults[i];
        if (!strcmp(f->kind, "slow_end") && fault_matches(f, node, gpu))
            s += f->factor;
    }
    return s;
}

void gc_sim_end_step(void *end)
{
    gc_sim_end *e = end;
    struct timespec ts = { (time_t)e->step_s, (long)((e->step_s - (double)(time_t)e->step_s) * 1e9) };
    while (nanosleep(&ts, &ts) != 0) {}
    e->added_s += e->step_s;
    fprintf(stderr, "gpucensus: rank %d: sim fault slow_end: a step of its end %.1f s longer "
                    "(%.1f s so far)\n", e->rank, e->step_s, e->added_s);
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

static uint64_t item_hash(const gc_plan *plan, const char *node, int gpu, uint32_t item_id)
{
    uint64_t h = mix((uint64_t)plan->sim.seed + 0x9e3779b97f4a7c15ull);
    for (const char *c = node; c && *c; c++)
        h = mix(h ^ (uint8_t)*c);
    return mix(h ^ ((uint64_t)(uint32_t)gpu << 32) ^ item_id);
}

int sim_flap_slow(const gc_plan *plan, const char *node, int gpu, uint32_t item_id)
{
    return (item_hash(plan, node, gpu, item_id) >> 11) & 1;
}

int sim_foreign_seen(const gc_plan *plan, const char *node, int gpu, uint32_t item_id, double frac)
{
    return (double)(item_hash(plan, node, gpu, item_id ^ 0x5bd1e995u) >> 11) * 0x1.0p-53 < frac;
}
