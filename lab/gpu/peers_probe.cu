// Two questions of issue 18 that the census alone cannot answer, measured
// on the GPU beside nvbandwidth (lab/gpu/peers_run.sh builds and runs it;
// never part of the census):
//
// 1. host chase: the GPU's load latency from pinned host memory over 1 MiB
//    of consecutive 128-byte lines (nvbandwidth's host_device_latency_sm
//    order), by who wrote the chain last and how the chase is timed:
//      written by   gpu    - a GPU kernel wrote the links (the census does)
//                   cpu    - the host CPU wrote them (nvbandwidth does)
//                   cpu+flush - the CPU wrote them, then clflush of every line
//      timer        clock  - one thread, %clock64 around 32 dependent loads
//                            (the census's window; SM clock from %globaltimer)
//                   event  - nvbandwidth's: a 1-thread block of an SM-count
//                            grid per launch, each launch from the chain's
//                            head, event time over all accesses
// 2. both ways, SM kernels, pinned host memory, 1 GiB each way: two kernels
//    on two streams (the census before 2026-11-26) against one kernel whose
//    warps alternate direction (as nvbandwidth's split-warp copy), each
//    direction's rate = its bytes / the time both take (nvbandwidth's
//    convention: the two directions end together).
// 3. hostmem (issue 18 item 2): the 1 MiB consecutive host chase by where
//    the chain lies and who wrote it last, read three ways on the same GPU:
//      allocation  cudaHostAlloc of 1 MiB, 2 MiB (nvbandwidth's), 64 MiB
//                  (the census's xfer buffer alone), 2 GiB (after 1 GiB
//                  copies), memset by the CPU; mmap + cudaHostRegister of
//                  1 MiB with 4 KiB pages (the census's numa "each") and of
//                  a 2 MiB-aligned MADV_HUGEPAGE region; the chain is the
//                  first 1 MiB, line i -> i + 1 (and 1 GiB into the 2 GiB)
//      written by  gpu / cpu / cpu+flush (as above), before each reading
//      reading     census: launch l on block l % SMs of an SM-count grid,
//                          4 windows a launch, cursor carried, 1024 warm
//                          loads on the first, 125 launches (= the census's
//                          500 samples), clock from the launches' cycles/ns
//                  sm0:    block 0 of the SM-count grid, 256 warm, 200 windows
//                  nvbw:   event time, 1-thread block t of an SM-count grid
//                          per launch, 7575 generic loads from the head
//    and each allocation's physical layout (/proc/self/pagemap, root only):
//    runs of consecutive page frames over the chain and 2 MiB frames touched.
//    Writer gpu+flush: the GPU writes, the CPU flushes the lines (the census's
//    host chase since host_cache = flushed).
// 4. decay: how long a chain stays fast after its write (by time alone, by
//    reads alone, and nvbandwidth's reading launch by launch).
// 5. ce_both: both ways by the copy engines, pinned, 1 GiB each way, two
//    streams from a common start, each direction's bytes over its own end,
//    with and without a tail (each direction copying 1 GiB more, untimed,
//    so that the one ending first still loads the link while the other
//    ends: the census since xfer's both_ways = each_loaded; nvbandwidth
//    gives its other direction 2 GiB), rounds alternating the two, then
//    one way alone.
// Output: one line per figure, "name value unit".
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <algorithm>
#include <vector>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#define CHECK(x)                                                                   \
    do {                                                                           \
        cudaError_t e_ = (x);                                                      \
        if (e_ != cudaSuccess) {                                                   \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x,              \
                    cudaGetErrorString(e_));                                       \
            exit(1);                                                               \
        }                                                                          \
    } while (0)

#define LINE 128u
#define WINDOW 32

__global__ void link_gpu(uint64_t *buf, uint64_t lines)
{
    uint64_t st = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < lines; i += st)
        buf[i * (LINE / 8)] = (uint64_t)(buf + ((i + 1) % lines) * (LINE / 8));
}

// The census's timer: %clock64 around WINDOW dependent ld.global, the
// result stored to shared memory before the stop clock.
__global__ void chase_clock(uint64_t start, uint32_t warm, uint32_t windows, uint32_t *out,
                            uint64_t *aux)
{
    __shared__ uint64_t sink;
    uint64_t p = start;
    for (uint32_t i = 0; i < warm; i++)
        asm volatile("ld.global.u64 %0, [%0];" : "+l"(p)::"memory");
    sink = p;
    uint64_t c0 = clock64(), g0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0)::"memory");
    for (uint32_t w = 0; w < windows; w++) {
        uint64_t t0 = clock64();
#pragma unroll
        for (int k = 0; k < WINDOW; k++)
            asm volatile("ld.global.u64 %0, [%0];" : "+l"(p)::"memory");
        asm volatile("st.volatile.shared.u64 [%0], %1;" ::"r"((uint32_t)__cvta_generic_to_shared(&sink)),
                     "l"(p)
                     : "memory");
        out[w] = (uint32_t)(clock64() - t0);
    }
    uint64_t g1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1)::"memory");
    aux[0] = clock64() - c0;
    aux[1] = g1 - g0;
    aux[2] = p;
}

