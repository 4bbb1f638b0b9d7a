// Validation suite (issue 5): kernels whose time the models predict from
// their descriptions (docs/kernel-description.md). tools/kdesc.py counts
// the descriptions from this file's SASS, so every kernel is straight-line:
// one element per thread, no grid-stride loop, every inner loop fully
// unrolled (per-warp static count = dynamic count). Launch shapes and the
// access annotations live in valid_table.h, one row per kernel.
//
//   saxpy_aN   b = y[i]; N times b = alpha * b + x[i] (a dependent FMA
//              chain: compute intensity N); y[i] = b. N = 1 is saxpy.
//   occ_wK     the saxpy_a16 body, 64-thread blocks, dummy dynamic shared
//              memory so that exactly K / 2 blocks (K warps) fit per SM.
//   stride_sK  y[i] = 2 * x[i * K] + 1: a warp's load touches min(32, 4K)
//              32-byte sectors (K = 1 coalesced).
//   chase_dram one warp per SM, every lane follows its own stretch of one
//              random cycle over 1 GiB of 128-byte lines (DRAM-resident:
//              no prefetcher guesses it, L2 holds 5% of it): 1024
//              dependent 8-byte loads, each warp instruction touching 32
//              sectors. Lanes rather than one thread per warp so the load
//              is an ordinary (uncoalesced) warp instruction the models
//              know; a lane's cursor is stored at the end (the sink) and
//              the next launch continues from it.
// Results are checked on the host after the warm-up launch (a broken
// kernel fails its item with a reason).
#include "kernels.h"
#include "bench_util.cuh"
#include "valid_table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// ---- kernels ----

template <int N>
__device__ __forceinline__ void saxpy_body(const float *__restrict__ x, float *__restrict__ y,
                                           float alpha)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    float a = x[i], b = y[i];
#pragma unroll
    for (int k = 0; k < N; k++)
        b = fmaf(alpha, b, a);
    y[i] = b;
}

#define SAXPY(N)                                                                          \
    extern "C" __global__ void gcv_saxpy_a##N(const float *__restrict__ x,                \
                                              float *__restrict__ y, float alpha)         \
    {                                                                                     \
        saxpy_body<N>(x, y, alpha);                                                       \
    }
SAXPY(1)
SAXPY(4)
SAXPY(16)
SAXPY(64)
SAXPY(256)
SAXPY(1024)
SAXPY(4096)

// The occupancy sweep's kernel: its dynamic shared memory is never touched.
extern "C" __global__ void gcv_occ(const float *__restrict__ x, float *__restrict__ y, float alpha)
{
    saxpy_body<GCV_OCC_A>(x, y, alpha);
}

template <int K>
__device__ __forceinline__ void stride_body(const float *__restrict__ x, float *__restrict__ y)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    y[i] = fmaf(x[i * K], 2.0f, 1.0f);
}

#define STRIDE(K)                                                                         \
    extern "C" __global__ void gcv_stride_s##K(const float *__restrict__ x,               \
                                               float *__restrict__ y)                     \
    {                                                                                     \
        stride_body<K>(x, y);                                                             \
    }
STRIDE(1)
STRIDE(2)
STRIDE(4)
STRIDE(8)
STRIDE(32)

template <int L>
__device__ __forceinline__ void chase_body(uint64_t *__restrict__ cursors)
{
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    uint64_t p = cursors[t];
#pragma unroll
    for (int k = 0; k < L; k++)
        asm volatile("ld.global.u64 %0, [%0];" : "+l"(p));
    cursors[t] = p;
}

extern "C" __global__ void gcv_chase_dram(uint64_t *__restrict__ cursors)
{
    chase_body<GCV_CHASE_LOADS>(cursors);
}

// ---- table rows ----

#define ROW(name, fn, fam, k, threads, elements, bps, trips, mem) \
    { name, (const void *)fn, fam, k, threads, (uint64_t)(elements), bps },
static const struct row {
    const char *name;
    const void *fn;
    int family, k, threads;
    uint64_t elements;
    int blocks_per_sm;
} rows[] = { GCV_TABLE(ROW) };
#undef ROW
#define NROWS ((int)(sizeof rows / sizeof rows[0]))

// ---- set-up kernels (not part of the suite) ----

// Exact in float32: multiples of 1/4 up to 256, and 0.5 .. 1.5.
__host__ __device__ static inline float x_init(uint64_t i) { return 1.0f + (float)(i & 1023) * 0.25f; }
__host__ __device__ static inline float y_init(uint64_t i) { return 0.5f * (float)(1 + i % 3); }

