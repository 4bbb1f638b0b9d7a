// Instruction latency and throughput.
//
// Latency: one thread runs ILP independent chains; a timed window holds
// GCK_WINDOW dependent steps of each chain (GCK_WINDOW * ILP instructions
// of the op, interleaved), then one shared-memory store of each chain's
// result, then the stop clock: the stop clock waits for the last result
// (document 000's two-operation figure, faster than one, came from a stop
// clock that did not). The twin ("timer cost") kernel has the same window
// with the steps removed. Each op is one PTX instruction in an asm volatile
// statement, so neither nvcc nor the source order can fold, hoist or drop
// it; tests/sass/check_sass.sh checks the SASS of every window.
//
// Throughput: blocks of 256 threads, as many resident per SM as fit, each
// thread runs ILP independent chains for iters x 16 steps; thread 0 of each
// block records its SM and the block's start and end clocks (between two
// barriers). ops/cycle/SM = blocks of the SM * block ops / (last end - first
// start on that SM).
#include "kernels.h"
#include "bench_util.cuh"

#include <string.h>

#include <string_view>

#define TP_THREADS 256
#define TP_UNROLL 16

#define SINK_F32 static __device__ __forceinline__ void sink(uint32_t s, T x) { gck_sink_f32(s, x); }
#define SINK_F64 static __device__ __forceinline__ void sink(uint32_t s, T x) { gck_sink_f64(s, x); }
#define SINK_U32 static __device__ __forceinline__ void sink(uint32_t s, T x) { gck_sink_u32(s, x); }

struct op_f32_add {
    typedef float T;
    static __device__ T init(int i, uint32_t) { return 1.0f + 0.01f * i; }
    static __device__ __forceinline__ void step(T &x, T a, T) { asm volatile("add.rn.f32 %0, %0, %1;" : "+f"(x) : "f"(a)); }
    SINK_F32
};
struct op_f32_mul {
    typedef float T;
    static __device__ T init(int i, uint32_t) { return 1.0f + 0.01f * i; }
    static __device__ __forceinline__ void step(T &x, T a, T) { asm volatile("mul.rn.f32 %0, %0, %1;" : "+f"(x) : "f"(a)); }
    SINK_F32
};
struct op_f32_fma {
    typedef float T;
    static __device__ T init(int i, uint32_t) { return 1.0f + 0.01f * i; }
    static __device__ __forceinline__ void step(T &x, T a, T b) { asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x) : "f"(a), "f"(b)); }
    SINK_F32
};
// x = a / x: the divisor changes every step, so no reciprocal can be hoisted.
struct op_f32_div {
    typedef float T;
    static __device__ T init(int i, uint32_t) { return 1.5f + 0.01f * i; }
    static __device__ __forceinline__ void step(T &x, T a, T) { asm volatile("div.rn.f32 %0, %1, %0;" : "+f"(x) : "f"(a)); }
    SINK_F32
};
struct op_f32_sqrt {
    typedef float T;
    static __device__ T init(int i, uint32_t) { return 2.0f + 0.01f * i; }
    static __device__ __forceinline__ void step(T &x, T, T) { asm volatile("sqrt.rn.f32 %0, %0;" : "+f"(x)); }
    SINK_F32
};
struct op_f64_add {
    typedef double T;
    static __device__ T init(int i, uint32_t) { return 1.0 + 0.01 * i; }
    static __device__ __forceinline__ void step(T &x, T a, T) { asm volatile("add.rn.f64 %0, %0, %1;" : "+d"(x) : "d"(a)); }
    SINK_F64
};
struct op_f64_fma {
    typedef double T;
    static __device__ T init(int i, uint32_t) { return 1.0 + 0.01 * i; }
    static __device__ __forceinline__ void step(T &x, T a, T b) { asm volatile("fma.rn.f64 %0, %0, %1, %2;" : "+d"(x) : "d"(a), "d"(b)); }
    SINK_F64
};
struct op_f64_div {
    typedef double T;
    static __device__ T init(int i, uint32_t) { return 1.5 + 0.01 * i; }
    static __device__ __forceinline__ void step(T &x, T a, T) { asm volatile("div.rn.f64 %0, %1, %0;" : "+d"(x) : "d"(a)); }
    SINK_F64
};
struct op_i32_add {
    typedef uint32_t T;
    static __device__ T init(int i, uint32_t) { return 1u + i; }
    // Two PTX adds per step: ptxas fuses consecutive adds into one 3-input
    // IADD3 anyway (seen in SASS), so a step is written as exactly one IADD3
    // (x + a + b) and the window holds one IADD3 per dependent step.
    static __device__ __forceinline__ void step(T &x, T a, T b)
    {
        asm volatile("add.s32 %0, %0, %1;\n\tadd.s32 %0, %0, %2;" : "+r"(x) : "r"(a), "r"(b));
    }
    SINK_U32
};
struct op_i32_mul {
    typedef uint32_t T;
    static __device__ T init(int i, uint32_t) { return 1u + 2u * i; }
    static __device__ __forceinline__ void step(T &x, T a, T) { asm volatile("mul.lo.s32 %0, %0, %1;" : "+r"(x) : "r"(a)); }
    SINK_U32
};
// x = a / x with a = 2^31 - 1 and x near sqrt(a): stays near sqrt(a).
struct op_i32_div {
    typedef uint32_t T;
    static __device__ T init(int i, uint32_t) { return 46341u + i; }
    static __device__ __forceinline__ void step(T &x, T a, T) { asm volatile("div.s32 %0, %1, %0;" : "+r"(x) : "r"(a)); }
    SINK_U32
};
// __sinf and __expf as CUDA compiles them (sin.approx / mul + ex2.approx).
struct op_sfu_sin {
    typedef float T;
    static __device__ T init(int i, uint32_t) { return 1.0f + 0.01f * i; }
    static __device__ __forceinline__ void step(T &x, T, T) { asm volatile("sin.approx.f32 %0, %0;" : "+f"(x)); }
    SINK_F32
};
struct op_sfu_exp {   // x = __expf(-x): a = -log2(e)
    typedef float T;
    static __device__ T init(int i, uint32_t) { return 0.5f + 0.01f * i; }
    static __device__ __forceinline__ void step(T &x, T a, T)
    {
        asm volatile("{ .reg .f32 t; mul.f32 t, %0, %1; ex2.approx.f32 %0, t; }" : "+f"(x) : "f"(a));
    }
    SINK_F32
};
// x = shared[x]: each chain's slot holds its own shared address.
struct op_smem_ld {
    typedef uint32_t T;
    static __device__ T init(int, uint32_t slot_addr) { return slot_addr; }
    static __device__ __forceinline__ void step(T &x, T, T) { asm volatile("ld.shared.u32 %0, [%0];" : "+r"(x)); }
    SINK_U32
};

