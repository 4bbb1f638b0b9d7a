// Memory latency family: pointer chase (unloaded and loaded) and the
// departure delay of outstanding requests, plus the scratch buffers every
// benchmark family shares.
//
// The chase follows one random cycle through the footprint (each element
// visited once before any is revisited: no prefetcher can guess it, and a
// footprint larger than a cache level never hits in it). A timed window is
// GCK_WINDOW dependent 8-byte loads between two %clock64 reads; the loaded
// pointer is stored to shared memory before the stop clock, so the stop
// clock waits for the last load. The twin kernel has the same window with
// the loads removed: its median is the timer cost the host subtracts.
#include "kernels.h"
#include "bench_util.cuh"

#include <stdlib.h>
#include <string.h>

/* ---- scratch shared by all families ---- */

extern "C" int gck_scratch_reserve(gck_scratch *s, size_t n, char *err, size_t errlen)
{
    if (!s->d_aux) {
        CK(cudaMalloc(&s->d_aux, 16 * sizeof(uint64_t)));
        CK(cudaMemset(s->d_aux, 0, 16 * sizeof(uint64_t)));
    }
    if (n <= s->cap)
        return 0;
    size_t cap = s->cap ? s->cap : 4096;
    while (cap < n)
        cap *= 2;
    if (s->d_samples)
        cudaFree(s->d_samples);
    if (s->h_samples)
        cudaFreeHost(s->h_samples);
    s->d_samples = NULL;
    s->h_samples = NULL;
    s->cap = 0;
    CK(cudaMalloc(&s->d_samples, cap * sizeof(uint32_t)));
    CK(cudaMallocHost(&s->h_samples, cap * sizeof(uint32_t)));
    s->cap = cap;
    return 0;
}

extern "C" void gck_scratch_free(gck_scratch *s)
{
    if (s->d_samples)
        cudaFree(s->d_samples);
    if (s->h_samples)
        cudaFreeHost(s->h_samples);
    if (s->d_aux)
        cudaFree(s->d_aux);
    memset(s, 0, sizeof *s);
}

extern "C" int gck_malloc(void **p, size_t bytes, char *err, size_t errlen)
{
    *p = NULL;
    CK(cudaMalloc(p, bytes));
    return 0;
}

extern "C" void gck_free(void *p)
{
    if (p)
        cudaFree(p);
}

extern "C" int gck_mem_free(size_t *free_bytes, size_t *total_bytes, char *err, size_t errlen)
{
    CK(cudaMemGetInfo(free_bytes, total_bytes));
    return 0;
}

__global__ void fill_kernel(float4 *p, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride) {
        float f = 1.0f + (float)(i & 1023) * 0.001f;
        p[i] = make_float4(f, f + 0.25f, f + 0.5f, f + 0.75f);
    }
}

extern "C" int gck_fill(void *p, size_t bytes, char *err, size_t errlen)
{
    fill_kernel<<<1024, 256>>>((float4 *)p, bytes / sizeof(float4));
    CKL();
    CK(cudaDeviceSynchronize());
    return 0;
}

/* ---- chain construction ---- */

__host__ __device__ static inline uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

// Byte offset of element j: j * stride, plus a random line inside the
// stride for page-order chains.
__host__ __device__ static inline uint64_t elem_off(uint64_t j, uint64_t stride, int page)
{
    uint64_t off = j * stride;
    if (page && stride > 128)
        off += (mix64(j) % (stride / 128)) * 128;
    return off;
}

__global__ void link_kernel(uint8_t *buf, const uint32_t *perm, uint64_t n, uint64_t stride, int page)
{
    uint64_t step = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += step) {
        uint64_t j = perm[i], k = perm[i + 1 == n ? 0 : i + 1];
        *(uint64_t *)(buf + elem_off(j, stride, page)) = (uint64_t)(buf + elem_off(k, stride, page));
    }
}

