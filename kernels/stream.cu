// Bandwidth family: STREAM kernels on device memory, an L2-resident read,
// and shared memory with a word stride (bank conflicts). Bytes are counted
// read + written (STREAM convention); every launch is timed with events.
#include "kernels.h"
#include "bench_util.cuh"

#define MAGIC 1.2345e-30f   /* a sum that never occurs: keeps reads alive */

__global__ void k_read(const float4 *__restrict__ a, size_t n, float *out)
{
    size_t st = (size_t)gridDim.x * blockDim.x, i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    float s = 0;
    for (; i + 3 * st < n; i += 4 * st) {
        float4 v0 = a[i], v1 = a[i + st], v2 = a[i + 2 * st], v3 = a[i + 3 * st];
        s += (v0.x + v1.y) + (v2.z + v3.w);
    }
    for (; i < n; i += st)
        s += a[i].x;
    if (s == MAGIC)
        out[0] = s;
}

__global__ void k_write(float4 *__restrict__ a, size_t n, float c)
{
    size_t st = (size_t)gridDim.x * blockDim.x, i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    float4 v = make_float4(c, c + 1, c + 2, c + 3);
    for (; i + 3 * st < n; i += 4 * st) {
        a[i] = v;
        a[i + st] = v;
        a[i + 2 * st] = v;
        a[i + 3 * st] = v;
    }
    for (; i < n; i += st)
        a[i] = v;
}

__global__ void k_copy(const float4 *__restrict__ a, float4 *__restrict__ b, size_t n)
{
    size_t st = (size_t)gridDim.x * blockDim.x, i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    for (; i + 3 * st < n; i += 4 * st) {
        float4 v0 = a[i], v1 = a[i + st], v2 = a[i + 2 * st], v3 = a[i + 3 * st];
        b[i] = v0;
        b[i + st] = v1;
        b[i + 2 * st] = v2;
        b[i + 3 * st] = v3;
    }
    for (; i < n; i += st)
        b[i] = a[i];
}

__device__ __forceinline__ float4 tri(float4 b, float4 c, float s)
{
    return make_float4(b.x + s * c.x, b.y + s * c.y, b.z + s * c.z, b.w + s * c.w);
}

__global__ void k_triad(float4 *__restrict__ a, const float4 *__restrict__ b,
                        const float4 *__restrict__ c, size_t n, float s)
{
    size_t st = (size_t)gridDim.x * blockDim.x, i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    for (; i + 1 * st < n; i += 2 * st) {
        float4 b0 = b[i], b1 = b[i + st], c0 = c[i], c1 = c[i + st];
        a[i] = tri(b0, c0, s);
        a[i + st] = tri(b1, c1, s);
    }
    for (; i < n; i += st)
        a[i] = tri(b[i], c[i], s);
}

// Sparse read: one 4-byte word per 128-byte line, so every warp load asks
// for 32 isolated sectors. Its sector rate against the dense read's byte
// rate gives the bytes DRAM really moves per isolated sector (the fetch
// granularity the models need for uncoalesced access).
__global__ void k_sparse(const float *__restrict__ a, size_t lines, float *out)
{
    size_t st = (size_t)gridDim.x * blockDim.x, i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    float s = 0;
    for (; i + 3 * st < lines; i += 4 * st)
        s += (a[i * 32] + a[(i + st) * 32]) + (a[(i + 2 * st) * 32] + a[(i + 3 * st) * 32]);
    for (; i < lines; i += st)
        s += a[i * 32];
    if (s == MAGIC)
        out[0] = s;
}

// Full grid: one launch covers the arrays once, each block a contiguous
// run of U x blockDim vectors per array (gpu-stream's shape when V is 8
// bytes and U is 1); the hardware keeps as many blocks resident as fit.
// V (float2 or float4) and U set the loads in flight per thread and the
// registers, hence the resident warps: the triad at float4 x 4 takes 56
// registers (half the SM's warps), at float2 x 1 12 (all of them).
__device__ __forceinline__ float sum4(float2 v) { return v.x + v.y; }
__device__ __forceinline__ float sum4(float4 v) { return (v.x + v.y) + (v.z + v.w); }
__device__ __forceinline__ void fill(float2 &v, float c) { v = make_float2(c, c + 1); }
__device__ __forceinline__ void fill(float4 &v, float c) { v = make_float4(c, c + 1, c + 2, c + 3); }
__device__ __forceinline__ float2 tri(float2 b, float2 c, float s)
{
    return make_float2(b.x + s * c.x, b.y + s * c.y);
}

