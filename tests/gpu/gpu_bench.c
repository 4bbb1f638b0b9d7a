/* Standalone driver of the cuda backend, without MPI or a plan file: runs a
 * fixed list of work items on GPU 0, prints one line per point (median,
 * p5, p95, count, flags) and, with --check, asserts the Hopper ranges of
 * issue 3. Exit 77 (skipped) when no GPU is visible or, with --check, when
 * the GPU is not a Hopper (compute capability 9.x).
 *   gpu_bench [--quick] [--check] [--only BENCH] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "measure/backend.h"
#include "plan/plan.h"
#include "../unit/check.h"


#define KiB 1024.0
#define MiB (1024.0 * KiB)
#define GiB (1024.0 * MiB)

typedef struct kv { const char *k; const char *s; double v; } kv;
typedef struct row { const char *bench; kv p[3]; uint32_t samples, reps; int quick; } row;

#define N(k, v) { k, NULL, v }
#define S(k, s) { k, s, 0 }

static const row rows[] = {
    /* chase footprint sweep */
    { "chase", { N("footprint_bytes", 4 * KiB) }, 500, 2, 1 },
    { "chase", { N("footprint_bytes", 16 * KiB) }, 500, 2, 0 },
    { "chase", { N("footprint_bytes", 64 * KiB) }, 500, 2, 0 },
    { "chase", { N("footprint_bytes", 192 * KiB) }, 500, 2, 0 },
    { "chase", { N("footprint_bytes", 512 * KiB) }, 500, 2, 0 },
    { "chase", { N("footprint_bytes", 2 * MiB) }, 500, 2, 1 },
    { "chase", { N("footprint_bytes", 8 * MiB) }, 500, 2, 0 },
    { "chase", { N("footprint_bytes", 16 * MiB) }, 500, 2, 0 },
    { "chase", { N("footprint_bytes", 32 * MiB) }, 500, 2, 0 },
    { "chase", { N("footprint_bytes", 48 * MiB) }, 500, 2, 0 },
    { "chase", { N("footprint_bytes", 64 * MiB) }, 500, 2, 0 },
    { "chase", { N("footprint_bytes", 128 * MiB) }, 500, 2, 0 },
    { "chase", { N("footprint_bytes", 256 * MiB) }, 500, 2, 1 },
    { "chase", { N("footprint_bytes", 64 * MiB), N("line_bytes", 2 * MiB), S("order", "page") }, 200, 1, 0 },
    { "chase", { N("footprint_bytes", 1 * GiB), N("line_bytes", 2 * MiB), S("order", "page") }, 200, 1, 0 },
    { "chase", { N("footprint_bytes", 8 * GiB), N("line_bytes", 2 * MiB), S("order", "page") }, 200, 1, 0 },
    /* loaded latency */
    { "chase_loaded", { N("footprint_bytes", 1 * GiB), N("warps_per_sm", 1) }, 2000, 1, 1 },
    { "chase_loaded", { N("footprint_bytes", 1 * GiB), N("warps_per_sm", 4) }, 2000, 1, 0 },
    { "chase_loaded", { N("footprint_bytes", 1 * GiB), N("warps_per_sm", 16) }, 2000, 1, 0 },
    { "chase_loaded", { N("footprint_bytes", 1 * GiB), N("warps_per_sm", 64) }, 2000, 1, 1 },
    { "chase_loaded", { N("footprint_bytes", 16 * MiB), N("warps_per_sm", 1) }, 2000, 1, 0 },
    { "chase_loaded", { N("footprint_bytes", 16 * MiB), N("warps_per_sm", 16) }, 2000, 1, 0 },
    { "chase_loaded", { N("footprint_bytes", 16 * MiB), N("warps_per_sm", 64) }, 2000, 1, 0 },
    /* departure */
    { "departure", { S("access", "coalesced"), N("requests", 1) }, 200, 1, 1 },
    { "departure", { S("access", "coalesced"), N("requests", 8) }, 200, 1, 0 },
    { "departure", { S("access", "coalesced"), N("requests", 32) }, 200, 1, 0 },
    { "departure", { S("access", "coalesced"), N("requests", 128) }, 200, 1, 1 },
    { "departure", { S("access", "uncoalesced"), N("requests", 1) }, 200, 1, 1 },
    { "departure", { S("access", "uncoalesced"), N("requests", 8) }, 200, 1, 0 },
    { "departure", { S("access", "uncoalesced"), N("requests", 32) }, 200, 1, 1 },
    /* instructions */