// The same on block `target` of an SM-count grid (on the SM the block
// lands on: %smid), loads generic (ld.u64, as a C++ pointer chase) or
// global (ld.global.u64, the census's).
template <int GENERIC>
__global__ void chase_clock_on(uint64_t start, uint32_t target, uint32_t windows, uint32_t *out,
                               uint64_t *aux, uint32_t warm = 256)
{
    if (blockIdx.x != target)
        return;
    __shared__ uint64_t sink;
    uint64_t p = start;
    for (uint32_t i = 0; i < warm; i++)
        if (GENERIC)
            asm volatile("ld.u64 %0, [%0];" : "+l"(p)::"memory");
        else
            asm volatile("ld.global.u64 %0, [%0];" : "+l"(p)::"memory");
    sink = p;
    uint64_t c0 = clock64(), g0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0)::"memory");
    for (uint32_t w = 0; w < windows; w++) {
        uint64_t t0 = clock64();
#pragma unroll
        for (int k = 0; k < WINDOW; k++)
            if (GENERIC)
                asm volatile("ld.u64 %0, [%0];" : "+l"(p)::"memory");
            else
                asm volatile("ld.global.u64 %0, [%0];" : "+l"(p)::"memory");
        asm volatile("st.volatile.shared.u64 [%0], %1;" ::"r"((uint32_t)__cvta_generic_to_shared(&sink)),
                     "l"(p)
                     : "memory");
        out[w] = (uint32_t)(clock64() - t0);
    }
    uint64_t g1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1)::"memory");
    uint32_t smid;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    aux[0] = clock64() - c0;
    aux[1] = g1 - g0;
    aux[2] = p;
    aux[3] = smid;
}

// nvbandwidth's shape (written here from its description, not its code):
// only block `target` of the grid chases, from the head, `accesses` loads.
struct Node {
    Node *next;
};
__global__ void chase_event(Node *head, uint32_t accesses, uint32_t target)
{
    if (blockIdx.x != target)
        return;
    Node *p = head;
    for (uint32_t i = 0; i < accesses; i++)
        p = p->next;
    if (p == nullptr)
        __trap();
}

__global__ void chase_event_ldg(uint64_t head, uint32_t accesses, uint32_t target)
{
    if (blockIdx.x != target)
        return;
    uint64_t p = head;
    for (uint32_t i = 0; i < accesses; i++)
        asm volatile("ld.global.u64 %0, [%0];" : "+l"(p)::"memory");
    if (p == 0)
        __trap();
}

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

static int sm_count;

static void flush_lines(uint64_t *h, uint64_t lines)
{
#if defined(__x86_64__)
    for (uint64_t i = 0; i < lines; i++)
        _mm_clflush(h + i * (LINE / 8));
    _mm_mfence();
#else
    (void)h;
    (void)lines;
#endif
}

static void write_cpu(uint64_t *h, uint64_t *hd, uint64_t lines, int flush)
{
    for (uint64_t i = 0; i < lines; i++)
        h[i * (LINE / 8)] = (uint64_t)(hd + ((i + 1) % lines) * (LINE / 8));
    if (flush)
        flush_lines(h, lines);
}

