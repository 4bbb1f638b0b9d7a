/* Kernel descriptions (docs/kernel-description.md): what one launch of a
 * kernel executes per warp, in the terms both performance models need.
 * Parsed from a libconfig file (`gpucensus predict`, configs/kernels/) or
 * from an embedded text (the validation suite, kdesc_embed.h).
 *
 * Parsing is strict, like plans: unknown keys, wrong types and values out
 * of range are errors "FILE:LINE: kernel.key.path: message". */
#ifndef GC_KDESC_H
#define GC_KDESC_H

#include <stddef.h>

#include "util/err.h"

/* Instruction classes of `insts` (per warp, global memory excluded). */
enum {
    GC_KD_FP32 = 0, GC_KD_FP64, GC_KD_INT, GC_KD_SFU, GC_KD_CONV, GC_KD_SMEM,
    GC_KD_CONTROL, GC_KD_OTHER, GC_KD_NCLASS
};
/* Latency classes of `critical_path`. */
enum { GC_CP_FP32 = 0, GC_CP_FP64, GC_CP_INT, GC_CP_SFU, GC_CP_SMEM, GC_CP_GMEM, GC_CP_NCLASS };

extern const char *const gc_kd_class_names[GC_KD_NCLASS];
extern const char *const gc_cp_class_names[GC_CP_NCLASS];

#define GC_KD_MAX_MEM 16
#define GC_KD_SECTOR_BYTES 32.0

typedef struct gc_kdesc_mem {
    int is_store;
    double count;              /* warp instructions per warp */
    double bytes_per_thread;   /* 1, 2, 4, 8 or 16 */
    double sectors_per_inst;   /* 32-byte sectors one warp instruction touches */
    double lines_per_inst;     /* 128-byte lines they lie in (optional key; default
                                  ceil(sectors / 4): contiguous sectors) */
    double dram_ratio;         /* share of those sectors' bytes that reach DRAM (optional
                                * key, (0, 1], default 1: a profile's DRAM bytes over its
                                * L2 sectors; the rest hit the L2) */
    double l1_hit_ratio;       /* share of a load's sectors that hit in L1 (optional key,
                                * [0, 1], default 0: a profile's L1 lookup hits over its
                                * load sectors); spread loads' LSU cost by it */
} gc_kdesc_mem;

typedef struct gc_kdesc {
    char file[256];            /* where it was read from (errors, reports) */
    char name[48], origin[16], arch[16], source_sha256[65], tool[128];
    long long grid_blocks;
    int block_threads, registers_per_thread;
    long long smem_static_bytes, smem_dynamic_bytes;
    double insts[GC_KD_NCLASS];
    int nmem;
    gc_kdesc_mem mem[GC_KD_MAX_MEM];
    double syncs;
    double smem_wavefronts;    /* shared-memory wavefronts per warp (optional key: each
                                * access's bank-conflict ways, a profile's; default
                                * insts.smem, conflict-free) */
    double critical_path[GC_CP_NCLASS];
} gc_kdesc;

/* Read and validate a description file. */
int gc_kdesc_load(const char *path, gc_kdesc *d, gc_err *err);
/* The same from a text; `file` names it in errors. */
int gc_kdesc_parse(const char *file, const char *text, gc_kdesc *d, gc_err *err);

/* Derived counts, all per warp. */
/* The fewest sectors an access of this width can touch: ceil(32 * b / 32). */
double gc_kdesc_min_sectors(const gc_kdesc_mem *m);
int gc_kdesc_mem_coalesced(const gc_kdesc_mem *m);
double gc_kdesc_mem_insts(const gc_kdesc *d);          /* global memory instructions */
double gc_kdesc_total_insts(const gc_kdesc *d);        /* all classes + global memory */
/* DRAM bytes moved per warp (sectors x 32), loads and stores. */
double gc_kdesc_dram_bytes(const gc_kdesc *d, double *load_bytes, double *store_bytes);
/* The same when an isolated sector costs fetch_bytes of DRAM traffic (the
 * measured dram_fetch_granularity_bytes): per 128-byte line, the larger of
 * its sectors' bytes and fetch_bytes. fetch_bytes <= 32 or NAN: as
 * gc_kdesc_dram_bytes. */
double gc_kdesc_dram_traffic(const gc_kdesc *d, double fetch_bytes, double *load_bytes,
                             double *store_bytes);

#endif