extern "C" int gck_chase_build(gck_chain *c, uint64_t seed, char *err, size_t errlen)
{
    if (c->n < 1 || c->n > (1ull << 31) || c->stride < 8 || c->stride % 8) {
        snprintf(err, errlen, "chase: bad chain (n=%llu, stride=%llu)",
                 (unsigned long long)c->n, (unsigned long long)c->stride);
        return 1;
    }
    uint32_t *h = (uint32_t *)malloc(c->n * sizeof(uint32_t));
    if (!h) {
        snprintf(err, errlen, "chase: out of host memory for %llu elements",
                 (unsigned long long)c->n);
        return 1;
    }
    for (uint64_t i = 0; i < c->n; i++)
        h[i] = (uint32_t)i;
    uint64_t st = seed ? seed : 1;
    for (uint64_t i = c->n - 1; i > 0 && !c->in_order; i--) {   // Fisher-Yates
        st = mix64(st);
        uint64_t j = st % (i + 1);
        uint32_t t = h[i];
        h[i] = h[j];
        h[j] = t;
    }
    cudaError_t e = cudaMemcpy(c->perm, h, c->n * sizeof(uint32_t), cudaMemcpyHostToDevice);
    c->first = (uint8_t *)c->buf + elem_off(h[0], c->stride, c->page_offsets);
    free(h);
    CK(e);
    link_kernel<<<1024, 256>>>((uint8_t *)c->buf, c->perm, c->n, c->stride, c->page_offsets);
    CKL();
    CK(cudaDeviceSynchronize());
    return 0;
}

/* ---- unloaded chase ---- */

#define CHASE_LD(p) asm volatile("ld.global.u64 %0, [%0];" : "+l"(p) :: "memory")
// Loaded chase: L2 only, so warps of one SM never hit each other's lines in L1.
#define CHASE_LD_CG(p) asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p) :: "memory")

extern "C" __global__ void gck_chase_kernel(uint64_t start, uint32_t warm, uint32_t nsamples,
                                            uint32_t *out, uint64_t *aux, uint32_t target)
{
    if (blockIdx.x != target)   // a grid of one block per SM: only `target` chases
        return;
    __shared__ uint64_t sink[2];
    uint32_t s = gck_saddr(sink);
    uint64_t p = start;
    for (uint32_t i = 0; i < warm; i++)
        CHASE_LD(p);
    gck_sink_u64(s, p);
    uint64_t c0 = gck_clock(), g0 = gck_gtimer();
    for (uint32_t i = 0; i < nsamples; i++) {
        uint64_t t0 = gck_clock();
#pragma unroll
        for (int k = 0; k < GCK_WINDOW; k++)
            CHASE_LD(p);
        gck_sink_u64(s, p);
        uint64_t t1 = gck_clock();
        out[i] = (uint32_t)(t1 - t0);
    }
    uint64_t c1 = gck_clock(), g1 = gck_gtimer();
    aux[0] = c1 - c0;
    aux[1] = g1 - g0;
    aux[2] = p;
}

extern "C" __global__ void gck_chase_twin_kernel(uint64_t start, uint32_t warm, uint32_t nsamples,
                                                 uint32_t *out, uint64_t *aux, uint32_t target)
{
    if (blockIdx.x != target)
        return;
    __shared__ uint64_t sink[2];
    uint32_t s = gck_saddr(sink);
    uint64_t p = start;
    (void)warm;
    gck_sink_u64(s, p);
    uint64_t c0 = gck_clock(), g0 = gck_gtimer();
    for (uint32_t i = 0; i < nsamples; i++) {
        uint64_t t0 = gck_clock();
        gck_sink_u64(s, p);
        uint64_t t1 = gck_clock();
        out[i] = (uint32_t)(t1 - t0);
    }
    uint64_t c1 = gck_clock(), g1 = gck_gtimer();
    aux[0] = c1 - c0;
    aux[1] = g1 - g0;
    aux[2] = p;
}

extern "C" int gck_chase_run(void **cursor, uint32_t warm, uint32_t nsamples, int twin,
                             gck_scratch *s, uint64_t *span_cycles, uint64_t *span_ns,
                             char *err, size_t errlen)
{
    return gck_chase_run_on(cursor, warm, nsamples, twin, 1, 0, s, span_cycles, span_ns, err,
                            errlen);
}

