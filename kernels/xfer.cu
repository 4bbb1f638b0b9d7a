// Transfers: host<->device (copy engine or SM kernels on mapped pinned
// memory, one or both directions) and GPU<->GPU of one node (CUDA IPC,
// peer access on, or staged through the host with peer access off; one
// direction per GPU, both ways = both GPUs at once).
//
// Timing. Pinned copies and SM copies are queued behind a spin kernel that
// holds the stream until the host has queued every copy and event of the
// chunk, so no queueing cost is timed; a sample is the event time of a
// batch of `batch` back-to-back copies divided by the batch (bytes counted
// once per copy). Pageable copies block the host (the driver stages them
// through its own pinned buffers), so they cannot sit behind a spin
// kernel: they are timed with the host's monotonic clock around the
// synchronous copies, which is what a program pays for them.
#include "kernels.h"
#include "bench_util.cuh"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SPIN_TIMEOUT_NS 2000000000ull   // never wait more than 2 s for the host
#define MAX_EVENTS (2 * GCK_XFER_MAX_CHUNK + 2)

struct gck_xfer_rt {
    cudaStream_t s[2];
    cudaEvent_t ev[MAX_EVENTS];
    cudaEvent_t ev2[MAX_EVENTS];        // second stream's end of batch
    cudaEvent_t ev3[MAX_EVENTS];        // both ways: the first stream's own end
    cudaEvent_t ev4[MAX_EVENTS];        // both ways: the second stream's end after its tail
};

__global__ void k_spin(volatile int *flag, int *timed_out)
{
    uint64_t t0 = gck_gtimer();
    while (*flag == 0)
        if (gck_gtimer() - t0 > SPIN_TIMEOUT_NS) {
            *timed_out = 1;
            break;
        }
}

// The spin-kernel protocol: hold stream s until the host releases it (or
// SPIN_TIMEOUT_NS passes); the host releases whatever happened while it
// queued, so the stream always drains.
static void spin_hold(gck_xfer *x, cudaStream_t s)
{
    x->flag[0] = 0;
    x->flag[1] = 0;
    __sync_synchronize();
    k_spin<<<1, 1, 0, s>>>(x->flag_dev, x->flag_dev + 1);
}

static void spin_release(gck_xfer *x)
{
    __sync_synchronize();
    ((volatile int *)x->flag)[0] = 1;
}

// After the stream drained: did the spin kernel give up waiting?
static int spin_timed_out(const gck_xfer *x)
{
    return ((volatile int *)x->flag)[1] != 0;
}

// ns[i] = event time of sample i's batch / batch (events 2i and 2i + 1).
static int batch_times(const gck_xfer_rt *rt, uint32_t nsamples, uint32_t batch, double *ns,
                       char *err, size_t errlen)
{
    for (uint32_t i = 0; i < nsamples; i++) {
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, rt->ev[2 * i], rt->ev[2 * i + 1]));
        ns[i] = ms * 1e6 / batch;
    }
    return 0;
}

// Byte-exact copy with 16-byte accesses where both ends are aligned.
__global__ void k_copy_bytes(const uint8_t *__restrict__ src, uint8_t *__restrict__ dst, size_t n)
{
    size_t st = (size_t)gridDim.x * blockDim.x, i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t n16 = n / 16;
    const uint4 *s4 = (const uint4 *)src;
    uint4 *d4 = (uint4 *)dst;
    for (size_t k = i; k < n16; k += st)
        d4[k] = s4[k];
    for (size_t k = n16 * 16 + i; k < n; k += st)
        dst[k] = src[k];
}

static double host_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

// Buffer sizes grow in powers of two from 64 MiB: a sweep of doubling sizes
// reallocates (and re-exports) a few times, not at every size.
static size_t grow_to(size_t need)
{
    size_t c = (size_t)64 << 20;
    while (c < need)
        c *= 2;
    return c;
}

