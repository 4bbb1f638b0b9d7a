/* The sim backend must be right where the rest of the pipeline relies on it:
 * deterministic samples, values near its profile (so fits and detection are
 * tested against known answers), faults that move exactly the GPU and metric
 * they name, budgets, and clear errors for a bad profile. The plan is built
 * in memory; plan.file = configs/quick.cfg makes "sim/h100-sxm.cfg" resolve
 * to configs/sim/h100-sxm.cfg (tests run from the repository root). */
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "measure/backend.h"
#include "check.h"
#include "measure/hostinfo.h"

#define KiB 1024.0
#define MiB (1024.0 * KiB)
#define GiB (1024.0 * MiB)

static gc_fault faults[8];

static void plan_init(gc_plan *plan, uint64_t seed)
{
    memset(plan, 0, sizeof *plan);
    snprintf(plan->file, sizeof plan->file, "configs/quick.cfg");
    snprintf(plan->name, sizeof plan->name, "test_sim");
    plan->sim.present = 1;
    snprintf(plan->sim.profile, sizeof plan->sim.profile, "sim/h100-sxm.cfg");
    plan->sim.seed = seed;
    plan->sim.nodes = 2;
    plan->sim.gpus_per_node = 8;
    plan->sim.faults = faults;
    plan->sim.nfaults = 0;
}

static void add_fault(gc_plan *plan, const char *node, int gpu, const char *metric,
                      const char *kind, double factor, int at_item)
{
    gc_fault *f = &faults[plan->sim.nfaults++];
    memset(f, 0, sizeof *f);
    snprintf(f->node, sizeof f->node, "%s", node);
    f->gpu = gpu;
    snprintf(f->metric, sizeof f->metric, "%s", metric);
    snprintf(f->kind, sizeof f->kind, "%s", kind);
    f->factor = factor;
    f->at_item = at_item;
}

static void spec_init(gc_bench_spec *s, const char *name, uint32_t samples)
{
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", name);
    snprintf(s->label, sizeof s->label, "%s", name);
    s->def = gc_bench_find(name);
    s->phase = s->def->phase;
    s->samples = samples;
    s->repetitions = 4;
}

static uint32_t sub_bits(void)
{
    uint32_t sb = 7;
    gc_hist_sub_bits_for(0.01, &sb, NULL);
    return sb;
}

static gc_backend_args args_for(const gc_plan *plan, int gpu)
{
    gc_backend_args a = { plan, "node000", 0, gpu, 8, gpu, sub_bits(), NULL, NULL, 0 };
    return a;
}

/* Run one item on GPU `gpu` of node000 into *g (initialised here). */
static int run_item(const gc_plan *plan, int gpu, const char *bench, const gc_ctx *params,
                    uint32_t id, double deadline_s, gc_gpu *g)
{
    gc_bench_spec spec;
    spec_init(&spec, bench, 1000);
    gc_item item = { id, &spec, spec.phase, *params };
    gc_task task = { &item, -1, -1, NULL, 1, deadline_s, 0 };
    if (!strcmp(bench, "p2p"))
        task.peer_local_index = gpu == 0 ? 1 : 0;
    gc_backend_args a = args_for(plan, gpu);
    gc_backend *b;
    gc_gpu_info info;
    gc_err err = { 0 };
    gc_gpu_init(g);
    int rc = gc_backend_sim.open(&a, &b, &info, &err);
    if (rc) {
        fprintf(stderr, "open: %s\n", err.msg);
        return rc;
    }
    rc = gc_backend_sim.measure(b, &task, g, &err);
    if (rc)
        fprintf(stderr, "measure: %s\n", err.msg);
    gc_backend_sim.close(b);
    return rc;
}

static gc_summary summary_of(const gc_gpu *g, const char *bench, const char *metric)
{
    gc_summary s;
    memset(&s, 0, sizeof s);
    const gc_point *p = gc_gpu_find_point(g, bench, metric, NULL);
    if (p)
        gc_point_summary(p, &s);
    return s;
}

/* Median of one metric for one item, fresh GPU each time. */
static double median_of(const gc_plan *plan, int gpu, const char *bench, const gc_ctx *params,
                        const char *metric)
{
    gc_gpu g;
    if (run_item(plan, gpu, bench, params, 7, 0, &g))
        return NAN;
    double m = summary_of(&g, bench, metric).p50;
    gc_gpu_free(&g);
    return m;
}