template <class T> __device__ __forceinline__ void pin(T &x);
template <> __device__ __forceinline__ void pin<float>(float &x) { gck_pin_f32(x); }
template <> __device__ __forceinline__ void pin<double>(double &x) { gck_pin_f64(x); }
template <> __device__ __forceinline__ void pin<uint32_t>(uint32_t &x) { gck_pin_u32(x); }

template <class T> __device__ __forceinline__ uint64_t bits(T x);
template <> __device__ __forceinline__ uint64_t bits<float>(float x) { return __float_as_uint(x); }
template <> __device__ __forceinline__ uint64_t bits<double>(double x) { return (uint64_t)__double_as_longlong(x); }
template <> __device__ __forceinline__ uint64_t bits<uint32_t>(uint32_t x) { return x; }

template <class OP, int ILP, int CH>
__device__ __forceinline__ void lat_body(double a, double b, uint32_t nsamples, uint32_t *out, uint64_t *aux)
{
    typedef typename OP::T T;
    __shared__ uint32_t slots[8];
    __shared__ uint64_t sink[8];
    T x[ILP];
#pragma unroll
    for (int i = 0; i < ILP; i++) {
        slots[i] = gck_saddr(&slots[i]);
        x[i] = OP::init(i, gck_saddr(&slots[i]));
    }
    __syncwarp();
    T av = (T)a, bv = (T)b;
    uint64_t c0 = gck_clock(), g0 = gck_gtimer();
    for (uint32_t s = 0; s < nsamples; s++) {
#pragma unroll
        for (int i = 0; i < ILP; i++)
            pin(x[i]);
        uint64_t t0 = gck_clock();
#pragma unroll
        for (int j = 0; j < CH; j++)
#pragma unroll
            for (int i = 0; i < ILP; i++)
                OP::step(x[i], av, bv);
#pragma unroll
        for (int i = 0; i < ILP; i++)
            OP::sink(gck_saddr(&sink[i]), x[i]);
        uint64_t t1 = gck_clock();
        out[s] = (uint32_t)(t1 - t0);
    }
    uint64_t c1 = gck_clock(), g1 = gck_gtimer();
    uint64_t h = 0;
#pragma unroll
    for (int i = 0; i < ILP; i++)
        h ^= bits(x[i]);
    aux[0] = c1 - c0;
    aux[1] = g1 - g0;
    aux[2] = h;
}

