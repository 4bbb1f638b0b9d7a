/* Memory latency drivers: unloaded chase, loaded chase, departure delay.
 *
 * chase: one thread follows a random cycle through the footprint; a sample
 * is the mean cycles per access of one timed window of GCK_WINDOW dependent
 * loads minus the twin's median window (timer cost), divided by the window.
 * The twin's own distribution is kept as timer_cost (cycles per window).
 * ns come from the SM clock the kernel measured itself (clock64 against
 * globaltimer over the launch), not from a nominal clock. Successive launches
 * continue the chase where the last one stopped, so a footprint larger than
 * L2 never revisits a line within an item. */
#include "measure/cuda/cuda.h"

#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <emmintrin.h>
#endif

#include "util/timeutil.h"

#define MiB (1024.0 * 1024.0)
#define PAGE_STRIDE (2u << 20)

/* Builds (or reuses) the chain over footprint with one element per stride. */
static int chain_for(gc_cuda *c, uint64_t footprint, uint64_t stride, int page, gc_err *err)
{
    uint64_t n = footprint / stride;
    if (n < 2)
        return gc_fail(err, GC_EINVAL, "footprint %llu holds fewer than 2 elements of %llu bytes",
                       (unsigned long long)footprint, (unsigned long long)stride);
    if (c->chain_valid && c->chain.n == n && c->chain_stride == stride && c->chain_page == page)
        return 0;
    size_t need = (size_t)(n * stride);
    size_t fr = 0, tot = 0;
    char msg[256] = "";
    if (gck_mem_free(&fr, &tot, msg, sizeof msg) == 0 && need > c->big_bytes &&
        need - c->big_bytes + (256u << 20) > fr)
        return gc_fail(err, GC_EUNSUPPORTED, "footprint %llu bytes does not fit in free GPU memory (%zu)",
                       (unsigned long long)need, fr);
    int rc = gc_cuda_big(c, need, err);
    if (rc)
        return rc;
    if (n > c->perm_cap) {
        gck_free(c->perm);
        c->perm = NULL;
        c->perm_cap = 0;
        if (gck_malloc((void **)&c->perm, n * sizeof(uint32_t), msg, sizeof msg))
            return gc_fail(err, GC_EDEVICE, "%s", msg);
        c->perm_cap = n;
    }
    c->chain.buf = c->big;
    c->chain.n = n;
    c->chain.stride = stride;
    c->chain.page_offsets = page;
    c->chain.perm = c->perm;
    if (gck_chase_build(&c->chain, 0x5eed0000u + n, msg, sizeof msg))
        return gc_fail(err, GC_EDEVICE, "%s", msg);
    c->chain_valid = 1;
    c->chain_stride = stride;
    c->chain_page = page;
    c->cursor = c->chain.first;
    return 0;
}

/* Median timer cost of one window (cycles), from the twin kernel; the twin's
 * samples are recorded into tp when given. */
static int chase_twin(gc_cuda *c, uint32_t n, gc_point *tp, double *median, gc_err *err)
{
    char msg[256] = "";
    uint64_t cyc, ns;
    void *cur = c->cursor ? c->cursor : c->big;
    if (gck_chase_run(&cur, 0, n, 1, &c->scratch, &cyc, &ns, msg, sizeof msg))
        return gc_fail(err, GC_EDEVICE, "%s", msg);
    *median = gc_cuda_median_u32(c->scratch.h_samples, n);
    if (tp)
        for (uint32_t i = 0; i < n; i++)
            gc_cuda_record(tp, c->scratch.h_samples[i]);
    return 0;
}

