/* C ABI between the host code (C11) and the CUDA kernels. Host code never
 * includes CUDA headers: every CUDA runtime call lives behind these
 * functions, compiled by nvcc. Each function returns 0 on success or a
 * non-zero code with a message in err (errlen bytes). Times are in
 * nanoseconds, sizes in bytes, latencies in SM clock cycles. */
#ifndef GC_KERNELS_H
#define GC_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The choices a kernel takes, as enums: each list is X(ENUMERATOR, "name"),
 * in the order of its values (0, 1, ...); "name" is the benchmark
 * parameter's choice in src/census/registry.c, which builds its lists from
 * these. GCK_ENUM_ID and GCK_ENUM_NAME expand a list into enumerators or
 * into names. */
#define GCK_ENUM_ID(id, name) id,
#define GCK_ENUM_NAME(id, name) name,

typedef struct gck_device {
    char name[96];
    char uuid[48];           /* "GPU-xxxxxxxx-..." as nvidia-smi prints it */
    char pci_bus_id[24];
    int cc_major, cc_minor;
    int sm_count, warp_size, cores_per_sm;
    int max_threads_per_sm, max_threads_per_block, regs_per_sm;
    uint64_t smem_per_sm_bytes, smem_per_block_optin_bytes;
    uint64_t l2_bytes, mem_bytes;
    int sm_clock_khz, mem_clock_khz, bus_width_bits;
    int ecc_enabled;
    int async_engines;
} gck_device;

/* Number of CUDA devices visible; 0 with no driver or no GPU (not an error). */
int gck_device_count(int *count, char *err, size_t errlen);
/* Select device index for this host thread and read its properties. */
int gck_device_open(int index, gck_device *d, char *err, size_t errlen);
/* Identity probe: one block per SM reads %smid and %globaltimer; reports how
 * many distinct SMs ran a block and the kernel's device time. Proves that
 * the device executes our code. */
int gck_identity_probe(int *sms_seen, uint64_t *elapsed_ns, char *err, size_t errlen);

/* ------------------------------------------------------------------------
 * Benchmarks of the cuda backend. Conventions:
 * - Sample buffers live in a gck_scratch the caller keeps (device buffer
 *   plus pinned host copy), grown on demand, reused across items.
 * - Latency windows hold GCK_WINDOW dependent operations between two
 *   %clock64 reads; a window's raw cycles are returned, the caller removes
 *   the twin's (timer cost) median and divides by the window length.
 * - span_cycles / span_ns: %clock64 and %globaltimer deltas over the whole
 *   sample loop of one launch: the SM clock the kernel really ran at. */
#define GCK_WINDOW 32          /* dependent operations per timed window */

typedef struct gck_scratch {
    uint32_t *d_samples;       /* device */
    uint32_t *h_samples;       /* pinned host copy */
    size_t cap;                /* samples */
    uint64_t *d_aux;           /* 16 words of device scratch */
    uint64_t h_aux[16];
} gck_scratch;

int gck_scratch_reserve(gck_scratch *s, size_t nsamples, char *err, size_t errlen);
void gck_scratch_free(gck_scratch *s);
int gck_malloc(void **p, size_t bytes, char *err, size_t errlen);
void gck_free(void *p);
int gck_mem_free(size_t *free_bytes, size_t *total_bytes, char *err, size_t errlen);
/* Fill with a non-zero float pattern (never time on zeros). */
int gck_fill(void *p, size_t bytes, char *err, size_t errlen);

/* Pointer chase over n elements, one per `stride` bytes of buf. The order
 * is one random cycle (Fisher-Yates permutation, each element visited once
 * before any is revisited). page_offsets != 0: each element sits at a
 * random 128-byte line inside its stride (use with a 2 MiB stride: one
 * access per huge page, pages in random order: TLB misses). perm is device
 * scratch of n words (kept: chase_loaded starts its warps from it). */
typedef struct gck_chain {
    void *buf;
    uint64_t n, stride;
    int page_offsets;
    int in_order;              /* element i -> i + 1 (no shuffle): consecutive lines */
    uint32_t *perm;
    void *first;               /* device address of the first element */
} gck_chain;
int gck_chase_build(gck_chain *c, uint64_t seed, char *err, size_t errlen);
/* One thread: warm dependent loads from *cursor, then nsamples windows.
 * twin != 0: the same windows without the loads (timer cost). On return
 * *cursor is where the chase stopped (the next launch continues there, so
 * a large footprint never revisits a line). h_samples[i] = window cycles. */