template <typename V, int U>
__global__ void k_read_full(const V *__restrict__ a, size_t n, float *out)
{
    size_t i = (size_t)blockIdx.x * blockDim.x * U + threadIdx.x;
    V v[U];
#pragma unroll
    for (int u = 0; u < U; u++)
        if (i + (size_t)u * blockDim.x < n)
            v[u] = a[i + (size_t)u * blockDim.x];
    float s = 0;
#pragma unroll
    for (int u = 0; u < U; u++)
        if (i + (size_t)u * blockDim.x < n)
            s += sum4(v[u]);
    if (s == MAGIC)
        out[0] = s;
}

template <typename V, int U>
__global__ void k_write_full(V *__restrict__ a, size_t n, float c)
{
    size_t i = (size_t)blockIdx.x * blockDim.x * U + threadIdx.x;
    V v;
    fill(v, c);
#pragma unroll
    for (int u = 0; u < U; u++, i += blockDim.x)
        if (i < n)
            a[i] = v;
}

template <typename V, int U>
__global__ void k_copy_full(const V *__restrict__ a, V *__restrict__ b, size_t n)
{
    size_t i0 = (size_t)blockIdx.x * blockDim.x * U + threadIdx.x, i = i0;
    V v[U];
#pragma unroll
    for (int u = 0; u < U; u++, i += blockDim.x)
        if (i < n)
            v[u] = a[i];
    i = i0;
#pragma unroll
    for (int u = 0; u < U; u++, i += blockDim.x)
        if (i < n)
            b[i] = v[u];
}

template <typename V, int U>
__global__ void k_triad_full(V *__restrict__ a, const V *__restrict__ b,
                             const V *__restrict__ c, size_t n, float s)
{
    size_t i0 = (size_t)blockIdx.x * blockDim.x * U + threadIdx.x, i = i0;
    V x[U], y[U];
#pragma unroll
    for (int u = 0; u < U; u++, i += blockDim.x)
        if (i < n) {
            x[u] = b[i];
            y[u] = c[i];
        }
    i = i0;
#pragma unroll
    for (int u = 0; u < U; u++, i += blockDim.x)
        if (i < n)
            a[i] = tri(x[u], y[u], s);
}

// One launch of the full-grid kernel `kind` with V x U; n counts V.
template <typename V, int U>
static void full_launch(gck_stream_kind kind, int g, int threads, void *buf, size_t n,
                        float *dummy)
{
    V *a = (V *)buf, *b = a + n, *c = b + n;
    switch (kind) {
    case GCK_STREAM_READ: k_read_full<V, U><<<g, threads>>>(a, n, dummy); break;
    case GCK_STREAM_WRITE: k_write_full<V, U><<<g, threads>>>(a, n, 1.5f); break;
    case GCK_STREAM_COPY: k_copy_full<V, U><<<g, threads>>>(a, b, n); break;
    case GCK_STREAM_TRIAD: k_triad_full<V, U><<<g, threads>>>(a, b, c, n, 0.5f); break;
    default: break;   // sparse has no full grid (gck_stream_run refuses it)
    }
}

template <typename V>
static void full_launch_u(gck_stream_kind kind, int unroll, int g, int threads, void *buf, size_t n,
                          float *dummy)
{
    switch (unroll) {
    case 1: full_launch<V, 1>(kind, g, threads, buf, n, dummy); break;
    case 2: full_launch<V, 2>(kind, g, threads, buf, n, dummy); break;
    case 4: full_launch<V, 4>(kind, g, threads, buf, n, dummy); break;
    case 8: full_launch<V, 8>(kind, g, threads, buf, n, dummy); break;
    }
}

// The out pointer for k_read's impossible store: the last 16 bytes of aux.
static float *g_dummy;

static int dummy(char *err, size_t errlen)
{
    if (!g_dummy)
        CK(cudaMalloc(&g_dummy, 64));
    return 0;
}