static void host_chase(void)
{
    const uint64_t bytes = 1 << 20, lines = bytes / LINE;
    uint64_t *h, *hd;
    CHECK(cudaHostAlloc((void **)&h, bytes, cudaHostAllocMapped | cudaHostAllocPortable));
    CHECK(cudaHostGetDevicePointer((void **)&hd, h, 0));
    uint32_t *d_out;
    uint64_t *d_aux;
    const uint32_t windows = 500;
    CHECK(cudaMalloc(&d_out, windows * 4));
    CHECK(cudaMalloc(&d_aux, 64));
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    const char *who[3] = { "gpu", "cpu", "cpu+flush" };
    for (int w = 0; w < 3; w++) {
        // clock timer, the census's: warm 1024, 500 windows of 32 (twin not
        // subtracted here: printed apart)
        for (int rep = 0; rep < 2; rep++) {
            if (w == 0) {
                link_gpu<<<64, 256>>>(hd, lines);
                CHECK(cudaDeviceSynchronize());
            } else {
                write_cpu(h, hd, lines, w == 2);
            }
            uint32_t warm = rep == 0 ? 1024 : 0;   // rep 1: no warm-up, the first pass cold
            chase_clock<<<1, 1>>>((uint64_t)hd, warm, windows, d_out, d_aux);
            CHECK(cudaDeviceSynchronize());
            std::vector<uint32_t> o(windows);
            uint64_t aux[3];
            CHECK(cudaMemcpy(o.data(), d_out, windows * 4, cudaMemcpyDeviceToHost));
            CHECK(cudaMemcpy(aux, d_aux, sizeof aux, cudaMemcpyDeviceToHost));
            double mhz = aux[1] ? (double)aux[0] / aux[1] * 1000 : 0;
            std::vector<double> ns;
            for (uint32_t i = 0; i < windows; i++)
                ns.push_back(o[i] / (double)WINDOW * 1000.0 / mhz);
            // first pass over the chain = the first lines/WINDOW windows
            std::vector<double> first(ns.begin(), ns.begin() + std::min<size_t>(ns.size(), lines / WINDOW));
            printf("host_chase_clock written=%s warm=%u ns_per_access_p50 %.1f ns first_pass_p50 %.1f ns sm_mhz %.0f\n",
                   who[w], warm, median(ns), median(first), mhz);
        }
        // event timer, nvbandwidth's: SM-count launches of 1M / SMs accesses
        if (w == 0) {
            link_gpu<<<64, 256>>>(hd, lines);
            CHECK(cudaDeviceSynchronize());
        } else {
            write_cpu(h, hd, lines, w == 2);
        }
        uint32_t acc = 1000000 / sm_count;
        double sum = 0, first = 0;
        for (int t = 0; t < sm_count; t++) {
            float ms;
            CHECK(cudaEventRecord(e0));
            chase_event<<<sm_count, 1>>>((Node *)hd, acc, t);
            CHECK(cudaEventRecord(e1));
            CHECK(cudaEventSynchronize(e1));
            CHECK(cudaEventElapsedTime(&ms, e0, e1));
            sum += ms;
            if (t == 0)
                first = ms * 1e6 / acc;
        }
        printf("host_chase_event written=%s ns_per_access %.1f ns first_launch %.1f ns accesses_per_launch %u\n",
               who[w], sum * 1e6 / ((double)acc * sm_count), first, acc);
    }
    // where the chase runs: the clock timer on each SM's block in turn
    // (GPU-written chain), generic and global loads; the event timer with
    // global loads, and on block 0 only
    link_gpu<<<64, 256>>>(hd, lines);
    CHECK(cudaDeviceSynchronize());
    for (int gen = 0; gen < 2; gen++) {
        std::vector<double> per;
        double b0 = 0;
        int sm0 = -1, smin = -1, smax = -1;
        double vmin = 1e30, vmax = 0;
        for (int t = 0; t < sm_count; t++) {
            if (gen)
                chase_clock_on<1><<<sm_count, 1>>>((uint64_t)hd, t, 100, d_out, d_aux);
            else
                chase_clock_on<0><<<sm_count, 1>>>((uint64_t)hd, t, 100, d_out, d_aux);
            CHECK(cudaDeviceSynchronize());
            std::vector<uint32_t> o(100);
            uint64_t aux[4];
            CHECK(cudaMemcpy(o.data(), d_out, 400, cudaMemcpyDeviceToHost));
            CHECK(cudaMemcpy(aux, d_aux, sizeof aux, cudaMemcpyDeviceToHost));
            double mhz = (double)aux[0] / aux[1] * 1000;
            std::vector<double> ns;
            for (int i = 0; i < 100; i++)
                ns.push_back(o[i] / (double)WINDOW * 1000.0 / mhz);
            double m = median(ns);
            per.push_back(m);
            if (t == 0) {
                b0 = m;
                sm0 = (int)aux[3];
            }
            if (m < vmin) { vmin = m; smin = (int)aux[3]; }
            if (m > vmax) { vmax = m; smax = (int)aux[3]; }
        }
        double mean = 0;
        for (double v : per)
            mean += v / per.size();
        printf("host_chase_clock_per_sm loads=%s block0(sm %d) %.1f ns min(sm %d) %.1f median %.1f mean %.1f max(sm %d) %.1f\n",
               gen ? "generic" : "global", sm0, b0, smin, vmin, median(per), mean, smax, vmax);
    }
    // the census's way (xfer method 2): launch l on block l % SMs, k windows
    // a launch, the cursor carried from launch to launch, 1024 warm loads
    // on the first only; and the same from the chain's head each launch
    for (int from_head = 0; from_head < 2; from_head++)
        for (uint32_t k : { 4u, 16u, 100u }) {
            std::vector<double> ns;
            uint64_t cur = (uint64_t)hd;
            for (uint32_t l = 0; l * k < 500 || l < (uint32_t)sm_count; l++) {
                uint32_t warm = from_head ? 256 : (l == 0 ? 1024 : 0);
                chase_clock_on<0><<<sm_count, 1>>>(from_head ? (uint64_t)hd : cur, l % sm_count, k, d_out,
                                                   d_aux, warm);
                CHECK(cudaDeviceSynchronize());
                std::vector<uint32_t> o(k);
                uint64_t aux[4];
                CHECK(cudaMemcpy(o.data(), d_out, k * 4, cudaMemcpyDeviceToHost));
                CHECK(cudaMemcpy(aux, d_aux, sizeof aux, cudaMemcpyDeviceToHost));
                cur = aux[2];
                for (uint32_t i = 0; i < k; i++)
                    ns.push_back(o[i] / (double)WINDOW * 1000.0 / 1980.0);   // at 1980 MHz
            }
            std::vector<double> first;   // each launch's first window
            for (size_t i = 0; i < ns.size(); i += k)
                first.push_back(ns[i]);
            printf("host_chase_clock_spread %s windows_per_launch %u p50 %.1f ns (at 1980 MHz) "
                   "first_window_p50 %.1f\n", from_head ? "from_head" : "cursor_carried", k,
                   median(ns), median(first));
        }
    {
        uint32_t acc = 1000000 / sm_count;
        for (int v = 0; v < 2; v++) {
            double sum = 0;
            for (int t = 0; t < sm_count; t++) {
                float ms;
                CHECK(cudaEventRecord(e0));
                if (v == 0)
                    chase_event_ldg<<<sm_count, 1>>>((uint64_t)hd, acc, t);
                else
                    chase_event<<<sm_count, 1>>>((Node *)hd, acc, 0);
                CHECK(cudaEventRecord(e1));
                CHECK(cudaEventSynchronize(e1));
                CHECK(cudaEventElapsedTime(&ms, e0, e1));
                sum += ms;
            }
            printf("host_chase_event written=gpu %s ns_per_access %.1f ns\n",
                   v == 0 ? "global loads, every SM" : "generic loads, block 0 only",
                   sum * 1e6 / ((double)acc * sm_count));
        }
    }
    CHECK(cudaFreeHost(h));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_aux));
}

// ---- hostmem: allocation x writer x reading -------------------------------

struct HostBuf {
    const char *name;
    uint64_t *h, *hd;        // host and device views of the chain's start
    size_t bytes;            // the allocation
    int registered;          // 1: mmap + cudaHostRegister
    void *map;               // registered: the mapping to unmap
    size_t map_bytes;
};

