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

/* One chunk of n launches: ms[i] per launch, the bytes one launch moves. */
typedef int (*bw_launch_fn)(void *ctx, uint32_t n, float *ms, uint64_t *bytes, char *msg,
                            size_t len);

/* The sampling loop of every bandwidth driver: chunks of launches into
 * point ip of g, the item's budget checked between chunks. */
static int bw_sample(gc_cuda *c, gc_gpu *g, size_t ip, uint32_t total, float *ms,
                     bw_launch_fn launch, void *ctx, uint64_t *bytes, gc_err *err)
{
    char msg[256] = "";
    uint32_t done = 0, chunk = 5;
    while (done < total) {
        uint32_t n = total - done < chunk ? total - done : chunk;
        if (launch(ctx, n, ms, bytes, msg, sizeof msg))
            return gc_fail(err, GC_EDEVICE, "%s", msg);
        record_ms(&g->points[ip], ms, n, *bytes);
        done += n;
        if (gc_cuda_over(c))
            break;
    }
    return 0;
}

typedef struct hbm_args {
    gck_stream_kind kind;
    void *buf;
    size_t fp;
    int blocks, full, threads, vec, unroll;
} hbm_args;

static int hbm_launch(void *ctx, uint32_t n, float *ms, uint64_t *bytes, char *msg, size_t len)
{
    hbm_args *a = (hbm_args *)ctx;
    if (a->full)   /* gck_stream_run sets the full grid's size: 0 asks for it again */
        a->blocks = 0;
    return gck_stream_run(a->kind, a->buf, a->fp, &a->blocks, a->threads, a->vec, a->unroll, n, ms,
                          bytes, msg, len);
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
    hbm_args a = { kind, c->big, fp, full ? 0 : bps * c->dev.sm_count, full,
                   (int)gc_cuda_num(t, "block_threads"), (int)gc_cuda_num(t, "vector_bytes"),
                   (int)gc_cuda_num(t, "unroll") };
    uint64_t bytes = 0;
    if ((rc = bw_sample(c, g, ip, total, ms, hbm_launch, &a, &bytes, err)))
        return rc;
    int blocks = a.blocks, threads = a.threads;
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

typedef struct l2_args {
    void *buf;
    size_t fp;
    int threads, unroll, sweep, blocks;
    double readers;
} l2_args;

static int l2_launch(void *ctx, uint32_t n, float *ms, uint64_t *bytes, char *msg, size_t len)
{
    l2_args *a = (l2_args *)ctx;
    return gck_l2_run(a->buf, a->fp, L2_LAUNCH_BYTES, a->threads, a->unroll, a->sweep, n, ms, bytes,
                      &a->blocks, &a->readers, msg, len);
}

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
    l2_args a = { c->big, fp, (int)gc_cuda_num(t, "block_threads"), (int)gc_cuda_num(t, "unroll"),
                  strcmp(gc_cuda_str(t, "order"), "sweep") == 0, 0, 0 };
    uint64_t bytes = 0;
    if ((rc = bw_sample(c, g, ip, total, ms, l2_launch, &a, &bytes, err)))
        return rc;
    int blocks = a.blocks;
    double readers = a.readers;
    gc_ctx *x = &g->points[ip].ctx;
    gc_ctx_set_num(x, "grid_blocks", blocks);
    gc_ctx_set_num(x, "bytes_moved", (double)bytes);
    gc_ctx_set_num(x, "l2_bytes", (double)c->dev.l2_bytes);
    gc_ctx_set_num(x, "blocks_per_chunk", readers);
    return 0;
}

typedef struct smem_args {
    int stride, blocks, threads;
} smem_args;

static int smem_launch(void *ctx, uint32_t n, float *ms, uint64_t *bytes, char *msg, size_t len)
{
    smem_args *a = (smem_args *)ctx;
    return gck_smem_run(a->stride, 0, n, ms, bytes, &a->blocks, &a->threads, msg, len);
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
    smem_args a = { stride, 0, 0 };
    uint64_t bytes = 0;
    int rc = bw_sample(c, g, ip, total, ms, smem_launch, &a, &bytes, err);
    if (rc)
        return rc;
    int blocks = a.blocks, threads = a.threads;
    gc_ctx *x = &g->points[ip].ctx;
    gc_ctx_set_num(x, "grid_blocks", blocks);
    gc_ctx_set_num(x, "block_threads", threads);
    gc_ctx_set_num(x, "bytes_moved", (double)bytes);
    return 0;
}