int gc_cuda_chase(gc_cuda *c, const gc_task *t, gc_gpu *g, gc_err *err)
{
    uint64_t fp = (uint64_t)gc_cuda_num(t, "footprint_bytes");
    uint64_t stride = (uint64_t)gc_cuda_num(t, "line_bytes");
    int page = strcmp(gc_cuda_str(t, "order"), "page") == 0;
    if (stride < 8)
        stride = 8;
    stride = (stride + 7) & ~7ull;
    if (page && stride < PAGE_STRIDE)
        stride = PAGE_STRIDE;
    int rc = chain_for(c, fp, stride, page, err);
    if (rc)
        return rc;
    uint32_t total = gc_cuda_samples(t, 1000), launches = gc_cuda_launches(t);
    uint32_t per = (total + launches - 1) / launches;
    size_t ilat = g->npoints;
    gc_point *lat = gc_cuda_point(c, t, g, "latency", err);
    gc_point *lns = lat ? gc_cuda_point(c, t, g, "latency_ns", err) : NULL;
    gc_point *tc = lns ? gc_cuda_point(c, t, g, "timer_cost", err) : NULL;
    if (!tc)
        return GC_ENOMEM;
    /* pointers may move when points are added: index them */
    double twin = 0;
    if ((rc = chase_twin(c, per, &g->points[ilat + 2], &twin, err)))
        return rc;
    /* Warm: one full cycle when the footprint may fit in L2 (so the timed
     * windows see the steady state), else a few accesses (TLB, pipeline). */
    uint64_t warm = (fp <= 2 * c->dev.l2_bytes) ? c->chain.n : 4096;
    if (warm > (1u << 22))
        warm = 1u << 22;
    double lo = 0, hi = 0, mhz_sum = 0;
    uint32_t done = 0, nl = 0;
    char msg[256] = "";
    for (uint32_t l = 0; l < launches && done < total; l++) {
        uint32_t n = total - done < per ? total - done : per;
        uint64_t cyc, ns;
        if (gck_chase_run(&c->cursor, l == 0 ? (uint32_t)warm : 0, n, 0, &c->scratch, &cyc, &ns,
                          msg, sizeof msg))
            return gc_fail(err, GC_EDEVICE, "%s", msg);
        double mhz = ns ? (double)cyc / (double)ns * 1000.0 : c->dev.sm_clock_khz / 1000.0;
        gc_cuda_clock_seen(c, mhz, &lo, &hi);
        mhz_sum += mhz;
        nl++;
        for (uint32_t i = 0; i < n; i++) {
            double v = ((double)c->scratch.h_samples[i] - twin) / GCK_WINDOW;
            gc_cuda_record(&g->points[ilat], v);
            gc_cuda_record(&g->points[ilat + 1], v * 1000.0 / mhz);
        }
        done += n;
        if (gc_cuda_over(c))
            break;
    }
    for (int k = 0; k < 3; k++) {
        gc_ctx *x = &g->points[ilat + k].ctx;
        gc_ctx_set_num(x, "stride_bytes", (double)stride);
        gc_ctx_set_num(x, "elements", (double)c->chain.n);
        gc_ctx_set_num(x, "window_accesses", GCK_WINDOW);
        gc_ctx_set_num(x, "timer_cost_median_cycles", twin);
        gc_ctx_set_num(x, "sm_clock_mhz_measured", nl ? mhz_sum / nl : 0);
    }
    return 0;
}

int gc_cuda_chase_loaded(gc_cuda *c, const gc_task *t, gc_gpu *g, gc_err *err)
{
    uint64_t fp = (uint64_t)gc_cuda_num(t, "footprint_bytes");
    int wps = (int)gc_cuda_num(t, "warps_per_sm");
    if (wps < 1)
        wps = 1;
    int bps = (wps + 31) / 32, wpb = (wps + bps - 1) / bps;
    int blocks = bps * c->dev.sm_count, threads = 32 * wpb;
    /* A DRAM-resident chain: every launch starts from the same lines, which
     * an earlier launch or item (the same chain serves several) may have
     * left in L2; reading twice the L2 of other memory first evicts them.
     * Without it the H200's loaded latency fell from 676 cycles at one warp
     * per SM to 373 at 16 (L2 hits) and rose to 706 at 64: R^2 0.23. */
    int dram = fp > 2 * c->dev.l2_bytes;
    size_t flush = dram ? 2 * c->dev.l2_bytes : 0, flush_at = (fp + (2u << 20) - 1) & ~(size_t)((2u << 20) - 1);
    int rc = dram ? gc_cuda_big(c, flush_at + flush, err) : 0;
    if (!rc)
        rc = chain_for(c, fp, 128, 0, err);
    if (rc)
        return rc;
    uint64_t nw = (uint64_t)blocks * wpb;
    uint32_t total = gc_cuda_samples(t, 1000);
    uint32_t runs = (uint32_t)((total + nw - 1) / nw);
    if (runs < 2)
        runs = 2;
    uint64_t warm = fp <= 2 * c->dev.l2_bytes ? (c->chain.n + nw - 1) / nw : 8;
    if (warm > 65536)
        warm = 65536;
    size_t ilat = g->npoints;
    gc_point *lat = gc_cuda_point(c, t, g, "latency", err);
    if (!lat)
        return GC_ENOMEM;
    double twin = 0;
    if ((rc = chase_twin(c, 256, NULL, &twin, err)))
        return rc;
    char msg[256] = "";
    uint32_t launches = gc_cuda_launches(t);
    for (uint32_t l = 0; l < launches; l++) {
        int fb = 4 * c->dev.sm_count;
        uint64_t fbytes;
        float fms[1];
        if ((flush && gck_stream_run(GCK_STREAM_READ, (char *)c->big + flush_at, flush, &fb, 256,
                                     16, 4, 1, fms, &fbytes, msg, sizeof msg)) ||
            gck_chase_loaded_run(&c->chain, blocks, threads, (uint32_t)warm, runs, &c->scratch,
                                 msg, sizeof msg))
            return gc_fail(err, GC_EDEVICE, "%s", msg);
        for (uint64_t i = 0; i < nw * runs; i++)
            gc_cuda_record(&g->points[ilat],
                           ((double)c->scratch.h_samples[i] - twin) / GCK_WINDOW);
        if (gc_cuda_over(c))
            break;
    }
    gc_ctx *x = &g->points[ilat].ctx;
    gc_ctx_set_num(x, "warps_total", (double)nw);
    gc_ctx_set_num(x, "grid_blocks", blocks);
    gc_ctx_set_num(x, "block_threads", threads);
    gc_ctx_set_num(x, "timer_cost_median_cycles", twin);
    gc_ctx_set_num(x, "window_accesses", GCK_WINDOW);
    return 0;
}