static int hb_alloc(HostBuf &b, const char *name, size_t bytes, int how)
{
    // how: 0 cudaHostAlloc, 1 mmap 4 KiB pages + register, 2 mmap THP + register
    b = HostBuf{ name, nullptr, nullptr, bytes, how != 0, nullptr, 0 };
    if (how == 0) {
        if (cudaHostAlloc((void **)&b.h, bytes, cudaHostAllocMapped | cudaHostAllocPortable) != cudaSuccess)
            return 1;
        memset(b.h, 0x3c, bytes);
    } else {
        size_t len = how == 2 ? bytes + (2u << 20) : bytes;
        void *m = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED)
            return 1;
        b.map = m;
        b.map_bytes = len;
        uint8_t *p = (uint8_t *)m;
        if (how == 2) {
            p = (uint8_t *)(((uintptr_t)m + (2u << 20) - 1) & ~(uintptr_t)((2u << 20) - 1));
            madvise(p, bytes, MADV_HUGEPAGE);
        } else {
            madvise(p, bytes, MADV_NOHUGEPAGE);
        }
        memset(p, 0x3c, bytes);   // first touch: the pages (huge or not) exist before pinning
        b.h = (uint64_t *)p;
        if (cudaHostRegister(p, bytes, cudaHostRegisterMapped | cudaHostRegisterPortable) != cudaSuccess)
            return 1;
    }
    CHECK(cudaHostGetDevicePointer((void **)&b.hd, b.h, 0));
    return 0;
}

static void hb_free(HostBuf &b)
{
    if (!b.h || b.registered < 0)
        return;
    if (b.registered) {
        cudaHostUnregister(b.h);
        munmap(b.map, b.map_bytes);
    } else {
        cudaFreeHost(b.h);
    }
    b.h = nullptr;
}

// Page frames of the first `bytes` of p: runs of consecutive frames and
// distinct 2 MiB frames; -1, -1 when the frames cannot be read (not root).
static void hb_layout(const void *p, size_t bytes, int *runs, int *frames2m)
{
    *runs = *frames2m = -1;
    int fd = open("/proc/self/pagemap", O_RDONLY);
    if (fd < 0)
        return;
    std::vector<uint64_t> pfn;
    for (size_t off = 0; off < bytes; off += 4096) {
        uint64_t e = 0;
        if (pread(fd, &e, 8, (off_t)(((uintptr_t)p + off) / 4096 * 8)) != 8) {
            close(fd);
            return;
        }
        if (!(e >> 63) || !(e & ((1ull << 55) - 1))) {   // not present, or frames hidden
            close(fd);
            return;
        }
        pfn.push_back(e & ((1ull << 55) - 1));
    }
    close(fd);
    int r = 1;
    std::vector<uint64_t> f2;
    for (size_t i = 0; i < pfn.size(); i++) {
        if (i && pfn[i] != pfn[i - 1] + 1)
            r++;
        f2.push_back(pfn[i] >> 9);
    }
    std::sort(f2.begin(), f2.end());
    *runs = r;
    *frames2m = (int)(std::unique(f2.begin(), f2.end()) - f2.begin());
}

// who: 0 gpu, 1 cpu, 2 cpu+flush, 3 gpu+flush (the GPU writes, the CPU
// flushes the lines from its caches: the census since host_cache = flushed)
static void hb_write(HostBuf &b, uint64_t lines, int who)
{
    if (who == 0 || who == 3) {
        link_gpu<<<64, 256>>>(b.hd, lines);
        CHECK(cudaDeviceSynchronize());
        if (who == 3)
            flush_lines(b.h, lines);
    } else {
        write_cpu(b.h, b.hd, lines, who == 2);
    }
}

struct ChaseFig {
    double p50, mean;
};

// The census's reading (src/measure/cuda/cuda_mem.c gc_cuda_chase_far, xfer method 2).
/* The device buffers and events the hostmem readings share (freed with it). */
struct Reader {
    uint32_t *d_out;
    uint64_t *d_aux;
    cudaEvent_t e0, e1;
    Reader()
    {
        CHECK(cudaMalloc(&d_out, 4096 * 4));
        CHECK(cudaMalloc(&d_aux, 64));
        CHECK(cudaEventCreate(&e0));
        CHECK(cudaEventCreate(&e1));
    }
    ~Reader()
    {
        CHECK(cudaFree(d_out));
        CHECK(cudaFree(d_aux));
        CHECK(cudaEventDestroy(e0));
        CHECK(cudaEventDestroy(e1));
    }
};

/* Who wrote the chain last (hb_write's w). */
static const char *const WRITERS[4] = { "gpu", "cpu", "cpu+flush", "gpu+flush" };

