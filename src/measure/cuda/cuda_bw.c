/* Bandwidth drivers: STREAM kernels on device memory (hbm_bw), an
 * L2-resident read (l2_bw), shared memory with a word stride (smem_bw).
 * One sample per launch: bytes read + written / event time. Context adds
 * the launch shape, the bytes moved and the theoretical HBM bandwidth
 * (memory clock x bus width x 2) so the achieved ratio can be computed. */
#include "measure/cuda/cuda.h"

#include <string.h>

static double theoretical_bps(const gc_cuda *c)
{
    return c->dev.mem_clock_khz * 1e3 * (c->dev.bus_width_bits / 8.0) * 2.0;
}

static const char *const kinds[] = { GCK_STREAM_KINDS(GCK_ENUM_NAME) };

/* Records launches' samples; returns the number recorded. */
static void record_ms(gc_point *p, const float *ms, uint32_t n, uint64_t bytes)
{
    for (uint32_t i = 0; i < n; i++)
        if (ms[i] > 0)
            gc_cuda_record(p, (double)bytes / (ms[i] * 1e-3));
}

int gc_cuda_hbm(gc_cuda *c, const gc_task *t, gc_gpu *g, gc_err *err)
{
    const char *kn = gc_cuda_str(t, "kernel");
    gck_stream_kind kind = GCK_STREAM_NKINDS;
    for (int i = 0; i < GCK_STREAM_NKINDS; i++)
        if (strcmp(kn, kinds[i]) == 0)
            kind = (gck_stream_kind)i;
    if (kind == GCK_STREAM_NKINDS)
        return gc_fail(err, GC_EINVAL, "hbm_bw: unknown kernel '%s'", kn);
    size_t fp = (size_t)gc_cuda_num(t, "footprint_bytes");
    int bps = (int)gc_cuda_num(t, "blocks_per_sm");
    if (bps < 1)
        bps = 1;
    int full = strcmp(gc_cuda_str(t, "grid"), "full") == 0;
    if (full && kind == GCK_STREAM_SPARSE)
        return gc_fail(err, GC_EINVAL, "hbm_bw: kernel sparse has no full grid (grid = \"stride\")");
    size_t fr = 0, tot = 0;
    char msg[256] = "";
    if (gck_mem_free(&fr, &tot, msg, sizeof msg) == 0 && fp > c->big_bytes &&
        fp - c->big_bytes + (256u << 20) > fr)
        return gc_fail(err, GC_EUNSUPPORTED, "hbm_bw: footprint %zu does not fit (%zu free)", fp, fr);
    int rc = gc_cuda_big(c, fp, err);
    if (rc)
        return rc;
    uint32_t total = gc_cuda_samples(t, 20);
    float *ms = (float *)gc_cuda_host(c, total, err);
    if (!ms)
        return GC_ENOMEM;
    size_t ip = g->npoints;
    gc_point *p = gc_cuda_point(c, t, g, "bandwidth", err);
    if (!p)
        return GC_ENOMEM;
    int blocks = full ? 0 : bps * c->dev.sm_count;
    int threads = (int)gc_cuda_num(t, "block_threads");
    int vec = (int)gc_cuda_num(t, "vector_bytes"), unroll = (int)gc_cuda_num(t, "unroll");
    uint64_t bytes = 0;
    uint32_t done = 0, chunk = 5;
    while (done < total) {   /* chunks of launches, budget checked between */
        uint32_t n = total - done < chunk ? total - done : chunk;
        if (full)   /* gck_stream_run sets the full grid's size: 0 asks for it again */
            blocks = 0;
        if (gck_stream_run(kind, c->big, fp, &blocks, threads, vec, unroll, n, ms, &bytes, msg,
                           sizeof msg))
            return gc_fail(err, GC_EDEVICE, "%s", msg);
        record_ms(&g->points[ip], ms, n, bytes);
        done += n;
        if (gc_cuda_over(c))
            break;
    }
    gc_ctx *x = &g->points[ip].ctx;
    gc_ctx_set_num(x, "grid_blocks", blocks);
    gc_ctx_set_num(x, "block_threads", threads);
    gc_ctx_set_num(x, "bytes_moved", (double)bytes);
    gc_ctx_set_num(x, "theoretical_bps", theoretical_bps(c));
    return 0;
}