__global__ void init_kernel(float *x, uint64_t nx, float *y, uint64_t ny)
{
    uint64_t st = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < nx || i < ny; i += st) {
        if (i < nx)
            x[i] = x_init(i);
        if (i < ny)
            y[i] = y_init(i);
    }
}

// Lane t starts at position pos(t) of the cycle (spread evenly over it).
__host__ __device__ static inline uint64_t chase_pos(uint64_t t, uint64_t lanes, uint64_t n)
{
    return t * (n / lanes);
}

__global__ void cursor_kernel(uint64_t *cursors, uint64_t lanes, const uint32_t *perm, uint64_t n,
                              const uint8_t *buf)
{
    uint64_t t = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
    if (t < lanes)
        cursors[t] = (uint64_t)(buf + (uint64_t)perm[chase_pos(t, lanes, n)] * GCV_CHASE_LINE);
}

// SM clock: one warp spins ~spin_ns of %globaltimer and reports the
// %clock64 cycles that passed.
__global__ void clock_kernel(uint64_t spin_ns, uint64_t *out)
{
    uint64_t c0 = gck_clock(), g0 = gck_gtimer(), g1;
    do
        g1 = gck_gtimer();
    while (g1 - g0 < spin_ns);
    uint64_t c1 = gck_clock();
    if (threadIdx.x == 0) {
        out[0] = c1 - c0;
        out[1] = g1 - g0;
    }
}

// ---- C ABI ----

static int launch(gck_valid *v, const struct row *w)
{
    void *x = v->x, *y = v->y;
    float alpha = 0.5f;
    void *args3[] = { &x, &y, &alpha }, *args2[] = { &x, &y }, *args1[] = { &y };
    void **args = w->family == GCV_CHASE ? args1 : w->family == GCV_STRIDE ? args2 : args3;
    return cudaLaunchKernel(w->fn, dim3((unsigned)v->grid), dim3((unsigned)v->threads), args,
                            v->smem, 0) != cudaSuccess;
}

// Dynamic shared memory so that exactly `want` blocks fit per SM.
static int occ_smem(gck_valid *v, const struct row *w, int want, char *err, size_t errlen)
{
    int dev, per_sm, reserved, optin;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
    CK(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, dev));
    CK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    long s = (long)(per_sm / want / 128) * 128 - reserved;
    if (s > optin)
        s = optin;
    if (s < 0)
        s = 0;
    v->smem = (size_t)s;
    CK(cudaFuncSetAttribute(w->fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)v->smem));
    CK(cudaFuncSetAttribute(w->fn, cudaFuncAttributePreferredSharedMemoryCarveout,
                            cudaSharedmemCarveoutMaxShared));
    return 0;
}

