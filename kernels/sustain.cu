// Sustained load: an FMA-heavy kernel at full occupancy (the HBM-heavy
// load is stream.cu's triad). Launches run back to back, each timed with
// events, so the host can watch clocks and power between them.
#include "kernels.h"
#include "bench_util.cuh"

#define FMA_THREADS 256
#define FMA_CHAINS 8        // independent chains per thread: the FMA pipes stay full
#define FMA_UNROLL 16
#define MAGIC 1.2345e-30f   // a sum that never occurs: keeps the results alive

__global__ void __launch_bounds__(FMA_THREADS)
k_fma_burn(uint32_t iters, float a, float b, float *out)
{
    float x[FMA_CHAINS];
#pragma unroll
    for (int k = 0; k < FMA_CHAINS; k++)
        x[k] = threadIdx.x * 1e-3f + k;
    for (uint32_t i = 0; i < iters; i++) {
#pragma unroll
        for (int u = 0; u < FMA_UNROLL; u++) {
#pragma unroll
            for (int k = 0; k < FMA_CHAINS; k++)
                x[k] = fmaf(x[k], a, b);
        }
    }
    float s = 0;
#pragma unroll
    for (int k = 0; k < FMA_CHAINS; k++)
        s += x[k];
    if (s == MAGIC)
        out[0] = s;
}

extern "C" int gck_fma_burn_run(uint32_t iters, uint32_t launches, float *ms, uint64_t *flops,
                                char *err, size_t errlen)
{
    static float *sink;
    if (!sink)
        CK(cudaMalloc(&sink, 64));
    int dev, sms, bps = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bps, k_fma_burn, FMA_THREADS, 0));
    if (bps < 1 || iters < 1) {
        snprintf(err, errlen, "fma burn: no block fits or no work");
        return 1;
    }
    int blocks = bps * sms;
    *flops = (uint64_t)blocks * FMA_THREADS * iters * FMA_UNROLL * FMA_CHAINS * 2;
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    int rc = 0;
    for (uint32_t l = 0; l < launches && !rc; l++) {
        cudaEventRecord(e0);
        k_fma_burn<<<blocks, FMA_THREADS>>>(iters, 0.9999f, 1e-4f, sink);
        cudaError_t e = cudaGetLastError();
        if (e == cudaSuccess) {
            cudaEventRecord(e1);
            e = cudaEventSynchronize(e1);
        }
        if (e == cudaSuccess)
            e = cudaEventElapsedTime(&ms[l], e0, e1);
        if (e != cudaSuccess) {
            snprintf(err, errlen, "fma burn: %s", cudaGetErrorString(e));
            rc = 1;
        }
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return rc;
}
