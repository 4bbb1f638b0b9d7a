// Held-out kernels (issue 14): classic kernels as people write them, with
// loops, shared memory, barriers and shared-memory atomics, timed by the
// `valid` benchmark (kernel names "held_*") exactly as the validation suite
// is, but never part of any fit: no parameter and no lambda is computed from
// them. Their descriptions come from tools/describe.py (the SASS of this
// file's object, the loop trip counts and access patterns of
// configs/kernels/heldout/*.spec), never typed by hand.
//
// Every kernel has the validation suite's signature (x, y, alpha), a 1-D
// grid and block, sizes that divide evenly (no ragged tail), and reads its
// inputs from x (made by the set-up below) and writes y.
//
//   transpose_naive  4096^2 floats, 32x32 tiles, block 32x8: coalesced
//                    loads, stores 4 KiB apart (one sector per lane)
//   transpose_tiled  the same through a 32x33 shared-memory tile
//   reduce_shfl      grid-stride sum (trip count from gridDim: a loop the
//                    compiler keeps), warp shuffles, one partial per block
//   reduce_tree      two loads per thread, shared-memory tree with a
//                    barrier per level, the last warp by shuffles
//   sgemm_tiled      2048^3 C = A B, 32x32 shared tiles, 4 outputs/thread
//   stencil1d        7-point 1-D stencil, block + halo in shared memory
//   stencil2d        5-point 2-D Jacobi step on 4096^2, clamped edges
//   histogram        256 bins, shared-memory atomics, 16 elements/thread
//   scan             block-wide inclusive scan (warp shuffles + warp sums)
//   spmv_csr         scalar CSR, one thread per row, 16 nonzeros per row
//                    at scattered columns of a 2M-element vector
//   conv_rows/cols   the two passes of a separable 9-tap convolution
//   bitonic_sort     block-wide bitonic sort of 512 keys in shared memory
#include "kernels.h"
#include "bench_util.cuh"

#include <string.h>

#define HD_W 4096                      /* matrices and images: HD_W x HD_W */
#define HD_N (1u << 25)                /* 1-D inputs */
#define HD_GEMM 2048
#define HD_SPMV_ROWS (1u << 21)
#define HD_SPMV_NNZ 16                 /* nonzeros per row */
#define HD_SORT 512                    /* keys per block */

__constant__ float hd_taps[9] = { 0.0625f, 0.0625f, 0.125f, 0.125f, 0.25f,
                                  0.125f, 0.125f, 0.0625f, 0.0625f };

// ---- kernels ----

extern "C" __global__ void held_transpose_naive(const float *__restrict__ x, float *__restrict__ y,
                                                float alpha)
{
    unsigned tiles = HD_W / 32, bx = blockIdx.x % tiles, by = blockIdx.x / tiles;
    unsigned tx = threadIdx.x & 31, ty = threadIdx.x >> 5;
    unsigned c = bx * 32 + tx;
    for (unsigned r = by * 32 + ty; r < by * 32 + 32; r += 8)
        y[(size_t)c * HD_W + r] = x[(size_t)r * HD_W + c];
}

extern "C" __global__ void held_transpose_tiled(const float *__restrict__ x, float *__restrict__ y,
                                                float alpha)
{
    __shared__ float tile[32][33];
    unsigned tiles = HD_W / 32, bx = blockIdx.x % tiles, by = blockIdx.x / tiles;
    unsigned tx = threadIdx.x & 31, ty = threadIdx.x >> 5;
    for (unsigned k = ty; k < 32; k += 8)
        tile[k][tx] = x[(size_t)(by * 32 + k) * HD_W + bx * 32 + tx];
    __syncthreads();
    for (unsigned k = ty; k < 32; k += 8)
        y[(size_t)(bx * 32 + k) * HD_W + by * 32 + tx] = tile[tx][k];
}

__device__ __forceinline__ float warp_sum(float v)
{
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

extern "C" __global__ void held_reduce_shfl(const float *__restrict__ x, float *__restrict__ y,
                                            float alpha)
{
    __shared__ float part[32];
    unsigned stride = gridDim.x * blockDim.x, n = stride * 16;
    float s = 0;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        s += x[i];
    s = warp_sum(s);
    unsigned lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    if (lane == 0)
        part[w] = s;
    __syncthreads();
    if (w == 0) {
        s = lane < blockDim.x / 32 ? part[lane] : 0.0f;
        s = warp_sum(s);
        if (lane == 0)
            y[blockIdx.x] = s;
    }
}

extern "C" __global__ void held_reduce_tree(const float *__restrict__ x, float *__restrict__ y,
                                            float alpha)
{
    __shared__ float sd[256];
    unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x * 2 + t;
    sd[t] = x[i] + x[i + blockDim.x];
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
        if (t < s)
            sd[t] += sd[t + s];
        __syncthreads();
    }
    if (t < 32) {
        float v = warp_sum(sd[t] + sd[t + 32]);
        if (t == 0)
            y[blockIdx.x] = v;
    }
}

