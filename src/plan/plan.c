/* Plans: load a libconfig plan, validate every setting against the
 * benchmark registry, and expand it into numbered work items.
 *
 * Why so strict: a plan runs on every GPU of a cluster, often in a batch
 * job that waits hours in a queue. A typo found after the job started costs
 * the whole allocation, so loading rejects anything it does not understand
 * (unknown keys, wrong types, out-of-range values, sweeps that yield nothing)
 * and says where: "FILE:LINE: key.path: message". The SHA-256 of the file's
 * bytes identifies the plan in every shard and catalogue; for that reason
 * @include is refused (the hash would not cover the included file) and the
 * bytes that were hashed are the bytes that are parsed.
 *
 * This file holds the loader proper (reading the file, the top-level
 * settings, the benchmark entries), the public API of plan.h and the
 * expansion into work items. The rest is split by job, sharing plan_int.h:
 *   plan_setting.c  typed getters and "FILE:LINE: key.path" errors
 *   plan_sweep.c    sweep axes: lists, scalars, ranges, integer rounding
 *   plan_sim.c      the sim section and its faults
 *   plan_bytes.c    checks on the raw bytes before libconfig parses them */
#include "plan/plan.h"
#include "util/fsutil.h"

#include <errno.h>
#include <libconfig.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan_int.h"
#include "util/sha256.h"

#define PLAN_MAX_FILE_BYTES (1u << 20)

static const char *const top_keys[] = {
    "name", "output", "precision", "budget_s", "pair_budget_s", "shard_interval_s", "benchmarks",
    "sim", NULL };
static const char *const bench_keys[] = {
    "name", "label", "phase", "samples", "repetitions", "budget_s", "sweep", NULL };
static const char *const phase_choices[] = {
    "gpu", "isolated", "concurrent", "pair", "net", NULL };

/* ---- benchmarks --------------------------------------------------------- */

/* p2p and net need their own phase; the others may run per GPU, one GPU of
 * a node at a time, or all at once on purpose. */
static int phase_allowed(const gc_bench_def *d, gc_phase p)
{
    if (d->phase == GC_PHASE_PAIR || d->phase == GC_PHASE_NET)
        return p == d->phase;
    return p == GC_PHASE_GPU || p == GC_PHASE_ISOLATED || p == GC_PHASE_CONCURRENT;
}

static int bench_name(const gc_cfg *L, const config_setting_t *g, const char *path,
                      gc_bench_spec *b)
{
    char p[GC_CFG_PATH], words[400];
    const char *name;
    const config_setting_t *s = config_setting_get_member(g, "name");
    gc_cfg_path_key(p, path, "name");
    if (!s)
        return gc_cfg_fail_missing(L, g, p);
    int rc = gc_cfg_get_str(L, s, p, GC_KEY_MAX, &name);
    if (rc)
        return rc;
    b->def = gc_bench_find(name);
    if (!b->def) {
        size_t used = 0;
        words[0] = '\0';
        for (size_t i = 0; i < gc_bench_ndefs && used < sizeof words; i++)
            used += (size_t)snprintf(words + used, sizeof words - used, "%s%s",
                                     i ? ", " : "", gc_bench_defs[i].name);
        return gc_cfg_fail_at(L, gc_cfg_line_of(s), p, "unknown benchmark '%s' (known: %s)", name, words);
    }
    snprintf(b->name, sizeof b->name, "%s", name);
    snprintf(b->label, sizeof b->label, "%s", name);
    return 0;
}

static int bench_label_phase(const gc_cfg *L, const config_setting_t *g, const char *path,
                             gc_bench_spec *b)
{
    char p[GC_CFG_PATH], words[128];
    const char *v;
    int rc;
    const config_setting_t *s = config_setting_get_member(g, "label");
    if (s) {
        gc_cfg_path_key(p, path, "label");
        if ((rc = gc_cfg_get_name(L, s, p, GC_KEY_MAX, &v)))
            return rc;
        snprintf(b->label, sizeof b->label, "%s", v);
    }
    b->phase = b->def->phase;
    s = config_setting_get_member(g, "phase");
    if (s) {
        gc_cfg_path_key(p, path, "phase");
        if ((rc = gc_cfg_get_str(L, s, p, 32, &v)))
            return rc;
        if (gc_phase_parse(v, &b->phase))
            return gc_cfg_fail_at(L, gc_cfg_line_of(s), p, "unknown phase '%s' (choices: %s)", v,
                              gc_cfg_join_words(words, sizeof words, phase_choices));
        if (!phase_allowed(b->def, b->phase))
            return gc_cfg_fail_at(L, gc_cfg_line_of(s), p, "benchmark '%s' cannot run in phase '%s'",
                              b->name, v);
    }
    return 0;
}