static gc_ctx chase_ctx(double footprint)
{
    gc_ctx c = { 0 };
    gc_ctx_set_num(&c, "footprint_bytes", footprint);
    gc_ctx_set_num(&c, "line_bytes", 128);
    gc_ctx_set_str(&c, "order", "random");
    return c;
}

static gc_ctx xfer_ctx(const char *dir, double size)
{
    gc_ctx c = { 0 };
    gc_ctx_set_str(&c, "direction", dir);
    gc_ctx_set_str(&c, "memory", "pinned");
    gc_ctx_set_str(&c, "engine", "ce");
    gc_ctx_set_num(&c, "size_bytes", size);
    return c;
}

static int near(double v, double want, double rel) { return fabs(v - want) <= rel * want; }

static void test_open_info(void)
{
    gc_plan plan;
    plan_init(&plan, 1);
    gc_backend_args a = args_for(&plan, 3);
    gc_backend *b;
    gc_gpu_info info;
    gc_err err = { 0 };
    int rc = gc_backend_sim.open(&a, &b, &info, &err);
    CHECK(rc == 0, "open: %s", err.msg);
    if (rc)
        return;
    CHECK(strstr(info.name, "(sim)") != NULL, "name %s", info.name);
    CHECK(strncmp(info.uuid, "GPU-51d0", 8) == 0, "uuid %s", info.uuid);
    CHECK(strlen(info.uuid) == 40, "uuid length %zu", strlen(info.uuid));
    CHECK(info.sm_count == 132 && info.cores_per_sm == 128 && info.warp_size == 32, "sm");
    CHECK(info.l2_bytes == 50 * 1024 * 1024ull, "l2 %llu", (unsigned long long)info.l2_bytes);
    CHECK(info.bus_width_bits == 5120, "bus");
    CHECK(strcmp(info.driver_version, "sim") == 0, "driver %s", info.driver_version);
    CHECK(strcmp(info.pci_bus_id, "00000000:5D:00.0") == 0, "bus id %s", info.pci_bus_id);
    CHECK(info.numa_node == 0 && info.local_index == 3, "numa %d", info.numa_node);
    /* 4 switches of 2 GPUs: GPU 3 behind the second */
    CHECK(strcmp(info.pcie_switch, "0000:40:00.0") == 0, "switch %s", info.pcie_switch);
    gc_conditions c;
    gc_backend_sim.conditions(b, &c);
    CHECK(c.valid && c.sm_clock_mhz == 1980 && c.throttle_reasons == 0, "conditions");
    CHECK(c.temperature_c >= 40 && c.temperature_c <= 55, "temperature %g", c.temperature_c);
    CHECK(c.power_w > 250 && c.power_w < 350, "power %g", c.power_w);
    gc_backend_sim.close(b);

    gc_gpu_info other;
    a.local_index = 4;
    rc = gc_backend_sim.open(&a, &b, &other, &err);
    CHECK(rc == 0 && strcmp(other.uuid, info.uuid) != 0, "uuids differ per GPU");
    CHECK(rc == 0 && strcmp(other.pcie_switch, "0000:70:00.0") == 0, "GPU 4's switch %s",
          other.pcie_switch);
    if (!rc)
        gc_backend_sim.close(b);
}

/* The switch above a GPU from its sysfs path (hostinfo.c; the cuda backend's
 * way, tried here on paths as real hosts have them). */
static void test_switch_path(void)
{
    char s[24];
    gc_pcie_switch_of_path("/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:08.0/0000:05:00.0",
                           s, sizeof s);
    CHECK(strcmp(s, "0000:01:00.0") == 0, "one switch: %s", s);
    gc_pcie_switch_of_path("/sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0/0000:18:00.0/"
                           "0000:19:10.0/0000:1b:00.0", s, sizeof s);
    CHECK(strcmp(s, "0000:18:00.0") == 0, "two levels: the nearest switch, %s", s);
    gc_pcie_switch_of_path("/sys/devices/pci0000:00/0000:00:05.0/0000:01:00.0", s, sizeof s);
    CHECK(s[0] == '\0', "on a root port: no switch (%s)", s);
    gc_pcie_switch_of_path("/sys/devices/pci0000:00/0000:00:1e.0", s, sizeof s);
    CHECK(s[0] == '\0', "on the root complex: no switch (%s)", s);
    gc_pcie_switch_of_path("", s, sizeof s);
    CHECK(s[0] == '\0', "empty path");
    gc_pcie_switch("0000:ff:1f.7", s, sizeof s);   /* no such device here */
    CHECK(s[0] == '\0', "absent device: %s", s);
}