int gc_cuda_departure(gc_cuda *c, const gc_task *t, gc_gpu *g, gc_err *err)
{
    int unc = strcmp(gc_cuda_str(t, "access"), "uncoalesced") == 0;
    int k = (int)gc_cuda_num(t, "requests");
    /* Fresh lines per sample: a buffer of at least 8x L2 and 1 GiB. */
    size_t need = 8 * c->dev.l2_bytes;
    if (need < (1u << 30))
        need = 1u << 30;
    int rc = gc_cuda_big(c, need, err);
    if (rc)
        return rc;
    uint32_t total = gc_cuda_samples(t, 200), launches = gc_cuda_launches(t);
    uint32_t per = (total + launches - 1) / launches;
    size_t ip = g->npoints;
    gc_point *p = gc_cuda_point(c, t, g, "completion", err);
    if (!p)
        return GC_ENOMEM;
    char msg[256] = "";
    uint32_t done = 0;
    for (uint32_t l = 0; l < launches && done < total; l++) {
        uint32_t n = total - done < per ? total - done : per;
        if (gck_departure_run(c->big, c->big_bytes, unc, k, n, &c->scratch, msg, sizeof msg))
            return gc_fail(err, strstr(msg, "not built") ? GC_EINVAL : GC_EDEVICE, "%s", msg);
        for (uint32_t i = 0; i < n; i++)
            gc_cuda_record(&g->points[ip], c->scratch.h_samples[i]);
        done += n;
        if (gc_cuda_over(c))
            break;
    }
    gc_ctx *x = &g->points[ip].ctx;
    gc_ctx_set_num(x, "sectors_per_request", unc ? 32 : 4);
    gc_ctx_set_num(x, "lines_per_request", unc ? 32 : 1);
    gc_ctx_set_num(x, "block_threads", 32);
    return 0;
}
/* ---- a chase over memory that is not the GPU's own ------------------------- */

#define FAR_STRIDE 128u
#define FAR_WARM 1024u
#define FAR_PER_LAUNCH 256u
#define FAR_MIN_PER_LAUNCH 2u

/* Writes back and drops the cache line of each of the chain's n elements
 * from the CPU caches, so that the chase reads the host's DRAM. The GPU
 * built the chain just before, and lines a device writes stay in the host's
 * last-level cache for a few ms (DRAM after ~20 ms): on two H200 hosts and
 * an H100 host a 1 MiB chain the GPU had just written read 1079-1143 ns in
 * this chase, the same flushed 1174-1217, nvbandwidth's
 * host_device_latency_sm 1176-1188, whose chain has left the caches after
 * its first launches (lab/gpu/peers_probe.cu hostmem, decay;
 * lab/examples-2026-11/PEERS.md). 0 where the CPU has no such instruction. */
static int flush_host_lines(const void *host, uint64_t n, size_t stride)
{
#if defined(__x86_64__) || defined(__i386__)
    for (uint64_t j = 0; j < n; j++)
        _mm_clflush((const char *)host + j * stride);
    _mm_mfence();
    return 1;
#elif defined(__aarch64__)
    for (uint64_t j = 0; j < n; j++)
        __asm__ volatile("dc civac, %0" ::"r"((const char *)host + j * stride) : "memory");
    __asm__ volatile("dsb sy" ::: "memory");
    return 1;
#else
    (void)host;
    (void)n;
    (void)stride;
    return 0;
#endif
}