static int bench_counts(const gc_cfg *L, const config_setting_t *g, const char *path,
                        gc_bench_spec *b)
{
    int64_t samples = 1000, reps = 1;
    double budget = 10.0;
    int rc;
    if ((rc = gc_cfg_opt_int(L, g, path, "samples", 1, 10000000, &samples)) ||
        (rc = gc_cfg_opt_int(L, g, path, "repetitions", 1, 100000, &reps)) ||
        (rc = gc_cfg_opt_num(L, g, path, "budget_s", 0.0, 3600.0, 1, &budget)))
        return rc;
    b->samples = (uint32_t)samples;
    b->repetitions = (uint32_t)reps;
    b->budget_s = budget;
    return 0;
}

static int load_bench(const gc_cfg *L, const config_setting_t *g, unsigned idx,
                      gc_bench_spec *b, size_t *points)
{
    char path[GC_CFG_PATH], p[GC_CFG_PATH];
    int rc;
    gc_cfg_path_index(path, "benchmarks", idx);
    *points = 1;
    if (config_setting_type(g) != CONFIG_TYPE_GROUP)
        return gc_cfg_fail_at(L, gc_cfg_line_of(g), path, "expected a group { name = ...; }, got %s",
                          gc_cfg_type_name(g));
    b->line = gc_cfg_line_of(g);
    if ((rc = gc_cfg_check_keys(L, g, path, bench_keys)) || (rc = bench_name(L, g, path, b)) ||
        (rc = bench_label_phase(L, g, path, b)) || (rc = bench_counts(L, g, path, b)))
        return rc;
    const config_setting_t *sw = config_setting_get_member(g, "sweep");
    if (!sw)
        return 0;
    gc_cfg_path_key(p, path, "sweep");
    return pl_load_sweep(L, sw, p, b, points);
}

static int check_label_unique(const gc_cfg *L, const gc_plan *plan, size_t i,
                              const config_setting_t *g)
{
    for (size_t j = 0; j < i; j++)
        if (strcmp(plan->bench[j].label, plan->bench[i].label) == 0) {
            char p[GC_CFG_PATH];
            gc_cfg_path_index(p, "benchmarks", (unsigned)i);
            const config_setting_t *s = config_setting_get_member(g, "label");
            return gc_cfg_fail_at(L, gc_cfg_line_of(s ? s : g), p,
                              "duplicate benchmark label '%s' (also at line %d); give each a unique label",
                              plan->bench[i].label, plan->bench[j].line);
        }
    return 0;
}

static int load_benchmarks(const gc_cfg *L, const config_setting_t *root, gc_plan *plan)
{
    const config_setting_t *s = config_setting_get_member(root, "benchmarks");
    if (!s)
        return gc_cfg_fail_missing(L, root, "benchmarks");
    if (config_setting_type(s) != CONFIG_TYPE_LIST)
        return gc_cfg_fail_at(L, gc_cfg_line_of(s), "benchmarks",
                          "expected a list of groups ( { name = ...; }, ... ), got %s", gc_cfg_type_name(s));
    int n = config_setting_length(s);
    if (n == 0)
        return gc_cfg_fail_at(L, gc_cfg_line_of(s), "benchmarks", "at least one benchmark is needed");
    if (n > GC_MAX_BENCH)
        return gc_cfg_fail_at(L, gc_cfg_line_of(s), "benchmarks", "more than %d benchmarks", GC_MAX_BENCH);
    plan->bench = calloc((size_t)n, sizeof *plan->bench);
    if (!plan->bench)
        return gc_fail(L->err, GC_ENOMEM, "%s: out of memory", L->file);
    size_t total = 0;
    for (int i = 0; i < n; i++) {
        const config_setting_t *g = config_setting_get_elem(s, (unsigned)i);
        size_t points;
        plan->nbench = (size_t)i + 1;   /* so gc_plan_free releases its axes */
        int rc = load_bench(L, g, (unsigned)i, &plan->bench[i], &points);
        if (!rc)
            rc = check_label_unique(L, plan, (size_t)i, g);
        if (rc)
            return rc;
        total += points;
        if (total > GC_MAX_ITEMS) {
            char p[GC_CFG_PATH];
            gc_cfg_path_index(p, "benchmarks", (unsigned)i);
            return gc_cfg_fail_at(L, gc_cfg_line_of(g), p, "plan has more than %d work items", GC_MAX_ITEMS);
        }
    }
    return 0;
}


/* ---- top level ---------------------------------------------------------- */