extern "C" int gck_stream_run(gck_stream_kind kind, void *buf, size_t footprint, int *blocks,
                              int threads, int vector_bytes, int unroll, uint32_t launches,
                              float *ms, uint64_t *bytes, char *err, size_t errlen)
{
    int arrays = kind == GCK_STREAM_COPY ? 2 : kind == GCK_STREAM_TRIAD ? 3 : 1;
    // Arrays start on 2 MiB boundaries: a third of a power of two is not
    // even a multiple of the 128-byte line, and a warp's 512 bytes would
    // then span five lines of b and c instead of four.
    size_t per = footprint / arrays / (2u << 20) * (2u << 20);
    int full = *blocks == 0 && kind != GCK_STREAM_SPARSE;
    if (kind < 0 || kind >= GCK_STREAM_NKINDS || *blocks < 0 ||
        (*blocks == 0 && kind == GCK_STREAM_SPARSE) || threads < 32 ||
        per == 0) {
        snprintf(err, errlen, "stream: bad kernel %d / launch %d x %d / footprint %zu",
                 (int)kind, *blocks, threads, footprint);
        return 1;
    }
    if (full ? (vector_bytes != 8 && vector_bytes != 16) || (unroll != 1 && unroll != 2 &&
                                                             unroll != 4 && unroll != 8)
             : vector_bytes != 16 || unroll != 4) {
        snprintf(err, errlen, "stream: vector_bytes %d x unroll %d: the full grid takes 8 or 16 "
                 "x 1, 2, 4 or 8; the grid-stride kernels 16 x 4 only", vector_bytes, unroll);
        return 1;
    }
    if (dummy(err, errlen))
        return 1;
    size_t n = per / sizeof(float4);   // float4 elements per array
    float4 *a = (float4 *)buf, *b = a + n, *c = b + n;
    size_t lines = per / 128;
    *bytes = kind == GCK_STREAM_SPARSE ? (uint64_t)lines * 32 : (uint64_t)per * arrays;
    size_t nv = per / (size_t)vector_bytes;   // V elements per array (full grid)
    if (full)
        *blocks = (int)((nv + (size_t)threads * unroll - 1) / ((size_t)threads * unroll));
    int g = *blocks;
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    int rc = 0;
    for (uint32_t l = 0; l <= launches && !rc; l++) {   // launch 0: warm-up
        cudaEventRecord(e0);
        if (full && vector_bytes == 8)
            full_launch_u<float2>(kind, unroll, g, threads, buf, nv, g_dummy);
        else if (full)
            full_launch_u<float4>(kind, unroll, g, threads, buf, nv, g_dummy);
        else
            switch (kind) {
            case GCK_STREAM_READ: k_read<<<g, threads>>>(a, n, g_dummy); break;
            case GCK_STREAM_WRITE: k_write<<<g, threads>>>(a, n, 1.5f); break;
            case GCK_STREAM_COPY: k_copy<<<g, threads>>>(a, b, n); break;
            case GCK_STREAM_TRIAD: k_triad<<<g, threads>>>(a, b, c, n, 0.5f); break;
            case GCK_STREAM_SPARSE:
                k_sparse<<<g, threads>>>((const float *)buf, lines, g_dummy);
                break;
            default: break;
            }
        cudaError_t e = cudaGetLastError();
        if (e == cudaSuccess) {
            cudaEventRecord(e1);
            e = cudaEventSynchronize(e1);
        }
        if (e == cudaSuccess && l > 0)
            e = cudaEventElapsedTime(&ms[l - 1], e0, e1);
        if (e != cudaSuccess) {
            snprintf(err, errlen, "stream kernel %d: %s", (int)kind, cudaGetErrorString(e));
            rc = 1;
        }
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return rc;
}

// L2: each block reads L2_ROUNDS chunks of U x blockDim float4 (64 KiB
// at 256 threads x 16), ld.global.cg (L1 kept out; LDG.E.128.STRONG.GPU in
// SASS). Loads and adds are volatile asm, but ptxas still interleaves them
// to save registers: the SASS on an H100 shows 5 loads issued,
// then one per 4 adds, for U = 16 (32 registers), so U sets the chunk
// size more than the loads in flight. Long-lived blocks: the block
// scheduler's replacement latency is paid once per L2_ROUNDS chunks.
//
// order "chunk": block b reads chunks b x L2_ROUNDS + r; where that would
// make the blocks an SM holds at once (b, b + SMs, ...) read the same
// chunk together (k x SMs x L2_ROUNDS a multiple of the chunk count: 1.5
// and 4 MiB on 132 SMs), the order shifts by one every SMs blocks.
// order "sweep": in round r block b reads chunk r x grid + b, so the
// blocks resident at once read neighbouring chunks (gpu-l2-cache's way:
// the GPU walks the footprint in address order).
#define L2_ROUNDS 8

#define L2_LD(v, p) asm volatile("ld.global.cg.v4.f32 {%0, %1, %2, %3}, [%4];" \
                                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p))
