/* The kernel-time models and what feeds them:
 *   - kernel descriptions: a good one parses, bad ones fail with
 *     FILE:LINE: key.path errors;
 *   - occupancy: cases worked by hand with the CUDA occupancy calculator's
 *     rules for sm_90 (registers per warp in units of 256 within 4
 *     sub-partitions, 1 KiB reserved shared memory per block, 32 blocks);
 *   - model parameters fitted from synthetic points with known values
 *     (derive.c, then model_hw.c): Mem_LD, departure delays (uncoalesced
 *     per transaction = slope / 32), Issue_cycles, Freq (measured clock),
 *     bandwidths, launch floor;
 *   - MWP-CWP: the three cases of Hong & Kim and the synchronisation cost
 *     against the paper's equations evaluated by hand here;
 *   - Little's law: document 001's eq. 4.1-4.6 by hand, the regime rule;
 *   - validation: lambda, leave-one-out calibration, errors per regime;
 *   - the sim ground truth behaves (monotone, and is neither model). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "analyze/derive.h"
#include "census/kdesc.h"
#include "census/kdesc_set.h"
#include "analyze/model_hw.h"
#include "analyze/model_little.h"
#include "analyze/model_mwp.h"
#include "census/occupancy.h"
#include "measure/sim/sim_valid.h"
#include "analyze/validate.h"

static double rel(double a, double b) { return fabs(a - b) / fabs(b); }

static const char *const good =
    "# a saxpy\n"
    "kernel = {\n"
    "  name = \"saxpy_t\";\n"
    "  origin = \"hand\";\n"
    "  grid_blocks = 1024L;\n"
    "  block_threads = 256;\n"
    "  registers_per_thread = 16;\n"
    "  insts = { fp32 = 16; int = 8; control = 2; other = 3; };\n"
    "  mem = (\n"
    "    { op = \"load\"; count = 2; bytes_per_thread = 4; sectors_per_inst = 4; },\n"
    "    { op = \"store\"; count = 1; bytes_per_thread = 4; sectors_per_inst = 4; }\n"
    "  );\n"
    "  critical_path = { fp32 = 16; int = 2; gmem = 1; };\n"
    "};\n";

/* good with the line "  <key> = ..." replaced (or added at the end) */
static int parse_with(const char *key, const char *line, gc_err *e)
{
    char buf[2048], *o = buf;
    const char *s = good;
    int done = 0, skip = 0;
    while (*s) {
        const char *nl = strchr(s, '\n');
        size_t n = (size_t)(nl - s + 1);
        char k[64];
        snprintf(k, sizeof k, "  %s =", key);
        if (skip) {   /* the rest of a multi-line setting replaced */
            skip = strncmp(s, "  );", 4) != 0;
        } else if (!done && strncmp(s, k, strlen(k)) == 0) {
            o += sprintf(o, "%s\n", line);
            done = 1;
            skip = !strcmp(key, "mem");
        } else if (!done && strncmp(s, "};", 2) == 0) {
            o += sprintf(o, "%s\n", line);
            memcpy(o, s, n);
            o += n;
            done = 1;
        } else {
            memcpy(o, s, n);
            o += n;
        }
        s += n;
    }
    *o = '\0';
    gc_kdesc d;
    memset(e, 0, sizeof *e);
    return gc_kdesc_parse("t.cfg", buf, &d, e);
}