/* Only %t (UTC timestamp), %j (Slurm job id) and %% may appear. */
static int check_output(const gc_cfg *L, const config_setting_t *s, const char *out)
{
    if (!out[0])
        return gc_cfg_fail_at(L, gc_cfg_line_of(s), "output", "empty path");
    for (const char *c = out; *c; c++) {
        if (*c != '%')
            continue;
        c++;
        if (*c != 't' && *c != 'j' && *c != '%')
            return gc_cfg_fail_at(L, gc_cfg_line_of(s), "output",
                              "unknown escape '%%%c' (use %%t timestamp, %%j job id, %%%% percent)",
                              *c ? *c : ' ');
    }
    return 0;
}

static int load_top(const gc_cfg *L, const config_setting_t *root, gc_plan *plan)
{
    const char *v;
    int rc;
    if ((rc = gc_cfg_check_keys(L, root, "", top_keys)))
        return rc;
    const config_setting_t *s = config_setting_get_member(root, "name");
    if (!s)
        return gc_cfg_fail_missing(L, root, "name");
    if ((rc = gc_cfg_get_name(L, s, "name", sizeof plan->name, &v)))
        return rc;
    snprintf(plan->name, sizeof plan->name, "%s", v);
    snprintf(plan->output, sizeof plan->output, "results/%%t");
    if ((s = config_setting_get_member(root, "output"))) {
        if ((rc = gc_cfg_get_str(L, s, "output", sizeof plan->output, &v)) ||
            (rc = check_output(L, s, v)))
            return rc;
        snprintf(plan->output, sizeof plan->output, "%s", v);
    }
    plan->precision = 0.01;
    plan->budget_s = 0.0;
    plan->pair_budget_s = 0.0;
    plan->shard_interval_s = 1.0;
    if ((rc = gc_cfg_opt_num(L, root, "", "precision", 0.0001, 0.1, 0, &plan->precision)) ||
        (rc = gc_cfg_opt_num(L, root, "", "budget_s", 0.0, 1e7, 0, &plan->budget_s)) ||
        (rc = gc_cfg_opt_num(L, root, "", "pair_budget_s", 0.0, 1e7, 0, &plan->pair_budget_s)) ||
        (rc = gc_cfg_opt_num(L, root, "", "shard_interval_s", 0.0, 3600.0, 0, &plan->shard_interval_s)) ||
        (rc = load_benchmarks(L, root, plan)))
        return rc;
    if ((s = config_setting_get_member(root, "sim")))
        return pl_load_sim(L, s, &plan->sim);
    return 0;
}

/* ---- file --------------------------------------------------------------- */

