/* Validation suite driver (bench `valid`): times one kernel of
 * kernels/valid_table.h, whose description (docs/kernel-description.md,
 * counted from this build's SASS) the models predict from. One point per
 * item: metric "time" in ns, one sample per launch (CUDA events), after a
 * warm-up launch whose results are checked on the host. The buffers are
 * allocated and initialised for the item and freed at its end.
 *
 * Context (beyond the item's `kernel`): grid_blocks, block_threads,
 * smem_dynamic_bytes, warps_per_sm (resident warps per SM the launch
 * allows: the occupancy API, bounded by the grid), elements (threads in
 * the grid) and sm_clock_mhz_measured: the mean of short %clock64 vs
 * %globaltimer probes run right after each chunk of timed launches, while
 * the clocks are still those of the busy GPU (the kernels themselves carry
 * no timer, so their SASS is exactly what the description counts).
 * The held-out kernels (kernels/heldout.cu, names "held_*") are timed the
 * same way; nothing is fitted to them (docs/kernel-description.md). */
#include "measure/cuda/cuda.h"

#include <string.h>

#include "valid_table.h"

#define CHUNK 5   /* launches between budget checks and clock probes */

#define NAME(name, fn, fam, k, threads, elements, bps, trips, mem) name,
static const char *const row_names[] = { GCV_TABLE(NAME) };
#undef NAME

static int row_of(const char *name)
{
    for (size_t r = 0; r < sizeof row_names / sizeof row_names[0]; r++)
        if (strcmp(row_names[r], name) == 0)
            return (int)r;
    return -1;
}

static int held_of(const char *name)
{
    for (int i = 0; i < gck_held_count(); i++)
        if (strcmp(gck_held_name(i), name) == 0)
            return i;
    return -1;
}

static int measure(gc_cuda *c, const gc_task *t, gc_gpu *g, gck_valid *v, int held, gc_err *err)
{
    char msg[256] = "";
    uint32_t total = gc_cuda_samples(t, 50);
    float ms[CHUNK];
    size_t ip = g->npoints;
    if (!gc_cuda_point(c, t, g, "time", err))
        return GC_ENOMEM;
    double lo = 0, hi = 0, mhz_sum = 0;
    uint32_t done = 0, probes = 0;
    while (done < total) {
        uint32_t n = total - done < CHUNK ? total - done : CHUNK;
        if (held ? gck_held_run(v, n, ms, msg, sizeof msg) : gck_valid_run(v, n, ms, msg, sizeof msg))
            return gc_fail(err, GC_EDEVICE, "%s", msg);
        double mhz = 0;
        if (gck_valid_clock(&c->scratch, &mhz, msg, sizeof msg))
            return gc_fail(err, GC_EDEVICE, "%s", msg);
        if (mhz > 0) {
            gc_cuda_clock_seen(c, mhz, &lo, &hi);
            mhz_sum += mhz;
            probes++;
        }
        for (uint32_t i = 0; i < n; i++)
            if (ms[i] > 0)
                gc_cuda_record(&g->points[ip], ms[i] * 1e6);
        done += n;
        if (gc_cuda_over(c))
            break;
    }
    int warps_per_block = (v->threads + c->dev.warp_size - 1) / c->dev.warp_size;
    int bps = v->blocks_per_sm;
    if (v->sms > 0 && (v->grid + v->sms - 1) / v->sms < bps)
        bps = (v->grid + v->sms - 1) / v->sms;   /* fewer blocks than room */
    gc_ctx *x = &g->points[ip].ctx;
    gc_ctx_set_num(x, "grid_blocks", v->grid);
    gc_ctx_set_num(x, "block_threads", v->threads);
    gc_ctx_set_num(x, "smem_dynamic_bytes", (double)v->smem);
    gc_ctx_set_num(x, "warps_per_sm", (double)bps * warps_per_block);
    gc_ctx_set_num(x, "elements", (double)v->grid * v->threads);
    gc_ctx_set_num(x, "sm_clock_mhz_measured", probes ? mhz_sum / probes : 0);
    return 0;
}

int gc_cuda_valid(gc_cuda *c, const gc_task *t, gc_gpu *g, gc_err *err)
{
    const char *kn = gc_cuda_str(t, "kernel");
    int r = row_of(kn), h = r < 0 ? held_of(kn) : -1;
    if (r < 0 && h < 0)
        return gc_fail(err, GC_EINVAL, "valid: no kernel '%s' in kernels/valid_table.h "
                       "or kernels/heldout.cu", kn);
    char msg[256] = "";
    gck_valid v;
    int rc = 0;
    if (h >= 0 ? gck_held_setup(&v, h, msg, sizeof msg) : gck_valid_setup(&v, r, msg, sizeof msg))
        rc = gc_fail(err, GC_EDEVICE, "valid: %s", msg);
    else
        rc = measure(c, t, g, &v, h >= 0, err);
    gck_valid_free(&v);
    return rc;
}