#define LAT(op) { "inst", { S("op", op), S("mode", "latency"), N("ilp", 1) }, 300, 1, 1 }
#define TP(op, i) { "inst", { S("op", op), S("mode", "throughput"), N("ilp", i) }, 500, 1, 0 }
    LAT("f32_add"), LAT("f32_mul"), LAT("f32_fma"), LAT("f32_div"), LAT("f32_sqrt"),
    LAT("f64_add"), LAT("f64_fma"), LAT("f64_div"), LAT("i32_add"), LAT("i32_mul"),
    LAT("i32_div"), LAT("sfu_sin"), LAT("sfu_exp"), LAT("smem_ld"),
    { "inst", { S("op", "f32_fma"), S("mode", "latency"), N("ilp", 2) }, 300, 1, 0 },
    { "inst", { S("op", "f32_fma"), S("mode", "latency"), N("ilp", 4) }, 300, 1, 0 },
    { "inst", { S("op", "f32_fma"), S("mode", "latency"), N("ilp", 8) }, 300, 1, 0 },
    TP("f32_fma", 1), TP("f32_fma", 4), TP("f32_fma", 8), TP("f32_add", 4), TP("f64_fma", 4),
    TP("f32_div", 4), TP("f64_div", 4), TP("i32_add", 4), TP("i32_mul", 4), TP("i32_div", 4),
    TP("sfu_sin", 4), TP("sfu_exp", 4), TP("smem_ld", 4), TP("f32_sqrt", 4), TP("f64_add", 4),
    TP("f32_mul", 4),
    /* bandwidth */
#define HBM(k, b, q) { "hbm_bw", { S("kernel", k), N("footprint_bytes", 2 * GiB), N("blocks_per_sm", b) }, 20, 1, q }
    HBM("read", 4, 0), HBM("write", 4, 0), HBM("copy", 2, 1), HBM("copy", 4, 0), HBM("copy", 8, 0),
    HBM("triad", 2, 1), HBM("triad", 4, 0), HBM("triad", 8, 0), HBM("read", 8, 0), HBM("write", 8, 0),
    { "l2_bw", { N("footprint_bytes", 8 * MiB) }, 20, 1, 0 },
    { "l2_bw", { N("footprint_bytes", 16 * MiB) }, 20, 1, 1 },
    { "smem_bw", { N("stride_words", 1) }, 10, 1, 1 },
    { "smem_bw", { N("stride_words", 2) }, 10, 1, 0 },
    { "smem_bw", { N("stride_words", 32) }, 10, 1, 1 },
    { "launch", { S("mode", "back_to_back") }, 200, 1, 1 },
    { "launch", { S("mode", "launch_sync") }, 1000, 1, 1 },
    { "xfer", { S("direction", "h2d") }, 10, 1, 1 },
};