extern "C" int gck_chase_run_on(void **cursor, uint32_t warm, uint32_t nsamples, int twin,
                                uint32_t grid, uint32_t target, gck_scratch *s,
                                uint64_t *span_cycles, uint64_t *span_ns, char *err, size_t errlen)
{
    if (gck_scratch_reserve(s, nsamples, err, errlen))
        return 1;
    if (twin)
        gck_chase_twin_kernel<<<grid, 1>>>((uint64_t)*cursor, warm, nsamples, s->d_samples, s->d_aux,
                                           target);
    else
        gck_chase_kernel<<<grid, 1>>>((uint64_t)*cursor, warm, nsamples, s->d_samples, s->d_aux,
                                      target);
    CKL();
    CK(cudaMemcpy(s->h_samples, s->d_samples, nsamples * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(s->h_aux, s->d_aux, 3 * sizeof(uint64_t), cudaMemcpyDeviceToHost));
    *span_cycles = s->h_aux[0];
    *span_ns = s->h_aux[1];
    *cursor = (void *)s->h_aux[2];
    return 0;
}

/* ---- loaded chase: lane 0 of every warp chases at once ---- */

extern "C" __global__ void gck_chase_loaded_kernel(const uint8_t *buf, uint64_t n, uint64_t stride,
                                                   int page, const uint32_t *perm, uint32_t warm,
                                                   uint32_t runs, uint32_t *out)
{
    __shared__ uint64_t sink[32];
    if (threadIdx.x & 31)
        return;
    uint32_t wib = threadIdx.x >> 5;
    uint32_t s = gck_saddr(&sink[wib]);
    uint64_t nwarps = (uint64_t)gridDim.x * (blockDim.x >> 5);
    uint64_t warp = (uint64_t)blockIdx.x * (blockDim.x >> 5) + wib;
    uint64_t p = (uint64_t)(buf + elem_off(perm[warp * n / nwarps], stride, page));
    for (uint32_t i = 0; i < warm; i++)
        CHASE_LD_CG(p);
    gck_sink_u64(s, p);
    for (uint32_t r = 0; r < runs; r++) {
        uint64_t t0 = gck_clock();
#pragma unroll
        for (int k = 0; k < GCK_WINDOW; k++)
            CHASE_LD_CG(p);
        gck_sink_u64(s, p);
        uint64_t t1 = gck_clock();
        out[warp * runs + r] = (uint32_t)(t1 - t0);
    }
}

extern "C" int gck_chase_loaded_run(const gck_chain *c, int blocks, int threads, uint32_t warm,
                                    uint32_t runs, gck_scratch *s, char *err, size_t errlen)
{
    if (threads < 32 || threads % 32 || threads > 1024 || blocks < 1) {
        snprintf(err, errlen, "chase_loaded: bad launch %d x %d", blocks, threads);
        return 1;
    }
    size_t nw = (size_t)blocks * (threads / 32);
    if (gck_scratch_reserve(s, nw * runs, err, errlen))
        return 1;
    gck_chase_loaded_kernel<<<blocks, threads>>>((const uint8_t *)c->buf, c->n, c->stride,
                                                 c->page_offsets, c->perm, warm, runs,
                                                 s->d_samples);
    CKL();
    CK(cudaMemcpy(s->h_samples, s->d_samples, nw * runs * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    return 0;
}

/* ---- departure delay: K independent requests of one warp ---- */

#define DEP_KSTRIDE 32768u          /* bytes between a warp's requests */
#define DEP_SAMPLE_STEP (4u << 20)  /* bytes between samples' regions */

#define DEP_ALL_LOADS \
    DL(0) DL(1) DL(2) DL(3) DL(4) DL(5) DL(6) DL(7) DL(8) DL(9) DL(10) DL(11) DL(12) DL(13) DL(14) DL(15) \
    DL(16) DL(17) DL(18) DL(19) DL(20) DL(21) DL(22) DL(23) DL(24) DL(25) DL(26) DL(27) DL(28) DL(29) DL(30) DL(31) \
    DL(32) DL(33) DL(34) DL(35) DL(36) DL(37) DL(38) DL(39) DL(40) DL(41) DL(42) DL(43) DL(44) DL(45) DL(46) DL(47) \
    DL(48) DL(49) DL(50) DL(51) DL(52) DL(53) DL(54) DL(55) DL(56) DL(57) DL(58) DL(59) DL(60) DL(61) DL(62) DL(63) \
    DL(64) DL(65) DL(66) DL(67) DL(68) DL(69) DL(70) DL(71) DL(72) DL(73) DL(74) DL(75) DL(76) DL(77) DL(78) DL(79) \
    DL(80) DL(81) DL(82) DL(83) DL(84) DL(85) DL(86) DL(87) DL(88) DL(89) DL(90) DL(91) DL(92) DL(93) DL(94) DL(95) \
    DL(96) DL(97) DL(98) DL(99) DL(100) DL(101) DL(102) DL(103) DL(104) DL(105) DL(106) DL(107) DL(108) DL(109) DL(110) DL(111) \
    DL(112) DL(113) DL(114) DL(115) DL(116) DL(117) DL(118) DL(119) DL(120) DL(121) DL(122) DL(123) DL(124) DL(125) DL(126) DL(127)

template <int K, int UNC>
__global__ void gck_departure_kernel(const uint8_t *buf, uint64_t bytes, uint32_t nsamples,
                                     uint32_t *out)
{
    __shared__ uint32_t sink[32];
    uint32_t lane = threadIdx.x & 31;
    uint32_t s = gck_saddr(&sink[lane]);
    uint64_t room = bytes - (uint64_t)DEP_SAMPLE_STEP - 8192;
    for (uint32_t i = 0; i < nsamples; i++) {
        uint64_t off = ((uint64_t)i * DEP_SAMPLE_STEP + (uint64_t)(i % 61) * 256) % room;
        uint64_t a = (uint64_t)(buf + off + (UNC ? lane * 128u : lane * 4u));
        uint32_t v[K];
        gck_pin_u64(a);
        uint64_t t0 = gck_clock();
        // Literal offsets: each load is one LDG with an immediate offset,
        // so the window holds the K loads and nothing that computes them.
        // ld.volatile.global: not cached in L1 (like .cg), kept in order.
#define DL(k) if (k < K) asm volatile("ld.volatile.global.u32 %0, [%1+%2];" : "=r"(v[k]) : "l"(a), "n"(k * DEP_KSTRIDE) : "memory");
        DEP_ALL_LOADS
#undef DL
        // Consume with volatile shared stores: they stay behind the volatile
        // loads (an XOR tree was interleaved with the loads by ptxas, which
        // stalls issue on the first result).
#pragma unroll
        for (int k = 0; k < K; k++)
            gck_sink_u32(s, v[k]);
        uint64_t t1 = gck_clock();
        if (lane == 0)
            out[i] = (uint32_t)(t1 - t0);
    }
}

#define DEP_KS(X) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(10) X(12) X(14) X(16) \
    X(20) X(24) X(28) X(32) X(48) X(64) X(96) X(128)

extern "C" int gck_departure_run(void *buf, size_t bytes, int uncoalesced, int requests,
                                 uint32_t nsamples, gck_scratch *s, char *err, size_t errlen)
{
    if (bytes < (size_t)DEP_SAMPLE_STEP * 4) {
        snprintf(err, errlen, "departure: buffer too small");
        return 1;
    }
    if (gck_scratch_reserve(s, nsamples, err, errlen))
        return 1;
    const uint8_t *b = (const uint8_t *)buf;
    switch (requests * 2 + (uncoalesced ? 1 : 0)) {
#define DEP_CASE(k)                                                                        \
    case 2 * k: gck_departure_kernel<k, 0><<<1, 32>>>(b, bytes, nsamples, s->d_samples); break; \
    case 2 * k + 1: gck_departure_kernel<k, 1><<<1, 32>>>(b, bytes, nsamples, s->d_samples); break;
        DEP_KS(DEP_CASE)
#undef DEP_CASE
    default:
        snprintf(err, errlen, "departure: requests = %d not built; supported: "
                 "1-8, 10, 12, 14, 16, 20, 24, 28, 32, 48, 64, 96, 128", requests);
        return 1;
    }
    CKL();
    CK(cudaMemcpy(s->h_samples, s->d_samples, nsamples * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    return 0;
}
