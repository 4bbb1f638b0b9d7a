/* Sustained load (sustain): HBM-heavy (triad) or FMA-heavy kernels back
 * to back for duration_s while a host thread samples NVML every
 * SAMPLE_PERIOD_S: SM clock, power, temperature, clocks-event reasons;
 * XID events and remapped rows are watched, ECC counts read at both ends.
 * What a short benchmark cannot see: a GPU that throttles after tens of
 * seconds, or whose clock does not hold still under a steady load.
 *
 * Points (docs/metrics.md): per launch the work rate (bandwidth or
 * flop_per_s); per NVML sample sm_clock, power, temperature, throttled
 * (1: a fault slowdown, GC_NVML_FAULT_MASK) and power_capped (1: SW power
 * cap). The sm_clock point's context holds what happened once:
 * first_slowdown_s (seconds from the start of the load to the first fault
 * slowdown; absent when none), slowdown_reasons (every reason seen but
 * idle), and where NVML can tell, xid_events, remapped_rows_new,
 * ecc_corrected_new, ecc_uncorrected_new. The sampling thread also looks
 * for other processes on the GPU every second: a long item must not miss
 * one that came and went (gpu_shared). */
#include "measure/cuda/cuda.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SAMPLE_PERIOD_S 0.1
#define FOREIGN_EVERY 10        /* samples between two looks for other processes */
#define SLICE_S 0.05            /* work between two budget checks */
#define FMA_LAUNCH_S 0.01       /* one FMA launch, calibrated */
#define HBM_FOOTPRINT (2ull << 30)
#define HBM_THREADS 256
#define HBM_BLOCKS_PER_SM 4

typedef struct sample {
    double t_s, sm_mhz, power_w, temp_c;
    uint64_t reasons;
} sample;

typedef struct sampler {
    gc_nvml *nvml;
    double t0;
    atomic_int stop;
    int shared;                 /* another process held or used the GPU meanwhile */
    sample *s;
    size_t n, cap;
    gc_conditions first, last;
    gc_nvml_health health;
} sampler;

static void *sample_loop(void *arg)
{
    sampler *sp = arg;
    uint64_t since_us = gc_nvml_now_us();
    for (unsigned k = 1; !atomic_load(&sp->stop) && sp->n < sp->cap; k++) {
        if (k % FOREIGN_EVERY == 0) {
            gc_conditions fc;
            sp->shared |= gc_nvml_foreign(sp->nvml, since_us, &fc);
            since_us = gc_nvml_now_us();
        }
        gc_conditions c;
        gc_nvml_read(sp->nvml, &c);
        if (c.valid) {
            sp->s[sp->n++] = (sample){ gc_now_s() - sp->t0, c.sm_clock_mhz, c.power_w,
                                       c.temperature_c, c.throttle_reasons };
            if (!sp->first.valid)
                sp->first = c;
            sp->last = c;
        }
        gc_nvml_watch_poll(sp->nvml, &sp->health);
        struct timespec ts = { 0, (long)(SAMPLE_PERIOD_S * 1e9) };
        nanosleep(&ts, NULL);
    }
    return NULL;
}

/* One slice of load: launches of about SLICE_S; rate samples into p. */
typedef struct load {
    int fma;
    uint32_t iters, launches;   /* FMA: per thread; launches per slice */
    double work;                /* bytes or flops per launch */
} load;

static int run_slice(gc_cuda *c, load *l, float *ms, char *msg, size_t cap)
{
    uint64_t work = 0;
    int blocks = HBM_BLOCKS_PER_SM * c->dev.sm_count;
    int rc = l->fma ? gck_fma_burn_run(l->iters, l->launches, ms, &work, msg, cap)
                    : gck_stream_run(GCK_STREAM_TRIAD, c->big, HBM_FOOTPRINT, &blocks,
                                     HBM_THREADS, 16, 4, l->launches, ms, &work, msg, cap);
    l->work = (double)work;
    return rc;
}

/* Launch sizes for slices of about SLICE_S, from one timed launch. */
static int calibrate(gc_cuda *c, load *l, float *ms, char *msg, size_t cap)
{
    l->iters = 256;
    l->launches = 1;
    if (run_slice(c, l, ms, msg, cap))
        return -1;
    double t = ms[0] * 1e-3 > 1e-6 ? ms[0] * 1e-3 : 1e-6;
    if (l->fma) {
        double it = l->iters * FMA_LAUNCH_S / t;
        l->iters = it < 16 ? 16 : it > 1e7 ? 10000000 : (uint32_t)it;
        t = FMA_LAUNCH_S;
    }
    double n = SLICE_S / t;
    l->launches = n < 1 ? 1 : n > 256 ? 256 : (uint32_t)n;
    return 0;
}

static void set_if(gc_ctx *x, const char *key, long long after, long long before)
{
    if (after >= 0 && before >= 0)
        gc_ctx_set_num(x, key, (double)(after - before));
}