int gc_cuda_chase_far(gc_cuda *c, const gc_task *t, gc_gpu *g, void *buf, void *host, size_t fp,
                      int every_sm, const char *what, gc_err *err)
{
    char msg[256] = "";
    uint64_t n = fp / FAR_STRIDE;
    if (n < 2 || n > (1ull << 31))
        return gc_fail(err, GC_EINVAL, "%s: size_bytes %zu: 2 .. 2^31 lines of %u bytes", what, fp,
                       FAR_STRIDE);
    gck_chain ch = { 0 };
    ch.buf = buf;
    ch.n = n;
    ch.stride = FAR_STRIDE;
    ch.in_order = !strcmp(gc_cuda_str(t, "order"), "sequential");
    if (gck_malloc((void **)&ch.perm, n * sizeof(uint32_t), msg, sizeof msg))
        return gc_fail(err, GC_EDEVICE, "%s: %s", what, msg);
    int bad = gck_chase_build(&ch, 0x9e2d0000u + n, msg, sizeof msg);
    gck_free(ch.perm);
    if (bad)
        return gc_fail(err, GC_EDEVICE, "%s: building the chain: %s", what, msg);
    int flushed = 0;
    if (host) {   /* chain element j lies at j * FAR_STRIDE in both views (in order or not) */
        double t0 = gc_now_s();
        flushed = flush_host_lines(host, n, FAR_STRIDE);
        gc_cuda_unmeasured(c, t0);
    }
    uint32_t total = gc_cuda_samples(t, 500);
    size_t ip = g->npoints;
    if (!gc_cuda_point(c, t, g, "latency", err) ||
        !gc_cuda_point(c, t, g, "latency_ns", err) ||
        !gc_cuda_point(c, t, g, "timer_cost", err))
        return GC_ENOMEM;
    /* The chase moves from SM to SM: launch l runs on block l % SMs of a
     * grid of one-thread blocks, so the samples cover every SM's distance
     * to the memory (an H200's SMs read host memory 1123-1238 ns apart,
     * lab/gpu/peers_probe.cu; block 0 of a one-block grid lands on the
     * nearest), as nvbandwidth's host_device_latency_sm averages over
     * them. Not every_sm: one block, FAR_PER_LAUNCH windows a launch. */
    uint32_t sms = every_sm && c->dev.sm_count > 0 ? (uint32_t)c->dev.sm_count : 1;
    uint32_t per = (total + sms - 1) / sms;
    if (per < FAR_MIN_PER_LAUNCH)
        per = FAR_MIN_PER_LAUNCH;
    if (per > FAR_PER_LAUNCH)
        per = FAR_PER_LAUNCH;
    if (per > total)
        per = total;
    void *cur = ch.first;
    uint64_t cyc, ns, cyc_sum = 0, ns_sum = 0;
    if (gck_chase_run_on(&cur, 0, per, 1, sms, 0, &c->scratch, &cyc, &ns, msg, sizeof msg))
        return gc_fail(err, GC_EDEVICE, "%s: %s", what, msg);
    double twin = gc_cuda_median_u32(c->scratch.h_samples, per);
    for (uint32_t i = 0; i < per; i++)
        gc_cuda_record(&g->points[ip + 2], c->scratch.h_samples[i]);
    double *acc = malloc(total * sizeof *acc);   /* cycles per access, until the clock is known */
    if (!acc)
        return gc_fail(err, GC_ENOMEM, "%s: out of memory", what);
    uint32_t done = 0, launches = 0;
    while (done < total) {
        uint32_t k = total - done < per ? total - done : per;
        if (gck_chase_run_on(&cur, launches == 0 ? FAR_WARM : 0, k, 0, sms, launches % sms,
                             &c->scratch, &cyc, &ns, msg, sizeof msg)) {
            free(acc);
            return gc_fail(err, GC_EDEVICE, "%s: %s", what, msg);
        }
        cyc_sum += cyc;
        ns_sum += ns;
        launches++;
        for (uint32_t i = 0; i < k; i++)
            acc[done + i] = ((double)c->scratch.h_samples[i] - twin) / GCK_WINDOW;
        done += k;
        if (done < total && gc_cuda_over(c))
            break;
    }
    /* one clock over all launches: a launch of a few windows is too short
     * for %globaltimer's steps */
    double mhz = ns_sum ? (double)cyc_sum / (double)ns_sum * 1000.0 : c->dev.sm_clock_khz / 1000.0;
    double lo = 0, hi = 0;
    gc_cuda_clock_seen(c, mhz, &lo, &hi);
    for (uint32_t i = 0; i < done; i++) {
        gc_cuda_record(&g->points[ip], acc[i]);
        gc_cuda_record(&g->points[ip + 1], acc[i] * 1000.0 / mhz);
    }
    free(acc);
    double mhz_sum = launches ? mhz * launches : 0;
    for (int k = 0; k < 3; k++) {
        gc_ctx *x = &g->points[ip + k].ctx;
        gc_ctx_set_num(x, "stride_bytes", FAR_STRIDE);
        gc_ctx_set_num(x, "elements", (double)n);
        gc_ctx_set_num(x, "window_accesses", GCK_WINDOW);
        gc_ctx_set_num(x, "timer_cost_median_cycles", twin);
        gc_ctx_set_num(x, "sm_clock_mhz_measured", launches ? mhz_sum / launches : 0);
        if (host)
            gc_ctx_set_str(x, "host_cache", flushed ? "flushed" : "not_flushed");
    }
    return 0;
}