static int rt_init(gck_xfer *x, char *err, size_t errlen)
{
    if (x->rt)
        return 0;
    gck_xfer_rt *rt = (gck_xfer_rt *)calloc(1, sizeof *rt);
    if (!rt) {
        snprintf(err, errlen, "out of host memory");
        return 1;
    }
    x->rt = rt;
    CK(cudaGetDevice(&x->dev));
    for (int i = 0; i < 2; i++)
        CK(cudaStreamCreateWithFlags(&rt->s[i], cudaStreamNonBlocking));
    for (int i = 0; i < MAX_EVENTS; i++) {
        CK(cudaEventCreate(&rt->ev[i]));
        CK(cudaEventCreate(&rt->ev2[i]));
        CK(cudaEventCreate(&rt->ev3[i]));
        CK(cudaEventCreate(&rt->ev4[i]));
    }
    int *f;
    CK(cudaHostAlloc((void **)&f, 64, cudaHostAllocMapped | cudaHostAllocPortable));
    x->flag = f;
    CK(cudaHostGetDevicePointer((void **)&x->flag_dev, f, 0));
    int v = 0;
    cudaDeviceGetAttribute(&v, cudaDevAttrPageableMemoryAccess, x->dev);
    x->pageable_access = v;
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, x->dev));
    x->sm_count = p.multiProcessorCount;
    return 0;
}

extern "C" int gck_xfer_reserve(gck_xfer *x, size_t bytes, int pageable, char *err, size_t errlen)
{
    if (rt_init(x, err, errlen))
        return 1;
    size_t need = grow_to(2 * bytes);   // two halves: a source and a destination (bidir)
    if (x->d_bytes < need) {
        cudaFree(x->d_buf);
        x->d_buf = NULL;
        x->d_bytes = 0;
        CK(cudaMalloc(&x->d_buf, need));
        CK(cudaMemset(x->d_buf, 0x5a, need));
        x->d_bytes = need;
    }
    if (!pageable && x->pin_bytes < need) {
        cudaFreeHost(x->h_pin);
        x->h_pin = NULL;
        x->pin_bytes = 0;
        CK(cudaHostAlloc(&x->h_pin, need, cudaHostAllocMapped | cudaHostAllocPortable));
        CK(cudaHostGetDevicePointer(&x->h_pin_dev, x->h_pin, 0));
        memset(x->h_pin, 0x3c, need);
        x->pin_bytes = need;
    }
    if (pageable && x->page_bytes < need) {
        free(x->h_page);
        x->h_page = malloc(need);
        if (!x->h_page) {
            x->page_bytes = 0;
            snprintf(err, errlen, "cannot allocate %zu bytes of pageable host memory", need);
            return 1;
        }
        memset(x->h_page, 0x3c, need);   // touch: no first-touch faults timed
        x->page_bytes = need;
    }
    return 0;
}

// Launch shape of the SM copy: enough bytes in flight to cover the link's
// latency, fewer blocks for small copies.
static void sm_shape(const gck_xfer *x, size_t bytes, int *blocks, int *threads)
{
    *threads = 512;
    size_t per = (size_t)*threads * 16 * 4;
    size_t b = (bytes + per - 1) / per;
    size_t maxb = (size_t)x->sm_count * 4;
    if (b < 1)
        b = 1;
    *blocks = (int)(b < maxb ? b : maxb);
}

// Both ways with SM kernels: one kernel whose even warps copy host ->
// device and odd warps device -> host, 512 bytes each (one 16-byte word a
// lane), one warp per 512 bytes of either copy, the grid over both: blocks
// come and go with both directions in them, so the two progress together
// on every SM (nvbandwidth's *_bidirectional_memcpy_sm interleaves the
// directions warp by warp too). Two kernels on two streams split the SMs
// between the directions instead (an H200 at 1 GiB: h2d 38.7, d2h 40.4
// GB/s; this kernel 42.3 each; lab/gpu/peers_probe.cu). n bytes each way.
__global__ void k_copy_both(const uint8_t *__restrict__ h2d_src, uint8_t *__restrict__ h2d_dst,
                            const uint8_t *__restrict__ d2h_src, uint8_t *__restrict__ d2h_dst,
                            size_t n)
{
    size_t gw = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32;
    unsigned lane = threadIdx.x % 32;
    const uint8_t *s = gw & 1 ? d2h_src : h2d_src;
    uint8_t *d = gw & 1 ? d2h_dst : h2d_dst;
    size_t off = (gw / 2) * 512 + (size_t)lane * 16;
    if (off + 16 <= n) {   // the buffers start on 16-byte boundaries
        *(uint4 *)(d + off) = *(const uint4 *)(s + off);
        return;
    }
    for (size_t k = off; k < off + 16 && k < n; k++)
        d[k] = s[k];
}

