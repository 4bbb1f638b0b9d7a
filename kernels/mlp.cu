// Memory-level parallelism and scattered accesses (bench `mlp`):
// what the kernel-time models need for kernels people write, measured
// rather than fitted to them.
//
//   inflight       every warp loads R coalesced 128-byte lines (one word a
//                  lane), adds them, and only then computes the next
//                  addresses (a dependency through a run-time zero): R
//                  requests in flight per warp, W x R per SM. The cycles
//                  per round are the latency of a DRAM request when the SM
//                  keeps that many in flight: the loop of a grid-stride
//                  reduction or histogram, whose loads wait in order.
//   inflight_sync  the same with a barrier closing every round: the round
//                  lasts as long as the slowest of the block's 8 warps
//                  (256 threads) waits, as a block of a one-shot kernel
//                  lives as long as its slowest warp.
//   inflight_copy  inflight with as many coalesced stores as loads each round
//                  (the loaded values, to the other half of the footprint):
//                  the loads' latency when half the DRAM traffic is writes.
//   scatter_load   the same with every lane in its own 128-byte line (32
//                  sectors per request, as a gather): SM cycles per sector.
//   gather         every lane of a warp follows its own pseudo-random chain
//                  of 128-byte lines over the footprint (a full-period LCG
//                  of line indices written by gck_mlp_gather_init): the
//                  latency of a dependent load whose 32 lanes lie in 32
//                  random lines (32 sectors, pages and DRAM rows apart).
//   scatter_store  a transpose's stores: lane l of a warp writes row l of a
//                  column, H words apart; consecutive warps write the next
//                  words of the same sectors. SM cycles per sector.
//   oneshot        one-shot blocks (as a 2-D stencil's: each thread loads
//                  a word, stores it and exits), 64 warps per SM, 64 blocks
//                  per block slot: how long a block holds its slots beyond
//                  its warps' own lives (the mean over blocks of its first
//                  start to its last end, minus its warps' mean life): its
//                  warps start apart and end apart.
//   oneshot_sync   the same with a barrier between the load and the store
//                  (a 1-D stencil's, a scan's): the barrier's waits count
//                  as the block's, not the warps' own.
//
// Each warp reads %clock64 around its rounds; the sample of a launch is the
// median over warps of cycles per round (SM cycles, whatever the clock).
#include "kernels.h"
#include "bench_util.cuh"

#include <stdlib.h>

template <int R, bool STORE, bool SYNC, bool COPY = false>
__global__ void __launch_bounds__(256) gck_mlp_kernel(float *buf, uint64_t mask, uint64_t base,
                                                      uint32_t span, uint32_t lane_stride,
                                                      uint32_t log2h, uint32_t iters, uint32_t zero,
                                                      uint32_t *out)
{
    uint32_t lane = threadIdx.x & 31;
    uint64_t gw = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    uint64_t nw = ((uint64_t)gridDim.x * blockDim.x) >> 5;
    float acc = 0;
    uint64_t t0 = gck_clock();
#pragma unroll 1
    for (uint32_t it = 0; it < iters; it++) {
        uint32_t dep = __float_as_uint(acc) & zero;   // 0, but only known at run time
        float v[R];
#pragma unroll
        for (int r = 0; r < R; r++) {
            uint64_t unit = ((uint64_t)it * R + r) * nw + gw + dep;
            uint64_t w;
            if (STORE)   // word (column block x 32 + lane) x H + row
                w = ((((unit >> log2h) << 5) + lane) << log2h) + (unit & ((1ull << log2h) - 1));
            else
                w = unit * span + (uint64_t)lane * lane_stride;
            w = (w + base) & (COPY ? mask >> 1 : mask);   // copy: loads in the lower half
            if (STORE)
                buf[w] = acc + (float)lane;
            else
                v[r] = buf[w];
        }
        if (!STORE) {
#pragma unroll
            for (int r = 0; r < R; r++)
                acc += v[r];
            if (COPY) {   // as many stores as loads, to the upper half
#pragma unroll
                for (int r = 0; r < R; r++)
                    buf[(((((uint64_t)it * R + r) * nw + gw) * 32 + lane + base) & (mask >> 1)) +
                        (mask >> 1) + 1] = v[r] + acc;
            }
        } else {
            acc += 1.0f;
        }
        if (SYNC)   // the round ends with the block's slowest warp
            __syncthreads();
    }
    uint64_t t1 = gck_clock();
    if (lane == 0)
        out[gw] = (uint32_t)((t1 - t0) / iters);
    if (acc == -1.0f && zero)   // never: keeps the loads
        out[0] = 0;
}

