/* The validation suite's kernels (kernels/valid.cu): one row each, the
 * single source of truth for the kernel's name, its launch shape and the
 * access pattern of its global memory instructions. Included by valid.cu
 * (kernel pointers), by the host driver (src/bench/cuda_valid.c) and read
 * by tools/kdesc.py, which writes the kernel descriptions
 * (docs/kernel-description.md) from the compiled SASS plus this table.
 * Keep each row on one line and its fields plain (tools/kdesc.py parses
 * them: strings, identifiers, integers, `a << b`, `a * b`).
 *
 * Columns of GCV(name, fn, family, k, threads, elements, blocks_per_sm, trips, mem):
 *   name          the description's name and the `valid` bench's `kernel`
 *   fn            the __global__ function (extern "C": its SASS name)
 *   family        GCV_SAXPY (k = FMAs per element), GCV_OCC (k = warps per
 *                 SM, reached with dummy dynamic shared memory),
 *                 GCV_STRIDE (k = element stride of the load),
 *                 GCV_CHASE (k = dependent loads per thread)
 *   threads       threads per block
 *   elements      threads in the grid (grid = elements / threads), or 0
 *                 with blocks_per_sm > 0: grid = blocks_per_sm x SMs
 *   trips         0: straight-line SASS; n > 0: its one loop runs n times
 *   mem           per warp: "op COUNTxBYTES SECTORSsec; ..." for each group
 *                 of global memory instructions: op load|store, COUNT
 *                 instructions, BYTES per thread each, SECTORS 32-byte
 *                 sectors one warp instruction touches, optionally followed
 *                 by "Llines": the 128-byte lines they lie in, when they are
 *                 isolated (default: contiguous, ceil(SECTORS / 4)); DRAM
 *                 moves more than 32 bytes for an isolated sector. kdesc.py checks the
 *                 counts per (op, bytes) against the SASS.
 *
 * Dynamic shared memory of GCV_OCC rows (the only ones that have it):
 * b = k * 32 / threads blocks must fit per SM and b + 1 must not:
 *   smem = floor(smem_per_sm / b / 128) * 128 - reserved_per_block
 * from the device at run time; descriptions hold the sm_90 value (H100 and
 * H200: 233472 bytes per SM, 1024 reserved per block). GCV_CHASE's
 * descriptions hold the sm_90 grid of 132 SMs (H100/H200 SXM); the
 * measured point's context says the grid it really ran. */
#ifndef GCV_VALID_TABLE_H
#define GCV_VALID_TABLE_H

#define GCV_SAXPY 0
#define GCV_OCC 1
#define GCV_STRIDE 2
#define GCV_CHASE 3

#define GCV_SM90_SMS 132
#define GCV_SM90_SMEM_PER_SM 233472
#define GCV_SM90_SMEM_RESERVED 1024
#define GCV_OCC_A 16                  /* FMAs per element of the occupancy kernel */
#define GCV_CHASE_BYTES (1ull << 30)  /* DRAM-resident random cycle */
#define GCV_CHASE_LINE 128            /* one element per 128-byte line */
#define GCV_CHASE_LOADS 1024          /* dependent loads per lane (chase_dram's k) */

/* Rows: name, fn, family, k, threads, elements, blocks_per_sm, trips, mem */
#define GCV_TABLE(GCV) \
GCV("saxpy_a1",    gcv_saxpy_a1,    GCV_SAXPY,  1,    256, 128 << 20, 0, 0, "load 2x4B 4sec; store 1x4B 4sec") \
GCV("saxpy_a4",    gcv_saxpy_a4,    GCV_SAXPY,  4,    256, 128 << 20, 0, 0, "load 2x4B 4sec; store 1x4B 4sec") \
GCV("saxpy_a16",   gcv_saxpy_a16,   GCV_SAXPY,  16,   256, 128 << 20, 0, 0, "load 2x4B 4sec; store 1x4B 4sec") \
GCV("saxpy_a64",   gcv_saxpy_a64,   GCV_SAXPY,  64,   256, 128 << 20, 0, 0, "load 2x4B 4sec; store 1x4B 4sec") \
GCV("saxpy_a256",  gcv_saxpy_a256,  GCV_SAXPY,  256,  256, 32 << 20,  0, 0, "load 2x4B 4sec; store 1x4B 4sec") \
GCV("saxpy_a1024", gcv_saxpy_a1024, GCV_SAXPY,  1024, 256, 8 << 20,   0, 0, "load 2x4B 4sec; store 1x4B 4sec") \
GCV("saxpy_a4096", gcv_saxpy_a4096, GCV_SAXPY,  4096, 256, 2 << 20,   0, 0, "load 2x4B 4sec; store 1x4B 4sec") \
GCV("occ_w2",      gcv_occ,         GCV_OCC,    2,    64,  8 << 20,   0, 0, "load 2x4B 4sec; store 1x4B 4sec") \
GCV("occ_w4",      gcv_occ,         GCV_OCC,    4,    64,  16 << 20,  0, 0, "load 2x4B 4sec; store 1x4B 4sec") \
GCV("occ_w8",      gcv_occ,         GCV_OCC,    8,    64,  32 << 20,  0, 0, "load 2x4B 4sec; store 1x4B 4sec") \
GCV("occ_w16",     gcv_occ,         GCV_OCC,    16,   64,  64 << 20,  0, 0, "load 2x4B 4sec; store 1x4B 4sec") \
GCV("occ_w32",     gcv_occ,         GCV_OCC,    32,   64,  128 << 20, 0, 0, "load 2x4B 4sec; store 1x4B 4sec") \
GCV("occ_w64",     gcv_occ,         GCV_OCC,    64,   64,  128 << 20, 0, 0, "load 2x4B 4sec; store 1x4B 4sec") \
GCV("stride_s1",   gcv_stride_s1,   GCV_STRIDE, 1,    256, 128 << 20, 0, 0, "load 1x4B 4sec; store 1x4B 4sec") \
GCV("stride_s2",   gcv_stride_s2,   GCV_STRIDE, 2,    256, 128 << 20, 0, 0, "load 1x4B 8sec; store 1x4B 4sec") \
GCV("stride_s4",   gcv_stride_s4,   GCV_STRIDE, 4,    256, 64 << 20,  0, 0, "load 1x4B 16sec; store 1x4B 4sec") \
GCV("stride_s8",   gcv_stride_s8,   GCV_STRIDE, 8,    256, 32 << 20,  0, 0, "load 1x4B 32sec; store 1x4B 4sec") \
GCV("stride_s32",  gcv_stride_s32,  GCV_STRIDE, 32,   256, 32 << 20,  0, 0, "load 1x4B 32sec 32lines; store 1x4B 4sec") \
GCV("chase_dram",  gcv_chase_dram,  GCV_CHASE,  GCV_CHASE_LOADS, 32,  0,         1, 0, "load 1x8B 8sec; load 1024x8B 32sec 32lines; store 1x8B 8sec")

#endif