extern "C" __global__ void held_sgemm_tiled(const float *__restrict__ x, float *__restrict__ y,
                                            float alpha)
{
    __shared__ float as[32][32], bs[32][32];
    const float *a = x, *b = x + (size_t)HD_GEMM * HD_GEMM;
    unsigned tiles = HD_GEMM / 32, bx = blockIdx.x % tiles, by = blockIdx.x / tiles;
    unsigned tx = threadIdx.x & 31, ty = threadIdx.x >> 5;
    float acc[4] = { 0, 0, 0, 0 };
    for (unsigned k0 = 0; k0 < HD_GEMM; k0 += 32) {
#pragma unroll
        for (int q = 0; q < 4; q++) {
            unsigned r = ty + 8 * q;
            as[r][tx] = a[(size_t)(by * 32 + r) * HD_GEMM + k0 + tx];
            bs[r][tx] = b[(size_t)(k0 + r) * HD_GEMM + bx * 32 + tx];
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < 32; k++) {
            float bv = bs[k][tx];
#pragma unroll
            for (int q = 0; q < 4; q++)
                acc[q] = fmaf(as[ty + 8 * q][k], bv, acc[q]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int q = 0; q < 4; q++)
        y[(size_t)(by * 32 + ty + 8 * q) * HD_GEMM + bx * 32 + tx] = alpha * acc[q];
}

extern "C" __global__ void held_stencil1d(const float *__restrict__ x, float *__restrict__ y,
                                          float alpha)
{
    __shared__ float s[256 + 6];
    unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    s[t + 3] = x[i];
    if (t < 3) {
        s[t] = x[i >= 3 ? i - 3 : 0];
        unsigned j = i + blockDim.x;
        s[t + 3 + blockDim.x] = x[j < HD_N ? j : HD_N - 1];
    }
    __syncthreads();
    y[i] = 0.25f * s[t + 3] + 0.15f * (s[t + 2] + s[t + 4]) + 0.1f * (s[t + 1] + s[t + 5]) +
           0.125f * (s[t] + s[t + 6]);
}

extern "C" __global__ void held_stencil2d(const float *__restrict__ x, float *__restrict__ y,
                                          float alpha)
{
    unsigned r = blockIdx.x / (HD_W / 256), c = (blockIdx.x % (HD_W / 256)) * 256 + threadIdx.x;
    unsigned up = r ? r - 1 : 0, dn = r + 1 < HD_W ? r + 1 : HD_W - 1;
    unsigned lf = c ? c - 1 : 0, rt = c + 1 < HD_W ? c + 1 : HD_W - 1;
    y[(size_t)r * HD_W + c] = 0.2f * (x[(size_t)r * HD_W + c] + x[(size_t)up * HD_W + c] +
                                      x[(size_t)dn * HD_W + c] + x[(size_t)r * HD_W + lf] +
                                      x[(size_t)r * HD_W + rt]);
}

extern "C" __global__ void held_histogram(const float *__restrict__ x, float *__restrict__ y,
                                          float alpha)
{
    __shared__ unsigned h[256];
    h[threadIdx.x] = 0;
    __syncthreads();
    unsigned stride = gridDim.x * blockDim.x, n = stride * 16;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        atomicAdd(&h[(unsigned)(x[i] * 13.0f) & 255u], 1u);
    __syncthreads();
    y[blockIdx.x * 256 + threadIdx.x] = (float)h[threadIdx.x];
}

extern "C" __global__ void held_scan(const float *__restrict__ x, float *__restrict__ y,
                                     float alpha)
{
    __shared__ float sums[8];
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31,
             w = threadIdx.x >> 5;
    float v = x[i];
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        float u = __shfl_up_sync(0xffffffffu, v, d);
        if (lane >= (unsigned)d)
            v += u;
    }
    if (lane == 31)
        sums[w] = v;
    __syncthreads();
    float p = lane < 8 ? sums[lane] : 0.0f;   // every warp scans the 8 totals
#pragma unroll
    for (int d = 1; d < 8; d <<= 1) {
        float u = __shfl_up_sync(0xffffffffu, p, d);
        if (lane >= (unsigned)d)
            p += u;
    }
    float before = __shfl_sync(0xffffffffu, p, (w + 31) & 31);
    y[i] = v + (w ? before : 0.0f);
}

// x holds rowptr (ROWS + 1 ints), col (NNZ ints), val (NNZ floats), vec (ROWS floats).
extern "C" __global__ void held_spmv_csr(const float *__restrict__ x, float *__restrict__ y,
                                         float alpha)
{
    const int *rowptr = (const int *)x;
    const int *col = rowptr + HD_SPMV_ROWS + 1;
    const float *val = (const float *)(col + (size_t)HD_SPMV_ROWS * HD_SPMV_NNZ);
    const float *vec = val + (size_t)HD_SPMV_ROWS * HD_SPMV_NNZ;
    unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
    float s = 0;
    for (int j = rowptr[r]; j < rowptr[r + 1]; j++)
        s += val[j] * vec[col[j]];
    y[r] = s;
}

extern "C" __global__ void held_conv_rows(const float *__restrict__ x, float *__restrict__ y,
                                          float alpha)
{
    unsigned r = blockIdx.x / (HD_W / 256), c = (blockIdx.x % (HD_W / 256)) * 256 + threadIdx.x;
    float s = 0;
#pragma unroll
    for (int k = -4; k <= 4; k++) {
        int cc = min(max((int)c + k, 0), HD_W - 1);
        s += hd_taps[k + 4] * x[(size_t)r * HD_W + cc];
    }
    y[(size_t)r * HD_W + c] = s;
}

extern "C" __global__ void held_conv_cols(const float *__restrict__ x, float *__restrict__ y,
                                          float alpha)
{
    unsigned r = blockIdx.x / (HD_W / 256), c = (blockIdx.x % (HD_W / 256)) * 256 + threadIdx.x;
    float s = 0;
#pragma unroll
    for (int k = -4; k <= 4; k++) {
        int rr = min(max((int)r + k, 0), HD_W - 1);
        s += hd_taps[k + 4] * x[(size_t)rr * HD_W + c];
    }
    y[(size_t)r * HD_W + c] = s;
}

extern "C" __global__ void held_bitonic_sort(const float *__restrict__ x, float *__restrict__ y,
                                             float alpha)
{
    __shared__ float s[HD_SORT];
    unsigned t = threadIdx.x, base = blockIdx.x * HD_SORT;
    s[t] = x[base + t];
    s[t + HD_SORT / 2] = x[base + t + HD_SORT / 2];
    __syncthreads();
    for (unsigned k = 2; k <= HD_SORT; k <<= 1) {
        for (unsigned j = k >> 1; j > 0; j >>= 1) {
            unsigned i = 2 * j * (t / j) + t % j, p = i + j;   // one pair per thread
            float a = s[i], b = s[p];
            bool up = (i & k) == 0;
            s[i] = up ? fminf(a, b) : fmaxf(a, b);
            s[p] = up ? fmaxf(a, b) : fminf(a, b);
            __syncthreads();
        }
    }
    y[base + t] = s[t];
    y[base + t + HD_SORT / 2] = s[t + HD_SORT / 2];
}

// ---- table: launch shapes and buffer sizes (floats) ----

typedef void (*held_fn)(const float *, float *, float);
static const struct held {
    const char *name;
    held_fn fn;
    unsigned grid, threads;
    size_t nx, ny;
} held[] = {
    { "held_transpose_naive", held_transpose_naive, (HD_W / 32) * (HD_W / 32), 256,
      (size_t)HD_W * HD_W, (size_t)HD_W * HD_W },
    { "held_transpose_tiled", held_transpose_tiled, (HD_W / 32) * (HD_W / 32), 256,
      (size_t)HD_W * HD_W, (size_t)HD_W * HD_W },
    { "held_reduce_shfl", held_reduce_shfl, HD_N / 256 / 16, 256, HD_N, HD_N / 256 / 16 },
    { "held_reduce_tree", held_reduce_tree, HD_N / 512, 256, HD_N, HD_N / 512 },
    { "held_sgemm_tiled", held_sgemm_tiled, (HD_GEMM / 32) * (HD_GEMM / 32), 256,
      2 * (size_t)HD_GEMM * HD_GEMM, (size_t)HD_GEMM * HD_GEMM },
    { "held_stencil1d", held_stencil1d, HD_N / 256, 256, HD_N, HD_N },
    { "held_stencil2d", held_stencil2d, HD_W * (HD_W / 256), 256, (size_t)HD_W * HD_W,
      (size_t)HD_W * HD_W },
    { "held_histogram", held_histogram, HD_N / 256 / 16, 256, HD_N, HD_N / 16 },
    { "held_scan", held_scan, HD_N / 256, 256, HD_N, HD_N },
    { "held_spmv_csr", held_spmv_csr, HD_SPMV_ROWS / 256, 256,
      2 * (size_t)HD_SPMV_ROWS + 1 + 2 * (size_t)HD_SPMV_ROWS * HD_SPMV_NNZ, HD_SPMV_ROWS },
    { "held_conv_rows", held_conv_rows, HD_W * (HD_W / 256), 256, (size_t)HD_W * HD_W,
      (size_t)HD_W * HD_W },
    { "held_conv_cols", held_conv_cols, HD_W * (HD_W / 256), 256, (size_t)HD_W * HD_W,
      (size_t)HD_W * HD_W },
    { "held_bitonic_sort", held_bitonic_sort, HD_N / HD_SORT, HD_SORT / 2, HD_N, HD_N },
};
#define NHELD ((int)(sizeof held / sizeof held[0]))

// ---- set-up ----

__global__ void hd_init(float *x, size_t nx)
{
    size_t st = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < nx; i += st)
        x[i] = 1.0f + (float)(i & 1023) * 0.25f;
}

