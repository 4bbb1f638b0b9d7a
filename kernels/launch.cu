// Launch overhead: an empty kernel launched back to back (events around a
// batch: the device-side launch rate), and launch + synchronize timed with
// the host's monotonic clock (what a host loop pays per kernel), and the
// block scheduler's cost: one launch of very many empty blocks, so the
// time is the rate at which SMs retire and receive blocks (the "block
// replacement" latency of the Little's-law model, source document 001).
#include "kernels.h"
#include "bench_util.cuh"

#include <time.h>

extern "C" __global__ void gck_empty_kernel(void) {}

static double host_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

// nsamples event-timed samples, each of what enqueue() puts on the default
// stream; ns[s] = the sample's time / per.
template <typename F>
static int event_timed(uint32_t nsamples, double per, double *ns, char *err, size_t errlen,
                       F enqueue)
{
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    int rc = 0;
    for (uint32_t s = 0; s < nsamples && !rc; s++) {
        cudaEventRecord(e0);
        enqueue();
        cudaError_t e = cudaGetLastError();
        if (e == cudaSuccess)
            e = cudaEventRecord(e1);
        if (e == cudaSuccess)
            e = cudaEventSynchronize(e1);
        float ms = 0;
        if (e == cudaSuccess)
            e = cudaEventElapsedTime(&ms, e0, e1);
        if (e != cudaSuccess) {
            snprintf(err, errlen, "launch: %s", cudaGetErrorString(e));
            rc = 1;
        }
        ns[s] = ms * 1e6 / per;
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return rc;
}

extern "C" int gck_block_churn_run(uint32_t nsamples, uint32_t grid, int threads, size_t smem_bytes,
                                   int *resident_per_sm, double *ns, char *err, size_t errlen)
{
    if (grid < 1 || threads < 1 || threads > 1024) {
        snprintf(err, errlen, "launch: bad block-churn launch %u x %d", grid, threads);
        return 1;
    }
    // dummy dynamic shared memory limits how many blocks an SM holds at once
    CK(cudaFuncSetAttribute(gck_empty_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                            (int)smem_bytes));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(resident_per_sm, gck_empty_kernel, threads,
                                                     smem_bytes));
    gck_empty_kernel<<<grid, threads, smem_bytes>>>();   // warm-up
    CKL();
    CK(cudaDeviceSynchronize());
    return event_timed(nsamples, 1, ns, err, errlen,
                       [=] { gck_empty_kernel<<<grid, threads, smem_bytes>>>(); });
}

extern "C" int gck_launch_run(gck_launch_mode mode, uint32_t nsamples, uint32_t batch, double *ns,
                              char *err, size_t errlen)
{
    if (batch < 1)
        batch = 1;
    for (int i = 0; i < 16; i++)   // warm-up: module load, first-launch costs
        gck_empty_kernel<<<1, 32>>>();
    CKL();
    CK(cudaDeviceSynchronize());
    if (mode == GCK_LAUNCH_BACK_TO_BACK)
        return event_timed(nsamples, batch, ns, err, errlen, [=] {
            for (uint32_t b = 0; b < batch; b++)
                gck_empty_kernel<<<1, 32>>>();
        });
    for (uint32_t s = 0; s < nsamples; s++) {
        double t0 = host_ns();
        gck_empty_kernel<<<1, 32>>>();
        cudaError_t e = cudaStreamSynchronize(0);
        double t1 = host_ns();
        if (e == cudaSuccess)
            e = cudaGetLastError();
        if (e != cudaSuccess) {
            snprintf(err, errlen, "launch: %s", cudaGetErrorString(e));
            return 1;
        }
        ns[s] = t1 - t0;
    }
    return 0;
}