/* The NVML samples as points; what happened once goes to the context of
 * the first (sm_clock: never judged point by point, so values that differ
 * between GPUs do not split its peers). */
static int sample_points(gc_cuda *c, const gc_task *t, gc_gpu *g, const sampler *sp,
                         const gc_nvml_health *h0, const load *l, double loaded_s, gc_err *err)
{
    static const char *const m[] = { "sm_clock", "power", "temperature", "throttled",
                                     "power_capped" };
    size_t first = g->npoints;
    for (size_t k = 0; k < sizeof m / sizeof m[0]; k++)
        if (!gc_cuda_point(c, t, g, m[k], err))
            return GC_ENOMEM;
    double onset = -1;
    uint64_t seen = 0;
    for (size_t i = 0; i < sp->n; i++) {
        const sample *s = &sp->s[i];
        int bad = (s->reasons & GC_NVML_FAULT_MASK) != 0;
        double v[5] = { s->sm_mhz, s->power_w, s->temp_c, bad, (s->reasons & GC_NVML_REASON_POWER_CAP) != 0 };
        for (int k = 0; k < 5; k++)
            gc_cuda_record(&g->points[first + (size_t)k], v[k]);
        if (bad && onset < 0)
            onset = s->t_s;
        seen |= s->reasons & ~GC_NVML_REASON_IDLE;
    }
    gc_ctx *x = &g->points[first].ctx;
    gc_ctx_set_num(x, "loaded_s", loaded_s);
    if (l->fma)
        gc_ctx_set_num(x, "fma_iters", l->iters);
    if (onset >= 0)
        gc_ctx_set_num(x, "first_slowdown_s", onset);
    gc_ctx_set_num(x, "slowdown_reasons", (double)seen);
    const gc_nvml_health *h = &sp->health;
    if (h->xid_events >= 0)
        gc_ctx_set_num(x, "xid_events", (double)h->xid_events);
    set_if(x, "remapped_rows_new", h->remapped_corr + h->remapped_unc, h0->remapped_corr + h0->remapped_unc);
    if (sp->first.valid) {
        set_if(x, "ecc_corrected_new", sp->last.ecc_corrected, sp->first.ecc_corrected);
        set_if(x, "ecc_uncorrected_new", sp->last.ecc_uncorrected, sp->first.ecc_uncorrected);
    }
    return 0;
}

int gc_cuda_sustain(gc_cuda *c, const gc_task *t, gc_gpu *g, gc_err *err)
{
    load l = { .fma = strcmp(gc_cuda_str(t, "load"), "fma") == 0 };
    double duration_s = gc_cuda_num(t, "duration_s");
    if (!c->nvml)
        return gc_fail(err, GC_EUNSUPPORTED, "sustain: NVML is not available to watch the clocks");
    int rc = l.fma ? 0 : gc_cuda_big(c, HBM_FOOTPRINT, err);
    if (rc)
        return rc;
    float *ms = (float *)gc_cuda_host(c, 256, err);
    if (!ms)
        return GC_ENOMEM;
    char msg[256] = "";
    if (calibrate(c, &l, ms, msg, sizeof msg))
        return gc_fail(err, GC_EDEVICE, "sustain: %s", msg);
    sampler sp = { .nvml = c->nvml, .cap = (size_t)(duration_s / SAMPLE_PERIOD_S) + 64 };
    sp.s = calloc(sp.cap, sizeof *sp.s);
    if (!sp.s)
        return gc_fail(err, GC_ENOMEM, "out of memory");
    gc_nvml_watch_begin(c->nvml, &sp.health);
    gc_nvml_health h0 = sp.health;
    size_t ip = g->npoints;
    gc_point *p = gc_cuda_point(c, t, g, l.fma ? "flops" : "bandwidth", err);
    pthread_t th;
    sp.t0 = gc_now_s();
    if (!p || pthread_create(&th, NULL, sample_loop, &sp)) {
        gc_nvml_watch_end(c->nvml, &sp.health);
        free(sp.s);
        return p ? gc_fail(err, GC_EIO, "sustain: cannot start the sampling thread") : GC_ENOMEM;
    }
    while (gc_now_s() - sp.t0 < duration_s && !gc_cuda_over(c)) {
        if ((rc = run_slice(c, &l, ms, msg, sizeof msg)) != 0)
            break;
        for (uint32_t i = 0; i < l.launches; i++)
            if (ms[i] > 0)
                gc_cuda_record(&g->points[ip], l.work / (ms[i] * 1e-3));
    }
    double loaded_s = gc_now_s() - sp.t0;
    atomic_store(&sp.stop, 1);
    pthread_join(th, NULL);
    if (sp.shared)
        c->flags |= GC_FLAG_SHARED;
    gc_nvml_watch_end(c->nvml, &sp.health);
    rc = rc ? gc_fail(err, GC_EDEVICE, "sustain: %s", msg)
            : sample_points(c, t, g, &sp, &h0, &l, loaded_s, err);
    free(sp.s);
    return rc;
}