static void test_kdesc(void)
{
    gc_kdesc d;
    gc_err e = { 0 };
    CHECK(gc_kdesc_parse("t.cfg", good, &d, &e) == 0, "good: %s", e.msg);
    CHECK(d.grid_blocks == 1024 && d.block_threads == 256 && d.registers_per_thread == 16, "shape");
    CHECK(d.insts[GC_KD_FP32] == 16 && d.insts[GC_KD_FP64] == 0 && d.nmem == 2, "counts");
    CHECK(gc_kdesc_total_insts(&d) == 32, "total %g", gc_kdesc_total_insts(&d));
    double lb, sb;
    CHECK(gc_kdesc_dram_bytes(&d, &lb, &sb) == 384 && lb == 256 && sb == 128, "bytes");
    CHECK(gc_kdesc_mem_coalesced(&d.mem[0]), "coalesced");
    CHECK(d.mem[0].lines_per_inst == 1, "lines default: contiguous");
    /* DRAM traffic with a 64-byte fetch unit: 32 sectors in 8 lines (a
     * stride of 8 words) move 1024 bytes, in 32 lines (stride 32) 2048 */
    gc_kdesc t = d;
    t.nmem = 1;
    t.mem[0] = (gc_kdesc_mem){ 0, 1, 4, 32, 8, 1, 0 };
    CHECK(gc_kdesc_dram_traffic(&t, 64, NULL, NULL) == 1024, "contiguous sectors %g",
          gc_kdesc_dram_traffic(&t, 64, NULL, NULL));
    t.mem[0].lines_per_inst = 32;
    CHECK(gc_kdesc_dram_traffic(&t, 64, NULL, NULL) == 2048, "isolated sectors %g",
          gc_kdesc_dram_traffic(&t, 64, NULL, NULL));
    CHECK(gc_kdesc_dram_traffic(&t, NAN, NULL, NULL) == 1024, "no fetch granularity: sectors");
    t.mem[0] = (gc_kdesc_mem){ 0, 1, 4, 4, 1, 1, 0 };
    CHECK(gc_kdesc_dram_traffic(&t, 64, NULL, NULL) == 128, "a coalesced line");
    CHECK(gc_kdesc_dram_traffic(&t, 77, NULL, NULL) == 128,
          "a coalesced line costs its bytes, whatever an isolated sector costs");
    t.mem[0] = (gc_kdesc_mem){ 0, 1, 4, 32, 32, 1, 0 };
    CHECK(rel(gc_kdesc_dram_traffic(&t, 76.7, NULL, NULL), 32 * 76.7) < 1e-12,
          "isolated sectors at a measured 76.7 bytes each");

    static const struct { const char *key, *line, *want; } bad[] = {
        { "block_threads", "  block_threads = 2048;", "t.cfg:6: kernel.block_threads: 2048 out of range" },
        { "registers_per_thread", "  registers_per_thread = \"16\";",
          "t.cfg:7: kernel.registers_per_thread: expected a number, got a string" },
        { "origin", "  origin = \"guess\";", "t.cfg:4: kernel.origin: \"guess\": expected \"sass\", \"profile\" or \"hand\"" },
        { "zzz", "  threads = 5;", "t.cfg:14: kernel.threads: unknown setting" },
        { "insts", "  insts = { fp32 = 16; fp16 = 2; };", "t.cfg:8: kernel.insts.fp16: unknown setting" },
        { "insts", "  insts = { fp32 = -1; };", "t.cfg:8: kernel.insts.fp32: -1 out of range" },
        { "grid_blocks", "  grid_blocks = 1.5;", "t.cfg:5: kernel.grid_blocks: 1.5: expected a whole number" },
        { "mem", "  mem = ( { op = \"load\"; count = 1; bytes_per_thread = 4; sectors_per_inst = 2; } );",
          "t.cfg:9: kernel.mem.[0].sectors_per_inst: 2: a warp moving 4 bytes per thread touches at least 4 sectors" },
        { "mem", "  mem = ( { op = \"read\"; count = 1; bytes_per_thread = 4; sectors_per_inst = 4; } );",
          "t.cfg:9: kernel.mem.[0].op: \"read\": expected \"load\" or \"store\"" },
        { "mem", "  mem = ( { op = \"load\"; count = 1; bytes_per_thread = 3; sectors_per_inst = 4; } );",
          "t.cfg:9: kernel.mem.[0].bytes_per_thread: 3: expected 1, 2, 4, 8 or 16" },
        { "mem", "  mem = ( { op = \"load\"; count = 1; sectors_per_inst = 4; } );",
          "t.cfg:9: kernel.mem.[0].bytes_per_thread: missing required setting" },
        { "critical_path", "  critical_path = 3;", "t.cfg:13: kernel.critical_path: expected a group" },
        { "mem", "  mem = ( { op = \"load\"; count = 1; bytes_per_thread = 4; sectors_per_inst = 32; lines_per_inst = 4; } );",
          "t.cfg:9: kernel.mem.[0].lines_per_inst: 4: 32 sectors lie in 8 to 32 lines of 128 bytes" },
        { "name", "  name = \"a b\";", "t.cfg:3: kernel.name: \"a b\": letters, digits" },
        { "name", "  name = = 5;", "t.cfg:3: syntax error" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = parse_with(bad[i].key, bad[i].line, &e);
        CHECK(rc == GC_EINVAL && strncmp(e.msg, bad[i].want, strlen(bad[i].want)) == 0,
              "case %zu: got \"%s\", want \"%s...\"", i, e.msg, bad[i].want);
    }
    CHECK(gc_kdesc_parse("e.cfg", "kernel = { name = \"x\"; };", &d, &e) == GC_EINVAL &&
              strstr(e.msg, "e.cfg:1: kernel.origin: missing required setting"), "missing: %s", e.msg);
    CHECK(gc_kdesc_parse("e.cfg", "other = 1;", &d, &e) == GC_EINVAL &&
              strstr(e.msg, "e.cfg:1: other: unknown setting"), "top: %s", e.msg);
    CHECK(gc_kdesc_load("/nonexistent/k.cfg", &d, &e) == GC_EIO &&
              strstr(e.msg, "/nonexistent/k.cfg: cannot open"), "open: %s", e.msg);
}

static gc_gpu_info h100_info(void)
{
    gc_gpu_info in;
    memset(&in, 0, sizeof in);
    in.cc_major = 9;
    in.cc_minor = 0;
    in.sm_count = 132;
    in.cores_per_sm = 128;
    in.warp_size = 32;
    in.max_threads_per_sm = 2048;
    in.regs_per_sm = 65536;
    in.smem_per_sm_bytes = 233472;
    in.l2_bytes = 50u << 20;
    in.sm_clock_mhz = 1980;
    return in;
}

static void test_occupancy(void)
{
    gc_gpu_info in = h100_info();
    gc_occ_limits l;
    gc_occ_limits_of(&in, &l);
    CHECK(l.max_warps_per_sm == 64 && l.max_blocks_per_sm == 32 && l.sub_partitions == 4, "limits");
    static const struct { int threads, regs; long long smem; int blocks, warps; const char *lim; } c[] = {
        { 256, 10, 0, 8, 64, "warps" },          /* 512 regs/warp: 128 warps by registers */
        { 256, 64, 0, 4, 32, "registers" },      /* 2048/warp: 8 per sub-partition */
        { 96, 40, 0, 16, 48, "registers" },      /* 1280/warp: 12 per sub-partition (not 51/3 = 17) */
        { 128, 16, 49152, 4, 16, "shared memory" },  /* 50176 per block with the reserved 1 KiB */
        { 32, 16, 0, 32, 32, "blocks" },         /* 32 block slots */
        { 1024, 64, 0, 1, 32, "registers" },     /* 65536 registers: exactly one block */
        { 64, 10, 232448, 1, 2, "shared memory" },   /* occ_w2 of the validation suite */
        { 64, 10, 37888, 6, 12, "shared memory" },   /* occ_w12-like: floor(233472/6/128)*128 - 1024 */
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        gc_occ o;
        gc_err e = { 0 };
        int rc = gc_occupancy(&l, c[i].threads, c[i].regs, c[i].smem, &o, &e);
        CHECK(rc == 0 && o.blocks_per_sm == c[i].blocks && o.warps_per_sm == c[i].warps &&
                  !strcmp(o.limiter, c[i].lim),
              "case %zu: rc %d %s, %d blocks %d warps by %s", i, rc, e.msg, o.blocks_per_sm,
              o.warps_per_sm, o.limiter ? o.limiter : "-");
    }
    gc_occ o;
    gc_err e = { 0 };
    CHECK(gc_occupancy(&l, 1024, 65, 0, &o, &e) == GC_EINVAL && strstr(e.msg, "registers per block"),
          "too many registers: %s", e.msg);
    CHECK(gc_occupancy(&l, 128, 16, 232449, &o, &e) == GC_EINVAL, "too much shared memory");
    CHECK(gc_occupancy(&l, 1025, 16, 0, &o, &e) == GC_EINVAL, "too many threads");
}

/* ---- synthetic measurements -> derived parameters -> model parameters ---- */

static void pt(gc_gpu *g, const char *bench, const char *metric, const char *unit, gc_ctx *c,
               double v)
{
    gc_ctx_set_num(c, "sm_clock_mhz_measured", 1755);
    gc_point *p = gc_gpu_add_point(g, (uint32_t)g->npoints, bench, c, metric, unit, 1000, 12);
    gc_hist_record_n(&p->hist, (uint64_t)llround(v * 1000), 5);
    p->status = GC_PT_OK;
}

static void synthetic_gpu(gc_gpu *g)
{
    gc_gpu_init(g);
    g->info = h100_info();
    static const double fp[3] = { 16384, 4194304, 268435456 }, lat[3] = { 32, 270, 650 };
    for (int i = 0; i < 3; i++) {
        gc_ctx c = { 0 };
        gc_ctx_set_num(&c, "footprint_bytes", fp[i]);
        gc_ctx_set_str(&c, "order", "random");
        pt(g, "chase", "latency", "cycles", &c, lat[i]);
    }
    for (int k = 1; k <= 32; k *= 2) {
        gc_ctx c = { 0 };
        gc_ctx_set_str(&c, "access", "coalesced");
        gc_ctx_set_num(&c, "requests", k);
        pt(g, "departure", "completion", "cycles", &c, 650 + (k - 1) * 12.8);
        gc_ctx u = { 0 };
        gc_ctx_set_str(&u, "access", "uncoalesced");
        gc_ctx_set_num(&u, "requests", k);
        pt(g, "departure", "completion", "cycles", &u, 650 + (k - 1) * 53.76);
    }
    static const char *const ops[] = { "f32_fma", "f64_fma", "i32_add", "sfu_sin", "smem_ld" };
    static const double thr[] = { 128, 64, 64, 16, 32 }, il[] = { 4, 8, 4, 22, 23 };
    for (int i = 0; i < 5; i++) {
        gc_ctx c = { 0 };
        gc_ctx_set_str(&c, "op", ops[i]);
        gc_ctx_set_str(&c, "mode", "latency");
        gc_ctx_set_num(&c, "ilp", 1);
        pt(g, "inst", "latency", "cycles", &c, il[i]);
        gc_ctx t = { 0 };
        gc_ctx_set_str(&t, "op", ops[i]);
        gc_ctx_set_str(&t, "mode", "throughput");
        gc_ctx_set_num(&t, "ilp", 4);
        pt(g, "inst", "throughput", "ops_per_cycle_per_sm", &t, thr[i]);
    }
    static const char *const k[] = { "read", "write", "copy", "triad" };
    static const double bw[] = { 4.4e12, 4.2e12, 3.9e12, 3.6e12 };
    for (int i = 0; i < 4; i++) {
        gc_ctx c = { 0 };
        gc_ctx_set_str(&c, "kernel", k[i]);
        gc_point *p = gc_gpu_add_point(g, (uint32_t)g->npoints, "hbm_bw", &c, "bandwidth",
                                       "bytes_per_s", 1, 12);
        gc_hist_record_n(&p->hist, (uint64_t)bw[i], 5);
    }
    gc_ctx l = { 0 };
    gc_ctx_set_str(&l, "mode", "back_to_back");
    pt(g, "launch", "time", "ns", &l, 3000);
    gc_ctx b = { 0 };
    gc_ctx_set_str(&b, "mode", "blocks");
    pt(g, "launch", "block_interval", "ns", &b, 80);
    gc_ctx sp = { 0 };
    gc_ctx_set_str(&sp, "kernel", "sparse");
    gc_point *p = gc_gpu_add_point(g, (uint32_t)g->npoints, "hbm_bw", &sp, "bandwidth", "bytes_per_s", 1, 12);
    gc_hist_record_n(&p->hist, (uint64_t)2.2e12, 5);   /* 4.4e12 / 2: 64-byte fetches */
    gc_derive_params(g);
}

static void test_params(void)
{
    gc_gpu g;
    synthetic_gpu(&g);
    gc_hwp h;
    gc_hwp_from_gpu(&g, &h);
    CHECK(rel(h.v[HW_FREQ_HZ], 1755e6) < 1e-3, "Freq %g: the measured clock, not the maximum", h.v[HW_FREQ_HZ]);
    CHECK(rel(h.v[HW_MEM_LD], 650) < 2e-3, "Mem_LD %g", h.v[HW_MEM_LD]);
    CHECK(rel(h.v[HW_DEP_COAL], 12.8) < 5e-3, "Departure_del_coal %g", h.v[HW_DEP_COAL]);
    CHECK(rel(h.v[HW_DEP_UNCOAL], 53.76 / 32) < 5e-3, "Departure_del_uncoal %g (per transaction)",
          h.v[HW_DEP_UNCOAL]);
    CHECK(rel(h.v[HW_ISSUE_FP32], 32.0 / 128) < 2e-3, "Issue_cycles %g", h.v[HW_ISSUE_FP32]);
    CHECK(rel(h.v[HW_ISSUE_SFU], 2) < 2e-3, "Issue_cycles sfu %g", h.v[HW_ISSUE_SFU]);
    CHECK(rel(h.v[HW_LANES_FP64], 64) < 2e-3 && rel(h.v[HW_LAT_FP64], 8) < 2e-3, "fp64");
    CHECK(rel(h.v[HW_LAT_GMEM], 650) < 2e-3 && rel(h.v[HW_LAT_SMEM], 23) < 2e-3, "latencies");
    CHECK(h.v[HW_SCHEDULERS] == 4 && h.v[HW_SM_COUNT] == 132 && h.v[HW_SIMD_WIDTH] == 128, "props");
    CHECK(rel(h.v[HW_BW_READ], 4.4e12) < 2e-3 && rel(h.v[HW_BW_TRIAD], 3.6e12) < 2e-3, "bandwidth");
    CHECK(rel(h.v[HW_GMEM_BPC], 4.4e12 / (132 * 1755e6)) < 3e-3, "GMem bytes/cycle/SM %g", h.v[HW_GMEM_BPC]);
    CHECK(rel(h.v[HW_LAUNCH_NS], 3000) < 2e-3, "launch floor %g", h.v[HW_LAUNCH_NS]);
    CHECK(rel(h.v[HW_BLOCK_CYCLES], 80 * 1.755) < 3e-3, "block replacement %g cycles", h.v[HW_BLOCK_CYCLES]);
    CHECK(rel(h.v[HW_FETCH_BYTES], 64) < 3e-3, "DRAM fetch granularity %g", h.v[HW_FETCH_BYTES]);
    CHECK(strstr(h.source[HW_DEP_UNCOAL], "departure_uncoal_slope") != NULL, "source: %s",
          h.source[HW_DEP_UNCOAL]);
    /* bandwidth for a mix: read, triad at 1/3 stores, copy at 1/2, write */
    CHECK(rel(gc_hwp_bw_for(&h, 1, 0), 4.4e12) < 2e-3, "read mix");
    CHECK(rel(gc_hwp_bw_for(&h, 2, 1), 3.6e12) < 2e-3, "triad mix");
    CHECK(rel(gc_hwp_bw_for(&h, 3, 1), (4.4e12 + 3.6e12) * 0.5 * 1.0) < 0.01 ||
              rel(gc_hwp_bw_for(&h, 3, 1), 4.4e12 + (3.6e12 - 4.4e12) * 0.75) < 2e-3, "1/4 mix");
    CHECK(rel(gc_hwp_bw_for(&h, 0, 1), 4.2e12) < 2e-3, "write mix");
    gc_gpu_free(&g);
}

/* ---- MWP-CWP by hand ------------------------------------------------------ */

/* The hardware of Hong & Kim's era as parameters: Mem_LD 420, departure
 * delays 4 (coalesced) and 10 (uncoalesced, per transaction), one
 * Issue_cycles 4 for every class, 1 GHz, 16 SMs. */
static void paper_hw(gc_hwp *h, double bw)
{
    for (int i = 0; i < HW_N; i++)
        h->v[i] = NAN;
    h->v[HW_FREQ_HZ] = 1e9;
    h->v[HW_SM_COUNT] = 16;
    h->v[HW_WARP_SIZE] = 32;
    h->v[HW_MEM_LD] = 420;
    h->v[HW_DEP_COAL] = 4;
    h->v[HW_DEP_UNCOAL] = 10;
    h->v[HW_ISSUE_FP32] = 4;
    h->v[HW_BW_READ] = h->v[HW_BW_WRITE] = h->v[HW_BW_COPY] = h->v[HW_BW_TRIAD] = bw;
    h->v[HW_LAUNCH_NS] = 0;
}

static gc_kdesc paper_kernel(long long grid, double comp, double mem, double sectors, double syncs)
{
    gc_kdesc d;
    memset(&d, 0, sizeof d);
    snprintf(d.name, sizeof d.name, "paper");
    d.grid_blocks = grid;
    d.block_threads = 128;
    d.registers_per_thread = 8;
    d.insts[GC_KD_FP32] = comp;
    d.nmem = 1;
    d.mem[0] = (gc_kdesc_mem){ 0, mem, 4, sectors, ceil(sectors / 4), 1, 0 };
    d.syncs = syncs;
    d.critical_path[GC_CP_FP32] = comp;
    d.critical_path[GC_CP_GMEM] = 1;
    return d;
}

static void mwp_case(const char *what, const gc_hwp *h, const gc_kdesc *d, int want_case,
                     double want_cycles, double want_mwp, double want_cwp)
{
    gc_gpu_info in = h100_info();
    in.sm_count = 16;
    gc_occ_limits lim;
    gc_occ_limits_of(&in, &lim);
    gc_mlaunch l;
    gc_mwp_pred o;
    gc_err e = { 0 };
    CHECK(gc_mlaunch_of(&lim, h, d, &l, &e) == 0, "%s: launch %s", what, e.msg);
    CHECK(gc_mwp_predict(h, &l, d, &o, &e) == 0, "%s: %s", what, e.msg);
    CHECK(o.case_no == want_case, "%s: case %d, want %d", what, o.case_no, want_case);
    CHECK(rel(o.cycles, want_cycles) < 1e-9, "%s: %.6f cycles, want %.6f", what, o.cycles, want_cycles);
    CHECK(rel(o.mwp, want_mwp) < 1e-9 && rel(o.cwp, want_cwp) < 1e-9, "%s: MWP %g CWP %g, want %g %g",
          what, o.mwp, o.cwp, want_mwp, want_cwp);
    CHECK(rel(o.ns, o.cycles) < 1e-12, "%s: ns at 1 GHz without floor", what);
}

static void test_mwp(void)
{
    gc_hwp h;
    paper_hw(&h, 80e9);
    /* 80 blocks of 4 warps on 16 SMs: 5 blocks per SM, N = 20, #Rep = 1;
     * 27 computation + 6 coalesced memory instructions per warp. */
    double mem_l = 420, dd = 4, bw_warp = 1e9 * 128 / mem_l;
    double peak = 80e9 / (bw_warp * 16);          /* MWP_peak_BW = 16.406 */
    double mwp = fmin(fmin(mem_l / dd, peak), 20);
    double comp = 4 * (27 + 6), memc = 420 * 6.0;
    double cwp = fmin((memc + comp) / comp, 20);  /* 20.09 -> 20 */
    gc_kdesc d = paper_kernel(80, 27, 6, 4, 0);
    mwp_case("case 2 (MWP < CWP)", &h, &d, 2, memc * 20 / mwp + comp / 6 * (mwp - 1), mwp, cwp);
    /* + Synch_cost = Departure_delay x (MWP - 1) x #Synch x #Active_blocks x #Rep */
    d = paper_kernel(80, 27, 6, 4, 2);
    mwp_case("case 2 + synch", &h, &d, 2,
             memc * 20 / mwp + comp / 6 * (mwp - 1) + dd * (mwp - 1) * 2 * 5 * 1, mwp, cwp);
    /* 16 blocks: N = 4 = MWP = CWP: case 1 */
    d = paper_kernel(16, 27, 6, 4, 0);
    mwp_case("case 1 (MWP = N = CWP)", &h, &d, 1, memc + comp + comp / 6 * 3, 4, 4);
    /* 64 registers: 8 blocks per SM (N = 32); bandwidth 10x: MWP = 32 >
     * CWP = 20.09 and Comp < Mem: case 3, (Mem_L + Comp x N) x #Rep, with
     * #Rep = 256 / (8 x 16) = 2 */
    paper_hw(&h, 800e9);
    d = paper_kernel(256, 27, 6, 4, 0);
    d.registers_per_thread = 64;
    mwp_case("case 3 (MWP > CWP)", &h, &d, 3, (mem_l + comp * 32) * 2, 32, (memc + comp) / comp);
    /* uncoalesced, 32 transactions: Mem_L_Uncoal = 420 + 31 x 10,
     * Departure_delay = 10 x 32, MWP = Mem_L / Departure_delay = 2.28 */
    paper_hw(&h, 80e9);
    d = paper_kernel(80, 27, 6, 32, 0);
    double lu = 420 + 31 * 10.0, ddu = 320, mu = lu / ddu;
    double mcu = lu * 6, bwu = 1e9 * 1024 / lu, pku = 80e9 / (bwu * 16);
    double mwu = fmin(fmin(mu, pku), 20);
    mwp_case("uncoalesced", &h, &d, 2, mcu * 20 / mwu + comp / 6 * (mwu - 1), mwu,
             fmin((mcu + comp) / comp, 20));
    /* Hopper issue: 4 schedulers, 128 fp32 lanes -> Issue_cycles 0.25;
     * fp64 at 64 lanes -> 0.5 per fp64 instruction */
    paper_hw(&h, 80e9);
    h.v[HW_ISSUE_FP32] = 0.25;
    h.v[HW_ISSUE_FP64] = 0.5;
    d = paper_kernel(80, 27, 6, 4, 0);
    d.insts[GC_KD_FP64] = 10;
    gc_gpu_info in = h100_info();
    in.sm_count = 16;
    gc_occ_limits lim;
    gc_occ_limits_of(&in, &lim);
    gc_mlaunch l;
    gc_mwp_pred o;
    gc_err e = { 0 };
    gc_mlaunch_of(&lim, &h, &d, &l, &e);
    CHECK(gc_mwp_predict(&h, &l, &d, &o, &e) == 0 && rel(o.comp_cycles, 0.25 * 33 + 0.5 * 10) < 1e-12,
          "per-class Comp_cycles %g", o.comp_cycles);
    /* the block scheduler's floor (not in the paper): 80 blocks on 16 SMs
     * at 1e5 cycles per block take at least 5 x 1e5 cycles */
    double free_cycles = o.cycles;
    h.v[HW_BLOCK_CYCLES] = 1e5;
    CHECK(gc_mwp_predict(&h, &l, &d, &o, &e) == 0 && rel(o.cycles, 5e5) < 1e-12 &&
              rel(o.exec_cycles_app + o.synch_cycles, free_cycles) < 1e-12,
          "block floor: %g cycles", o.cycles);
    h.v[HW_BLOCK_CYCLES] = 1;
    CHECK(gc_mwp_predict(&h, &l, &d, &o, &e) == 0 && rel(o.cycles, free_cycles) < 1e-12,
          "a short block interval changes nothing");
    h.v[HW_BLOCK_CYCLES] = NAN;
    /* a missing parameter is an error naming it */
    h.v[HW_DEP_UNCOAL] = NAN;
    CHECK(gc_mwp_predict(&h, &l, &d, &o, &e) == GC_EINVAL && strstr(e.msg, "departure_del_uncoal_cycles"),
          "missing: %s", e.msg);
}

/* ---- Little's law by hand ---------------------------------------------------- */

/* model_little.c's queued latency rate: the root of
 * X (lat + gl x rho / (2 (1 - rho))) = occ, rho = X x cpw_gmem < 1 (the
 * left side grows with X), by bisection. */
static double queued_rate(double occ, double lat, double gl, double cpw_gmem)
{
    double lo = 0, hi = fmin(occ / lat, 1 / cpw_gmem) * (1 - 1e-15);
    for (int i = 0; i < 200; i++) {
        double x = 0.5 * (lo + hi), rho = x * cpw_gmem;
        if (x * (lat + gl * rho / (2 * (1 - rho))) < occ)
            lo = x;
        else
            hi = x;
    }
    return lo;
}

static void test_little(void)
{
    /* document 001's GTX 970 numbers: 13 SMs at 1253 MHz, 128 CUDA cores,
     * 4 schedulers, 13.78 bytes/cycle/SM */
    gc_hwp h;
    for (int i = 0; i < HW_N; i++)
        h.v[i] = NAN;
    h.v[HW_FREQ_HZ] = 1253e6;
    h.v[HW_SM_COUNT] = 13;
    h.v[HW_WARP_SIZE] = 32;
    h.v[HW_LANES_FP32] = 128;
    h.v[HW_SCHEDULERS] = 4;
    h.v[HW_LAT_FP32] = 6;
    h.v[HW_LAT_GMEM] = 350;
    h.v[HW_ISSUE_INTERVAL] = 1;
    h.v[HW_LAUNCH_NS] = 1000;
    double bw = 13.78 * 13 * 1253e6;
    h.v[HW_BW_READ] = h.v[HW_BW_WRITE] = h.v[HW_BW_COPY] = h.v[HW_BW_TRIAD] = bw;
    gc_kdesc d;
    gc_err e = { 0 };
    gc_kdesc_parse("t.cfg", good, &d, &e);
    d.insts[GC_KD_FP32] = 23 + 4 * 16;   /* saxpy2 with a = 16: INS_CUDA = 23 + 4a */
    d.insts[GC_KD_INT] = d.insts[GC_KD_CONTROL] = d.insts[GC_KD_OTHER] = 0;
    gc_gpu_info in = h100_info();
    in.sm_count = 13;
    gc_occ_limits lim;
    gc_occ_limits_of(&in, &lim);
    gc_mlaunch l;
    gc_little_pred o;
    CHECK(gc_mlaunch_of(&lim, &h, &d, &l, &e) == 0, "launch");
    CHECK(gc_little_predict(&h, &l, &d, &o, &e) == 0, "%s", e.msg);
    double cpw_fp32 = 32 * 87 / 128.0, cpw_issue = 90 / 4.0, cpw_gmem = 384 / 13.78;
    double tb = 1 / fmax(cpw_fp32, fmax(cpw_issue, cpw_gmem));
    double lat = fmax(16 * 6 + 2 * 6 + 350, 90);   /* critical path: 16 fp32, 2 int, 1 load */
    CHECK(o.block_cycles == 0, "no block replacement measured");
    /* the path's one load waits rho / (2 (1 - rho)) x 350 cycles more at
     * the DRAM utilisation rho = wt x cpw_gmem the throughput wt gives */
    double wt = fmin(queued_rate(64, lat, 350, cpw_gmem), tb);
    double cycles = 1024 * 8 / (wt * 13);
    CHECK(wt < 1 / cpw_gmem && wt > 0.5 * tb, "queued rate %g of the bound %g", wt, tb);
    CHECK(rel(o.cpw[LT_GMEM], cpw_gmem) < 1e-9 && rel(o.cpw[LT_FP32], cpw_fp32) < 1e-12 &&
              rel(o.cpw[LT_ISSUE], cpw_issue) < 1e-12, "CPW terms");
    CHECK(rel(o.latency_bound_cycles, lat) < 1e-12, "latency bound %g, want %g", o.latency_bound_cycles, lat);
    CHECK(rel(o.cycles, cycles) < 1e-9, "cycles %g, want %g", o.cycles, cycles);
    CHECK(rel(o.ns, cycles / 1253e6 * 1e9 + 1000) < 1e-9, "ns with the floor");
    CHECK(gc_regime_of(&o) == GC_REG_MEMORY, "regime %d", gc_regime_of(&o));
    /* 2 warps per SM (blocks of 64 threads, one per SM): latency-bound */
    d.block_threads = 64;
    d.grid_blocks = 13;
    gc_mlaunch_of(&lim, &h, &d, &l, &e);
    CHECK(gc_little_predict(&h, &l, &d, &o, &e) == 0 && o.latency_limited &&
              gc_regime_of(&o) == GC_REG_LATENCY &&
              rel(o.cycles, 26 / (queued_rate(2, lat, 350, cpw_gmem) * 13)) < 1e-9,
          "latency-bound: %g cycles", o.cycles);
    /* + block replacement (document 001 Table 4.1's latency, measured) */
    h.v[HW_BLOCK_CYCLES] = 150;
    CHECK(gc_little_predict(&h, &l, &d, &o, &e) == 0 && rel(o.latency_bound_cycles, lat + 150) < 1e-12 &&
              rel(o.cycles, 26 / (queued_rate(2, lat + 150, 350, cpw_gmem) * 13)) < 1e-9,
          "block replacement: %g", o.latency_bound_cycles);
    /* many one-warp blocks of little work: the block scheduler bounds it,
     * blocks per SM x interval, and the regime is latency (block replacement) */
    d.grid_blocks = 13 * 1000;
    d.block_threads = 32;
    gc_mlaunch_of(&lim, &h, &d, &l, &e);
    CHECK(gc_little_predict(&h, &l, &d, &o, &e) == 0 && o.cpw_max == LT_BLOCK &&
              rel(o.cycles, 1000 * 150.0) < 1e-9 && gc_regime_of(&o) == GC_REG_LATENCY,
          "block scheduler: %g cycles, term %d", o.cycles, o.cpw_max);
    /* measured with one block per SM, the replacement latency is the latency
     * term; the scheduler's interval stays the throughput term */
    h.v[HW_BLOCK_LAT] = 400;
    CHECK(gc_little_predict(&h, &l, &d, &o, &e) == 0 && o.block_cycles == 400 &&
              o.interval_cycles == 150 && rel(o.cycles, 1000 * 150.0) < 1e-9,
          "replacement latency %g, interval %g", o.block_cycles, o.interval_cycles);
    d.grid_blocks = 13;
    gc_mlaunch_of(&lim, &h, &d, &l, &e);
    CHECK(gc_little_predict(&h, &l, &d, &o, &e) == 0 && rel(o.latency_bound_cycles, lat + 400) < 1e-12,
          "latency bound with the replacement latency: %g", o.latency_bound_cycles);
    h.v[HW_BLOCK_LAT] = NAN;
    h.v[HW_BLOCK_CYCLES] = NAN;
    /* all arithmetic: compute-bound */
    d.grid_blocks = 1024;
    d.block_threads = 256;
    d.nmem = 0;
    d.critical_path[GC_CP_GMEM] = 0;
    gc_mlaunch_of(&lim, &h, &d, &l, &e);
    CHECK(gc_little_predict(&h, &l, &d, &o, &e) == 0 && gc_regime_of(&o) == GC_REG_COMPUTE,
          "compute-bound");
}

/* bench mlp's parameters in Little's law: the latency at the
 * kernel's requests in flight (a fixed point of Little's law for the
 * memory system), the slowest warp's tail, spread accesses, wavefronts */
static void test_little_mlp(void)
{
    gc_hwp h;
    for (int i = 0; i < HW_N; i++)
        h.v[i] = NAN;
    static const double tab[] = { 700, 700, 700, 750, 850, 1300, 2600, 5200 };
    for (int i = 0; i < 8; i++)
        h.v[HW_INFL_N4 + i] = tab[i];
    const char *src = NULL;
    CHECK(rel(gc_hwp_inflight_latency(&h, 64, &src), 850) < 1e-12 && strcmp(src, "dram_inflight_latency_cycles_n64") == 0,
          "n64: %s", src ? src : "-");
    CHECK(gc_hwp_inflight_latency(&h, 2, NULL) == 700, "below the table: its first value");
    CHECK(rel(gc_hwp_inflight_latency(&h, 64 * sqrt(2.0), NULL), sqrt(850.0 * 1300)) < 1e-12,
          "log-log between n64 and n128: %g", gc_hwp_inflight_latency(&h, 64 * sqrt(2.0), NULL));
    CHECK(rel(gc_hwp_inflight_latency(&h, 1024, NULL), 10400) < 1e-12, "past the table: bandwidth");
    h.v[HW_INFL_N4] = NAN;   /* a missing entry: the next one starts the table */
    CHECK(gc_hwp_inflight_latency(&h, 4, NULL) == 700, "n8 as the first");
    h.v[HW_INFL_N4] = 700;
    h.v[HW_FREQ_HZ] = 1980e6;
    h.v[HW_SM_COUNT] = 132;
    h.v[HW_WARP_SIZE] = 32;
    h.v[HW_LANES_FP32] = 128;
    h.v[HW_LANES_SMEM] = 32;
    h.v[HW_SCHEDULERS] = 4;
    h.v[HW_LAT_FP32] = 4;
    h.v[HW_LAT_GMEM] = 690;
    h.v[HW_ISSUE_INTERVAL] = 1;
    h.v[HW_BW_READ] = h.v[HW_BW_WRITE] = h.v[HW_BW_COPY] = h.v[HW_BW_TRIAD] = 3.2e12;
    /* a grid-stride loop: 16 coalesced loads per warp, each waited for
     * before the next (critical_path gmem = 16), nothing else on the path:
     * every warp always has one request in flight, N = 64 */
    gc_kdesc d;
    gc_err e = { 0 };
    CHECK(gc_kdesc_parse("loop.cfg",
                         "kernel = { name = \"loop\"; origin = \"hand\"; grid_blocks = 8192L;\n"
                         "  block_threads = 256; registers_per_thread = 16; insts = { fp32 = 16; int = 16; };\n"
                         "  mem = ( { op = \"load\"; count = 16; bytes_per_thread = 4; sectors_per_inst = 4; } );\n"
                         "  critical_path = { gmem = 16; }; };\n", &d, &e) == 0, "%s", e.msg);
    CHECK(d.smem_wavefronts == 0, "no shared memory, no wavefronts");
    gc_gpu_info in = h100_info();
    gc_occ_limits lim;
    gc_occ_limits_of(&in, &lim);
    gc_mlaunch l;
    gc_little_pred o;
    CHECK(gc_mlaunch_of(&lim, &h, &d, &l, &e) == 0 && l.warps_per_sm == 64, "launch");
    CHECK(gc_little_predict(&h, &l, &d, &o, &e) == 0, "%s", e.msg);
    CHECK(rel(o.inflight_per_sm, 64) < 1e-9 && rel(o.gmem_latency_cycles, 850) < 1e-6 &&
              strcmp(o.gmem_latency_src, "dram_inflight_latency_cycles_n64") == 0,
          "in flight %g, latency %g (%s)", o.inflight_per_sm, o.gmem_latency_cycles, o.gmem_latency_src);
    CHECK(rel(o.latency_bound_cycles, 16 * 850) < 1e-6 && o.dram_wait_cycles == 0 && o.latency_limited,
          "latency bound %g, M/D/1 wait %g", o.latency_bound_cycles, o.dram_wait_cycles);
    CHECK(rel(o.cycles, 8192 * 8 / 132.0 * 16 * 850 / 64) < 1e-6, "cycles %g", o.cycles);
    /* the block of 8 warps leaves with its slowest: the barrier-ended
     * rounds' excess at the same N, log2(8) / 3 = all of it */
    h.v[HW_SYNC_N64] = 950;
    CHECK(gc_little_predict(&h, &l, &d, &o, &e) == 0 && rel(o.gmem_tail_cycles, 100) < 1e-6 &&
              rel(o.latency_bound_cycles, 16 * 850 + 100) < 1e-6,
          "tail %g, bound %g", o.gmem_tail_cycles, o.latency_bound_cycles);
    /* a block replacement of 300 cycles: the warp waits less of its life,
     * fewer requests are in flight: N = 64 x 16 L / (16 L + 300) */
    h.v[HW_BLOCK_LAT] = 300;
    CHECK(gc_little_predict(&h, &l, &d, &o, &e) == 0, "%s", e.msg);
    double L = o.gmem_latency_cycles;
    CHECK(o.inflight_per_sm < 64 && rel(o.inflight_per_sm, 64 * 16 * L / (16 * L + 300)) < 1e-6 &&
              rel(L, gc_hwp_inflight_latency(&h, o.inflight_per_sm, NULL)) < 1e-6,
          "fixed point: N %g, L %g", o.inflight_per_sm, L);
    h.v[HW_BLOCK_LAT] = h.v[HW_SYNC_N64] = NAN;
    /* a transpose's stores (32 sectors, a lane per line): the lsu term at
     * the measured cycles per sector; a misaligned load (5 sectors) is not
     * spread; shared memory by its wavefronts */
    h.v[HW_SCAT_ST] = 3;
    h.v[HW_SCAT_LD] = 1;
    d.nmem = 3;
    d.mem[1] = (gc_kdesc_mem){ 1, 4, 4, 32, 32, 1, 0 };
    d.mem[2] = (gc_kdesc_mem){ 0, 9, 4, 5, 2, 1, 0 };
    d.insts[GC_KD_SMEM] = 175;
    d.smem_wavefronts = 306;
    CHECK(gc_little_predict(&h, &l, &d, &o, &e) == 0 && rel(o.cpw[LT_LSU], 4 * 32 * 3) < 1e-12 &&
              rel(o.cpw[LT_SMEM], 32 * 306 / 32.0) < 1e-12 && o.cpw[LT_L2] == 0,
          "lsu %g, smem %g, l2 %g", o.cpw[LT_LSU], o.cpw[LT_SMEM], o.cpw[LT_L2]);
    /* every sector at the L2 bandwidth: (16 x 4 + 4 x 32 + 9 x 5) x 32 bytes */
    h.v[HW_L2_BPC] = 48;
    CHECK(gc_little_predict(&h, &l, &d, &o, &e) == 0 &&
              rel(o.cpw[LT_L2], (16 * 4 + 4 * 32 + 9 * 5) * 32 / 48.0) < 1e-12,
          "l2 %g", o.cpw[LT_L2]);
    /* spread loads that hit L1 (a profile's share) at the L1-resident cost */
    d.mem[1].is_store = 0;
    d.mem[1].l1_hit_ratio = 0.75;
    h.v[HW_SCAT_LD_L1] = 0.6;
    CHECK(gc_little_predict(&h, &l, &d, &o, &e) == 0 &&
              rel(o.cpw[LT_LSU], 4 * 32 * (0.25 * 1 + 0.75 * 0.6)) < 1e-12,
          "lsu with L1 hits %g", o.cpw[LT_LSU]);
    h.v[HW_SCAT_LD_L1] = NAN;   /* not measured: every sector at the L2-resident cost */
    CHECK(gc_little_predict(&h, &l, &d, &o, &e) == 0 && rel(o.cpw[LT_LSU], 4 * 32 * 1) < 1e-12,
          "lsu without the L1 cost %g", o.cpw[LT_LSU]);
    /* a one-shot block's excess: linear in log2(threads) from 0 at one
     * warp through the measured sizes, the largest one's beyond */
    CHECK(isnan(gc_hwp_oneshot_excess(&h, 256)), "none measured");
    h.v[HW_OSW_T64] = 100;
    h.v[HW_OSW_T256] = 300;
    h.v[HW_OSW_T1024] = 360;
    CHECK(gc_hwp_oneshot_excess(&h, 32) == 0 && rel(gc_hwp_oneshot_excess(&h, 64), 100) < 1e-12 &&
              rel(gc_hwp_oneshot_excess(&h, 128), 200) < 1e-12 &&
              rel(gc_hwp_oneshot_excess(&h, 512), 330) < 1e-12 &&
              rel(gc_hwp_oneshot_excess(&h, 2048), 360) < 1e-12,
          "one-shot excess %g %g %g", gc_hwp_oneshot_excess(&h, 128),
          gc_hwp_oneshot_excess(&h, 512), gc_hwp_oneshot_excess(&h, 2048));
    /* ... on the path of a kernel with a barrier (256 threads: 300); none
     * without one (its warps leave their slots as they end) */
    d.syncs = 1;
    CHECK(gc_little_predict(&h, &l, &d, &o, &e) == 0 && rel(o.gmem_tail_cycles, 300) < 1e-12,
          "barrier excess %g", o.gmem_tail_cycles);
    d.syncs = 0;
    CHECK(gc_little_predict(&h, &l, &d, &o, &e) == 0 && o.gmem_tail_cycles == 0,
          "no barrier %g", o.gmem_tail_cycles);
    /* an older catalogue without bench mlp: the unloaded latency and M/D/1 */
    for (int i = HW_INFL_N4; i <= HW_L2_BPC; i++)
        h.v[i] = NAN;
    CHECK(gc_little_predict(&h, &l, &d, &o, &e) == 0 && o.gmem_latency_cycles == 690 &&
              strcmp(o.gmem_latency_src, "latency_gmem_cycles") == 0 && o.cpw[LT_LSU] == 0 &&
              o.cpw[LT_L2] == 0,
          "fallback: %g %s", o.gmem_latency_cycles, o.gmem_latency_src);
}

/* ---- validation accounting -------------------------------------------------- */

static const char *const vk[] = {
    "kernel = { name = \"k_mem\"; origin = \"hand\"; grid_blocks = 65536L; block_threads = 256;\n"
    "  registers_per_thread = 16; insts = { fp32 = 2; int = 4; };\n"
    "  mem = ( { op = \"load\"; count = 4; bytes_per_thread = 4; sectors_per_inst = 4; } );\n"
    "  critical_path = { fp32 = 2; gmem = 1; }; };\n",
    "kernel = { name = \"k_comp\"; origin = \"hand\"; grid_blocks = 8192L; block_threads = 256;\n"
    "  registers_per_thread = 16; insts = { fp32 = 2048; int = 4; };\n"
    "  mem = ( { op = \"load\"; count = 1; bytes_per_thread = 4; sectors_per_inst = 4; } );\n"
    "  critical_path = { fp32 = 2048; gmem = 1; }; };\n",
    "kernel = { name = \"k_lat\"; origin = \"hand\"; grid_blocks = 132L; block_threads = 32;\n"
    "  registers_per_thread = 16; insts = { int = 4; };\n"
    "  mem = ( { op = \"load\"; count = 256; bytes_per_thread = 8; sectors_per_inst = 32; } );\n"
    "  critical_path = { int = 2; gmem = 256; }; };\n",
};

static void add_valid(gc_gpu *g, const char *kernel, double ns)
{
    gc_ctx c = { 0 };
    gc_ctx_set_str(&c, "kernel", kernel);
    gc_ctx_set_num(&c, "sm_clock_mhz_measured", 1755);
    gc_point *p = gc_gpu_add_point(g, (uint32_t)g->npoints, "valid", &c, "time", "ns", 1000, 14);
    gc_hist_record_n(&p->hist, (uint64_t)llround(ns * 1000), 9);
}

static void test_validate(void)
{
    gc_kdesc_set s;
    memset(&s, 0, sizeof s);
    snprintf(s.origin, sizeof s.origin, "committed");
    for (int i = 0; i < 3; i++) {
        gc_kdesc d;
        gc_err e = { 0 };
        CHECK(gc_kdesc_parse("v.cfg", vk[i], &d, &e) == 0, "%s", e.msg);
        gc_kdesc_set_add(&s, &d);
    }
    gc_gpu g;
    synthetic_gpu(&g);
    /* first pass: the models' own predictions, to build "measurements" */
    gc_models m;
    CHECK(gc_models_compute(&g, &s, &m) == 0 && m.nrows == 0, "no valid points yet");
    gc_models_free(&m);
    add_valid(&g, "k_mem", 1e6);
    add_valid(&g, "k_comp", 1e6);
    add_valid(&g, "k_lat", 1e6);
    add_valid(&g, "k_unknown", 1e6);
    CHECK(gc_models_compute(&g, &s, &m) == 0 && m.nrows == 4, "rows %zu", m.nrows);
    double exec[3][GC_NMODELS];
    int regime[3];
    for (int i = 0; i < 3; i++) {
        CHECK(m.rows[i].ok[0] && m.rows[i].ok[1], "row %d: %s", i, m.rows[i].error);
        for (int k = 0; k < GC_NMODELS; k++)
            exec[i][k] = m.rows[i].exec_ns[k];
        regime[i] = m.rows[i].regime;
    }
    CHECK(regime[0] == GC_REG_MEMORY && regime[1] == GC_REG_COMPUTE && regime[2] == GC_REG_LATENCY,
          "regimes %d %d %d", regime[0], regime[1], regime[2]);
    CHECK(strstr(m.rows[3].error, "no description of kernel \"k_unknown\"") != NULL, "%s", m.rows[3].error);
    gc_models_free(&m);
    /* measured = floor + exec / 0.8 (MWP-CWP) exactly: lambda 0.8 and no
     * calibrated error; Little's law: measured from MWP-CWP's times, so
     * its ratios differ per kernel */
    gc_gpu g2;
    synthetic_gpu(&g2);
    double floor = 3000;
    for (int i = 0; i < 3; i++)
        add_valid(&g2, i == 0 ? "k_mem" : i == 1 ? "k_comp" : "k_lat", floor + exec[i][0] / 0.8);
    CHECK(gc_models_compute(&g2, &s, &m) == 0 && m.nrows == 3, "rows");
    CHECK(rel(m.lambda[GC_M_MWP], 0.8) < 2e-3 && m.lambda_n[GC_M_MWP] == 3, "lambda %g (%d kernels)",
          m.lambda[GC_M_MWP], m.lambda_n[GC_M_MWP]);
    CHECK(m.cal[GC_M_MWP][GC_REG_ALL].n == 3 && m.cal[GC_M_MWP][GC_REG_ALL].max_ape < 3e-3,
          "calibrated error %g", m.cal[GC_M_MWP][GC_REG_ALL].max_ape);
    double raw0 = fabs(floor + exec[0][0] - (floor + exec[0][0] / 0.8)) / (floor + exec[0][0] / 0.8);
    CHECK(m.raw[GC_M_MWP][GC_REG_MEMORY].n == 1 && rel(m.raw[GC_M_MWP][GC_REG_MEMORY].mape, raw0) < 5e-3,
          "raw memory error %g, want %g", m.raw[GC_M_MWP][GC_REG_MEMORY].mape, raw0);
    /* leave one out: each Little row's lambda is the median of the two others' */
    for (int i = 0; i < 3; i++) {
        double r[2];
        int n = 0;
        for (int j = 0; j < 3; j++)
            if (j != i)
                r[n++] = exec[j][1] / (exec[j][0] / 0.8);
        double want = (r[0] + r[1]) / 2;
        CHECK(rel(m.rows[i].loo_lambda[GC_M_LITTLE], want) < 5e-3, "row %d: LOO lambda %g, want %g", i,
              m.rows[i].loo_lambda[GC_M_LITTLE], want);
        CHECK(rel(m.rows[i].cal_ns[GC_M_LITTLE], floor + exec[i][1] / m.rows[i].loo_lambda[GC_M_LITTLE]) < 1e-9,
              "row %d calibrated ns", i);
    }
    CHECK(gc_models_better(&m) && !strcmp(gc_models_better(&m), "mwp_cwp"), "better model");
    gc_models_free(&m);
    /* a kernel no slower than 1.5 floors does not calibrate */
    gc_gpu g3;
    synthetic_gpu(&g3);
    add_valid(&g3, "k_mem", 4000);
    CHECK(gc_models_compute(&g3, &s, &m) == 0 && isnan(m.lambda[0]) && m.lambda_n[0] == 0,
          "lambda from a floor-sized kernel");
    CHECK(rel(m.rows[0].cal_ns[0], m.rows[0].pred_ns[0]) < 1e-12, "uncalibrated: lambda 1");
    gc_models_free(&m);
    gc_gpu_free(&g);
    gc_gpu_free(&g2);
    gc_gpu_free(&g3);
    gc_kdesc_set_free(&s);
}

/* ---- the sim ground truth ------------------------------------------------------ */

static void test_sim_truth(void)
{
    gc_sim_profile p;
    gc_err e = { 0 };
    const char *prof = "configs/sim/h200.cfg";
    if (gc_sim_profile_load(prof, &p, &e)) {
        CHECK(0, "%s", e.msg);
        return;
    }
    gc_kdesc d;
    gc_kdesc_parse("t.cfg", good, &d, &e);
    d.grid_blocks = 1 << 20;
    double t1, t2, t3;
    gc_ctx c = { 0 };
    CHECK(gc_sim_valid_desc(&p, &d, 1, 1, &t1, &c, &e) == 0, "%s", e.msg);
    CHECK(gc_ctx_num(&c, "warps_per_sm", 0) == 64 && gc_ctx_num(&c, "sm_clock_mhz_measured", 0) == 1980,
          "context");
    d.insts[GC_KD_FP32] *= 64;
    gc_sim_valid_desc(&p, &d, 1, 1, &t2, NULL, &e);
    CHECK(t2 > 2 * t1, "more arithmetic, longer: %g vs %g", t2, t1);
    gc_sim_valid_desc(&p, &d, 0.5, 1, &t3, NULL, &e);
    CHECK(t3 > 1.8 * t2, "half the clock: %g vs %g", t3, t2);
    /* neither model: the truth differs from both by > 1% on a mixed kernel */
    gc_kdesc_parse("t.cfg", good, &d, &e);
    gc_gpu g;
    synthetic_gpu(&g);
    gc_hwp h;
    gc_hwp_from_gpu(&g, &h);
    gc_gpu_free(&g);
    gc_sim_valid_desc(&p, &d, 1, 1, &t1, NULL, &e);
    gc_occ_limits lim;
    gc_gpu_info in = h100_info();
    gc_occ_limits_of(&in, &lim);
    gc_mlaunch l;
    gc_mwp_pred mp;
    gc_little_pred lp;
    gc_mlaunch_of(&lim, &h, &d, &l, &e);
    gc_mwp_predict(&h, &l, &d, &mp, &e);
    gc_little_predict(&h, &l, &d, &lp, &e);
    CHECK(rel(mp.ns, t1) > 0.01 && rel(lp.ns, t1) > 0.01, "truth %g, MWP %g, Little %g", t1, mp.ns, lp.ns);
}

int main(int argc, char **argv)
{
    /* tests/run.sh passes the repository root */
    if (argc > 1 && chdir(argv[1]) != 0)
        return perror(argv[1]), 1;
    test_kdesc();
    test_occupancy();
    test_params();
    test_mwp();
    test_little();
    test_little_mlp();
    test_validate();
    test_sim_truth();
    CHECK_DONE();
}