static ChaseFig read_census(HostBuf &b, uint32_t *d_out, uint64_t *d_aux)
{
    const uint32_t per = 4, total = 500;
    std::vector<double> cyc;
    uint64_t cur = (uint64_t)b.hd, csum = 0, nsum = 0;
    for (uint32_t l = 0; l * per < total; l++) {
        chase_clock_on<0><<<sm_count, 1>>>(cur, l % sm_count, per, d_out, d_aux, l == 0 ? 1024 : 0);
        CHECK(cudaDeviceSynchronize());
        uint32_t o[per];
        uint64_t aux[4];
        CHECK(cudaMemcpy(o, d_out, sizeof o, cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(aux, d_aux, sizeof aux, cudaMemcpyDeviceToHost));
        cur = aux[2];
        csum += aux[0];
        nsum += aux[1];
        for (uint32_t i = 0; i < per; i++)
            cyc.push_back((o[i] - 4.0) / WINDOW);   // less the empty window (4 cycles)
    }
    double mhz = (double)csum / nsum * 1000, mean = 0;
    std::vector<double> ns;
    for (double c : cyc) {
        ns.push_back(c * 1000 / mhz);
        mean += c * 1000 / mhz / cyc.size();
    }
    return { median(ns), mean };
}

static ChaseFig read_sm0(HostBuf &b, uint32_t *d_out, uint64_t *d_aux)
{
    const uint32_t n = 200;
    chase_clock_on<0><<<sm_count, 1>>>((uint64_t)b.hd, 0, n, d_out, d_aux, 256);
    CHECK(cudaDeviceSynchronize());
    std::vector<uint32_t> o(n);
    uint64_t aux[4];
    CHECK(cudaMemcpy(o.data(), d_out, n * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(aux, d_aux, sizeof aux, cudaMemcpyDeviceToHost));
    double mhz = (double)aux[0] / aux[1] * 1000, mean = 0;
    std::vector<double> ns;
    for (uint32_t v : o) {
        ns.push_back((v - 4.0) / WINDOW * 1000 / mhz);
        mean += ns.back() / n;
    }
    return { median(ns), mean };
}

/* nvbandwidth's reading: one launch per SM, event time over its loads;
 * by_launch prints a few launches' own figures as they come (decay). */
static ChaseFig read_nvbw(HostBuf &b, cudaEvent_t e0, cudaEvent_t e1, bool by_launch = false)
{
    uint32_t acc = 1000000 / sm_count;
    double sum = 0;
    for (int t = 0; t < sm_count; t++) {
        float ms;
        CHECK(cudaEventRecord(e0));
        chase_event<<<sm_count, 1>>>((Node *)b.hd, acc, t);
        CHECK(cudaEventRecord(e1));
        CHECK(cudaEventSynchronize(e1));
        CHECK(cudaEventElapsedTime(&ms, e0, e1));
        sum += ms;
        if (by_launch && (t < 3 || !(t & (t - 1)) || t == sm_count - 1))
            printf(" [%d] %.1f", t, ms * 1e6 / acc);
    }
    double v = sum * 1e6 / ((double)acc * sm_count);
    return { v, v };
}

static void hostmem(int rounds)
{
    const uint64_t lines = (1 << 20) / LINE;
    {
        char thp[128] = "?";
        FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
        if (f) {
            if (!fgets(thp, sizeof thp, f))
                strcpy(thp, "?");
            fclose(f);
        }
        thp[strcspn(thp, "\n")] = 0;
        printf("hostmem thp_enabled \"%s\" uid %d\n", thp, (int)getuid());
    }
    HostBuf bufs[7];
    struct { const char *name; size_t bytes; int how; } spec[6] = {
        { "hostalloc_1M", 1u << 20, 0 },
        { "hostalloc_2M", 2u << 20, 0 },
        { "hostalloc_64M", 64u << 20, 0 },
        { "hostalloc_2G", (size_t)2 << 30, 0 },
        { "register_4k_1M", 1u << 20, 1 },
        { "register_thp_2M", 2u << 20, 2 },
    };
    int nb = 0;
    for (auto &sp : spec) {
        if (hb_alloc(bufs[nb], sp.name, sp.bytes, sp.how)) {
            printf("hostmem %s: allocation failed\n", sp.name);
            cudaGetLastError();
            continue;
        }
        int runs, f2;
        hb_layout(bufs[nb].h, 1 << 20, &runs, &f2);
        printf("hostmem layout %-16s chain 1 MiB = 256 pages: frame_runs %d frames_2m %d\n", sp.name, runs, f2);
        nb++;
        if (sp.bytes == ((size_t)2 << 30)) {   // the same allocation, 1 GiB in
            HostBuf v = bufs[nb - 1];
            v.name = "hostalloc_2G@1G";
            v.h += (1u << 30) / 8;
            v.hd += (1u << 30) / 8;
            v.registered = -1;   // a view: not freed
            hb_layout(v.h, 1 << 20, &runs, &f2);
            printf("hostmem layout %-16s chain 1 MiB = 256 pages: frame_runs %d frames_2m %d\n", v.name, runs, f2);
            bufs[nb++] = v;
        }
    }
    Reader rd;
    printf("hostmem %-16s %-9s %5s | %-17s | %-17s | %s\n", "allocation", "written", "round",
           "census p50 / mean", "sm0 p50 / mean", "nvbw ns/access");
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < nb; i++)
            for (int w = 0; w < 4; w++) {
                hb_write(bufs[i], lines, w);
                ChaseFig c = read_census(bufs[i], rd.d_out, rd.d_aux);
                hb_write(bufs[i], lines, w);
                ChaseFig s = read_sm0(bufs[i], rd.d_out, rd.d_aux);
                hb_write(bufs[i], lines, w);
                ChaseFig n = read_nvbw(bufs[i], rd.e0, rd.e1);
                printf("hostmem %-16s %-9s %5d | %7.1f / %7.1f | %7.1f / %7.1f | %7.1f\n", bufs[i].name,
                       WRITERS[w], r, c.p50, c.mean, s.p50, s.mean, n.p50);
                fflush(stdout);
            }
    for (int i = 0; i < nb; i++)
        hb_free(bufs[i]);
}

// ---- decay: how long a chain stays fast after its write ----------------
// A 2 MiB cudaHostAlloc buffer (nvbandwidth's), the chain its first 1 MiB.
// (1) time alone: write, sleep D ms without a load, then the census's
//     reading (125 launches, ~20 ms); (2) reads alone: write, then the
//     census's reading 8 times back to back; (3) nvbandwidth's reading launch
//     by launch (each ~9 ms): launches 0, 1, 2, 4, ..., 131 and their mean.
static void decay(void)
{
    const uint64_t lines = (1 << 20) / LINE;
    HostBuf b;
    if (hb_alloc(b, "hostalloc_2M", 2u << 20, 0)) {
        printf("decay: allocation failed\n");
        return;
    }
    Reader rd;
    const int delays_ms[] = { 0, 2, 20, 200, 1000 };
    for (int w = 0; w < 4; w++) {
        printf("decay written=%-9s census p50 after a pause of", WRITERS[w]);
        for (int d : delays_ms) {
            hb_write(b, lines, w);
            usleep(d * 1000);
            ChaseFig c = read_census(b, rd.d_out, rd.d_aux);
            printf(" %d ms: %.1f", d, c.p50);
        }
        printf("\ndecay written=%-9s census p50 of 8 readings back to back (~20 ms each):", WRITERS[w]);
        hb_write(b, lines, w);
        for (int k = 0; k < 8; k++)
            printf(" %.1f", read_census(b, rd.d_out, rd.d_aux).p50);
        printf("\ndecay written=%-9s nvbandwidth's reading by launch (~9 ms each):", WRITERS[w]);
        hb_write(b, lines, w);
        printf(" mean %.1f\n", read_nvbw(b, rd.e0, rd.e1, true).p50);
        fflush(stdout);
    }
    hb_free(b);
}

// ---- both ways -----------------------------------------------------------

__global__ void copy_one(const uint4 *__restrict__ s, uint4 *__restrict__ d, size_t n)
{
    size_t st = (size_t)gridDim.x * blockDim.x;
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n; k += st)
        d[k] = s[k];
}