template <class OP, int ILP>
__device__ __forceinline__ void tp_body(double a, double b, uint32_t iters, uint32_t *out, uint64_t *aux)
{
    typedef typename OP::T T;
    __shared__ uint32_t slots[8 * TP_THREADS];
    __shared__ uint64_t sink[TP_THREADS];
    T x[ILP];
#pragma unroll
    for (int i = 0; i < ILP; i++) {
        uint32_t *slot = &slots[i * TP_THREADS + threadIdx.x];   // bank = lane
        *slot = gck_saddr(slot);
        x[i] = OP::init(i + (threadIdx.x & 7), gck_saddr(slot));
    }
    T av = (T)a, bv = (T)b;
    __syncthreads();
#pragma unroll
    for (int i = 0; i < ILP; i++)
        pin(x[i]);
    uint64_t t0 = gck_clock();
    for (uint32_t it = 0; it < iters; it++) {
#pragma unroll
        for (int j = 0; j < TP_UNROLL; j++)
#pragma unroll
            for (int i = 0; i < ILP; i++)
                OP::step(x[i], av, bv);
    }
#pragma unroll
    for (int i = 0; i < ILP; i++)
        OP::sink(gck_saddr(&sink[threadIdx.x]), x[i]);
    __syncthreads();
    uint64_t t1 = gck_clock();
    if (threadIdx.x == 0) {
        uint32_t smid;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
        out[3 * blockIdx.x] = smid;
        out[3 * blockIdx.x + 1] = (uint32_t)t0;
        out[3 * blockIdx.x + 2] = (uint32_t)t1;
        aux[0] = bits(x[0]);
    }
}

typedef void (*inst_fn)(double, double, uint32_t, uint32_t *, uint64_t *);