static int read_all(const char *path, char **buf, size_t *len, gc_err *err)
{
    /* the size is checked below, with the plan's own message */
    FILE *f = gc_fopen_input(path, SIZE_MAX, err);
    if (!f)
        return err ? err->code : GC_EIO;
    size_t cap = 4096, n = 0;
    char *b = malloc(cap + 1);
    while (b) {
        n += fread(b + n, 1, cap - n, f);
        if (n < cap || cap > PLAN_MAX_FILE_BYTES)
            break;
        char *nb = realloc(b, 2 * cap + 1);
        if (!nb) {
            free(b);
            b = NULL;
            break;
        }
        b = nb;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (!b)
        return gc_fail(err, GC_ENOMEM, "%s: out of memory", path);
    if (bad) {
        free(b);
        return gc_fail(err, GC_EIO, "%s: cannot read plan", path);
    }
    if (n > PLAN_MAX_FILE_BYTES) {
        free(b);
        return gc_fail(err, GC_EINVAL, "%s: plan larger than %u bytes", path, PLAN_MAX_FILE_BYTES);
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return 0;
}


static int parse_plan(const gc_cfg *L, const char *text, gc_plan *plan)
{
    config_t cfg;
    config_init(&cfg);
    int rc;
    if (config_read_string(&cfg, text) != CONFIG_TRUE)
        rc = gc_fail(L->err, GC_EINVAL, "%s:%d: %s", L->file, config_error_line(&cfg),
                     config_error_text(&cfg) ? config_error_text(&cfg) : "syntax error");
    else
        rc = load_top(L, config_root_setting(&cfg), plan);
    config_destroy(&cfg);
    return rc;
}

/* buf holds len bytes and a NUL after them. */
static int load_text(const char *name, const char *buf, size_t len, gc_plan *plan, gc_err *err)
{
    gc_cfg L = { name, err };
    snprintf(plan->file, sizeof plan->file, "%s", name);
    gc_sha256_hex(buf, len, plan->sha256);
    int rc = pl_check_bytes(&L, buf, len);
    if (!rc)
        rc = pl_check_int_literals(&L, buf, len);
    if (!rc)
        rc = parse_plan(&L, buf, plan);
    if (rc)
        gc_plan_free(plan);
    return rc;
}

int gc_plan_load(const char *path, gc_plan *plan, gc_err *err)
{
    char *buf = NULL;
    size_t len = 0;
    memset(plan, 0, sizeof *plan);
    int rc = read_all(path, &buf, &len, err);
    if (rc)
        return rc;
    rc = load_text(path, buf, len, plan, err);
    free(buf);
    return rc;
}

int gc_plan_load_mem(const char *name, const char *bytes, size_t len, gc_plan *plan,
                     gc_err *err)
{
    memset(plan, 0, sizeof *plan);
    if (len > PLAN_MAX_FILE_BYTES)
        return gc_fail(err, GC_EINVAL, "%s: plan larger than %u bytes", name, PLAN_MAX_FILE_BYTES);
    char *buf = malloc(len + 1);
    if (!buf)
        return gc_fail(err, GC_ENOMEM, "%s: out of memory", name);
    if (len)
        memcpy(buf, bytes, len);
    buf[len] = '\0';
    int rc = load_text(name, buf, len, plan, err);
    free(buf);
    return rc;
}

void gc_plan_free(gc_plan *plan)
{
    if (!plan)
        return;
    for (size_t i = 0; plan->bench && i < plan->nbench; i++)
        for (size_t a = 0; a < GC_MAX_AXES; a++) {
            free(plan->bench[i].axes[a].nums);
            free(plan->bench[i].axes[a].strs);
        }
    free(plan->bench);
    free(plan->sim.faults);
    memset(plan, 0, sizeof *plan);
}

/* ---- expansion ---------------------------------------------------------- */

static size_t spec_points(const gc_bench_spec *s)
{
    size_t n = 1;
    for (size_t a = 0; a < s->naxes; a++)
        n *= s->axes[a].n;
    return n;
}

static const gc_axis *spec_axis(const gc_bench_spec *s, const char *name, size_t *which)
{
    for (size_t a = 0; a < s->naxes; a++)
        if (strcmp(s->axes[a].name, name) == 0) {
            *which = a;
            return &s->axes[a];
        }
    return NULL;
}

/* Point `point` of the spec's sweep, last axis fastest; every registry
 * parameter gets a value, in registry order. */
static int fill_item(gc_item *it, uint32_t id, const gc_bench_spec *s, size_t point,
                     gc_err *err)
{
    size_t idx[GC_MAX_AXES];
    for (size_t a = s->naxes; a-- > 0;) {
        idx[a] = point % s->axes[a].n;
        point /= s->axes[a].n;
    }
    it->id = id;
    it->spec = s;
    it->phase = s->phase;
    memset(&it->params, 0, sizeof it->params);
    for (size_t q = 0; q < s->def->nparams; q++) {
        const gc_param_def *d = &s->def->params[q];
        size_t a = 0;
        const gc_axis *ax = spec_axis(s, d->name, &a);
        int rc;
        if (d->is_str)
            rc = gc_ctx_set_str(&it->params, d->name, ax ? ax->strs[idx[a]] : d->dflt_str);
        else
            rc = gc_ctx_set_num(&it->params, d->name, ax ? ax->nums[idx[a]] : d->dflt_num);
        if (rc)
            return gc_fail(err, GC_EINVAL, "benchmark '%s': cannot store parameter %s",
                           s->label, d->name);
    }
    return 0;
}

int gc_plan_expand(const gc_plan *plan, gc_item **items, size_t *nitems, gc_err *err)
{
    size_t total = 0;
    *items = NULL;
    *nitems = 0;
    for (size_t b = 0; b < plan->nbench; b++) {
        if (!plan->bench[b].def)
            return gc_fail(err, GC_EINVAL, "benchmark %zu has no registry entry", b);
        total += spec_points(&plan->bench[b]);
    }
    if (total > GC_MAX_ITEMS)
        return gc_fail(err, GC_EINVAL, "plan has %zu work items, more than %d", total, GC_MAX_ITEMS);
    if (total == 0)
        return 0;
    gc_item *it = calloc(total, sizeof *it);
    if (!it)
        return gc_fail(err, GC_ENOMEM, "out of memory for %zu work items", total);
    size_t k = 0;
    for (size_t b = 0; b < plan->nbench; b++) {
        size_t n = spec_points(&plan->bench[b]);
        for (size_t p = 0; p < n; p++, k++) {
            int rc = fill_item(&it[k], (uint32_t)k, &plan->bench[b], p, err);
            if (rc) {
                free(it);
                return rc;
            }
        }
    }
    *items = it;
    *nitems = total;
    return 0;
}