// CSR of a matrix with HD_SPMV_NNZ nonzeros per row at hashed (scattered) columns.
__global__ void hd_spmv_init(float *x)
{
    int *rowptr = (int *)x, *col = rowptr + HD_SPMV_ROWS + 1;
    float *val = (float *)(col + (size_t)HD_SPMV_ROWS * HD_SPMV_NNZ);
    float *vec = val + (size_t)HD_SPMV_ROWS * HD_SPMV_NNZ;
    size_t st = (size_t)gridDim.x * blockDim.x;
    for (size_t r = blockIdx.x * (size_t)blockDim.x + threadIdx.x; r <= HD_SPMV_ROWS; r += st) {
        rowptr[r] = (int)(r * HD_SPMV_NNZ);
        if (r == HD_SPMV_ROWS)
            break;
        vec[r] = 1.0f + (float)(r & 7);
        for (int k = 0; k < HD_SPMV_NNZ; k++) {
            size_t j = r * HD_SPMV_NNZ + k;
            col[j] = (int)((j * 2654435761u) & (HD_SPMV_ROWS - 1));
            val[j] = 0.5f;
        }
    }
}

static int launch(gck_valid *v)
{
    void *x = v->x, *y = v->y;
    float alpha = 0.5f;
    void *args[] = { &x, &y, &alpha };
    return cudaLaunchKernel((const void *)held[v->row].fn, dim3((unsigned)v->grid),
                            dim3((unsigned)v->threads), args, 0, 0) != cudaSuccess;
}