// One direction's operation on stream s; GCK_XFER_BOTH (SM only): both
// directions, one kernel (k_copy_both).
static cudaError_t one_op(gck_xfer *x, gck_xfer_dir dir, int sm, int pageable, size_t bytes,
                          cudaStream_t s)
{
    size_t hhalf = (pageable ? x->page_bytes : x->pin_bytes) / 2;
    if (dir == GCK_XFER_BOTH) {   // device pointers: [h2d src, h2d dst, d2h src, d2h dst]
        uint8_t *hd = (uint8_t *)(pageable ? x->h_page : x->h_pin_dev), *dd = (uint8_t *)x->d_buf;
        size_t warps = 2 * ((bytes + 511) / 512);
        k_copy_both<<<(unsigned)((warps + 15) / 16), 512, 0, s>>>(hd, dd + x->d_bytes / 2, dd,
                                                                   hd + hhalf, bytes);
        return cudaGetLastError();
    }
    int d2h = dir == GCK_XFER_D2H;
    uint8_t *d = (uint8_t *)x->d_buf + (d2h ? 0 : x->d_bytes / 2);
    uint8_t *h = (uint8_t *)(pageable ? x->h_page : x->h_pin) + (d2h ? hhalf : 0);
    if (sm) {
        uint8_t *hd = pageable ? h : (uint8_t *)x->h_pin_dev + (d2h ? hhalf : 0);
        int blocks, threads;
        sm_shape(x, bytes, &blocks, &threads);
        if (!d2h)
            k_copy_bytes<<<blocks, threads, 0, s>>>(hd, d, bytes);
        else
            k_copy_bytes<<<blocks, threads, 0, s>>>(d, hd, bytes);
        return cudaGetLastError();
    }
    if (!d2h)
        return cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, s);
    return cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, s);
}