// A one-shot block: load (the lower half), [barrier], store (the upper half),
// exit. Lane 0 of each warp writes its start clock, its end clock (after the
// store's issue) and the cycles it waited at the barrier (read after a branch
// on the loaded value: not before the data came). Clocks are per SM, as are
// a block's warps.
template <bool SYNC>
__global__ void __launch_bounds__(1024) gck_mlp_oneshot(float *buf, uint64_t mask, uint64_t base,
                                                        uint32_t *out)
{
    uint64_t t0 = gck_clock();
    uint64_t i = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x + base) & (mask >> 1);
    float v = buf[i];
    if (__float_as_uint(v) == 0x7fc00001u)   // never (a NaN payload nobody writes)
        out[0] = 0;
    uint64_t ta = gck_clock();
    if (SYNC)
        __syncthreads();
    uint64_t tr = gck_clock();
    buf[i + (mask >> 1) + 1] = v + 1.0f;
    uint64_t te = gck_clock();
    if ((threadIdx.x & 31) == 0) {
        uint64_t w = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
        out[3 * w] = (uint32_t)t0;
        out[3 * w + 1] = (uint32_t)te;
        out[3 * w + 2] = (uint32_t)(tr - ta);
    }
}

/* The mean over blocks of (the block's span, its first warp's start to its
 * last warp's end, minus the mean of its warps' own lives without their
 * barrier wait): what a block holds its slots beyond a warp's own path. */
static double oneshot_excess(const uint32_t *x, size_t blocks, int wpb)
{
    double sum = 0;
    for (size_t b = 0; b < blocks; b++) {
        const uint32_t *w = x + 3 * b * (size_t)wpb;
        int32_t lo = 0, hi = (int32_t)(w[1] - w[0]);   /* relative to warp 0's start */
        double own = 0;
        for (int k = 0; k < wpb; k++) {
            const uint32_t *q = w + 3 * k;
            int32_t st = (int32_t)(q[0] - w[0]), en = (int32_t)(q[1] - w[0]);
            lo = st < lo ? st : lo;
            hi = en > hi ? en : hi;
            own += (double)(uint32_t)(q[1] - q[0]) - q[2];
        }
        sum += (double)(hi - lo) - own / wpb;
    }
    return sum / (double)blocks;
}

#define GATHER_A 1664525u      // LCG mod 2^k: A = 1 mod 4, C odd: full period
#define GATHER_C 1013904223u

__global__ void gck_mlp_gather_init(uint32_t *buf, uint32_t lines)
{
    uint32_t st = gridDim.x * blockDim.x;
    for (uint32_t l = blockIdx.x * blockDim.x + threadIdx.x; l < lines; l += st)
        buf[(size_t)l * 32] = (l * GATHER_A + GATHER_C) & (lines - 1);
}