// Even warps copy a -> b, odd warps c -> d; each direction grid-strides
// over its own n elements with half the grid's warps.
template <int U>
__global__ void copy_both(const uint4 *__restrict__ a, uint4 *__restrict__ b,
                          const uint4 *__restrict__ c, uint4 *__restrict__ d, size_t n)
{
    unsigned gw = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
    const uint4 *s = gw & 1 ? c : a;
    uint4 *t = gw & 1 ? d : b;
    size_t st = (size_t)gridDim.x * blockDim.x / 2;
    size_t k = (size_t)(gw / 2) * 32 + lane;
    for (; k + (U - 1) * st < n; k += U * st) {
        uint4 v[U];
#pragma unroll
        for (int u = 0; u < U; u++)
            v[u] = s[k + u * st];
#pragma unroll
        for (int u = 0; u < U; u++)
            t[k + u * st] = v[u];
    }
    for (; k < n; k += st)
        t[k] = s[k];
}

// The same with cache hints (HINT: ld.global.cg / st.global.cg), FLAT: no
// grid stride, the grid covers both copies (each warp U x 512 bytes of its
// direction; blocks scheduled as others end, so both directions progress
// together), and each direction's own end: t[0] = first start, t[1] /
// t[2] = last end of h2d / d2h warps (%globaltimer).
template <int U, int HINT, int FLAT>
__global__ void copy_both_t(const uint4 *__restrict__ a, uint4 *__restrict__ b,
                            const uint4 *__restrict__ c, uint4 *__restrict__ d, size_t n,
                            unsigned long long *t)
{
    unsigned long long g0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0)::"memory");
    unsigned gw = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
    if (lane == 0)
        atomicMin(t, g0);
    const uint4 *s = gw & 1 ? c : a;
    uint4 *o = gw & 1 ? d : b;
    size_t st = FLAT ? 32 : (size_t)gridDim.x * blockDim.x / 2;
    size_t k = FLAT ? (size_t)(gw / 2) * 32 * U + lane : (size_t)(gw / 2) * 32 + lane;
    size_t end = FLAT ? (k - lane + 32 * U < n ? k - lane + 32 * U : n) : n;
    for (; k + (U - 1) * st < end; k += U * st) {
        uint4 v[U];
#pragma unroll
        for (int u = 0; u < U; u++)
            v[u] = HINT ? __ldcg(s + k + u * st) : s[k + u * st];
#pragma unroll
        for (int u = 0; u < U; u++)
            if (HINT)
                __stcg(o + k + u * st, v[u]);
            else
                o[k + u * st] = v[u];
    }
    for (; k < end; k += st)
        o[k] = s[k];
    __syncwarp();
    if (lane == 0) {
        unsigned long long g1;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1)::"memory");
        atomicMax(t + 1 + (gw & 1), g1);
    }
}

// nvbandwidth's convention: each lane copies its 16-byte word `loops`
// times in a row (one warp per 512 bytes, directions alternating by warp,
// ld/st.global.cg), over a buffer of n words in all (n / 2 each way).
__global__ void copy_both_repeat(uint4 *h, uint4 *d, size_t n, int loops)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint4 *s = (i / 32) & 1 ? h + i : d + i, *t = (i / 32) & 1 ? d + i : h + i;
    for (int l = 0; l < loops; l++)
        __stcg(t, __ldcg(s));
}