extern "C" int gck_xfer_run(gck_xfer *x, gck_xfer_dir dir, int pageable, int sm, size_t bytes,
                            uint32_t nsamples, uint32_t batch, double *ns, double *ns_dir,
                            int *spin_timeouts, char *err, size_t errlen)
{
    if (nsamples > GCK_XFER_MAX_CHUNK || batch < 1 || bytes == 0) {
        snprintf(err, errlen, "xfer: bad chunk (%u samples, batch %u)", nsamples, batch);
        return 1;
    }
    if (gck_xfer_reserve(x, bytes, pageable, err, errlen))
        return 1;
    if (sm && pageable && !x->pageable_access) {
        snprintf(err, errlen, "SM-driven copies of pageable memory need a device that accesses "
                              "pageable memory (HMM/ATS); this one does not");
        return 1;
    }
    gck_xfer_rt *rt = x->rt;
    int one = dir == GCK_XFER_BOTH && sm;         // both ways in one kernel: both end together
    int both = dir == GCK_XFER_BOTH && !sm;       // both ways on two streams (copy engines)
    if (pageable && !sm) {
        // Synchronous in effect: host clock around each batch.
        for (uint32_t i = 0; i < nsamples; i++) {
            double t0 = host_ns();
            for (uint32_t b = 0; b < batch; b++) {
                if (both) {
                    CK(one_op(x, GCK_XFER_H2D, 0, 1, bytes, rt->s[0]));
                    CK(one_op(x, GCK_XFER_D2H, 0, 1, bytes, rt->s[1]));
                } else {
                    CK(one_op(x, dir, 0, 1, bytes, rt->s[0]));
                }
            }
            CK(cudaStreamSynchronize(rt->s[0]));
            if (both)
                CK(cudaStreamSynchronize(rt->s[1]));
            ns[i] = (host_ns() - t0) / batch;
        }
        return 0;
    }
    // Hold stream 0 (and 1 behind it) while everything is queued.
    spin_hold(x, rt->s[0]);
    cudaError_t e = cudaGetLastError();
    for (uint32_t i = 0; e == cudaSuccess && i < nsamples; i++) {
        e = cudaEventRecord(rt->ev[2 * i], rt->s[0]);
        if (both && e == cudaSuccess)
            e = cudaStreamWaitEvent(rt->s[1], rt->ev[2 * i], 0);
        for (uint32_t b = 0; e == cudaSuccess && b < batch; b++) {
            e = one_op(x, both ? GCK_XFER_H2D : dir, sm, pageable, bytes, rt->s[0]);
            if (both && e == cudaSuccess)
                e = one_op(x, GCK_XFER_D2H, sm, pageable, bytes, rt->s[1]);
        }
        if (both && e == cudaSuccess)   // each direction's own end
            e = cudaEventRecord(rt->ev3[i], rt->s[0]);
        if (both && e == cudaSuccess)
            e = cudaEventRecord(rt->ev2[i], rt->s[1]);
        // The tail: each direction copies one more batch, untimed, so the one
        // that ends first still loads the link while the other ends (without
        // it the later one ran its last part alone and read faster than
        // under load; nvbandwidth gives its other direction twice the bytes).
        for (uint32_t b = 0; both && e == cudaSuccess && b < batch; b++) {
            e = one_op(x, GCK_XFER_H2D, sm, pageable, bytes, rt->s[0]);
            if (e == cudaSuccess)
                e = one_op(x, GCK_XFER_D2H, sm, pageable, bytes, rt->s[1]);
        }
        if (both && e == cudaSuccess)
            e = cudaEventRecord(rt->ev4[i], rt->s[1]);
        if (both && e == cudaSuccess)
            e = cudaStreamWaitEvent(rt->s[0], rt->ev4[i], 0);
        if (e == cudaSuccess)
            e = cudaEventRecord(rt->ev[2 * i + 1], rt->s[0]);
    }
    spin_release(x);   // whatever happened: drain the streams
    CK(cudaStreamSynchronize(rt->s[0]));
    if (both)
        CK(cudaStreamSynchronize(rt->s[1]));
    CK(e);
    if (spin_timeouts)
        *spin_timeouts += spin_timed_out(x);
    for (uint32_t i = 0; one && ns_dir && i < nsamples; i++) {   // one kernel: one time
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, rt->ev[2 * i], rt->ev[2 * i + 1]));
        ns_dir[2 * i] = ns_dir[2 * i + 1] = ms * 1e6 / batch;
    }
    if (batch_times(rt, nsamples, batch, ns, err, errlen))
        return 1;
    for (uint32_t i = 0; both && i < nsamples; i++) {   // each direction's own time
        float h2d = 0, d2h = 0;
        CK(cudaEventElapsedTime(&h2d, rt->ev[2 * i], rt->ev3[i]));
        CK(cudaEventElapsedTime(&d2h, rt->ev[2 * i], rt->ev2[i]));
        if (ns_dir) {
            ns_dir[2 * i] = h2d * 1e6 / batch;
            ns_dir[2 * i + 1] = d2h * 1e6 / batch;
        }
        ns[i] = (h2d > d2h ? h2d : d2h) * 1e6 / batch;   // the pair, not the tails
    }
    return 0;
}

extern "C" int gck_xfer_busy_begin(gck_xfer *x, size_t bytes, uint32_t copies, char *err,
                                   size_t errlen)
{
    if (gck_xfer_reserve(x, bytes, 0, err, errlen))
        return 1;
    for (uint32_t i = 0; i < copies; i++)
        CK(one_op(x, i & 1 ? GCK_XFER_D2H : GCK_XFER_H2D, 0, 0, bytes, x->rt->s[i & 1]));
    return 0;
}

extern "C" int gck_xfer_busy_end(gck_xfer *x, char *err, size_t errlen)
{
    CK(cudaStreamSynchronize(x->rt->s[0]));
    CK(cudaStreamSynchronize(x->rt->s[1]));
    return 0;
}

// ---- peer to peer ---------------------------------------------------------

extern "C" int gck_p2p_local(gck_xfer *x, size_t bytes, void *handle, char *err, size_t errlen)
{
    if (rt_init(x, err, errlen))
        return 1;
    size_t need = grow_to(2 * bytes);
    if (x->p2p_bytes < need) {
        cudaFree(x->p2p_local);
        x->p2p_local = NULL;
        x->p2p_bytes = 0;
        CK(cudaMalloc(&x->p2p_local, need));
        CK(cudaMemset(x->p2p_local, 0x6b, need));
        CK(cudaDeviceSynchronize());
        x->p2p_bytes = need;
    }
    cudaIpcMemHandle_t h;
    CK(cudaIpcGetMemHandle(&h, x->p2p_local));
    memcpy(handle, &h, sizeof h);
    return 0;
}