/* About L2_LAUNCH_BYTES read per launch: long enough (~200 us at 10 TB/s)
 * that the launch and the event timer are noise. */
#define L2_LAUNCH_BYTES (2ull << 30)

int gc_cuda_l2(gc_cuda *c, const gc_task *t, gc_gpu *g, gc_err *err)
{
    size_t fp = (size_t)gc_cuda_num(t, "footprint_bytes");
    int rc = gc_cuda_big(c, fp, err);
    if (rc)
        return rc;
    uint32_t total = gc_cuda_samples(t, 20);
    float *ms = (float *)gc_cuda_host(c, total, err);
    if (!ms)
        return GC_ENOMEM;
    size_t ip = g->npoints;
    gc_point *p = gc_cuda_point(c, t, g, "bandwidth", err);
    if (!p)
        return GC_ENOMEM;
    int blocks = 0;
    int threads = (int)gc_cuda_num(t, "block_threads"), unroll = (int)gc_cuda_num(t, "unroll");
    int sweep = strcmp(gc_cuda_str(t, "order"), "sweep") == 0;
    double readers = 0;
    uint64_t bytes = 0;
    char msg[256] = "";
    uint32_t done = 0, chunk = 5;
    while (done < total) {
        uint32_t n = total - done < chunk ? total - done : chunk;
        if (gck_l2_run(c->big, fp, L2_LAUNCH_BYTES, threads, unroll, sweep, n, ms, &bytes, &blocks,
                       &readers, msg, sizeof msg))
            return gc_fail(err, GC_EDEVICE, "%s", msg);
        record_ms(&g->points[ip], ms, n, bytes);
        done += n;
        if (gc_cuda_over(c))
            break;
    }
    gc_ctx *x = &g->points[ip].ctx;
    gc_ctx_set_num(x, "grid_blocks", blocks);
    gc_ctx_set_num(x, "bytes_moved", (double)bytes);
    gc_ctx_set_num(x, "l2_bytes", (double)c->dev.l2_bytes);
    gc_ctx_set_num(x, "blocks_per_chunk", readers);
    return 0;
}

int gc_cuda_smem(gc_cuda *c, const gc_task *t, gc_gpu *g, gc_err *err)
{
    int stride = (int)gc_cuda_num(t, "stride_words");
    uint32_t total = gc_cuda_samples(t, 20);
    float *ms = (float *)gc_cuda_host(c, total, err);
    if (!ms)
        return GC_ENOMEM;
    size_t ip = g->npoints;
    gc_point *p = gc_cuda_point(c, t, g, "bandwidth", err);
    if (!p)
        return GC_ENOMEM;
    uint64_t bytes = 0;
    int blocks = 0, threads = 0;
    char msg[256] = "";
    uint32_t done = 0, chunk = 5;
    while (done < total) {
        uint32_t n = total - done < chunk ? total - done : chunk;
        if (gck_smem_run(stride, 0, n, ms, &bytes, &blocks, &threads, msg, sizeof msg))
            return gc_fail(err, GC_EDEVICE, "%s", msg);
        record_ms(&g->points[ip], ms, n, bytes);
        done += n;
        if (gc_cuda_over(c))
            break;
    }
    gc_ctx *x = &g->points[ip].ctx;
    gc_ctx_set_num(x, "grid_blocks", blocks);
    gc_ctx_set_num(x, "block_threads", threads);
    gc_ctx_set_num(x, "bytes_moved", (double)bytes);
    return 0;
}