static void test_bad_profile(void)
{
    gc_plan plan;
    plan_init(&plan, 1);
    snprintf(plan.sim.profile, sizeof plan.sim.profile, "sim/no-such-gpu.cfg");
    gc_backend_args a = args_for(&plan, 0);
    gc_backend *b = NULL;
    gc_gpu_info info;
    gc_err err = { 0 };
    int rc = gc_backend_sim.open(&a, &b, &info, &err);
    CHECK(rc != 0 && b == NULL, "missing profile must fail");
    CHECK(strstr(err.msg, "configs/sim/no-such-gpu.cfg") != NULL, "message: %s", err.msg);

    char path[] = "/tmp/gc_test_sim_XXXXXX";
    int fd = mkstemp(path);
    const char *bad = "device = {\n  name = \"x\";\n  sm_count = ;\n};\n";
    CHECK(fd >= 0 && write(fd, bad, strlen(bad)) == (ssize_t)strlen(bad), "temp file");
    close(fd);
    snprintf(plan.sim.profile, sizeof plan.sim.profile, "%s", path);
    rc = gc_backend_sim.open(&a, &b, &info, &err);
    char want[64];
    snprintf(want, sizeof want, "%s:3:", path);
    CHECK(rc == GC_EINVAL && strstr(err.msg, want) != NULL, "syntax error message: %s", err.msg);

    const char *missing = "device = { name = \"x\"; };\n";
    fd = open(path, O_WRONLY | O_TRUNC);
    CHECK(fd >= 0 && write(fd, missing, strlen(missing)) == (ssize_t)strlen(missing), "rewrite");
    close(fd);
    rc = gc_backend_sim.open(&a, &b, &info, &err);
    CHECK(rc == GC_EINVAL && strstr(err.msg, "device.cc_major: missing") != NULL,
          "missing key message: %s", err.msg);
    unlink(path);

    plan_init(&plan, 1);
    add_fault(&plan, "", -1, "hbm_bandwidth", "scale", 0.9, -1);
    rc = gc_backend_sim.open(&a, &b, &info, &err);
    CHECK(rc == GC_EINVAL && strstr(err.msg, "hbm_bandwidth") != NULL, "bad fault: %s", err.msg);
}

static void test_determinism(void)
{
    gc_plan p1, p2;
    plan_init(&p1, 11);
    plan_init(&p2, 12);
    gc_ctx c = chase_ctx(8 * MiB);
    gc_gpu a, b, d;
    run_item(&p1, 0, "chase", &c, 5, 0, &a);
    run_item(&p1, 0, "chase", &c, 5, 0, &b);
    run_item(&p2, 0, "chase", &c, 5, 0, &d);
    CHECK(a.npoints == 3 && b.npoints == 3 && d.npoints == 3, "3 points per chase");
    if (a.npoints == 3 && b.npoints == 3 && d.npoints == 3) {
        for (int k = 0; k < 3; k++)
            CHECK(gc_hist_equal(&a.points[k].hist, &b.points[k].hist), "same seed, point %d", k);
        CHECK(!gc_hist_equal(&a.points[0].hist, &d.points[0].hist), "different seed");
        CHECK(a.points[0].hist.total == 1000, "samples %llu",
              (unsigned long long)a.points[0].hist.total);
    }
    gc_gpu_free(&a);
    gc_gpu_free(&b);
    gc_gpu_free(&d);
    /* another GPU or item gives another stream */
    gc_gpu e;
    run_item(&p1, 1, "chase", &c, 5, 0, &e);
    run_item(&p1, 0, "chase", &c, 5, 0, &a);
    CHECK(e.npoints && !gc_hist_equal(&a.points[0].hist, &e.points[0].hist), "per-GPU streams");
    gc_gpu_free(&a);
    gc_gpu_free(&e);
}