#define L2_ADD(s, x) asm volatile("add.f32 %0, %0, %1;" : "+f"(s) : "f"(x))

template <int U, int SWEEP>
__global__ void k_l2(const float4 *__restrict__ a, size_t chunks, uint32_t stagger, float *out)
{
    size_t chunk_elems = (size_t)blockDim.x * U;
    float s = 0;
    for (int r = 0; r < L2_ROUNDS; r++) {
        size_t ch = SWEEP ? ((size_t)r * gridDim.x + blockIdx.x) % chunks
                          : ((size_t)blockIdx.x * L2_ROUNDS + r +
                             (stagger ? blockIdx.x / stagger : 0)) % chunks;
        const float4 *p = a + ch * chunk_elems + threadIdx.x;
        float4 v[U];
#pragma unroll
        for (int u = 0; u < U; u++)
            L2_LD(v[u], p + (size_t)u * blockDim.x);
#pragma unroll
        for (int u = 0; u < U; u++) {
            L2_ADD(s, v[u].x);
            L2_ADD(s, v[u].y);
            L2_ADD(s, v[u].z);
            L2_ADD(s, v[u].w);
        }
    }
    if (s == MAGIC)
        out[0] = s;
}

typedef void (*l2_fn)(const float4 *, size_t, uint32_t, float *);

static l2_fn l2_kernel(int unroll, int sweep)
{
    switch (unroll * 2 + sweep) {
    case 8: return k_l2<4, 0>;
    case 9: return k_l2<4, 1>;
    case 16: return k_l2<8, 0>;
    case 17: return k_l2<8, 1>;
    case 32: return k_l2<16, 0>;
    case 33: return k_l2<16, 1>;
    case 64: return k_l2<32, 0>;
    case 65: return k_l2<32, 1>;
    }
    return NULL;
}

// Chunk of block b in round r, as k_l2 computes it.
static size_t l2_chunk(size_t b, int r, int grid, size_t chunks, uint32_t stagger, int sweep)
{
    return sweep ? ((size_t)r * grid + b) % chunks
                 : (b * L2_ROUNDS + r + (stagger ? b / stagger : 0)) % chunks;
}

extern "C" int gck_l2_run(void *buf, size_t footprint, size_t bytes_per_launch, int threads,
                          int unroll, int sweep, uint32_t launches, float *ms, uint64_t *bytes,
                          int *blocks, double *readers, char *err, size_t errlen)
{
    l2_fn fn = l2_kernel(unroll, sweep != 0);
    size_t chunk_bytes = (size_t)threads * unroll * sizeof(float4);
    size_t chunks = chunk_bytes ? footprint / chunk_bytes : 0;
    if (!fn || threads < 32 || chunks < 1 || bytes_per_launch < chunk_bytes * L2_ROUNDS) {
        snprintf(err, errlen, "l2: footprint %zu holds no chunk of %d threads x %d float4 "
                 "(unroll 4, 8, 16 or 32)", footprint, threads, unroll);
        return 1;
    }
    if (dummy(err, errlen))
        return 1;
    int dev, sms, resident = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, fn, threads, 0));
    if (resident < 1) {
        snprintf(err, errlen, "l2: no block of %d threads x unroll %d fits an SM", threads, unroll);
        return 1;
    }
    uint32_t stagger = 0;
    for (int k = 1; k < resident && !sweep; k++)
        if ((uint64_t)k * sms * L2_ROUNDS % chunks == 0)
            stagger = (uint32_t)sms;
    *blocks = (int)(bytes_per_launch / (chunk_bytes * L2_ROUNDS));
    *bytes = (uint64_t)*blocks * L2_ROUNDS * chunk_bytes;
    // Blocks reading one chunk at once: the first wave's blocks (all SMs
    // full) over the distinct chunks they read in round 0. Above 1, several
    // SMs ask L2 for the same lines together, and the rate is no longer one
    // line per request (lab/gpu/truer2.cfg: 4 MiB read 21 TB/s so).
    size_t wave = (size_t)resident * sms < (size_t)*blocks ? (size_t)resident * sms : (size_t)*blocks;
    size_t distinct = 0;
    unsigned char *seen = (unsigned char *)calloc(chunks, 1);
    if (!seen) {
        snprintf(err, errlen, "l2: out of host memory");
        return 1;
    }
    for (size_t b = 0; b < wave; b++) {
        size_t ch = l2_chunk(b, 0, *blocks, chunks, stagger, sweep);
        distinct += !seen[ch];
        seen[ch] = 1;
    }
    free(seen);
    *readers = distinct ? (double)wave / distinct : 0;
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    int rc = 0;
    for (uint32_t l = 0; l <= launches && !rc; l++) {   // launch 0 loads L2
        cudaEventRecord(e0);
        fn<<<*blocks, threads>>>((const float4 *)buf, chunks, stagger, g_dummy);
        cudaError_t e = cudaGetLastError();
        if (e == cudaSuccess) {
            cudaEventRecord(e1);
            e = cudaEventSynchronize(e1);
        }
        if (e == cudaSuccess && l > 0)
            e = cudaEventElapsedTime(&ms[l - 1], e0, e1);
        if (e != cudaSuccess) {
            snprintf(err, errlen, "l2 kernel: %s", cudaGetErrorString(e));
            rc = 1;
        }
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return rc;
}