#define LAT_K(name, I)                                                                          \
    extern "C" __global__ void gck_lat_##name##_##I(double a, double b, uint32_t n, uint32_t *o, \
                                                    uint64_t *x)                                \
    { lat_body<op_##name, I, GCK_WINDOW>(a, b, n, o, x); }                                      \
    extern "C" __global__ void gck_twin_##name##_##I(double a, double b, uint32_t n, uint32_t *o, \
                                                     uint64_t *x)                               \
    { lat_body<op_##name, I, 0>(a, b, n, o, x); }                                               \
    extern "C" __global__ void __launch_bounds__(TP_THREADS)                                    \
        gck_tp_##name##_##I(double a, double b, uint32_t n, uint32_t *o, uint64_t *x)           \
    { tp_body<op_##name, I>(a, b, n, o, x); }

#define ALL_ILP(name) LAT_K(name, 1) LAT_K(name, 2) LAT_K(name, 3) LAT_K(name, 4) \
    LAT_K(name, 5) LAT_K(name, 6) LAT_K(name, 7) LAT_K(name, 8)

#define TAB(name, kind) { gck_##kind##_##name##_1, gck_##kind##_##name##_2, gck_##kind##_##name##_3, \
    gck_##kind##_##name##_4, gck_##kind##_##name##_5, gck_##kind##_##name##_6,                       \
    gck_##kind##_##name##_7, gck_##kind##_##name##_8 }

// name, operand a, operand b, default throughput iterations
#define OPS(X)                                   \
    X(f32_add, 1e-3, 0, 1024)                    \
    X(f32_mul, 0.9999999, 0, 1024)               \
    X(f32_fma, 0.9999, 1e-4, 1024)               \
    X(f32_div, 1.0, 0, 64)                       \
    X(f32_sqrt, 0, 0, 128)                       \
    X(f64_add, 1e-3, 0, 512)                     \
    X(f64_fma, 0.9999, 1e-4, 512)                \
    X(f64_div, 1.0, 0, 32)                       \
    X(i32_add, 3, 5, 1024)                       \
    X(i32_mul, 3, 0, 512)                        \
    X(i32_div, 2147483647.0, 0, 32)              \
    X(sfu_sin, 0, 0, 256)                        \
    X(sfu_exp, -1.4426950408889634, 0, 256)      \
    X(smem_ld, 0, 0, 512)

#define DEF_KERNELS(name, a, b, it) ALL_ILP(name)
OPS(DEF_KERNELS)

struct op_row {
    const char *name;
    double a, b;
    uint32_t iters;
    inst_fn lat[8], twin[8], tp[8];
};

#define ROW(name, a, b, it) { #name, a, b, it, TAB(name, lat), TAB(name, twin), TAB(name, tp) },
static const op_row op_rows[] = { OPS(ROW) };
#define NOPS ((int)(sizeof op_rows / sizeof op_rows[0]))

// The rows are kernels.h's gck_inst_op in its order, name for name.
#define OP_NAME(name, a, b, it) #name,
static constexpr const char *row_names[] = { OPS(OP_NAME) };
static constexpr const char *abi_names[] = { GCK_INST_OPS(GCK_ENUM_NAME) };
static constexpr bool same_names(int i = 0)
{
    return i == GCK_INST_NOPS ||
           (std::string_view(row_names[i]) == abi_names[i] && same_names(i + 1));
}
static_assert(sizeof row_names / sizeof *row_names == GCK_INST_NOPS,
              "OPS: one row per gck_inst_op");
static_assert(same_names(), "OPS: rows in gck_inst_op's order (kernels.h)");

extern "C" const char *gck_inst_op_name(gck_inst_op op)
{
    return op >= 0 && op < NOPS ? op_rows[op].name : NULL;
}

extern "C" gck_inst_op gck_inst_op_find(const char *name)
{
    for (int i = 0; i < NOPS; i++)
        if (strcmp(op_rows[i].name, name) == 0)
            return (gck_inst_op)i;
    return GCK_INST_NONE;
}

static int check_op(gck_inst_op op, int ilp, char *err, size_t errlen)
{
    if (op < 0 || op >= NOPS || ilp < 1 || ilp > 8) {
        snprintf(err, errlen, "inst: bad op %d or ilp %d", (int)op, ilp);
        return 1;
    }
    return 0;
}

extern "C" int gck_inst_latency(gck_inst_op op, int ilp, int twin, uint32_t nsamples,
                                gck_scratch *s, uint64_t *span_cycles, uint64_t *span_ns,
                                char *err, size_t errlen)
{
    if (check_op(op, ilp, err, errlen) || gck_scratch_reserve(s, nsamples, err, errlen))
        return 1;
    const op_row *r = &op_rows[op];
    inst_fn f = twin ? r->twin[ilp - 1] : r->lat[ilp - 1];
    f<<<1, 1>>>(r->a, r->b, nsamples, s->d_samples, s->d_aux);
    CKL();
    CK(cudaMemcpy(s->h_samples, s->d_samples, nsamples * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(s->h_aux, s->d_aux, 3 * sizeof(uint64_t), cudaMemcpyDeviceToHost));
    *span_cycles = s->h_aux[0];
    *span_ns = s->h_aux[1];
    return 0;
}

extern "C" int gck_inst_throughput(gck_inst_op op, int ilp, uint32_t iters, gck_scratch *s,
                                   int *blocks, int *threads, int *blocks_per_sm,
                                   uint64_t *ops_per_block, int *sms_seen, char *err,
                                   size_t errlen)
{
    if (check_op(op, ilp, err, errlen))
        return 1;
    const op_row *r = &op_rows[op];
    inst_fn f = r->tp[ilp - 1];
    if (iters == 0)
        iters = r->iters;
    int dev, sms, bps = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bps, f, TP_THREADS, 0));
    if (bps < 1) {
        snprintf(err, errlen, "inst: %s ilp %d: no block fits on an SM", r->name, ilp);
        return 1;
    }
    int nb = bps * sms;
    if (gck_scratch_reserve(s, (size_t)nb * 3, err, errlen))
        return 1;
    f<<<nb, TP_THREADS>>>(r->a, r->b, iters, s->d_samples, s->d_aux);
    CKL();
    CK(cudaMemcpy(s->h_samples, s->d_samples, 3 * nb * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    // Per SM: the span from the first block's start to the last block's end
    // (clock64 is per SM: compare only clocks of one SM), and its blocks.
    uint32_t *h = s->h_samples;
    int nsm = 0;
    for (int b = 0; b < nb; b++)
        if ((int)h[3 * b] + 1 > nsm)
            nsm = (int)h[3 * b] + 1;
    uint32_t *ref = new uint32_t[nsm]();
    int64_t *lo = new int64_t[nsm](), *hi = new int64_t[nsm]();
    uint32_t *cnt = new uint32_t[nsm]();
    for (int b = 0; b < nb; b++) {
        uint32_t sm = h[3 * b];
        if (!cnt[sm])
            ref[sm] = h[3 * b + 1];
        int64_t a0 = (int32_t)(h[3 * b + 1] - ref[sm]), a1 = (int32_t)(h[3 * b + 2] - ref[sm]);
        if (!cnt[sm] || a0 < lo[sm])
            lo[sm] = a0;
        if (!cnt[sm] || a1 > hi[sm])
            hi[sm] = a1;
        cnt[sm]++;
    }
    int k = 0;
    for (int sm = 0; sm < nsm; sm++)
        if (cnt[sm] && hi[sm] > lo[sm]) {
            h[2 * k] = (uint32_t)(hi[sm] - lo[sm]);
            h[2 * k + 1] = cnt[sm];
            k++;
        }
    delete[] ref;
    delete[] lo;
    delete[] hi;
    delete[] cnt;
    *sms_seen = k;
    *blocks = nb;
    *threads = TP_THREADS;
    *blocks_per_sm = bps;
    *ops_per_block = (uint64_t)TP_THREADS * iters * TP_UNROLL * ilp;
    return 0;
}