static void test_chase_levels(void)
{
    gc_plan plan;
    plan_init(&plan, 3);
    struct { double fp, want; } lv[] = { { 16 * KiB, 34 }, { 8 * MiB, 265 }, { 1 * GiB, 650 } };
    double prev = 0;
    for (int i = 0; i < 3; i++) {
        gc_ctx c = chase_ctx(lv[i].fp);
        double m = median_of(&plan, 0, "chase", &c, "latency");
        CHECK(near(m, lv[i].want, 0.10), "chase %.0f B: median %.1f, want %.0f", lv[i].fp, m,
              lv[i].want);
        CHECK(m > prev, "latency rises with footprint");
        prev = m;
        double ns = median_of(&plan, 0, "chase", &c, "latency_ns");
        CHECK(near(ns, m / 1.98, 0.02), "latency_ns %.1f vs cycles %.1f", ns, m);
    }
    /* page order adds TLB misses beyond the TLB reach */
    gc_ctx c = chase_ctx(1 * GiB);
    gc_ctx_set_num(&c, "line_bytes", 2 * MiB);
    gc_ctx_set_str(&c, "order", "page");
    double page = median_of(&plan, 0, "chase", &c, "latency");
    CHECK(page > 700, "page-order chase over 1 GiB: %.1f", page);
    /* loaded latency rises with warps */
    gc_ctx l1 = { 0 }, l32 = { 0 };
    gc_ctx_set_num(&l1, "footprint_bytes", 1 * GiB);
    gc_ctx_set_num(&l1, "warps_per_sm", 1);
    gc_ctx_set_num(&l32, "footprint_bytes", 1 * GiB);
    gc_ctx_set_num(&l32, "warps_per_sm", 32);
    double a = median_of(&plan, 0, "chase_loaded", &l1, "latency");
    double b = median_of(&plan, 0, "chase_loaded", &l32, "latency");
    CHECK(near(a, 650, 0.1) && b > a + 300, "loaded %.0f -> %.0f", a, b);
}

static gc_ctx hbm_ctx(void)
{
    gc_ctx c = { 0 };
    gc_ctx_set_str(&c, "kernel", "triad");
    gc_ctx_set_num(&c, "footprint_bytes", 2 * GiB);
    gc_ctx_set_num(&c, "blocks_per_sm", 4);
    return c;
}

static void test_hbm_and_fault(void)
{
    gc_plan plan;
    plan_init(&plan, 4);
    gc_ctx c = hbm_ctx();
    double m0 = median_of(&plan, 0, "hbm_bw", &c, "bandwidth");
    CHECK(near(m0, 2.95e12, 0.03), "hbm median %.3g", m0);
    add_fault(&plan, "node000", 1, "hbm_bw", "scale", 0.9, -1);
    double f0 = median_of(&plan, 0, "hbm_bw", &c, "bandwidth");
    double f1 = median_of(&plan, 1, "hbm_bw", &c, "bandwidth");
    CHECK(f0 == m0, "unfaulted GPU unchanged: %.4g vs %.4g", f0, m0);
    CHECK(near(f1 / f0, 0.9, 0.02), "faulted GPU ratio %.3f", f1 / f0);
    plan_init(&plan, 4);
    add_fault(&plan, "node777", -1, "hbm_bw", "scale", 0.5, -1);
    CHECK(median_of(&plan, 1, "hbm_bw", &c, "bandwidth") == m0, "other node's fault ignored");
}

static void test_h200(void)
{
    gc_plan plan;
    plan_init(&plan, 4);
    snprintf(plan.sim.profile, sizeof plan.sim.profile, "sim/h200.cfg");
    gc_backend_args a = args_for(&plan, 0);
    gc_backend *b;
    gc_gpu_info info;
    gc_err err = { 0 };
    int rc = gc_backend_sim.open(&a, &b, &info, &err);
    CHECK(rc == 0, "open h200: %s", err.msg);
    if (rc)
        return;
    gc_backend_sim.close(b);
    CHECK(info.l2_bytes == 60 * 1024 * 1024ull && info.bus_width_bits == 6144, "h200 info");
    CHECK(info.mem_bytes > 140e9, "h200 memory %llu", (unsigned long long)info.mem_bytes);
    gc_ctx c = hbm_ctx();
    double m = median_of(&plan, 0, "hbm_bw", &c, "bandwidth");
    CHECK(near(m, 3.97e12, 0.03), "h200 hbm median %.3g (profile: triad 3.97 TB/s)", m);
}