extern "C" int gck_p2p_open(gck_xfer *x, const void *handle, size_t peer_bytes, char *err,
                            size_t errlen)
{
    if (x->p2p_remote && memcmp(handle, x->remote_handle, GCK_IPC_HANDLE_BYTES) == 0)
        return 0;
    if (x->p2p_remote)
        cudaIpcCloseMemHandle(x->p2p_remote);
    x->p2p_remote = NULL;
    cudaIpcMemHandle_t h;
    memcpy(&h, handle, sizeof h);
    CK(cudaIpcOpenMemHandle(&x->p2p_remote, h, cudaIpcMemLazyEnablePeerAccess));
    memcpy(x->remote_handle, handle, GCK_IPC_HANDLE_BYTES);
    x->remote_bytes = peer_bytes;
    return 0;
}

extern "C" int gck_p2p_can_access(int dev, int peer, int *can)
{
    *can = 0;
    return cudaDeviceCanAccessPeer(can, dev, peer) != cudaSuccess;
}

// A buffer of this process on the peer device, for staged copies: the
// runtime stages cudaMemcpyPeer through host memory when the two devices
// have no peer access in this process.
static int staged_buf(gck_xfer *x, int peer, size_t need, char *err, size_t errlen)
{
    if (x->staged_buf && x->staged_dev == peer && x->staged_bytes >= need)
        return 0;
    int own = x->dev;
    if (x->staged_buf) {
        CK(cudaSetDevice(x->staged_dev));
        cudaFree(x->staged_buf);
        x->staged_buf = NULL;
        x->staged_bytes = 0;
    }
    CK(cudaSetDevice(peer));
    cudaError_t e = cudaMalloc(&x->staged_buf, need);
    if (e == cudaSuccess)
        e = cudaMemset(x->staged_buf, 0x6b, need);
    if (e == cudaSuccess)
        e = cudaDeviceSynchronize();
    cudaSetDevice(own);
    if (e != cudaSuccess) {
        x->staged_buf = NULL;
        snprintf(err, errlen, "allocating a staging buffer on GPU %d: %s", peer, cudaGetErrorString(e));
        return 1;
    }
    x->staged_dev = peer;
    x->staged_bytes = need;
    return 0;
}

// One direction per GPU: this GPU's copy engine writes its local first half
// into the peer's second half (its IPC buffer with peer access, else this
// process's own buffer on the peer device through the driver's staging).
// Both ways at once is both ranks running this at the same time, each on
// its own GPU: `hold` (when given) is called once everything is queued
// and before anything runs, so that the two ranks start together.
extern "C" int gck_p2p_run(gck_xfer *x, int peer_dev, int peer_access, size_t bytes,
                           uint32_t nsamples, uint32_t batch, double *ns, int *spin_timeouts,
                           gck_hold_fn hold, void *hold_ctx, char *err, size_t errlen)
{
    if (nsamples > GCK_XFER_MAX_CHUNK || batch < 1 || bytes == 0) {
        snprintf(err, errlen, "p2p: bad chunk (%u samples, batch %u)", nsamples, batch);
        if (hold && nsamples)
            hold(hold_ctx, 0);
        return 1;
    }
    if (rt_init(x, err, errlen))
        return 1;
    gck_xfer_rt *rt = x->rt;
    uint8_t *loc = (uint8_t *)x->p2p_local, *rem;
    if (peer_access) {
        if (!x->p2p_remote || x->remote_bytes < 2 * bytes || x->p2p_bytes < 2 * bytes) {
            snprintf(err, errlen, "p2p: peer buffer not open or too small");
            if (hold && nsamples)
                hold(hold_ctx, 0);
            return 1;
        }
        rem = (uint8_t *)x->p2p_remote;
    } else {
        if (!loc || x->p2p_bytes < 2 * bytes) {
            snprintf(err, errlen, "p2p: local buffer too small");
            if (hold && nsamples)
                hold(hold_ctx, 0);
            return 1;
        }
        if (staged_buf(x, peer_dev, grow_to(2 * bytes), err, errlen)) {
            if (hold && nsamples)
                hold(hold_ctx, 0);
            return 1;
        }
        rem = (uint8_t *)x->staged_buf;
    }
    if (nsamples == 0)   // buffers ready, nothing to time
        return 0;
    rem += bytes;
    if (!peer_access) {
        // Staged copies go through the driver's host buffers and block the
        // host thread: no spin kernel (it would hold them until its
        // timeout); host clock around each synchronous batch.
        if (hold && hold(hold_ctx, 1)) {
            snprintf(err, errlen, "p2p: the peer rank failed");
            return 1;
        }
        for (uint32_t i = 0; i < nsamples; i++) {
            double t0 = host_ns();
            for (uint32_t b = 0; b < batch; b++)
                CK(cudaMemcpyPeerAsync(rem, peer_dev, loc, x->dev, bytes, rt->s[0]));
            CK(cudaStreamSynchronize(rt->s[0]));
            ns[i] = (host_ns() - t0) / batch;
        }
        return 0;
    }
    spin_hold(x, rt->s[0]);
    cudaError_t e = cudaGetLastError();
    for (uint32_t i = 0; e == cudaSuccess && i < nsamples; i++) {
        e = cudaEventRecord(rt->ev[2 * i], rt->s[0]);
        for (uint32_t b = 0; e == cudaSuccess && b < batch; b++)
            e = cudaMemcpyAsync(rem, loc, bytes, cudaMemcpyDeviceToDevice, rt->s[0]);
        if (e == cudaSuccess)
            e = cudaEventRecord(rt->ev[2 * i + 1], rt->s[0]);
    }
    int peer_failed = hold ? hold(hold_ctx, e == cudaSuccess) : 0;
    spin_release(x);   // whatever happened: drain the stream
    CK(cudaStreamSynchronize(rt->s[0]));
    CK(e);
    if (peer_failed) {
        snprintf(err, errlen, "p2p: the peer rank failed");
        return 1;
    }
    if (spin_timeouts)
        *spin_timeouts += spin_timed_out(x);
    return batch_times(rt, nsamples, batch, ns, err, errlen);
}