// Host check of a few results of the warm-up launch (from fresh inputs).
static int verify(gck_valid *v, const struct row *w, char *err, size_t errlen)
{
    uint64_t n = (uint64_t)v->grid * v->threads;
    uint64_t idx[5] = { 0, 1, n / 3 + 7, n / 2 + 1, n - 1 };
    for (int j = 0; j < 5; j++) {
        uint64_t i = idx[j];
        if (w->family == GCV_CHASE) {
            uint64_t lanes = n, cells = GCV_CHASE_BYTES / GCV_CHASE_LINE, got;
            uint32_t e;
            uint64_t pos = (chase_pos(i, lanes, cells) + (uint64_t)w->k) % cells;
            CK(cudaMemcpy(&got, (uint64_t *)v->y + i, 8, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(&e, v->perm + pos, 4, cudaMemcpyDeviceToHost));
            uint64_t want = (uint64_t)v->x + (uint64_t)e * GCV_CHASE_LINE;
            if (got != want) {
                snprintf(err, errlen, "%s: lane %llu ended at %#llx after %d loads, expected %#llx",
                         w->name, (unsigned long long)i, (unsigned long long)got, w->k,
                         (unsigned long long)want);
                return 1;
            }
            continue;
        }
        float got, want;
        CK(cudaMemcpy(&got, (float *)v->y + i, 4, cudaMemcpyDeviceToHost));
        if (w->family == GCV_STRIDE) {
            want = fmaf(x_init(i * (uint64_t)w->k), 2.0f, 1.0f);
        } else {
            int a = w->family == GCV_OCC ? GCV_OCC_A : w->k;
            float xa = x_init(i), b = y_init(i);
            for (int k = 0; k < a; k++)
                b = fmaf(0.5f, b, xa);
            want = b;
        }
        if (memcmp(&got, &want, sizeof got) != 0) {
            snprintf(err, errlen, "%s: y[%llu] = %.9g after the first launch, expected %.9g",
                     w->name, (unsigned long long)i, got, want);
            return 1;
        }
    }
    return 0;
}

extern "C" int gck_valid_setup(gck_valid *v, int r, char *err, size_t errlen)
{
    memset(v, 0, sizeof *v);
    if (r < 0 || r >= NROWS) {
        snprintf(err, errlen, "valid: no kernel row %d", r);
        return 1;
    }
    const struct row *w = &rows[r];
    int dev;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&v->sms, cudaDevAttrMultiProcessorCount, dev));
    v->row = r;
    v->threads = w->threads;
    v->grid = w->elements ? (int)(w->elements / (uint64_t)w->threads) : w->blocks_per_sm * v->sms;
    int want_bps = 0;
    if (w->family == GCV_OCC) {
        want_bps = w->k * 32 / w->threads;
        if (occ_smem(v, w, want_bps, err, errlen))
            return 1;
    }
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&v->blocks_per_sm, w->fn, v->threads, v->smem));
    if (want_bps && v->blocks_per_sm != want_bps) {
        snprintf(err, errlen, "%s: %zu bytes of dynamic shared memory give %d blocks per SM, not %d",
                 w->name, v->smem, v->blocks_per_sm, want_bps);
        return 1;
    }
    uint64_t n = (uint64_t)v->grid * v->threads;
    if (w->family == GCV_CHASE) {
        uint64_t cells = GCV_CHASE_BYTES / GCV_CHASE_LINE;
        CK(cudaMalloc(&v->x, GCV_CHASE_BYTES));
        CK(cudaMalloc(&v->perm, cells * sizeof(uint32_t)));
        CK(cudaMalloc(&v->y, n * sizeof(uint64_t)));
        gck_chain c;
        memset(&c, 0, sizeof c);
        c.buf = v->x;
        c.n = cells;
        c.stride = GCV_CHASE_LINE;
        c.perm = v->perm;
        if (gck_chase_build(&c, 0x7a11d000u, err, errlen))
            return 1;
        cursor_kernel<<<(unsigned)((n + 255) / 256), 256>>>((uint64_t *)v->y, n, v->perm, cells,
                                                             (const uint8_t *)v->x);
        CKL();
    } else {
        uint64_t nx = w->family == GCV_STRIDE ? n * (uint64_t)w->k : n;
        CK(cudaMalloc(&v->x, nx * sizeof(float)));
        CK(cudaMalloc(&v->y, n * sizeof(float)));
        init_kernel<<<4 * v->sms, 1024>>>((float *)v->x, nx, (float *)v->y, n);
        CKL();
    }
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    v->e0 = e0;
    CK(cudaEventCreate(&e1));
    v->e1 = e1;
    if (launch(v, w)) {   // warm-up, checked
        CKL();
        snprintf(err, errlen, "%s: launch failed", w->name);
        return 1;
    }
    CK(cudaDeviceSynchronize());
    return verify(v, w, err, errlen);
}

extern "C" int gck_valid_run(gck_valid *v, uint32_t launches, float *ms, char *err, size_t errlen)
{
    const struct row *w = &rows[v->row];
    cudaEvent_t e0 = (cudaEvent_t)v->e0, e1 = (cudaEvent_t)v->e1;
    for (uint32_t l = 0; l < launches; l++) {
        CK(cudaEventRecord(e0));
        if (launch(v, w)) {
            CKL();
            snprintf(err, errlen, "%s: launch failed", w->name);
            return 1;
        }
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        CK(cudaEventElapsedTime(&ms[l], e0, e1));
    }
    return 0;
}

extern "C" int gck_valid_clock(gck_scratch *s, double *mhz, char *err, size_t errlen)
{
    *mhz = 0;
    if (gck_scratch_reserve(s, 0, err, errlen))
        return 1;
    clock_kernel<<<1, 32>>>(50000, s->d_aux);
    CKL();
    CK(cudaMemcpy(s->h_aux, s->d_aux, 2 * sizeof(uint64_t), cudaMemcpyDeviceToHost));
    if (s->h_aux[1])
        *mhz = (double)s->h_aux[0] / (double)s->h_aux[1] * 1000.0;
    return 0;
}

extern "C" void gck_valid_free(gck_valid *v)
{
    if (v->e0)
        cudaEventDestroy((cudaEvent_t)v->e0);
    if (v->e1)
        cudaEventDestroy((cudaEvent_t)v->e1);
    if (v->x)
        cudaFree(v->x);
    if (v->y)
        cudaFree(v->y);
    if (v->perm)
        cudaFree(v->perm);
    memset(v, 0, sizeof *v);
}