static void test_xfer(void)
{
    gc_plan plan;
    plan_init(&plan, 5);
    double prev = 0;
    double sizes[] = { 4 * KiB, 256 * KiB, 4 * MiB, 64 * MiB, 256 * MiB };
    for (int i = 0; i < 5; i++) {
        gc_ctx c = xfer_ctx("h2d", sizes[i]);
        double bw = median_of(&plan, 0, "xfer", &c, "bandwidth");
        /* up to the plateau, where histogram buckets (1%) may tie */
        CHECK(i < 4 ? bw > prev : bw >= prev, "bandwidth rises with size: %.0f B -> %.3g",
              sizes[i], bw);
        prev = bw;
    }
    CHECK(near(prev, 53e9, 0.05), "h2d plateau %.3g", prev);
    gc_ctx c = xfer_ctx("h2d", 256 * MiB);
    add_fault(&plan, "", 2, "pcie_width", "scale", 0.5, -1);
    double x8 = median_of(&plan, 2, "xfer", &c, "bandwidth");
    CHECK(near(x8 / prev, 0.5, 0.03), "x8 ratio %.3f", x8 / prev);
    gc_gpu g;
    run_item(&plan, 2, "xfer", &c, 7, 0, &g);
    const gc_point *pt = gc_gpu_find_point(&g, "xfer", "bandwidth", NULL);
    CHECK(pt && gc_ctx_num(&pt->ctx, "pcie_width", 0) == 8, "context pcie_width = 8");
    CHECK(pt && gc_ctx_num(&pt->ctx, "pcie_gen", 0) == 5, "context pcie_gen = 5");
    gc_summary t = summary_of(&g, "xfer", "time");
    CHECK(near(t.p50 * 1e-9, 256 * MiB / x8, 0.02), "time and bandwidth agree");
    gc_gpu_free(&g);
    gc_ctx bi = xfer_ctx("bidir", 256 * MiB);
    double bid = median_of(&plan, 0, "xfer", &bi, "bandwidth");
    CHECK(bid > 1.7 * prev && bid < 2.1 * prev, "bidir counts both directions: %.3g", bid);
}

static void test_bimodal(void)
{
    gc_plan plan;
    plan_init(&plan, 6);
    gc_ctx c = chase_ctx(8 * MiB);
    gc_gpu clean, bad;
    run_item(&plan, 0, "chase", &c, 9, 0, &clean);
    add_fault(&plan, "", 0, "l2_latency", "bimodal", 0.2, -1);
    run_item(&plan, 0, "chase", &c, 9, 0, &bad);
    gc_summary s0 = summary_of(&clean, "chase", "latency");
    gc_summary s1 = summary_of(&bad, "chase", "latency");
    CHECK(near(s1.p95 / s0.p50, 1.6, 0.05), "p95 ratio %.3f", s1.p95 / s0.p50);
    CHECK(near(s1.p5, s0.p5, 0.01), "p5 %.1f vs %.1f", s1.p5, s0.p5);
    gc_gpu_free(&clean);
    gc_gpu_free(&bad);
}

static void test_budget(void)
{
    gc_plan plan;
    plan_init(&plan, 7);
    gc_ctx c = chase_ctx(16 * KiB);
    gc_gpu g;
    run_item(&plan, 0, "chase", &c, 1, gc_now_s() - 1.0, &g);
    CHECK(g.npoints == 3, "points even when out of time");
    for (size_t i = 0; i < g.npoints; i++) {
        CHECK(g.points[i].flags & GC_FLAG_BUDGET_HIT, "budget flag on %s", g.points[i].metric);
        CHECK(g.points[i].hist.total >= 1 && g.points[i].hist.total < 1000, "count %llu",
              (unsigned long long)g.points[i].hist.total);
    }
    gc_gpu_free(&g);
    run_item(&plan, 0, "chase", &c, 1, gc_now_s() + 60, &g);
    CHECK(g.npoints == 3 && !(g.points[0].flags & GC_FLAG_BUDGET_HIT), "no flag in time");
    gc_gpu_free(&g);
}