// ---- network staging ------------------------------------------------------

extern "C" int gck_stage(gck_xfer *x, int to_host, size_t bytes, void **host, char *err,
                         size_t errlen)
{
    if (gck_xfer_reserve(x, bytes, 0, err, errlen))
        return 1;
    *host = x->h_pin;
    if (to_host)
        CK(cudaMemcpyAsync(x->h_pin, x->d_buf, bytes, cudaMemcpyDeviceToHost, x->rt->s[0]));
    else
        CK(cudaMemcpyAsync(x->d_buf, x->h_pin, bytes, cudaMemcpyHostToDevice, x->rt->s[0]));
    CK(cudaStreamSynchronize(x->rt->s[0]));
    return 0;
}

extern "C" void gck_xfer_free(gck_xfer *x)
{
    if (!x)
        return;
    if (x->p2p_remote)
        cudaIpcCloseMemHandle(x->p2p_remote);
    if (x->staged_buf) {
        cudaSetDevice(x->staged_dev);
        cudaFree(x->staged_buf);
        cudaSetDevice(x->dev);
    }
    cudaFree(x->p2p_local);
    cudaFree(x->d_buf);
    cudaFreeHost(x->h_pin);
    free(x->h_page);
    if (x->rt) {
        for (int i = 0; i < MAX_EVENTS; i++) {
            cudaEventDestroy(x->rt->ev[i]);
            cudaEventDestroy(x->rt->ev2[i]);
            cudaEventDestroy(x->rt->ev3[i]);
        }
        cudaStreamDestroy(x->rt->s[0]);
        cudaStreamDestroy(x->rt->s[1]);
        free(x->rt);
    }
    if (x->flag)
        cudaFreeHost(x->flag);
    memset(x, 0, sizeof *x);
}

int gck_host_register(void *p, size_t bytes, void **dev, char *err, size_t errlen)
{
    CK(cudaHostRegister(p, bytes, cudaHostRegisterMapped | cudaHostRegisterPortable));
    cudaError_t e = cudaHostGetDevicePointer(dev, p, 0);
    if (e != cudaSuccess) {
        cudaHostUnregister(p);
        snprintf(err, errlen, "cudaHostGetDevicePointer: %s", cudaGetErrorString(e));
        return 1;
    }
    return 0;
}

void gck_host_unregister(void *p)
{
    cudaHostUnregister(p);
}