static double median_of(const gc_gpu *g, size_t from, const char *metric)
{
    for (size_t i = from; i < g->npoints; i++)
        if (strcmp(g->points[i].metric, metric) == 0) {
            gc_summary s;
            gc_point_summary(&g->points[i], &s);
            return s.p50;
        }
    return NAN;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    int quick = 0, check = 0;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--check"))
            check = 1;
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
    }
    gc_err err = { 0 };
    uint32_t sub_bits = 0;
    gc_hist_sub_bits_for(0.005, &sub_bits, &err);
    gc_backend_args a = { .node = "local", .local_index = 0, .local_size = 1, .sub_bits = sub_bits };
    gc_backend *b = NULL;
    gc_gpu_info info;
    double t0 = gc_now_s();
    if (gc_backend_cuda.open(&a, &b, &info, &err)) {
        if (strstr(err.msg, "no GPU")) {
            printf("SKIP: %s\n", err.msg);
            return 77;
        }
        fprintf(stderr, "open: %s\n", err.msg);
        return 1;
    }
    printf("GPU %s cc %d.%d, %d SMs, L2 %llu, mem %.0f MHz x %d bits, SM %.0f MHz, driver %s, ecc %d\n",
           info.name, info.cc_major, info.cc_minor, info.sm_count, (unsigned long long)info.l2_bytes,
           info.mem_clock_mhz, info.bus_width_bits, info.sm_clock_mhz, info.driver_version,
           info.ecc_enabled);
    double theo = info.mem_clock_mhz * 1e6 * info.bus_width_bits / 8 * 2;
    gc_conditions cond;
    gc_backend_cuda.conditions(b, &cond);
    printf("conditions valid %d: sm %.0f MHz mem %.0f MHz %.0f C %.0f W reasons 0x%llx ecc %lld/%lld\n",
           cond.valid, cond.sm_clock_mhz, cond.mem_clock_mhz, cond.temperature_c, cond.power_w,
           (unsigned long long)cond.throttle_reasons, (long long)cond.ecc_corrected,
           (long long)cond.ecc_uncorrected);
    gc_gpu g;
    gc_gpu_init(&g);
    double l1 = NAN, dram = NAN, fma = NAN, best_bw = 0;
    size_t nrows = sizeof rows / sizeof rows[0];
    for (size_t r = 0; r < nrows; r++) {
        const row *w = &rows[r];
        if ((quick && !w->quick) || (only && strcmp(only, w->bench)))
            continue;
        gc_bench_spec spec;
        memset(&spec, 0, sizeof spec);
        snprintf(spec.name, sizeof spec.name, "%s", w->bench);
        snprintf(spec.label, sizeof spec.label, "%s", w->bench);
        spec.def = gc_bench_find(w->bench);
        spec.samples = w->samples;
        spec.repetitions = w->reps;
        spec.budget_s = 10;
        gc_item it;
        memset(&it, 0, sizeof it);
        it.id = (uint32_t)r;
        it.spec = &spec;
        for (int k = 0; k < 3 && w->p[k].k; k++) {
            if (w->p[k].s)
                gc_ctx_set_str(&it.params, w->p[k].k, w->p[k].s);
            else
                gc_ctx_set_num(&it.params, w->p[k].k, w->p[k].v);
        }
        gc_task task = { .item = &it, .peer_local_index = -1, .peer_rank = -1,
                         .deadline_s = gc_now_s() + 30 };
        size_t from = g.npoints;
        double ts = gc_now_s();
        int rc = gc_backend_cuda.measure(b, &task, &g, &err);
        double dt = gc_now_s() - ts;
        char params[160] = "";
        for (int k = 0; k < it.params.n; k++) {
            char one[64];
            const gc_ctxv *v = &it.params.v[k];
            if (v->is_str)
                snprintf(one, sizeof one, "%s=%s ", v->key, v->str);
            else
                snprintf(one, sizeof one, "%s=%.0f ", v->key, v->num);
            strncat(params, one, sizeof params - strlen(params) - 1);
        }
        if (rc) {
            printf("%-12s %s-> error %d: %s (%.2fs)\n", w->bench, params, rc, err.msg, dt);
            if (!strcmp(w->bench, "xfer"))
                CHECK(rc == GC_EUNSUPPORTED && strstr(err.msg, "not implemented"), "xfer refusal: %s", err.msg);
            else
                CHECK(rc == 0, "%s failed: %s", w->bench, err.msg);
            continue;
        }
        for (size_t i = from; i < g.npoints; i++) {
            gc_summary s;
            gc_point_summary(&g.points[i], &s);
            const gc_ctxv *clk = gc_ctx_get(&g.points[i].ctx, "sm_clock_mhz_measured");
            printf("%-12s %s%-11s p50 %12.4g p5 %12.4g p95 %12.4g n %6llu %s flags %u%s (%.2fs)\n",
                   w->bench, params, g.points[i].metric, s.p50, s.p5, s.p95,
                   (unsigned long long)s.count, g.points[i].unit, g.points[i].flags,
                   clk ? " clk-measured" : "", dt);
            if (clk)
                printf("             measured SM clock %.0f MHz\n", clk->num);
        }
        const gc_ctx *pc = &it.params;
        if (!strcmp(w->bench, "chase") && !strcmp(gc_ctx_str(pc, "order", "random"), "random")) {
            double fp = gc_ctx_num(pc, "footprint_bytes", 0);
            if (fp == 4 * KiB)
                l1 = median_of(&g, from, "latency");
            if (fp == 256 * MiB)
                dram = median_of(&g, from, "latency");
        }
        if (!strcmp(w->bench, "inst") && !strcmp(gc_ctx_str(pc, "op", ""), "f32_fma") &&
            !strcmp(gc_ctx_str(pc, "mode", ""), "latency") && gc_ctx_num(pc, "ilp", 0) == 1)
            fma = median_of(&g, from, "latency");
        if (!strcmp(w->bench, "hbm_bw") && (!strcmp(gc_ctx_str(pc, "kernel", ""), "copy") ||
                                            !strcmp(gc_ctx_str(pc, "kernel", ""), "triad"))) {
            double bw = median_of(&g, from, "bandwidth");
            if (bw > best_bw)
                best_bw = bw;
        }
    }
    double total = gc_now_s() - t0;
    printf("SUMMARY l1 %.2f cycles, dram(256MiB) %.2f cycles, f32 fma chain %.2f cycles, "
           "best copy/triad %.4g B/s = %.1f%% of theoretical %.4g B/s; wall %.1f s\n",
           l1, dram, fma, best_bw, 100 * best_bw / theo, theo, total);
    gc_backend_cuda.close(b);
    gc_gpu_free(&g);
    if (check) {
        if (info.cc_major != 9) {
            printf("SKIP: range checks are for Hopper (cc 9.x), this is %d.%d\n", info.cc_major, info.cc_minor);
            return 77;
        }
        CHECK(l1 >= 28 && l1 <= 42, "L1 latency %.2f cycles outside 28..42", l1);
        if (!quick || !isnan(dram))
            CHECK(dram >= 500 && dram <= 800, "DRAM latency %.2f cycles outside 500..800", dram);
        CHECK(fma >= 3 && fma <= 5, "f32 fma chain %.2f cycles outside 3..5", fma);
        CHECK(best_bw >= 0.8 * theo, "copy/triad %.4g B/s below 80%% of %.4g", best_bw, theo);
        CHECK(total <= (quick ? 15 : 60), "wall %.1f s over budget", total);
        CHECK_DONE();
    }
    return check_failed ? 1 : 0;
}