__global__ void __launch_bounds__(256) gck_mlp_gather(const uint32_t *buf, uint32_t lines,
                                                      uint32_t start, uint32_t iters, uint32_t *out)
{
    uint32_t lane = threadIdx.x & 31;
    uint32_t gw = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    uint32_t l = ((gw * 32 + lane) * 2654435761u + start) & (lines - 1);
    uint64_t t0 = gck_clock();
#pragma unroll 1
    for (uint32_t it = 0; it < iters; it++)
        l = buf[(size_t)l * 32];
    uint64_t t1 = gck_clock();
    if (lane == 0)
        out[gw] = (uint32_t)((t1 - t0) / iters);
    if (l == 0xffffffffu)   // never: keeps the chain
        out[0] = l;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

typedef void (*mlp_fn)(float *, uint64_t, uint64_t, uint32_t, uint32_t, uint32_t, uint32_t,
                       uint32_t, uint32_t *);

extern "C" int gck_mlp_run(gck_scratch *s, void *buf, size_t bytes, gck_mlp_mode mode,
                           int warps_per_sm, int requests, int sms, uint32_t iters, uint64_t base_words,
                           double *cycles, char *err, size_t errlen)
{
    static const mlp_fn loads[] = { gck_mlp_kernel<1, false, false>, gck_mlp_kernel<2, false, false>,
                                    gck_mlp_kernel<4, false, false>, gck_mlp_kernel<8, false, false> };
    static const mlp_fn synced[] = { gck_mlp_kernel<1, false, true>, gck_mlp_kernel<2, false, true>,
                                     gck_mlp_kernel<4, false, true>, gck_mlp_kernel<8, false, true> };
    static const mlp_fn copies[] = { gck_mlp_kernel<1, false, false, true>,
                                     gck_mlp_kernel<2, false, false, true>,
                                     gck_mlp_kernel<4, false, false, true>,
                                     gck_mlp_kernel<8, false, false, true> };
    static const mlp_fn stores[] = { gck_mlp_kernel<1, true, false>, gck_mlp_kernel<2, true, false>,
                                     gck_mlp_kernel<4, true, false>, gck_mlp_kernel<8, true, false> };
    int ri = requests == 1 ? 0 : requests == 2 ? 1 : requests == 4 ? 2 : requests == 8 ? 3 : -1;
    uint64_t words = bytes / 4;
    int oneshot = mode == GCK_MLP_ONESHOT_SYNC || mode == GCK_MLP_ONESHOT;
    if ((ri < 0 && !oneshot) || warps_per_sm < 1 || warps_per_sm > 64 || sms < 1 || iters < 1 ||
        words < 4096 || (words & (words - 1))) {
        snprintf(err, errlen, "mlp: bad shape (requests %d, warps/SM %d, %zu bytes: a power of two)",
                 requests, warps_per_sm, bytes);
        return 1;
    }
    int threads = warps_per_sm >= 8 ? 256 : 32 * warps_per_sm;
    int blocks = sms * (warps_per_sm >= 8 ? warps_per_sm / 8 : 1);
    size_t nw = (size_t)blocks * (threads / 32);
    uint32_t log2h = 0;
    while ((2ull << (2 * log2h + 1)) <= words)   // H x H words, H = 2^log2h
        log2h++;
    int scatter = mode == GCK_MLP_SCATTER_LOAD;
    uint32_t span = scatter ? 32 * 32 : 32, ls = scatter ? 32 : 1;
    if (oneshot) {   // one-shot blocks of `requests` warps (gck_mlp_oneshot)
        threads = 32 * requests;
        if (requests < 1 || requests > 32 || 64 % requests != 0) {
            snprintf(err, errlen, "mlp oneshot: %d threads per block", threads);
            return 1;
        }
        blocks = sms * (64 / requests) * (int)iters;   /* iters blocks per block slot */
        nw = (size_t)blocks * requests;
        if (gck_scratch_reserve(s, 3 * nw, err, errlen))
            return 1;
        if (mode == GCK_MLP_ONESHOT_SYNC)
            gck_mlp_oneshot<true><<<blocks, threads>>>((float *)buf, words - 1, base_words, s->d_samples);
        else
            gck_mlp_oneshot<false><<<blocks, threads>>>((float *)buf, words - 1, base_words, s->d_samples);
        CKL();
        CK(cudaMemcpy(s->h_samples, s->d_samples, 3 * nw * sizeof(uint32_t), cudaMemcpyDeviceToHost));
        *cycles = oneshot_excess(s->h_samples, (size_t)blocks, requests);
        return 0;
    }
    if (mode == GCK_MLP_INFLIGHT_SYNC && warps_per_sm < 8) {
        snprintf(err, errlen, "mlp inflight_sync: blocks of 8 warps, at least 8 warps per SM");
        return 1;
    }
    if (gck_scratch_reserve(s, nw, err, errlen))
        return 1;
    if (mode == GCK_MLP_GATHER) {   // gather: the chain over every line, then the chase
        uint64_t lines = words / 32;
        if (lines > 0xffffffffull) {
            snprintf(err, errlen, "mlp gather: at most 2^32 lines");
            return 1;
        }
        if (base_words == 0) {
            gck_mlp_gather_init<<<4 * sms, 1024>>>((uint32_t *)buf, (uint32_t)lines);
            CKL();
        }
        gck_mlp_gather<<<blocks, threads>>>((const uint32_t *)buf, (uint32_t)lines,
                                            (uint32_t)base_words, iters, s->d_samples);
    } else {
        mlp_fn f = mode == GCK_MLP_SCATTER_STORE ? stores[ri]
                 : mode == GCK_MLP_INFLIGHT_SYNC ? synced[ri]
                 : mode == GCK_MLP_INFLIGHT_COPY ? copies[ri]
                                                 : loads[ri];
        f<<<blocks, threads>>>((float *)buf, words - 1, base_words, span, ls, log2h, iters, 0,
                               s->d_samples);
    }
    CKL();
    CK(cudaMemcpy(s->h_samples, s->d_samples, nw * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    qsort(s->h_samples, nw, sizeof(uint32_t), cmp_u32);
    *cycles = s->h_samples[nw / 2];
    return 0;
}