extern "C" int gck_held_count(void) { return NHELD; }
extern "C" const char *gck_held_name(int i) { return i >= 0 && i < NHELD ? held[i].name : NULL; }

extern "C" int gck_held_setup(gck_valid *v, int i, char *err, size_t errlen)
{
    memset(v, 0, sizeof *v);
    if (i < 0 || i >= NHELD) {
        snprintf(err, errlen, "valid: no held-out kernel %d", i);
        return 1;
    }
    const struct held *h = &held[i];
    int dev;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&v->sms, cudaDevAttrMultiProcessorCount, dev));
    v->row = i;
    v->grid = (int)h->grid;
    v->threads = (int)h->threads;
    v->smem = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&v->blocks_per_sm, (const void *)h->fn,
                                                     v->threads, 0));
    CK(cudaMalloc(&v->x, h->nx * sizeof(float)));
    CK(cudaMalloc(&v->y, h->ny * sizeof(float)));
    if (h->fn == held_spmv_csr)
        hd_spmv_init<<<4 * v->sms, 256>>>((float *)v->x);
    else
        hd_init<<<4 * v->sms, 1024>>>((float *)v->x, h->nx);
    CKL();
    CK(cudaMemset(v->y, 0, h->ny * sizeof(float)));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    v->e0 = e0;
    CK(cudaEventCreate(&e1));
    v->e1 = e1;
    if (launch(v)) {   // warm-up
        CKL();
        snprintf(err, errlen, "%s: launch failed", h->name);
        return 1;
    }
    CK(cudaDeviceSynchronize());
    return 0;
}

extern "C" int gck_held_run(gck_valid *v, uint32_t launches, float *ms, char *err, size_t errlen)
{
    cudaEvent_t e0 = (cudaEvent_t)v->e0, e1 = (cudaEvent_t)v->e1;
    for (uint32_t l = 0; l < launches; l++) {
        CK(cudaEventRecord(e0));
        if (launch(v)) {
            CKL();
            snprintf(err, errlen, "%s: launch failed", held[v->row].name);
            return 1;
        }
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        CK(cudaEventElapsedTime(&ms[l], e0, e1));
    }
    return 0;
}
