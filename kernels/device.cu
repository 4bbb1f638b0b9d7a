// Device identity: properties through the runtime, and a probe kernel that
// proves the device runs our code (distinct SMs seen, device time).
#include "kernels.h"
#include "bench_util.cuh"

#include <string.h>

extern "C" int gck_device_count(int *count, char *err, size_t errlen)
{
    *count = 0;
    cudaError_t e = cudaGetDeviceCount(count);
    if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver) {
        *count = 0;
        cudaGetLastError();
        return 0;
    }
    CK(e);
    return 0;
}

// FP32 lanes per SM by compute capability (not in cudaDeviceProp).
static int cores_per_sm(int major, int minor)
{
    switch (major) {
    case 7: return 64;
    case 8: return minor == 0 ? 64 : 128;
    case 9: return 128;
    case 10: case 12: return 128;
    default: return 0;
    }
}

extern "C" int gck_device_open(int index, gck_device *d, char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    CK(cudaSetDevice(index));
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, index));
    snprintf(d->name, sizeof d->name, "%.95s", p.name);
    const unsigned char *u = (const unsigned char *)p.uuid.bytes;
    snprintf(d->uuid, sizeof d->uuid,
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10],
             u[11], u[12], u[13], u[14], u[15]);
    CK(cudaDeviceGetPCIBusId(d->pci_bus_id, (int)sizeof d->pci_bus_id, index));
    d->cc_major = p.major;
    d->cc_minor = p.minor;
    d->sm_count = p.multiProcessorCount;
    d->warp_size = p.warpSize;
    d->cores_per_sm = cores_per_sm(p.major, p.minor);
    d->max_threads_per_sm = p.maxThreadsPerMultiProcessor;
    d->max_threads_per_block = p.maxThreadsPerBlock;
    d->regs_per_sm = p.regsPerMultiprocessor;
    d->smem_per_sm_bytes = p.sharedMemPerMultiprocessor;
    d->smem_per_block_optin_bytes = p.sharedMemPerBlockOptin;
    d->l2_bytes = (uint64_t)p.l2CacheSize;
    d->mem_bytes = (uint64_t)p.totalGlobalMem;
    d->bus_width_bits = p.memoryBusWidth;
    d->ecc_enabled = p.ECCEnabled;
    d->async_engines = p.asyncEngineCount;
    // CUDA 13 dropped clockRate/memoryClockRate from cudaDeviceProp; the
    // attributes remain (kHz).
    CK(cudaDeviceGetAttribute(&d->sm_clock_khz, cudaDevAttrClockRate, index));
    CK(cudaDeviceGetAttribute(&d->mem_clock_khz, cudaDevAttrMemoryClockRate, index));
    return 0;
}

__global__ void identity_kernel(unsigned *sm_hits, unsigned long long *t)
{
    unsigned smid;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    unsigned long long now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (threadIdx.x == 0) {
        atomicAdd(&sm_hits[smid & 1023], 1u);
        atomicMin(&t[0], now);
        atomicMax(&t[1], now);
    }
}

extern "C" int gck_identity_probe(int *sms_seen, uint64_t *elapsed_ns, char *err, size_t errlen)
{
    int dev;
    CK(cudaGetDevice(&dev));
    int sms;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    unsigned *hits;
    unsigned long long *t;
    CK(cudaMalloc(&hits, 1024 * sizeof *hits));
    CK(cudaMalloc(&t, 2 * sizeof *t));
    CK(cudaMemset(hits, 0, 1024 * sizeof *hits));
    unsigned long long init[2] = { ~0ull, 0ull };
    CK(cudaMemcpy(t, init, sizeof init, cudaMemcpyHostToDevice));
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    CK(cudaEventRecord(a));
    // Several blocks per SM so every SM gets one even with uneven scheduling.
    identity_kernel<<<sms * 4, 32>>>(hits, t);
    CKL();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    unsigned h[1024];
    CK(cudaMemcpy(h, hits, sizeof h, cudaMemcpyDeviceToHost));
    int seen = 0;
    for (int i = 0; i < 1024; i++)
        seen += h[i] != 0;
    *sms_seen = seen;
    *elapsed_ns = (uint64_t)(ms * 1e6);
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    cudaFree(hits);
    cudaFree(t);
    return 0;
}