int gck_chase_run(void **cursor, uint32_t warm, uint32_t nsamples, int twin,
                  gck_scratch *s, uint64_t *span_cycles, uint64_t *span_ns,
                  char *err, size_t errlen);
/* The same on block `target` of a grid of `grid` one-thread blocks (the
 * others exit at once): the chase runs on whichever SM that block lands on.
 * gck_chase_run is grid 1, target 0. */
int gck_chase_run_on(void **cursor, uint32_t warm, uint32_t nsamples, int twin, uint32_t grid,
                     uint32_t target, gck_scratch *s, uint64_t *span_cycles, uint64_t *span_ns,
                     char *err, size_t errlen);
/* Loaded chase: blocks x threads (multiple of 32) threads, lane 0 of each
 * warp chases from its own start (spread over the cycle), warm accesses
 * then `runs` windows; h_samples[warp * runs + r] = window cycles. Loads are
 * ld.global.cg (L2, not L1): the latency of the L2 or DRAM under load. */
int gck_chase_loaded_run(const gck_chain *c, int blocks, int threads, uint32_t warm,
                         uint32_t runs, gck_scratch *s, char *err, size_t errlen);

/* Departure: one warp issues `requests` (1..GCK_DEPARTURE_MAX) independent
 * loads, coalesced (one 128-byte line per load instruction) or uncoalesced
 * (32 sectors in 32 lines per instruction), then consumes all results;
 * h_samples[i] = cycles from the first issue to the last completion. Each
 * sample uses fresh lines of buf (bytes >= 1 GiB recommended). */
#define GCK_DEPARTURE_MAX 128
int gck_departure_run(void *buf, size_t bytes, int uncoalesced, int requests,
                      uint32_t nsamples, gck_scratch *s, char *err, size_t errlen);

/* Instructions (kernels/inst.cu's OPS rows, in this order: it checks). */
#define GCK_INST_OPS(X)                                                                   \
    X(GCK_INST_F32_ADD, "f32_add") X(GCK_INST_F32_MUL, "f32_mul")                         \
    X(GCK_INST_F32_FMA, "f32_fma") X(GCK_INST_F32_DIV, "f32_div")                         \
    X(GCK_INST_F32_SQRT, "f32_sqrt") X(GCK_INST_F64_ADD, "f64_add")                       \
    X(GCK_INST_F64_FMA, "f64_fma") X(GCK_INST_F64_DIV, "f64_div")                         \
    X(GCK_INST_I32_ADD, "i32_add") X(GCK_INST_I32_MUL, "i32_mul")                         \
    X(GCK_INST_I32_DIV, "i32_div") X(GCK_INST_SFU_SIN, "sfu_sin")                         \
    X(GCK_INST_SFU_EXP, "sfu_exp") X(GCK_INST_SMEM_LD, "smem_ld")
typedef enum gck_inst_op {
    GCK_INST_NONE = -1,        /* gck_inst_op_find: unknown */
    GCK_INST_OPS(GCK_ENUM_ID)
    GCK_INST_NOPS
} gck_inst_op;
/* The op's name; NULL outside 0 .. GCK_INST_NOPS - 1. */
const char *gck_inst_op_name(gck_inst_op op);
gck_inst_op gck_inst_op_find(const char *name);
/* Latency: one thread, ilp (1..8) independent dependent chains of
 * GCK_WINDOW steps in each window; twin: the window without the ops.
 * h_samples[i] = window cycles. */
int gck_inst_latency(gck_inst_op op, int ilp, int twin, uint32_t nsamples, gck_scratch *s,
                     uint64_t *span_cycles, uint64_t *span_ns, char *err, size_t errlen);
/* Throughput: full occupancy (blocks_per_sm resident blocks of
 * *threads each on every SM), every thread runs ilp independent chains of
 * iters * 16 ops (iters 0: the op's default). Per SM i < *sms_seen:
 * h_samples[2i] = cycles from its first block's start to its last block's
 * end, h_samples[2i+1] = blocks it ran; *ops_per_block = thread operations
 * of one block. */
int gck_inst_throughput(gck_inst_op op, int ilp, uint32_t iters, gck_scratch *s,
                        int *blocks, int *threads, int *blocks_per_sm,
                        uint64_t *ops_per_block, int *sms_seen, char *err, size_t errlen);

