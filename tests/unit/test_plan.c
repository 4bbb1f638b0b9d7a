/* Plan loader tests: every plan in tests/plans/good must load and expand to
 * exactly the items listed here; every plan in tests/plans/bad must fail
 * with the message its first line promises ("# expect: SUBSTRING"); the
 * shipped configs load and fit their time budgets; SHA-256 matches FIPS
 * 180-2. Usage: test_plan [REPO_ROOT]   (default ".") */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "census/metrics.h"
#include "check.h"
#include "plan/plan.h"
#include "util/sha256.h"

static const char *root = ".";

static void path_in(char *out, size_t n, const char *dir, const char *name)
{
    snprintf(out, n, "%s/%s/%s", root, dir, name);
}

/* ---- sha256 ------------------------------------------------------------- */

static void test_sha256(void)
{
    char hex[65];
    gc_sha256_hex("", 0, hex);
    CHECK(strcmp(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855") == 0,
          "empty: %s", hex);
    gc_sha256_hex("abc", 3, hex);
    CHECK(strcmp(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") == 0,
          "abc: %s", hex);
    const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    gc_sha256_hex(m, strlen(m), hex);
    CHECK(strcmp(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1") == 0,
          "448-bit message: %s", hex);

    /* one million 'a', fed in uneven pieces to exercise buffering */
    gc_sha256 s;
    uint8_t d[32];
    char chunk[997];
    memset(chunk, 'a', sizeof chunk);
    gc_sha256_init(&s);
    size_t left = 1000000;
    for (size_t piece = 1; left > 0; piece = (piece * 7 + 37) % sizeof chunk + 1) {
        size_t take = piece < left ? piece : left;
        gc_sha256_update(&s, chunk, take);
        left -= take;
    }
    gc_sha256_final(&s, d);
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", d[i]);
    CHECK(strcmp(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0") == 0,
          "million a: %s", hex);
}

/* ---- helpers ------------------------------------------------------------ */

static int list_cfgs(const char *dir, struct dirent ***names)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", root, dir);
    return scandir(p, names, NULL, alphasort);
}

static int is_cfg(const char *name)
{
    size_t n = strlen(name);
    return n > 4 && strcmp(name + n - 4, ".cfg") == 0;
}

static double item_num(const gc_item *it, const char *key)
{
    return gc_ctx_num(&it->params, key, NAN);
}

static const char *item_str(const gc_item *it, const char *key)
{
    return gc_ctx_str(&it->params, key, "(none)");
}

/* Items of the benchmark labelled label, as a pointer into items. */
static const gc_item *label_items(const gc_item *items, size_t n, const char *label,
                                  size_t *count)
{
    const gc_item *first = NULL;
    *count = 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(items[i].spec->label, label) == 0) {
            if (!first)
                first = &items[i];
            (*count)++;
        }
    return first;
}

static void check_nums(const gc_item *items, size_t n, const char *label, const char *key,
                       const double *want, size_t nwant)
{
    size_t count;
    const gc_item *it = label_items(items, n, label, &count);
    CHECK(count == nwant, "%s: %zu items, want %zu", label, count, nwant);
    for (size_t i = 0; it && i < count && i < nwant; i++)
        CHECK(item_num(&it[i], key) == want[i], "%s[%zu].%s = %g, want %g", label, i, key,
              item_num(&it[i], key), want[i]);
}

/* ---- good plans: exact expectations -------------------------------------- */

static void good_minimal(const gc_plan *p, const gc_item *it, size_t n)
{
    CHECK(strcmp(p->name, "minimal") == 0, "name %s", p->name);
    CHECK(strcmp(p->output, "results/%t") == 0, "output %s", p->output);
    CHECK(p->precision == 0.01 && p->budget_s == 0.0, "defaults %g %g", p->precision, p->budget_s);
    CHECK(!p->sim.present, "no sim");
    const gc_bench_spec *b = &p->bench[0];
    CHECK(strcmp(b->label, "chase") == 0 && b->phase == GC_PHASE_GPU, "label %s", b->label);
    CHECK(b->samples == 1000 && b->repetitions == 1 && b->budget_s == 10.0,
          "bench defaults %u %u %g", b->samples, b->repetitions, b->budget_s);
    CHECK(b->line == 3, "line %d", b->line);
    CHECK(n == 1 && it[0].id == 0 && it[0].params.n == 3, "params %d", it[0].params.n);
    CHECK(item_num(&it[0], "footprint_bytes") == 65536, "footprint");
    CHECK(item_num(&it[0], "line_bytes") == 128, "line_bytes");
    CHECK(strcmp(item_str(&it[0], "order"), "random") == 0, "order");
}

static void good_ranges(const gc_plan *p, const gc_item *it, size_t n)
{
    (void)p;
    const double octave[] = { 4, 6, 8, 11, 16, 23, 32, 45, 64 };
    const double factor[] = { 128, 256, 512 };
    const double linear[] = { 1, 4, 7, 10 };
    const double mixed[] = { 1024, 2048, 4096, 1000, 3000 };
    const double dedupe[] = { 1, 2, 3, 4 };
    check_nums(it, n, "octave", "size_bytes", octave, 9);
    check_nums(it, n, "factor", "line_bytes", factor, 3);
    check_nums(it, n, "linear", "requests", linear, 4);
    check_nums(it, n, "mixed", "size_bytes", mixed, 5);
    check_nums(it, n, "dedupe", "size_bytes", dedupe, 4);
    size_t count;
    const gc_item *o = label_items(it, n, "octave4", &count);
    CHECK(count == 73, "octave4: %zu points", count);
    if (o && count == 73) {
        CHECK(item_num(&o[0], "footprint_bytes") == 4096, "first");
        CHECK(item_num(&o[1], "footprint_bytes") == 4871, "4096*2^0.25 = 4870.9 -> %g",
              item_num(&o[1], "footprint_bytes"));
        CHECK(item_num(&o[4], "footprint_bytes") == 8192, "octave");
        CHECK(item_num(&o[72], "footprint_bytes") == 1073741824.0, "last inclusive");
        CHECK(o[72].id == 9 + 3 + 4 + 5 + 4 + 72, "id %u", o[72].id);
    }
    const gc_item *x = label_items(it, n, "octave", &count);
    CHECK(x && strcmp(item_str(x, "direction"), "h2d") == 0 &&
          strcmp(item_str(x, "memory"), "pinned") == 0 && x->phase == GC_PHASE_ISOLATED,
          "xfer defaults");
}

static void good_cartesian(const gc_plan *p, const gc_item *it, size_t n)
{
    CHECK(strcmp(p->output, "out/%j/%t-%%") == 0, "output %s", p->output);
    CHECK(p->precision == 0.001 && p->budget_s == 120.5, "top %g %g", p->precision, p->budget_s);
    const gc_bench_spec *b = &p->bench[0];
    CHECK(b->phase == GC_PHASE_CONCURRENT && b->samples == 250 && b->repetitions == 3 &&
          b->budget_s == 1.5, "bench0 settings");
    CHECK(b->naxes == 2 && strcmp(b->axes[0].name, "kernel") == 0, "axes in file order");
    const char *kern[] = { "read", "read", "read", "copy", "copy", "copy" };
    const double bps[] = { 1, 2, 4, 1, 2, 4 };
    for (size_t i = 0; i < 6 && i < n; i++) {
        CHECK(it[i].id == i, "id");
        CHECK(strcmp(item_str(&it[i], "kernel"), kern[i]) == 0, "[%zu] kernel %s", i,
              item_str(&it[i], "kernel"));
        CHECK(item_num(&it[i], "blocks_per_sm") == bps[i], "[%zu] blocks", i);
        CHECK(item_num(&it[i], "footprint_bytes") == 2147483648.0, "[%zu] default footprint", i);
        CHECK(it[i].phase == GC_PHASE_CONCURRENT, "phase");
    }
    CHECK(p->bench[1].samples == 10000000 && p->bench[1].repetitions == 100000 &&
          p->bench[1].budget_s == 3600, "maxima accepted");
    if (n == 9) {
        CHECK(strcmp(item_str(&it[6], "direction"), "d2h") == 0 &&
              strcmp(item_str(&it[7], "direction"), "bidir") == 0 &&
              strcmp(item_str(&it[7], "memory"), "pageable") == 0 &&
              item_num(&it[7], "size_bytes") == 4096, "xfer items");
        CHECK(it[8].phase == GC_PHASE_PAIR && it[8].id == 8 &&
              item_num(&it[8], "size_bytes") == 64.0 * 1024 * 1024, "p2p default");
    }
}

static void good_sim(const gc_plan *p, const gc_item *it, size_t n)
{
    (void)it;
    (void)n;
    const gc_sim_spec *s = &p->sim;
    CHECK(s->present && strcmp(s->profile, "sim/h200.cfg") == 0, "profile %s", s->profile);
    CHECK(s->seed == 12345678901ull && s->nodes == 4096 && s->gpus_per_node == 16, "sim numbers");
    CHECK(s->nfaults == 4, "faults %zu", s->nfaults);
    if (s->nfaults != 4)
        return;
    const gc_fault *f = s->faults;
    CHECK(strcmp(f[0].node, "n2") == 0 && f[0].gpu == 1 && strcmp(f[0].metric, "hbm_bw") == 0 &&
          strcmp(f[0].kind, "scale") == 0 && f[0].factor == 0.9 && f[0].at_item == -1, "fault 0");
    CHECK(f[1].node[0] == '\0' && f[1].gpu == -1 && f[1].factor == 0.25, "fault 1 any gpu");
    CHECK(strcmp(f[2].kind, "crash") == 0 && f[2].at_item == 3 && f[2].metric[0] == '\0', "crash");
    CHECK(strcmp(f[3].kind, "hang") == 0 && f[3].at_item == 0 && f[3].line == 13, "hang line %d",
          f[3].line);
}

static void good_types(const gc_plan *p, const gc_item *it, size_t n)
{
    const double fp[] = { 1048576, 68719476736.0, 4096 };
    check_nums(it, n, "chase_loaded", "footprint_bytes", fp, 3);
    CHECK(n == 4 && item_num(&it[0], "warps_per_sm") == 64 && item_num(&it[3], "ilp") == 8,
          "scalars");
    CHECK(n == 4 && strcmp(item_str(&it[3], "mode"), "throughput") == 0 &&
          strcmp(item_str(&it[3], "op"), "smem_ld") == 0, "strings");
    CHECK(p->sim.present && p->sim.nfaults == 0 && p->sim.seed == 1 && p->sim.nodes == 0,
          "sim defaults (nodes 0: real node names)");
}

typedef struct good_case {
    const char *file;
    size_t items;
    void (*check)(const gc_plan *, const gc_item *, size_t);
} good_case;

static const good_case good_cases[] = {
    { "cartesian.cfg", 9, good_cartesian },
    { "minimal.cfg", 1, good_minimal },
    { "ranges.cfg", 98, good_ranges },
    { "sim.cfg", 1, good_sim },
    { "types.cfg", 4, good_types },
};

static const good_case *find_good(const char *file)
{
    for (size_t i = 0; i < sizeof good_cases / sizeof good_cases[0]; i++)
        if (strcmp(good_cases[i].file, file) == 0)
            return &good_cases[i];
    return NULL;
}

static void test_good_file(const char *name)
{
    char path[512];
    gc_plan plan;
    gc_err err = { 0 };
    gc_item *items = NULL;
    size_t n = 0;
    path_in(path, sizeof path, "tests/plans/good", name);
    int rc = gc_plan_load(path, &plan, &err);
    CHECK(rc == 0, "%s: %s", name, err.msg);
    if (rc)
        return;
    rc = gc_plan_expand(&plan, &items, &n, &err);
    CHECK(rc == 0, "%s expand: %s", name, err.msg);
    const good_case *c = find_good(name);
    CHECK(c != NULL, "%s: no expectations in test_plan.c; add them", name);
    if (!rc && c) {
        CHECK(n == c->items, "%s: %zu items, want %zu", name, n, c->items);
        c->check(&plan, items, n);
    }
    printf("good %-16s %zu items\n", name, n);
    free(items);
    gc_plan_free(&plan);
}

static void test_good(void)
{
    struct dirent **names;
    int n = list_cfgs("tests/plans/good", &names);
    int seen = 0;
    CHECK(n > 0, "cannot list tests/plans/good under %s", root);
    for (int i = 0; i < n; i++) {
        if (is_cfg(names[i]->d_name)) {
            test_good_file(names[i]->d_name);
            seen++;
        }
        free(names[i]);
    }
    if (n > 0)
        free(names);
    CHECK(seen == (int)(sizeof good_cases / sizeof good_cases[0]), "%d good plans found", seen);
}

/* ---- bad plans ---------------------------------------------------------- */

static int read_expect(const char *path, char *out, size_t n)
{
    FILE *f = fopen(path, "r");
    char line[512];
    if (!f)
        return -1;
    char *got = fgets(line, sizeof line, f);
    fclose(f);
    const char *tag = "# expect: ";
    if (!got || strncmp(line, tag, strlen(tag)) != 0)
        return -1;
    snprintf(out, n, "%s", line + strlen(tag));
    out[strcspn(out, "\r\n")] = '\0';
    return 0;
}

static void test_bad_file(const char *name)
{
    char path[512], expect[512];
    gc_plan plan;
    gc_err err = { 0 };
    path_in(path, sizeof path, "tests/plans/bad", name);
    int have = read_expect(path, expect, sizeof expect) == 0;
    CHECK(have, "%s: first line must be '# expect: ...'", name);
    int rc = gc_plan_load(path, &plan, &err);
    CHECK(rc == GC_EINVAL, "%s: loaded (rc %d), should fail", name, rc);
    if (rc == 0) {
        gc_plan_free(&plan);
        return;
    }
    CHECK(strncmp(err.msg, path, strlen(path)) == 0, "%s: message starts with the file: %s",
          name, err.msg);
    CHECK(have && strstr(err.msg, expect) != NULL, "%s:\n   got    %s\n   expect %s", name,
          err.msg, expect);
    CHECK(plan.bench == NULL && plan.nbench == 0 && plan.sim.faults == NULL,
          "%s: plan left allocated after failure", name);
    printf("bad  %s\n     -> %s\n", name, err.msg);
}

static void test_bad(void)
{
    struct dirent **names;
    int n = list_cfgs("tests/plans/bad", &names);
    int seen = 0;
    CHECK(n > 0, "cannot list tests/plans/bad under %s", root);
    for (int i = 0; i < n; i++) {
        if (is_cfg(names[i]->d_name)) {
            test_bad_file(names[i]->d_name);
            seen++;
        }
        free(names[i]);
    }
    if (n > 0)
        free(names);
    CHECK(seen >= 40, "only %d bad plans", seen);
}

static void test_missing_file(void)
{
    gc_plan plan;
    gc_err err = { 0 };
    int rc = gc_plan_load("/nonexistent/dir/plan.cfg", &plan, &err);
    CHECK(rc == GC_EIO, "missing file rc %d", rc);
    CHECK(strstr(err.msg, "/nonexistent/dir/plan.cfg") != NULL, "message names file: %s", err.msg);
}

/* From memory: the same rules, the given name in messages, and bytes that
 * libconfig would read differently from what was hashed are refused. */
static void test_load_mem(void)
{
    gc_plan plan;
    gc_err err = { 0 };
    const char ok[] = "name = \"m\";\nbenchmarks = ( { name = \"net\";\n"
                      "  sweep = { size_bytes = { from = 1; to = 8; factor = 2.0; }; }; } );\n";
    int rc = gc_plan_load_mem("mem.cfg", ok, strlen(ok), &plan, &err);
    CHECK(rc == 0 && strcmp(plan.file, "mem.cfg") == 0 && plan.bench[0].axes[0].n == 4,
          "load_mem: %s", err.msg);
    char hex[65];
    gc_sha256_hex(ok, strlen(ok), hex);
    CHECK(rc == 0 && strcmp(plan.sha256, hex) == 0, "load_mem sha");
    if (rc == 0)
        gc_plan_free(&plan);

    const char nul[] = "name = \"m\";\n\0benchmarks = ();";
    rc = gc_plan_load_mem("mem.cfg", nul, sizeof nul - 1, &plan, &err);
    CHECK(rc == GC_EINVAL && strstr(err.msg, "mem.cfg:2: plan: NUL byte") != NULL, "NUL: %s",
          err.msg);
    const char bad[] = "name = \"m\";\n\nbenchmarks = ( { name = \"net\"; samples = -3; } );";
    rc = gc_plan_load_mem("mem.cfg", bad, strlen(bad), &plan, &err);
    CHECK(rc == GC_EINVAL && strstr(err.msg, "mem.cfg:3: benchmarks.[0].samples: -3 out of range") != NULL,
          "bad: %s", err.msg);
    rc = gc_plan_load_mem("empty.cfg", "", 0, &plan, &err);
    CHECK(rc == GC_EINVAL && strstr(err.msg, "empty.cfg:1: name: missing") != NULL, "empty: %s",
          err.msg);
}

/* ---- shipped configs ---------------------------------------------------- */

/* Seconds of budget per GPU: sum over points of the per-point budget, split
 * into on-device microbenchmarks, transfers (xfer, p2p, net) and sustained
 * load (sustain: it runs its whole duration on purpose). */
static void plan_budget(const gc_plan *p, const gc_item *it, size_t n, double *micro_s,
                        double *xfer_s, double *sustain_s)
{
    *micro_s = *xfer_s = *sustain_s = 0;
    for (size_t i = 0; i < n; i++) {
        const char *b = it[i].spec->name;
        int transfer = !strcmp(b, "xfer") || !strcmp(b, "p2p") || !strcmp(b, "net");
        *(transfer ? xfer_s : !strcmp(b, "sustain") ? sustain_s : micro_s) += it[i].spec->budget_s;
    }
    (void)p;
}

static void test_config(const char *name, double max_micro_s, double max_xfer_s,
                        double max_sustain_s, double max_total_s, int sim_nodes)
{
    char path[512];
    gc_plan plan;
    gc_err err = { 0 };
    gc_item *items = NULL;
    size_t n = 0;
    path_in(path, sizeof path, "configs", name);
    int rc = gc_plan_load(path, &plan, &err);
    CHECK(rc == 0, "%s: %s", name, err.msg);
    if (rc)
        return;
    rc = gc_plan_expand(&plan, &items, &n, &err);
    CHECK(rc == 0 && n > 0, "%s expand: %s", name, err.msg);
    double micro_s, xfer_s, sustain_s;
    plan_budget(&plan, items, n, &micro_s, &xfer_s, &sustain_s);
    CHECK(micro_s <= max_micro_s, "%s: microbenchmark budget %.1f s > %.1f", name, micro_s,
          max_micro_s);
    CHECK(xfer_s <= max_xfer_s, "%s: transfer budget %.1f s > %.1f", name, xfer_s, max_xfer_s);
    CHECK(sustain_s <= max_sustain_s, "%s: sustained-load budget %.1f s > %.1f", name, sustain_s,
          max_sustain_s);
    CHECK(micro_s + xfer_s + sustain_s <= max_total_s && max_total_s <= plan.budget_s,
          "%s: total budget %.1f s > %.1f (plan's cap %.1f s)", name, micro_s + xfer_s + sustain_s,
          max_total_s, plan.budget_s);
    CHECK(plan.sim.present && strcmp(plan.sim.profile, "sim/h100-sxm.cfg") == 0 &&
          plan.sim.nodes == sim_nodes, "%s: sim section", name);
    /* every benchmark of the registry appears */
    for (size_t d = 0; d < gc_bench_ndefs; d++) {
        int found = 0;
        for (size_t b = 0; b < plan.nbench; b++)
            found |= plan.bench[b].def == &gc_bench_defs[d];
        CHECK(found, "%s: no %s benchmark", name, gc_bench_defs[d].name);
    }
    printf("config %-12s %4zu items, %zu benchmarks, budget %.1f s micro + %.1f s transfer, sha256 %.12s\n",
           name, n, plan.nbench, micro_s, xfer_s, plan.sha256);
    free(items);
    gc_plan_free(&plan);
}

static void test_demo_fault(void)
{
    char path[512];
    gc_plan plan;
    gc_err err = { 0 };
    path_in(path, sizeof path, "configs", "demo.cfg");
    if (gc_plan_load(path, &plan, &err) != 0)
        return;   /* reported by test_config */
    CHECK(plan.sim.seed == 42 && plan.sim.gpus_per_node == 4 && plan.sim.nfaults == 1 &&
          strcmp(plan.sim.faults[0].node, "n3") == 0 && plan.sim.faults[0].gpu == 2 &&
          plan.sim.faults[0].factor == 0.85, "demo fault");
    gc_plan_free(&plan);
}

/* The hash is of the file's bytes, and loading twice gives the same items. */
static void test_sha_and_determinism(void)
{
    char path[512];
    path_in(path, sizeof path, "tests/plans/good", "ranges.cfg");
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL, "open %s", path);
    if (!f)
        return;
    char buf[8192];
    size_t len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    char hex[65];
    gc_sha256_hex(buf, len, hex);

    gc_plan a, b;
    gc_err err = { 0 };
    gc_item *ia = NULL, *ib = NULL;
    size_t na = 0, nb = 0;
    if (gc_plan_load(path, &a, &err) || gc_plan_load(path, &b, &err)) {
        CHECK(0, "load: %s", err.msg);
        return;
    }
    CHECK(strcmp(a.sha256, hex) == 0, "plan sha %s, file sha %s", a.sha256, hex);
    CHECK(gc_plan_expand(&a, &ia, &na, &err) == 0 && gc_plan_expand(&b, &ib, &nb, &err) == 0,
          "expand");
    CHECK(na == nb, "same count");
    int same = 1;
    for (size_t i = 0; i < na && i < nb; i++)
        same &= ia[i].id == ib[i].id &&
                memcmp(&ia[i].params, &ib[i].params, sizeof ia[i].params) == 0;
    CHECK(same, "same items twice");
    free(ia);
    free(ib);
    gc_plan_free(&a);
    gc_plan_free(&b);
    gc_plan_free(&a);   /* freeing twice is harmless */
}

/* census/metrics.c: every row names a registry benchmark, once; every
 * benchmark has a row; the valid kernels are the table's 19 and the 13
 * held-out ones. */
static void test_metric_table(void)
{
    for (size_t i = 0; i < gc_metric_ndefs; i++) {
        const gc_metric_def *m = &gc_metric_defs[i];
        CHECK(gc_bench_find(m->bench) != NULL, "metric row %s: no such benchmark", m->bench);
        CHECK(gc_metric_find(m->bench, m->metric) == m, "%s %s: twice", m->bench, m->metric);
        CHECK(m->scale >= 1, "%s %s: scale %g", m->bench, m->metric, m->scale);
    }
    for (size_t d = 0; d < gc_bench_ndefs; d++) {
        int rows = 0;
        for (size_t i = 0; i < gc_metric_ndefs; i++)
            rows += !strcmp(gc_metric_defs[i].bench, gc_bench_defs[d].name);
        CHECK(rows > 0, "%s: no metric row", gc_bench_defs[d].name);
    }
    CHECK(gc_metric_find("chase", "bandwidth") == NULL, "chase has no bandwidth");
    const gc_param_def *k = gc_bench_param(gc_bench_find("valid"), "kernel");
    size_t n = 0, held = 0;
    for (; k && k->choices[n]; n++)
        held += !strncmp(k->choices[n], "held_", 5);
    CHECK(n == 32 && held == 13, "valid kernels: %zu, %zu held out", n, held);
    CHECK(k && !strcmp(k->choices[0], "saxpy_a1") && !strcmp(k->choices[18], "chase_dram"),
          "valid kernels in the table's order");
}

int main(int argc, char **argv)
{
    if (argc > 1)
        root = argv[1];
    test_sha256();
    test_good();
    test_bad();
    test_missing_file();
    test_load_mem();
    test_sha_and_determinism();
    test_config("quick.cfg", 15.0, 15.0, 3.0, 17.5, 1);
    test_config("default.cfg", 65.0, 30.0, 60.0, 130.0, 1);
    test_config("demo.cfg", 15.0, 15.0, 3.0, 17.5, 4);
    test_demo_fault();
    test_metric_table();
    CHECK_DONE();
}