/* Shared memory: 8 volatile 32-bit loads per iteration at word
 * lane * stride + k * 1024 (k = 0..7): the lanes of a warp fall on
 * gcd(stride, 32)-way conflicting banks. */
#define SMEM_THREADS 512
#define SMEM_WORDS (8 * 1024 + 32 * 32)

extern "C" __global__ void __launch_bounds__(SMEM_THREADS)
gck_smem_kernel(int stride, uint32_t iters, uint32_t *out)
{
    __shared__ uint32_t sm[SMEM_WORDS];
    for (int i = threadIdx.x; i < SMEM_WORDS; i += blockDim.x)
        sm[i] = i;
    __syncthreads();
    uint32_t a = gck_saddr(&sm[(threadIdx.x & 31) * stride]);
    uint32_t x = 0, v;
    for (uint32_t it = 0; it < iters; it++) {
#define SL(k) asm volatile("ld.volatile.shared.u32 %0, [%1+%2];" : "=r"(v) : "r"(a), "n"(k * 4096)); x ^= v;
        SL(0) SL(1) SL(2) SL(3) SL(4) SL(5) SL(6) SL(7)
#undef SL
    }
    if (x == 0xdeadbeefu)
        out[0] = x;
}

extern "C" int gck_smem_run(int stride_words, uint32_t iters, uint32_t launches, float *ms,
                            uint64_t *bytes, int *blocks, int *threads, char *err, size_t errlen)
{
    if (stride_words < 1 || stride_words > 32) {
        snprintf(err, errlen, "smem: stride_words %d outside 1..32", stride_words);
        return 1;
    }
    if (dummy(err, errlen))
        return 1;
    int g = 32;   // gcd(stride, 32) = conflict degree: fewer iterations when high
    for (int a = stride_words, b = 32; b;) {
        int t = a % b;
        a = b;
        b = t;
        g = a;
    }
    if (iters == 0)
        iters = 4096 / g > 64 ? 4096 / g : 64;
    int dev, sms, bps = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bps, gck_smem_kernel, SMEM_THREADS, 0));
    if (bps < 1) {
        snprintf(err, errlen, "smem: no block fits");
        return 1;
    }
    *blocks = bps * sms;
    *threads = SMEM_THREADS;
    *bytes = (uint64_t)*blocks * SMEM_THREADS * iters * 8 * sizeof(uint32_t);
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    int rc = 0;
    for (uint32_t l = 0; l <= launches && !rc; l++) {
        cudaEventRecord(e0);
        gck_smem_kernel<<<*blocks, SMEM_THREADS>>>(stride_words, iters, (uint32_t *)g_dummy);
        cudaError_t e = cudaGetLastError();
        if (e == cudaSuccess) {
            cudaEventRecord(e1);
            e = cudaEventSynchronize(e1);
        }
        if (e == cudaSuccess && l > 0)
            e = cudaEventElapsedTime(&ms[l - 1], e0, e1);
        if (e != cudaSuccess) {
            snprintf(err, errlen, "smem kernel: %s", cudaGetErrorString(e));
            rc = 1;
        }
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return rc;
}