/* STREAM kernels over `footprint` bytes of buf (split in 1/2/3 arrays for
 * copy/triad, each starting on a 2 MiB boundary); sparse reads one word of
 * each 128-byte line (its 32-byte sector counted). *blocks > 0: that grid, grid-stride loops
 * with 16-byte accesses (vector_bytes 16, unroll 4 only); 0: the full grid
 * (one pass, each block a contiguous run of unroll x threads vectors of
 * vector_bytes (8 or 16) per array, unroll 1, 2, 4 or 8; not for sparse),
 * *blocks set to it. ms[i]: event time of launch i; *bytes: read +
 * written per launch. */
#define GCK_STREAM_KINDS(X)                                                               \
    X(GCK_STREAM_READ, "read") X(GCK_STREAM_WRITE, "write") X(GCK_STREAM_COPY, "copy")    \
    X(GCK_STREAM_TRIAD, "triad") X(GCK_STREAM_SPARSE, "sparse")
typedef enum gck_stream_kind {
    GCK_STREAM_KINDS(GCK_ENUM_ID)
    GCK_STREAM_NKINDS
} gck_stream_kind;
int gck_stream_run(gck_stream_kind kind, void *buf, size_t footprint, int *blocks, int threads,
                   int vector_bytes, int unroll, uint32_t launches, float *ms, uint64_t *bytes,
                   char *err, size_t errlen);
/* L2: about bytes_per_launch of reads (ld.global.cg) over an L2-resident
 * footprint per launch, in blocks of `threads` that each read several
 * chunks of threads x unroll float4 (unroll 4, 8, 16 or 32); sweep 0: each block its own
 * run of chunks, 1: the resident blocks on neighbouring chunks; *blocks:
 * the grid; *readers: the resident blocks that read one chunk at once. */
int gck_l2_run(void *buf, size_t footprint, size_t bytes_per_launch, int threads, int unroll,
               int sweep, uint32_t launches, float *ms, uint64_t *bytes, int *blocks,
               double *readers, char *err, size_t errlen);
/* Shared memory: each thread reads 32-bit words at lane * stride_words
 * (bank conflicts for even strides), full occupancy. */
int gck_smem_run(int stride_words, uint32_t iters, uint32_t launches, float *ms,
                 uint64_t *bytes, int *blocks, int *threads, char *err, size_t errlen);

/* Sustained load: f32 FMA chains at full occupancy, `iters` x 128 FMAs per
 * thread; `launches` back to back, ms[i] each (events); *flops per launch
 * (an FMA counts 2). The HBM-heavy load is gck_stream_run's triad. */
int gck_fma_burn_run(uint32_t iters, uint32_t launches, float *ms, uint64_t *flops,
                     char *err, size_t errlen);

/* Launch overhead. GCK_LAUNCH_BACK_TO_BACK: batch back-to-back launches of
 * an empty kernel, events around the batch, ns[i] = batch time / batch.
 * GCK_LAUNCH_SYNC: host clock around launch + cudaStreamSynchronize, ns[i]
 * one launch. */
typedef enum gck_launch_mode {
    GCK_LAUNCH_BACK_TO_BACK = 0,
    GCK_LAUNCH_SYNC = 1
} gck_launch_mode;
int gck_launch_run(gck_launch_mode mode, uint32_t nsamples, uint32_t batch, double *ns,
                   char *err, size_t errlen);
/* Block churn: `nsamples` event-timed launches of `grid` empty blocks of
 * `threads` threads with `smem_bytes` of (dummy) dynamic shared memory each;
 * ns[i] = one launch; *resident_per_sm = blocks an SM holds at once. */
int gck_block_churn_run(uint32_t nsamples, uint32_t grid, int threads, size_t smem_bytes,
                        int *resident_per_sm, double *ns, char *err, size_t errlen);

/* ------------------------------------------------------------------------
 * Validation suite: the kernels of kernels/valid_table.h (row r
 * in GCV_TABLE's order), see kernels/valid.cu. setup allocates and initialises
 * the row's buffers, sizes the launch (occupancy rows: dummy dynamic shared
 * memory for the row's warps per SM, checked), runs one warm-up launch and
 * checks a few of its results; run times `launches` launches (ms[i], CUDA
 * events); free releases everything. clock: the SM clock now (MHz), one
 * warp timing %clock64 against %globaltimer for 50 us. */