static void both_ways(void)
{
    const size_t bytes = (size_t)1 << 30, n = bytes / 16;
    uint4 *h, *hd, *dv;
    CHECK(cudaHostAlloc((void **)&h, 2 * bytes, cudaHostAllocMapped | cudaHostAllocPortable));
    CHECK(cudaHostGetDevicePointer((void **)&hd, h, 0));
    memset(h, 0x3c, 2 * bytes);
    CHECK(cudaMalloc(&dv, 2 * bytes));
    CHECK(cudaMemset(dv, 0x5a, 2 * bytes));
    // h2d: hd[0..n) -> dv[n..2n); d2h: dv[0..n) -> hd[n..2n)
    cudaStream_t s0, s1;
    CHECK(cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    cudaEvent_t e0, e1, e2;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    CHECK(cudaEventCreate(&e2));
    const int reps = 5;
    struct V {
        const char *name;
        int kind, blocks_per_sm, threads;
    } vs[] = {
        { "one_way_h2d t512 x4", 10, 4, 512 },
        { "one_way_d2h t512 x4", 11, 4, 512 },
        { "two_streams t512 x2+x2", 0, 2, 512 },
    };
    unsigned long long *d_t;
    CHECK(cudaMalloc(&d_t, 32));
    struct W {
        const char *name;
        int u, hint, flat, blocks_per_sm, threads;
    } ws[] = {
        { "stride t512 x4 u4", 4, 0, 0, 4, 512 },
        { "stride t512 x4 u4 cg", 4, 1, 0, 4, 512 },
        { "stride t512 x4 u8", 8, 0, 0, 4, 512 },
        { "stride t256 x8 u4", 4, 0, 0, 8, 256 },
        { "flat t512 u1", 1, 0, 1, 0, 512 },
        { "flat t512 u4", 4, 0, 1, 0, 512 },
        { "flat t1024 u1 cg", 1, 1, 1, 0, 1024 },
        { "flat t512 u4 cg", 4, 1, 1, 0, 512 },
        { "flat t256 u8", 8, 0, 1, 0, 256 },
    };
    for (auto &w : ws) {
        int blocks = w.flat ? (int)(2 * n / (32 * w.u) / (w.threads / 32)) : sm_count * w.blocks_per_sm;
        std::vector<double> ms, th, td;
        for (int r = 0; r <= reps; r++) {
            unsigned long long init[3] = { ~0ull, 0, 0 };
            CHECK(cudaMemcpy(d_t, init, sizeof init, cudaMemcpyHostToDevice));
            CHECK(cudaEventRecord(e0, s0));
#define L(U, H, F) copy_both_t<U, H, F><<<blocks, w.threads, 0, s0>>>(hd, dv + n, dv, hd + n, n, d_t)
            if (w.u == 4 && !w.hint && !w.flat) L(4, 0, 0);
            else if (w.u == 4 && w.hint && !w.flat) L(4, 1, 0);
            else if (w.u == 8 && !w.flat) L(8, 0, 0);
            else if (w.u == 1 && !w.hint && w.flat) L(1, 0, 1);
            else if (w.u == 4 && !w.hint && w.flat) L(4, 0, 1);
            else if (w.u == 1 && w.hint && w.flat) L(1, 1, 1);
            else if (w.u == 4 && w.hint && w.flat) L(4, 1, 1);
            else if (w.u == 8 && w.flat) L(8, 0, 1);
#undef L
            CHECK(cudaGetLastError());
            CHECK(cudaEventRecord(e1, s0));
            CHECK(cudaDeviceSynchronize());
            float a;
            CHECK(cudaEventElapsedTime(&a, e0, e1));
            unsigned long long t[3];
            CHECK(cudaMemcpy(t, d_t, sizeof t, cudaMemcpyDeviceToHost));
            if (r == 0)
                continue;
            ms.push_back(a);
            th.push_back((t[1] - t[0]) / 1e6);
            td.push_back((t[2] - t[0]) / 1e6);
        }
        printf("both_ways one_kernel %s blocks %d: each %.2f GBps (bytes / kernel time); own end h2d %.2f d2h %.2f\n",
               w.name, blocks, bytes / median(ms) / 1e6, bytes / median(th) / 1e6, bytes / median(td) / 1e6);
    }
    for (int loops = 1; loops <= 16; loops *= 16) {   // 1 GiB in all, 512 MiB each way, as nvbandwidth -b 1024
        size_t words = bytes / 16;
        std::vector<double> ms;
        for (int r = 0; r <= reps; r++) {
            CHECK(cudaEventRecord(e0, s0));
            copy_both_repeat<<<(unsigned)(words / 1024), 1024, 0, s0>>>(hd, dv, words, loops);
            CHECK(cudaGetLastError());
            CHECK(cudaEventRecord(e1, s0));
            CHECK(cudaDeviceSynchronize());
            float a;
            CHECK(cudaEventElapsedTime(&a, e0, e1));
            if (r)
                ms.push_back(a);
        }
        printf("both_ways repeat t1024 cg, 512 MiB each way, each word copied %d times in a row: each %.2f GBps\n",
               loops, bytes / 2.0 * loops / median(ms) / 1e6);
    }
    for (auto &v : vs) {
        int blocks = sm_count * v.blocks_per_sm;
        std::vector<double> ms_all, ms_h, ms_d;
        for (int r = 0; r <= reps; r++) {
            CHECK(cudaEventRecord(e0, s0));
            CHECK(cudaStreamWaitEvent(s1, e0, 0));
            switch (v.kind) {
            case 10: copy_one<<<blocks, v.threads, 0, s0>>>(hd, dv + n, n); break;
            case 11: copy_one<<<blocks, v.threads, 0, s0>>>(dv, hd + n, n); break;
            case 0:
                copy_one<<<blocks, v.threads, 0, s0>>>(hd, dv + n, n);
                copy_one<<<blocks, v.threads, 0, s1>>>(dv, hd + n, n);
                break;
            case 1: copy_both<1><<<blocks, v.threads, 0, s0>>>(hd, dv + n, dv, hd + n, n); break;
            case 2: copy_both<2><<<blocks, v.threads, 0, s0>>>(hd, dv + n, dv, hd + n, n); break;
            case 4: copy_both<4><<<blocks, v.threads, 0, s0>>>(hd, dv + n, dv, hd + n, n); break;
            }
            CHECK(cudaGetLastError());
            CHECK(cudaEventRecord(e1, s0));
            CHECK(cudaEventRecord(e2, s1));
            CHECK(cudaDeviceSynchronize());
            float a, b;
            CHECK(cudaEventElapsedTime(&a, e0, e1));
            CHECK(cudaEventElapsedTime(&b, e0, e2));
            if (r == 0)
                continue;   // warm
            ms_h.push_back(a);
            ms_d.push_back(v.kind == 0 ? b : a);
            ms_all.push_back(std::max(a, b));
        }
        double h2d = bytes / median(ms_h) / 1e6, d2h = bytes / median(ms_d) / 1e6;
        if (v.kind >= 10)
            printf("both_ways %s GBps %.2f\n", v.name, h2d);
        else
            printf("both_ways %s h2d_GBps %.2f d2h_GBps %.2f (each: bytes / own end; "
                   "both over the later end %.2f)\n",
                   v.name, h2d, d2h, bytes / median(ms_all) / 1e6);
    }
    CHECK(cudaFreeHost(h));
    CHECK(cudaFree(dv));
}

// ---- ce_both ---------------------------------------------------------------

static void ce_both(int rounds)
{
    const size_t bytes = (size_t)1 << 30;
    uint8_t *h, *dv;
    CHECK(cudaHostAlloc((void **)&h, 2 * bytes, cudaHostAllocPortable));
    memset(h, 0x3c, 2 * bytes);
    CHECK(cudaMalloc(&dv, 2 * bytes));
    CHECK(cudaMemset(dv, 0x5a, 2 * bytes));
    cudaStream_t s0, s1;
    CHECK(cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    cudaEvent_t e0, eh, ed;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&eh));
    CHECK(cudaEventCreate(&ed));
    // h2d: h[0, 1G) -> dv[1G, 2G); d2h: dv[0, 1G) -> h[1G, 2G)
    std::vector<double> v[2][2];   // [tail][h2d, d2h] in GB/s
    for (int r = 0; r <= rounds; r++)
        for (int tail = 0; tail < 2; tail++) {
            CHECK(cudaEventRecord(e0, s0));
            CHECK(cudaStreamWaitEvent(s1, e0, 0));
            CHECK(cudaMemcpyAsync(dv + bytes, h, bytes, cudaMemcpyHostToDevice, s0));
            CHECK(cudaMemcpyAsync(h + bytes, dv, bytes, cudaMemcpyDeviceToHost, s1));
            CHECK(cudaEventRecord(eh, s0));
            CHECK(cudaEventRecord(ed, s1));
            if (tail) {
                CHECK(cudaMemcpyAsync(dv + bytes, h, bytes, cudaMemcpyHostToDevice, s0));
                CHECK(cudaMemcpyAsync(h + bytes, dv, bytes, cudaMemcpyDeviceToHost, s1));
            }
            CHECK(cudaDeviceSynchronize());
            float a, b;
            CHECK(cudaEventElapsedTime(&a, e0, eh));
            CHECK(cudaEventElapsedTime(&b, e0, ed));
            if (r == 0)
                continue;   // warm
            v[tail][0].push_back(bytes / (a * 1e6));
            v[tail][1].push_back(bytes / (b * 1e6));
        }
    for (int tail = 0; tail < 2; tail++) {
        printf("ce_both %-26s h2d %.2f d2h %.2f GBps (median of %d; h2d", tail ? "tail (each loaded)" :
               "equal, own end (no tail)", median(v[tail][0]), median(v[tail][1]), rounds);
        for (double x : v[tail][0])
            printf(" %.2f", x);
        printf("; d2h");
        for (double x : v[tail][1])
            printf(" %.2f", x);
        printf(")\n");
    }
    for (int d = 0; d < 2; d++) {
        std::vector<double> one;
        for (int r = 0; r <= rounds; r++) {
            CHECK(cudaEventRecord(e0, s0));
            if (d == 0)
                CHECK(cudaMemcpyAsync(dv + bytes, h, bytes, cudaMemcpyHostToDevice, s0));
            else
                CHECK(cudaMemcpyAsync(h + bytes, dv, bytes, cudaMemcpyDeviceToHost, s0));
            CHECK(cudaEventRecord(eh, s0));
            CHECK(cudaEventSynchronize(eh));
            float a;
            CHECK(cudaEventElapsedTime(&a, e0, eh));
            if (r)
                one.push_back(bytes / (a * 1e6));
        }
        printf("ce_both one way alone %s %.2f GBps (median of %d)\n", d ? "d2h" : "h2d", median(one), rounds);
    }
    fflush(stdout);
    CHECK(cudaFreeHost(h));
    CHECK(cudaFree(dv));
    CHECK(cudaStreamDestroy(s0));
    CHECK(cudaStreamDestroy(s1));
}

int main(int argc, char **argv)
{
    cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, 0));
    sm_count = p.multiProcessorCount;
    printf("device %s, %d SMs\n", p.name, sm_count);
    const char *what = argc > 1 ? argv[1] : "all";
    if (!strcmp(what, "all") || !strcmp(what, "chase"))
        host_chase();
    if (!strcmp(what, "all") || !strcmp(what, "both"))
        both_ways();
    if (!strcmp(what, "all") || !strcmp(what, "decay"))
        decay();
    if (!strcmp(what, "all") || !strcmp(what, "hostmem"))
        hostmem(argc > 2 ? atoi(argv[2]) : 2);
    if (!strcmp(what, "all") || !strcmp(what, "ce_both"))
        ce_both(argc > 2 ? atoi(argv[2]) : 8);
    return 0;
}