static void test_pairs_and_clock(void)
{
    gc_plan plan;
    plan_init(&plan, 8);
    gc_ctx c = { 0 };
    gc_ctx_set_str(&c, "direction", "oneway");
    gc_ctx_set_str(&c, "peer_access", "on");
    gc_ctx_set_num(&c, "size_bytes", 256 * MiB);
    double on = median_of(&plan, 0, "p2p", &c, "bandwidth");
    CHECK(near(on, 375e9, 0.05), "p2p %.3g", on);
    add_fault(&plan, "", 1, "nvlink", "scale", 0.5, -1);   /* GPU 0's peer */
    double half = median_of(&plan, 0, "p2p", &c, "bandwidth");
    CHECK(near(half / on, 0.5, 0.03), "a link with half its lanes up, seen from the peer: %.3f",
          half / on);

    /* the non-initiator adds nothing */
    gc_bench_spec spec;
    spec_init(&spec, "p2p", 100);
    gc_item item = { 3, &spec, spec.phase, c };
    gc_task task = { &item, 0, -1, NULL, 0, 0, 0 };
    gc_backend_args a = args_for(&plan, 1);
    gc_backend *b;
    gc_gpu_info info;
    gc_err err = { 0 };
    gc_gpu g;
    gc_gpu_init(&g);
    int rc = gc_backend_sim.open(&a, &b, &info, &err);
    CHECK(rc == 0, "open %s", err.msg);
    if (rc)
        return;
    CHECK(gc_backend_sim.measure(b, &task, &g, &err) == 0 && g.npoints == 0, "non-initiator");
    gc_backend_sim.close(b);
    gc_gpu_free(&g);

    plan_init(&plan, 8);
    add_fault(&plan, "node000", 0, "sm_clock", "scale", 0.75, -1);
    a = args_for(&plan, 0);
    rc = gc_backend_sim.open(&a, &b, &info, &err);
    CHECK(rc == 0, "open %s", err.msg);
    if (rc)
        return;
    gc_conditions cond;
    gc_backend_sim.conditions(b, &cond);
    CHECK(cond.sm_clock_mhz == 1485 && cond.throttle_reasons != 0, "throttled clock %g",
          cond.sm_clock_mhz);
    gc_backend_sim.close(b);
    gc_ctx s1 = { 0 };
    gc_ctx_set_num(&s1, "stride_words", 1);
    double slow = median_of(&plan, 0, "smem_bw", &s1, "bandwidth");
    double fast = median_of(&plan, 1, "smem_bw", &s1, "bandwidth");
    CHECK(near(slow / fast, 0.75, 0.02), "smem bandwidth follows the SM clock: %.3f",
          slow / fast);
    gc_ctx_set_num(&s1, "stride_words", 32);
    CHECK(near(median_of(&plan, 1, "smem_bw", &s1, "bandwidth") / fast, 1.0 / 32, 0.03),
          "stride 32: 32-way bank conflicts");
}

static void test_crash(void)
{
    gc_plan plan;
    plan_init(&plan, 9);
    add_fault(&plan, "node000", 0, "", "crash", 0, 42);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        gc_ctx c = chase_ctx(16 * KiB);
        gc_gpu g;
        run_item(&plan, 0, "chase", &c, 41, 0, &g);   /* not yet */
        run_item(&plan, 0, "chase", &c, 42, 0, &g);
        _exit(0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "crash fault kills with SIGKILL");
}

/* Thousands of points of ~1000 samples each, all kept. The time is printed,
   not asserted: a loaded machine must not fail a unit test (speed is make
   bench's business). */
static void test_speed(void)
{
    gc_plan plan;
    plan_init(&plan, 10);
    gc_bench_spec spec;
    spec_init(&spec, "chase", 1000);
    gc_backend_args a = args_for(&plan, 0);
    gc_backend *b;
    gc_gpu_info info;
    gc_err err = { 0 };
    gc_gpu g;
    gc_gpu_init(&g);
    if (gc_backend_sim.open(&a, &b, &info, &err))
        return;
    double t0 = gc_now_s();
    for (uint32_t i = 0; i < 2000; i++) {
        gc_item item = { i, &spec, spec.phase, chase_ctx(1 * KiB * (1 + i)) };
        gc_task task = { &item, -1, -1, NULL, 1, 0, 0 };
        gc_backend_sim.measure(b, &task, &g, &err);
    }
    double dt = gc_now_s() - t0;
    printf("2000 chase points x 1000 samples x 3 metrics: %.3f s\n", dt);
    CHECK(g.npoints == 6000, "points %zu, want 2000 x 3", g.npoints);
    CHECK(g.npoints > 0 && g.points[g.npoints - 1].hist.total == 1000, "samples of the last point");
    gc_backend_sim.close(b);
    gc_gpu_free(&g);
}

int main(void)
{
    if (access("configs/sim/h100-sxm.cfg", R_OK) != 0) {
        fprintf(stderr, "test_sim: run from the repository root (configs/sim/h100-sxm.cfg)\n");
        return 1;
    }
    test_open_info();
    test_switch_path();
    test_bad_profile();
    test_determinism();
    test_chase_levels();
    test_hbm_and_fault();
    test_h200();
    test_xfer();
    test_bimodal();
    test_budget();
    test_pairs_and_clock();
    test_crash();
    test_speed();
    CHECK_DONE();
}