typedef struct gck_valid {
    int row;
    int grid, threads, sms;
    size_t smem;                /* dynamic shared memory per block */
    int blocks_per_sm;          /* resident blocks per SM (occupancy API) */
    void *x, *y;                /* inputs, outputs (chase: buffer, cursors) */
    uint32_t *perm;             /* chase: the cycle's order */
    void *e0, *e1;              /* events */
} gck_valid;
int gck_valid_setup(gck_valid *v, int r, char *err, size_t errlen);
int gck_valid_run(gck_valid *v, uint32_t launches, float *ms, char *err, size_t errlen);
int gck_valid_clock(gck_scratch *s, double *mhz, char *err, size_t errlen);
void gck_valid_free(gck_valid *v);
/* Held-out kernels (kernels/heldout.cu): timed like the suite's
 * (gck_valid_clock, gck_valid_free serve them too), never fitted. i in
 * 0 .. gck_held_count() - 1; name NULL outside. setup sizes, allocates,
 * initialises and runs one warm-up launch; v->row is the held-out index. */
int gck_held_count(void);
const char *gck_held_name(int i);
int gck_held_setup(gck_valid *v, int i, char *err, size_t errlen);
int gck_held_run(gck_valid *v, uint32_t launches, float *ms, char *err, size_t errlen);
/* Memory-level parallelism (kernels/mlp.cu): mode INFLIGHT (R coalesced
 * loads per warp round), SCATTER_LOAD scattered loads, SCATTER_STORE a
 * transpose's scattered stores, GATHER (each lane chases its own random
 * chain of lines), INFLIGHT_SYNC as INFLIGHT with a block barrier ending
 * each round (256-thread blocks), INFLIGHT_COPY as INFLIGHT with as many
 * stores as loads, over bytes (a power of two) of buf from word base_words
 * on; warps_per_sm 1..64, requests 1/2/4/8, iters rounds. *cycles: median
 * over warps of SM cycles per round. ONESHOT_SYNC and ONESHOT: one-shot
 * blocks of requests warps (1..32; load, [barrier,] store), 64 warps per
 * SM, iters blocks per block slot; *cycles: the mean over blocks of the
 * block's span minus its warps' mean life without barrier waits. */
#define GCK_MLP_MODES(X)                                                                  \
    X(GCK_MLP_INFLIGHT, "inflight") X(GCK_MLP_SCATTER_LOAD, "scatter_load")               \
    X(GCK_MLP_SCATTER_STORE, "scatter_store") X(GCK_MLP_GATHER, "gather")                 \
    X(GCK_MLP_INFLIGHT_SYNC, "inflight_sync") X(GCK_MLP_INFLIGHT_COPY, "inflight_copy")   \
    X(GCK_MLP_ONESHOT_SYNC, "oneshot_sync") X(GCK_MLP_ONESHOT, "oneshot")
typedef enum gck_mlp_mode {
    GCK_MLP_MODES(GCK_ENUM_ID)
    GCK_MLP_NMODES
} gck_mlp_mode;
int gck_mlp_run(gck_scratch *s, void *buf, size_t bytes, gck_mlp_mode mode, int warps_per_sm,
                int requests, int sms, uint32_t iters, uint64_t base_words, double *cycles,
                char *err, size_t errlen);


/* ------------------------------------------------------------------------
 * Transfers: host<->device, GPU<->GPU of a node, network staging.
 * One gck_xfer per rank keeps streams, events and buffers across items
 * (zero it before first use; gck_xfer_free releases everything). */
#define GCK_XFER_MAX_CHUNK 128     /* samples per gck_xfer_run / gck_p2p_run */
#define GCK_IPC_HANDLE_BYTES 64    /* cudaIpcMemHandle_t */
typedef struct gck_xfer_rt gck_xfer_rt;
typedef struct gck_xfer {
    int dev, sm_count;
    int pageable_access;           /* kernels may touch pageable memory (HMM/ATS) */
    gck_xfer_rt *rt;               /* streams and events */
    int *flag, *flag_dev;          /* spin flag (mapped pinned) */
    void *d_buf;                   /* device: source half and destination half */
    size_t d_bytes;
    void *h_pin, *h_pin_dev;       /* mapped pinned host and its device address */
    size_t pin_bytes;
    void *h_page;                  /* pageable host (malloc, touched) */
    size_t page_bytes;
    void *p2p_local;               /* exported with CUDA IPC */
    size_t p2p_bytes;
    void *p2p_remote;              /* the peer's buffer, opened */
    size_t remote_bytes;
    char remote_handle[GCK_IPC_HANDLE_BYTES];
    void *staged_buf;              /* own buffer on the peer device (peer access off) */
    int staged_dev;
    size_t staged_bytes;
} gck_xfer;
/* Grow the buffers for copies of `bytes` (pinned, or pageable). */
int gck_xfer_reserve(gck_xfer *x, size_t bytes, int pageable, char *err, size_t errlen);
/* Host memory the caller allocated (e.g. bound to one NUMA node), pinned
 * and mapped for the GPU: *dev is the GPU's address of it. */
int gck_host_register(void *p, size_t bytes, void **dev, char *err, size_t errlen);
void gck_host_unregister(void *p);
/* dir: h2d, d2h, or both at once on two streams; sm: a kernel copies
 * through mapped pinned memory instead of the copy engine. ns[i] = time of
 * one copy (both: of one pair of copies, to the later one's end), averaged
 * over `batch` copies queued back to back behind a spin kernel (pageable
 * copy-engine copies: host clock around synchronous copies). nsamples <=
 * GCK_XFER_MAX_CHUNK. Both ways on pinned memory by the copy engines, each
 * direction copies a second batch after its timed one (the tail, untimed:
 * 2 x batch copies a stream), so each timed batch ran wholly beside the
 * other direction's copies (nvbandwidth's both-ways figure).
 * ns_dir (both ways, events timing; NULL: not wanted): 2 x nsamples, the
 * h2d and the d2h copies' own times from their common start.
 * *spin_timeouts counts chunks whose spin kernel gave up waiting. */
#define GCK_XFER_DIRS(X) X(GCK_XFER_H2D, "h2d") X(GCK_XFER_D2H, "d2h") X(GCK_XFER_BOTH, "bidir")
typedef enum gck_xfer_dir {
    GCK_XFER_DIRS(GCK_ENUM_ID)
    GCK_XFER_NDIRS
} gck_xfer_dir;
int gck_xfer_run(gck_xfer *x, gck_xfer_dir dir, int pageable, int sm, size_t bytes,
                 uint32_t nsamples, uint32_t batch, double *ns, double *ns_dir, int *spin_timeouts,
                 char *err, size_t errlen);
/* Keep the host link busy (copies queued both ways) while the caller reads
 * the trained PCIe state; end waits for them. */
int gck_xfer_busy_begin(gck_xfer *x, size_t bytes, uint32_t copies, char *err, size_t errlen);
int gck_xfer_busy_end(gck_xfer *x, char *err, size_t errlen);
/* Peer to peer: the local buffer (2 x bytes, grown) and its IPC handle;
 * open a peer's handle (cached while the handle is the same); copies of
 * this GPU's first half into the peer's second half, with peer access
 * (the IPC buffer), or staged (cudaMemcpyPeer to this process's own buffer
 * on the peer device, without peer access between the two; timed with the
 * host clock, as these copies block the host); nsamples 0 only prepares
 * buffers. One direction per call: both ways at once is both ranks calling
 * it together. hold (may be NULL) is called once with ok = 1 when the
 * chunk is queued and nothing has run yet (0: this side failed); it
 * returns non-zero when the other side failed. Used by the caller to
 * start both ranks' chunks together. */
typedef int (*gck_hold_fn)(void *ctx, int ok);
int gck_p2p_local(gck_xfer *x, size_t bytes, void *handle, char *err, size_t errlen);
int gck_p2p_open(gck_xfer *x, const void *handle, size_t peer_bytes, char *err, size_t errlen);
int gck_p2p_can_access(int dev, int peer, int *can);
int gck_p2p_run(gck_xfer *x, int peer_dev, int peer_access, size_t bytes, uint32_t nsamples,
                uint32_t batch, double *ns, int *spin_timeouts, gck_hold_fn hold,
                void *hold_ctx, char *err, size_t errlen);
/* Network staging: device buffer <-> pinned host buffer (*host), synchronous. */
int gck_stage(gck_xfer *x, int to_host, size_t bytes, void **host, char *err, size_t errlen);
void gck_xfer_free(gck_xfer *x);

#ifdef __cplusplus
}
#endif

#endif
