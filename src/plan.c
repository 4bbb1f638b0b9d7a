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
 * Sweep values for one parameter (an axis) may be written as
 *   a scalar                      order = "random";
 *   an array or list of scalars   kernel = ["read", "copy"];
 *   a range group                 size_bytes = { from = 4; to = 1024; factor = 2.0; };
 *                                 (or per_octave = N, or step = S for linear)
 *   a list mixing both            size_bytes = ( { from = 4; to = 64; factor = 2.0; }, 3000 );
 * Ranges include 'to' when a point hits it (relative tolerance 1e-9) and are
 * rounded to integers for integer parameters; rounding duplicates inside a
 * range are dropped, duplicates written by hand are an error. */
#include "plan.h"

#include <errno.h>
#include <libconfig.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sha256.h"

#define PLAN_MAX_FILE_BYTES (1u << 20)
#define PATH_CHARS 160
#define RANGE_TOL 1e-9

static const char *const top_keys[] = {
    "name", "output", "precision", "budget_s", "shard_interval_s", "benchmarks", "sim", NULL };
static const char *const bench_keys[] = {
    "name", "label", "phase", "samples", "repetitions", "budget_s", "sweep", NULL };
static const char *const range_keys[] = {
    "from", "to", "factor", "per_octave", "step", NULL };
static const char *const sim_keys[] = {
    "profile", "seed", "nodes", "gpus_per_node", "faults", NULL };
static const char *const fault_keys[] = {
    "node", "gpu", "metric", "kind", "factor", "at_item", NULL };
static const char *const fault_kinds[] = {
    "scale", "bimodal", "crash", "hang", NULL };
static const char *const fault_metrics[] = {
    "hbm_bw", "l2_bw", "smem_bw", "l1_latency", "l2_latency", "dram_latency",
    "inst_latency", "launch", "h2d_bw", "d2h_bw", "pcie_width", "nvlink",
    "numa", "p2p_bw", "net_bw", "sm_clock", NULL };
/* Link and clock states: a fault scales them, it cannot make them bimodal. */
static const char *const state_metrics[] = {
    "sm_clock", "pcie_width", "nvlink", "numa", NULL };
static const char *const phase_choices[] = {
    "gpu", "isolated", "concurrent", "pair", "net", NULL };

/* What every validation function needs to report an error. */
typedef struct loader {
    const char *file;
    gc_err *err;
} loader;

/* ---- error reporting ---------------------------------------------------- */

static int line_of(const config_setting_t *s)
{
    int line = s ? (int)config_setting_source_line(s) : 0;
    return line > 0 ? line : 1;
}

static int fail_at(const loader *L, int line, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail_at(const loader *L, int line, const char *path, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return gc_fail(L->err, GC_EINVAL, "%s:%d: %s: %s", L->file, line, path, msg);
}

static int fail_missing(const loader *L, const config_setting_t *parent, const char *path)
{
    return fail_at(L, line_of(parent), path, "missing required setting");
}

static void path_key(char out[PATH_CHARS], const char *base, const char *key)
{
    int n = snprintf(out, PATH_CHARS, "%s%s%s", base, base[0] ? "." : "", key);
    if (n >= PATH_CHARS)   /* keys are short; a path this long is cut */
        memcpy(out + PATH_CHARS - 4, "...", 4);
}

static void path_index(char out[PATH_CHARS], const char *base, unsigned idx)
{
    snprintf(out, PATH_CHARS, "%s.[%u]", base, idx);
}

/* Integers print as integers (byte counts can be large), others with %g. */
static const char *fmt_num(char buf[40], double v)
{
    if (v == floor(v) && fabs(v) < 1e15)
        snprintf(buf, 40, "%.0f", v);
    else
        snprintf(buf, 40, "%g", v);
    return buf;
}

static const char *join_words(char *buf, size_t n, const char *const *words)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; words[i] && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? ", " : "", words[i]);
    return buf;
}

static int in_words(const char *s, const char *const *words)
{
    for (size_t i = 0; words[i]; i++)
        if (strcmp(s, words[i]) == 0)
            return 1;
    return 0;
}

static const char *type_name(const config_setting_t *s)
{
    switch (config_setting_type(s)) {
    case CONFIG_TYPE_INT:
    case CONFIG_TYPE_INT64: return "an integer";
    case CONFIG_TYPE_FLOAT: return "a float";
    case CONFIG_TYPE_STRING: return "a string";
    case CONFIG_TYPE_BOOL: return "a boolean";
    case CONFIG_TYPE_GROUP: return "a group { }";
    case CONFIG_TYPE_ARRAY: return "an array [ ]";
    case CONFIG_TYPE_LIST: return "a list ( )";
    default: return "an unknown type";
    }
}

/* ---- typed getters ------------------------------------------------------ */

static int is_number(const config_setting_t *s)
{
    int t = config_setting_type(s);
    return t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64 || t == CONFIG_TYPE_FLOAT;
}

static double num_value(const config_setting_t *s)
{
    if (config_setting_type(s) == CONFIG_TYPE_FLOAT)
        return config_setting_get_float(s);
    return (double)config_setting_get_int64(s);
}

/* Every member of group must be named in allowed. */
static int check_keys(const loader *L, const config_setting_t *group,
                      const char *path, const char *const *allowed)
{
    int n = config_setting_length(group);
    for (int i = 0; i < n; i++) {
        const config_setting_t *m = config_setting_get_elem(group, (unsigned)i);
        const char *name = config_setting_name(m);
        if (name && in_words(name, allowed))
            continue;
        char p[PATH_CHARS], words[256];
        path_key(p, path, name ? name : "?");
        return fail_at(L, line_of(m), p, "unknown setting (expected one of: %s)",
                       join_words(words, sizeof words, allowed));
    }
    return 0;
}

/* A number in [lo, hi] ((lo, hi] when lo_open). */
static int get_num(const loader *L, const config_setting_t *s, const char *path,
                   double lo, double hi, int lo_open, double *out)
{
    char a[40], b[40], c[40];
    if (!is_number(s))
        return fail_at(L, line_of(s), path, "expected a number, got %s", type_name(s));
    double v = num_value(s);
    if (!isfinite(v) || v > hi || v < lo || (lo_open && v == lo))
        return fail_at(L, line_of(s), path, "%s out of range %s%s, %s]",
                       isfinite(v) ? fmt_num(a, v) : "non-finite value",
                       lo_open ? "(" : "[", fmt_num(b, lo), fmt_num(c, hi));
    *out = v;
    return 0;
}

static int get_int(const loader *L, const config_setting_t *s, const char *path,
                   int64_t lo, int64_t hi, int64_t *out)
{
    int t = config_setting_type(s);
    if (t != CONFIG_TYPE_INT && t != CONFIG_TYPE_INT64)
        return fail_at(L, line_of(s), path, "expected an integer, got %s", type_name(s));
    int64_t v = config_setting_get_int64(s);
    if (v < lo || v > hi)
        return fail_at(L, line_of(s), path, "%lld out of range [%lld, %lld]",
                       (long long)v, (long long)lo, (long long)hi);
    *out = v;
    return 0;
}

/* A string shorter than cap bytes (cap includes the NUL). */
static int get_str(const loader *L, const config_setting_t *s, const char *path,
                   size_t cap, const char **out)
{
    if (config_setting_type(s) != CONFIG_TYPE_STRING)
        return fail_at(L, line_of(s), path, "expected a string, got %s", type_name(s));
    const char *v = config_setting_get_string(s);
    if (strlen(v) >= cap)
        return fail_at(L, line_of(s), path, "longer than %zu characters", cap - 1);
    *out = v;
    return 0;
}

/* Optional member helpers: leave *out untouched when the key is absent. */
static int opt_num(const loader *L, const config_setting_t *g, const char *base,
                   const char *key, double lo, double hi, int lo_open, double *out)
{
    const config_setting_t *s = config_setting_get_member(g, key);
    char p[PATH_CHARS];
    path_key(p, base, key);
    return s ? get_num(L, s, p, lo, hi, lo_open, out) : 0;
}

static int opt_int(const loader *L, const config_setting_t *g, const char *base,
                   const char *key, int64_t lo, int64_t hi, int64_t *out)
{
    const config_setting_t *s = config_setting_get_member(g, key);
    char p[PATH_CHARS];
    path_key(p, base, key);
    return s ? get_int(L, s, p, lo, hi, out) : 0;
}

/* Names used in file names and keys: [A-Za-z0-9_.-]+ */
static int valid_name(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++) {
        char c = *s;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-'))
            return 0;
    }
    return 1;
}

static int get_name(const loader *L, const config_setting_t *s, const char *path,
                    size_t cap, const char **out)
{
    int rc = get_str(L, s, path, cap, out);
    if (rc)
        return rc;
    if (!valid_name(*out))
        return fail_at(L, line_of(s), path, "'%s' is not a name ([A-Za-z0-9_.-]+)", *out);
    return 0;
}

/* ---- sweep axes --------------------------------------------------------- */

/* The registry has no integer flag: a parameter whose range and default are
 * whole numbers takes whole numbers (all byte counts, warps, strides...). */
static int param_is_integer(const gc_param_def *d)
{
    return d->min == floor(d->min) && d->max == floor(d->max) &&
           d->dflt_num == floor(d->dflt_num);
}

static int axis_push_num(gc_axis *a, double v)
{
    if (a->n >= GC_MAX_SWEEP)
        return -1;
    if (!a->nums && !(a->nums = malloc(GC_MAX_SWEEP * sizeof *a->nums)))
        return -2;
    a->nums[a->n++] = v;
    return 0;
}

static int axis_push_str(gc_axis *a, const char *s)
{
    if (a->n >= GC_MAX_SWEEP)
        return -1;
    if (!a->strs) {
        /* strings must be registry choices, so few distinct values; the
         * duplicate check stops long lists early. Allocate for the worst. */
        a->strs = malloc(GC_MAX_SWEEP * sizeof *a->strs);
        if (!a->strs)
            return -2;
    }
    snprintf(a->strs[a->n++], GC_STR_MAX, "%s", s);
    return 0;
}

static int push_failed(const loader *L, int rc, int line, const char *path)
{
    if (rc == -2)
        return gc_fail(L->err, GC_ENOMEM, "%s:%d: %s: out of memory", L->file, line, path);
    return fail_at(L, line, path, "sweep has more than %d points", GC_MAX_SWEEP);
}

static int str_axis_has(const gc_axis *a, const char *s)
{
    for (size_t i = 0; i < a->n; i++)
        if (strcmp(a->strs[i], s) == 0)
            return 1;
    return 0;
}

/* One written value (not a range) of an axis. */
static int add_scalar(const loader *L, const config_setting_t *e,
                      const gc_param_def *d, const char *path, gc_axis *a)
{
    char words[400], x[40], lo[40], hi[40];
    int rc;
    if (d->is_str) {
        if (config_setting_type(e) != CONFIG_TYPE_STRING)
            return fail_at(L, line_of(e), path, "expected a string (one of: %s), got %s",
                           join_words(words, sizeof words, d->choices), type_name(e));
        const char *s = config_setting_get_string(e);
        if (!in_words(s, d->choices))
            return fail_at(L, line_of(e), path, "unknown value '%.60s' (choices: %s)", s,
                           join_words(words, sizeof words, d->choices));
        if (str_axis_has(a, s))
            return fail_at(L, line_of(e), path, "duplicate value '%s'", s);
        rc = axis_push_str(a, s);
        return rc ? push_failed(L, rc, line_of(e), path) : 0;
    }
    if (!is_number(e))
        return fail_at(L, line_of(e), path, "expected a number, got %s", type_name(e));
    double v = num_value(e);
    if (!isfinite(v) || v < d->min || v > d->max)
        return fail_at(L, line_of(e), path, "value %s out of range [%s, %s]",
                       isfinite(v) ? fmt_num(x, v) : "(non-finite)",
                       fmt_num(lo, d->min), fmt_num(hi, d->max));
    if (param_is_integer(d) && v != floor(v))
        return fail_at(L, line_of(e), path, "value %s is not an integer", fmt_num(x, v));
    rc = axis_push_num(a, v);
    return rc ? push_failed(L, rc, line_of(e), path) : 0;
}

/* A range's endpoints, both within the parameter's range. */
static int range_ends(const loader *L, const config_setting_t *g, const gc_param_def *d,
                      const char *path, double *from, double *to)
{
    const char *keys[2] = { "from", "to" };
    double *outs[2] = { from, to };
    for (int i = 0; i < 2; i++) {
        const config_setting_t *s = config_setting_get_member(g, keys[i]);
        char p[PATH_CHARS];
        path_key(p, path, keys[i]);
        if (!s)
            return fail_missing(L, g, p);
        int rc = get_num(L, s, p, d->min, d->max, 0, outs[i]);
        if (rc)
            return rc;
    }
    return 0;
}

typedef enum { STEP_FACTOR, STEP_PER_OCTAVE, STEP_LINEAR } step_kind;

/* Which of factor / per_octave / step the range uses, and its value. */
static int range_step(const loader *L, const config_setting_t *g, const char *path,
                      step_kind *kind, double *step)
{
    const char *keys[3] = { "factor", "per_octave", "step" };
    const config_setting_t *found = NULL;
    int which = -1;
    for (int i = 0; i < 3; i++) {
        const config_setting_t *s = config_setting_get_member(g, keys[i]);
        if (!s)
            continue;
        if (found)
            return fail_at(L, line_of(s), path, "give only one of factor, per_octave, step");
        found = s;
        which = i;
    }
    if (!found)
        return fail_at(L, line_of(g), path, "a range needs one of factor, per_octave, step");
    char p[PATH_CHARS], x[40];
    path_key(p, path, keys[which]);
    *kind = (step_kind)which;
    if (which == STEP_PER_OCTAVE) {
        int64_t n;
        int rc = get_int(L, found, p, 1, 1024, &n);
        *step = (double)n;
        return rc;
    }
    if (!is_number(found))
        return fail_at(L, line_of(found), p, "expected a number, got %s", type_name(found));
    *step = num_value(found);
    if (which == STEP_FACTOR && !(*step > 1.0 && isfinite(*step)))
        return fail_at(L, line_of(found), p, "factor must be > 1 (got %s): the range yields nothing",
                       fmt_num(x, *step));
    if (which == STEP_LINEAR && !(*step > 0.0 && isfinite(*step)))
        return fail_at(L, line_of(found), p, "step must be > 0 (got %s): the range yields nothing",
                       fmt_num(x, *step));
    return 0;
}

/* Point k of a range; the last point snaps to 'to' when within tolerance. */
static double range_point(step_kind kind, double step, double from, double to, size_t k)
{
    double v;
    if (kind == STEP_FACTOR)
        v = from * pow(step, (double)k);
    else if (kind == STEP_PER_OCTAVE)
        v = from * exp2((double)k / step);
    else
        v = from + step * (double)k;
    if (fabs(v - to) <= RANGE_TOL * fabs(to) || v > to)
        v = to;
    return v;
}

static double range_count(step_kind kind, double step, double from, double to)
{
    if (kind == STEP_LINEAR)
        return floor((to - from) / step + RANGE_TOL) + 1;
    double octaves = log2(to / from);
    if (kind == STEP_PER_OCTAVE)
        return floor(octaves * step + RANGE_TOL) + 1;
    return floor(octaves / log2(step) + RANGE_TOL) + 1;
}

static int add_range(const loader *L, const config_setting_t *g, const gc_param_def *d,
                     const char *path, gc_axis *a)
{
    char x[40], y[40];
    double from = 0, to = 0, step = 0;
    step_kind kind = STEP_FACTOR;
    int rc;
    if (d->is_str)
        return fail_at(L, line_of(g), path, "a range needs a numeric parameter; '%s' takes strings",
                       d->name);
    if ((rc = check_keys(L, g, path, range_keys)) || (rc = range_ends(L, g, d, path, &from, &to)) ||
        (rc = range_step(L, g, path, &kind, &step)))
        return rc;
    if (from > to)
        return fail_at(L, line_of(g), path, "empty range: from (%s) > to (%s)",
                       fmt_num(x, from), fmt_num(y, to));
    if (kind != STEP_LINEAR && from <= 0)
        return fail_at(L, line_of(g), path, "a geometric range needs from > 0");
    double count = range_count(kind, step, from, to);
    if (count + (double)a->n > GC_MAX_SWEEP)
        return fail_at(L, line_of(g), path, "range gives %s points%s, more than %d",
                       fmt_num(x, count), a->n ? " (with the values before it)" : "",
                       GC_MAX_SWEEP);
    int integer = param_is_integer(d);
    size_t first = a->n;
    for (size_t k = 0; k < (size_t)count; k++) {
        double v = range_point(kind, step, from, to, k);
        if (integer)
            v = round(v);   /* nearest, halves away from zero */
        if (a->n > first && a->nums[a->n - 1] == v)
            continue;   /* rounding made two points equal */
        if ((rc = axis_push_num(a, v)))
            return push_failed(L, rc, line_of(g), path);
    }
    return 0;
}

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

static int check_num_duplicates(const loader *L, const config_setting_t *s,
                                const char *path, const gc_axis *a)
{
    double *copy = malloc(a->n * sizeof *copy);
    if (!copy)
        return gc_fail(L->err, GC_ENOMEM, "%s: out of memory", L->file);
    memcpy(copy, a->nums, a->n * sizeof *copy);
    qsort(copy, a->n, sizeof *copy, cmp_double);
    int rc = 0;
    for (size_t i = 1; i < a->n && !rc; i++)
        if (copy[i] == copy[i - 1]) {
            char x[40];
            rc = fail_at(L, line_of(s), path, "duplicate value %s", fmt_num(x, copy[i]));
        }
    free(copy);
    return rc;
}

/* One element of an array or list: a range group or a scalar. */
static int add_element(const loader *L, const config_setting_t *e,
                       const gc_param_def *d, const char *path, gc_axis *a)
{
    int t = config_setting_type(e);
    if (t == CONFIG_TYPE_GROUP)
        return add_range(L, e, d, path, a);
    if (t == CONFIG_TYPE_LIST || t == CONFIG_TYPE_ARRAY)
        return fail_at(L, line_of(e), path, "lists may not nest (got %s inside a list)",
                       type_name(e));
    return add_scalar(L, e, d, path, a);
}

static int load_axis(const loader *L, const config_setting_t *s,
                     const gc_param_def *d, const char *path, gc_axis *a)
{
    int t = config_setting_type(s), rc = 0;
    snprintf(a->name, sizeof a->name, "%s", d->name);
    a->is_str = d->is_str;
    if (t == CONFIG_TYPE_ARRAY || t == CONFIG_TYPE_LIST) {
        int n = config_setting_length(s);
        if (n == 0)
            return fail_at(L, line_of(s), path, "empty sweep list");
        for (int i = 0; i < n && !rc; i++)
            rc = add_element(L, config_setting_get_elem(s, (unsigned)i), d, path, a);
    } else {
        rc = add_element(L, s, d, path, a);
    }
    if (!rc && !a->is_str)
        rc = check_num_duplicates(L, s, path, a);
    return rc;
}

static int load_sweep(const loader *L, const config_setting_t *g, const char *path,
                      gc_bench_spec *b, size_t *points)
{
    char p[PATH_CHARS], words[256];
    *points = 1;
    if (config_setting_type(g) != CONFIG_TYPE_GROUP)
        return fail_at(L, line_of(g), path, "expected a group { param = values; ... }, got %s",
                       type_name(g));
    int n = config_setting_length(g);
    for (int i = 0; i < n; i++) {
        const config_setting_t *m = config_setting_get_elem(g, (unsigned)i);
        const char *pname = config_setting_name(m);
        path_key(p, path, pname ? pname : "?");
        const gc_param_def *d = pname ? gc_bench_param(b->def, pname) : NULL;
        if (!d) {
            const char *names[GC_MAX_CTX + 1];
            size_t k;
            for (k = 0; k < b->def->nparams && k < GC_MAX_CTX; k++)
                names[k] = b->def->params[k].name;
            names[k] = NULL;
            return fail_at(L, line_of(m), p, "unknown parameter for benchmark '%s' (parameters: %s)",
                           b->def->name, join_words(words, sizeof words, names));
        }
        if (b->naxes >= GC_MAX_AXES)
            return fail_at(L, line_of(m), p, "more than %d swept parameters", GC_MAX_AXES);
        gc_axis *a = &b->axes[b->naxes++];
        int rc = load_axis(L, m, d, p, a);
        if (rc)
            return rc;
        *points *= a->n;
        if (*points > GC_MAX_SWEEP)
            return fail_at(L, line_of(m), p, "sweep has more than %d points (product of all axes)",
                           GC_MAX_SWEEP);
    }
    return 0;
}

/* ---- benchmarks --------------------------------------------------------- */

/* p2p and net need their own phase; the others may run per GPU, one GPU of
 * a node at a time, or all at once on purpose. */
static int phase_allowed(const gc_bench_def *d, gc_phase p)
{
    if (d->phase == GC_PHASE_PAIR || d->phase == GC_PHASE_NET)
        return p == d->phase;
    return p == GC_PHASE_GPU || p == GC_PHASE_ISOLATED || p == GC_PHASE_CONCURRENT;
}

static int bench_name(const loader *L, const config_setting_t *g, const char *path,
                      gc_bench_spec *b)
{
    char p[PATH_CHARS], words[400];
    const char *name;
    const config_setting_t *s = config_setting_get_member(g, "name");
    path_key(p, path, "name");
    if (!s)
        return fail_missing(L, g, p);
    int rc = get_str(L, s, p, GC_KEY_MAX, &name);
    if (rc)
        return rc;
    b->def = gc_bench_find(name);
    if (!b->def) {
        size_t used = 0;
        words[0] = '\0';
        for (size_t i = 0; i < gc_bench_ndefs && used < sizeof words; i++)
            used += (size_t)snprintf(words + used, sizeof words - used, "%s%s",
                                     i ? ", " : "", gc_bench_defs[i].name);
        return fail_at(L, line_of(s), p, "unknown benchmark '%s' (known: %s)", name, words);
    }
    snprintf(b->name, sizeof b->name, "%s", name);
    snprintf(b->label, sizeof b->label, "%s", name);
    return 0;
}

static int bench_label_phase(const loader *L, const config_setting_t *g, const char *path,
                             gc_bench_spec *b)
{
    char p[PATH_CHARS], words[128];
    const char *v;
    int rc;
    const config_setting_t *s = config_setting_get_member(g, "label");
    if (s) {
        path_key(p, path, "label");
        if ((rc = get_name(L, s, p, GC_KEY_MAX, &v)))
            return rc;
        snprintf(b->label, sizeof b->label, "%s", v);
    }
    b->phase = b->def->phase;
    s = config_setting_get_member(g, "phase");
    if (s) {
        path_key(p, path, "phase");
        if ((rc = get_str(L, s, p, 32, &v)))
            return rc;
        if (gc_phase_parse(v, &b->phase))
            return fail_at(L, line_of(s), p, "unknown phase '%s' (choices: %s)", v,
                           join_words(words, sizeof words, phase_choices));
        if (!phase_allowed(b->def, b->phase))
            return fail_at(L, line_of(s), p, "benchmark '%s' cannot run in phase '%s'",
                           b->name, v);
    }
    return 0;
}

static int bench_counts(const loader *L, const config_setting_t *g, const char *path,
                        gc_bench_spec *b)
{
    int64_t samples = 1000, reps = 1;
    double budget = 10.0;
    int rc;
    if ((rc = opt_int(L, g, path, "samples", 1, 10000000, &samples)) ||
        (rc = opt_int(L, g, path, "repetitions", 1, 100000, &reps)) ||
        (rc = opt_num(L, g, path, "budget_s", 0.0, 3600.0, 1, &budget)))
        return rc;
    b->samples = (uint32_t)samples;
    b->repetitions = (uint32_t)reps;
    b->budget_s = budget;
    return 0;
}

static int load_bench(const loader *L, const config_setting_t *g, unsigned idx,
                      gc_bench_spec *b, size_t *points)
{
    char path[PATH_CHARS], p[PATH_CHARS];
    int rc;
    path_index(path, "benchmarks", idx);
    *points = 1;
    if (config_setting_type(g) != CONFIG_TYPE_GROUP)
        return fail_at(L, line_of(g), path, "expected a group { name = ...; }, got %s",
                       type_name(g));
    b->line = line_of(g);
    if ((rc = check_keys(L, g, path, bench_keys)) || (rc = bench_name(L, g, path, b)) ||
        (rc = bench_label_phase(L, g, path, b)) || (rc = bench_counts(L, g, path, b)))
        return rc;
    const config_setting_t *sw = config_setting_get_member(g, "sweep");
    if (!sw)
        return 0;
    path_key(p, path, "sweep");
    return load_sweep(L, sw, p, b, points);
}

static int check_label_unique(const loader *L, const gc_plan *plan, size_t i,
                              const config_setting_t *g)
{
    for (size_t j = 0; j < i; j++)
        if (strcmp(plan->bench[j].label, plan->bench[i].label) == 0) {
            char p[PATH_CHARS];
            path_index(p, "benchmarks", (unsigned)i);
            const config_setting_t *s = config_setting_get_member(g, "label");
            return fail_at(L, line_of(s ? s : g), p,
                           "duplicate benchmark label '%s' (also at line %d); give each a unique label",
                           plan->bench[i].label, plan->bench[j].line);
        }
    return 0;
}

static int load_benchmarks(const loader *L, const config_setting_t *root, gc_plan *plan)
{
    const config_setting_t *s = config_setting_get_member(root, "benchmarks");
    if (!s)
        return fail_missing(L, root, "benchmarks");
    if (config_setting_type(s) != CONFIG_TYPE_LIST)
        return fail_at(L, line_of(s), "benchmarks",
                       "expected a list of groups ( { name = ...; }, ... ), got %s", type_name(s));
    int n = config_setting_length(s);
    if (n == 0)
        return fail_at(L, line_of(s), "benchmarks", "at least one benchmark is needed");
    if (n > GC_MAX_BENCH)
        return fail_at(L, line_of(s), "benchmarks", "more than %d benchmarks", GC_MAX_BENCH);
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
            char p[PATH_CHARS];
            path_index(p, "benchmarks", (unsigned)i);
            return fail_at(L, line_of(g), p, "plan has more than %d work items", GC_MAX_ITEMS);
        }
    }
    return 0;
}

/* ---- sim ---------------------------------------------------------------- */

static int fault_kind(const loader *L, const config_setting_t *g, const char *path,
                      gc_fault *f)
{
    char p[PATH_CHARS], words[128];
    const char *v;
    const config_setting_t *s = config_setting_get_member(g, "kind");
    path_key(p, path, "kind");
    if (!s)
        return fail_missing(L, g, p);
    int rc = get_str(L, s, p, sizeof f->kind, &v);
    if (rc)
        return rc;
    if (!in_words(v, fault_kinds))
        return fail_at(L, line_of(s), p, "unknown fault kind '%s' (choices: %s)", v,
                       join_words(words, sizeof words, fault_kinds));
    snprintf(f->kind, sizeof f->kind, "%s", v);
    return 0;
}

/* key must be present when needed, absent when it has no meaning. */
static int fault_needs(const loader *L, const config_setting_t *g, const char *path,
                       const char *key, int needed, const char *kind)
{
    const config_setting_t *s = config_setting_get_member(g, key);
    char p[PATH_CHARS];
    path_key(p, path, key);
    if (needed && !s)
        return fail_at(L, line_of(g), p, "missing required setting for fault kind '%s'", kind);
    if (!needed && s)
        return fail_at(L, line_of(s), p, "has no meaning for fault kind '%s'", kind);
    return 0;
}

static int fault_metric(const loader *L, const config_setting_t *g, const char *path,
                        gc_fault *f)
{
    char p[PATH_CHARS], words[400];
    const char *v;
    const config_setting_t *s = config_setting_get_member(g, "metric");
    if (!s)
        return 0;
    path_key(p, path, "metric");
    int rc = get_str(L, s, p, sizeof f->metric, &v);
    if (rc)
        return rc;
    if (!in_words(v, fault_metrics))
        return fail_at(L, line_of(s), p, "unknown metric '%s' (known: %s)", v,
                       join_words(words, sizeof words, fault_metrics));
    if (strcmp(f->kind, "bimodal") == 0 && in_words(v, state_metrics))
        return fail_at(L, line_of(s), p, "bimodal applies to measured metrics, not to '%s'", v);
    snprintf(f->metric, sizeof f->metric, "%s", v);
    return 0;
}

static int load_fault(const loader *L, const config_setting_t *g, unsigned idx, gc_fault *f)
{
    char path[PATH_CHARS], p[PATH_CHARS];
    const char *node = "";
    int64_t gpu = -1, at = -1;
    int rc;
    path_index(path, "sim.faults", idx);
    if (config_setting_type(g) != CONFIG_TYPE_GROUP)
        return fail_at(L, line_of(g), path, "expected a group { kind = ...; }, got %s",
                       type_name(g));
    f->line = line_of(g);
    if ((rc = check_keys(L, g, path, fault_keys)) || (rc = fault_kind(L, g, path, f)))
        return rc;
    int timed = strcmp(f->kind, "crash") == 0 || strcmp(f->kind, "hang") == 0;
    if ((rc = fault_needs(L, g, path, "metric", !timed, f->kind)) ||
        (rc = fault_needs(L, g, path, "factor", !timed, f->kind)) ||
        (rc = fault_needs(L, g, path, "at_item", timed, f->kind)) ||
        (rc = fault_metric(L, g, path, f)))
        return rc;
    const config_setting_t *s = config_setting_get_member(g, "node");
    path_key(p, path, "node");
    if (s && (rc = get_str(L, s, p, GC_NODE_MAX, &node)))
        return rc;
    if (s && node[0] && !valid_name(node))
        return fail_at(L, line_of(s), p, "'%s' is not a node name ([A-Za-z0-9_.-]+)", node);
    snprintf(f->node, sizeof f->node, "%s", s ? node : "");
    if ((rc = opt_int(L, g, path, "gpu", -1, 15, &gpu)) ||
        (rc = opt_int(L, g, path, "at_item", 0, GC_MAX_ITEMS, &at)))
        return rc;
    f->gpu = (int)gpu;
    f->at_item = (int)at;
    f->factor = 0.0;
    if (strcmp(f->kind, "scale") == 0)
        rc = opt_num(L, g, path, "factor", 0.0, 10.0, 1, &f->factor);
    else if (strcmp(f->kind, "bimodal") == 0) {
        rc = opt_num(L, g, path, "factor", 0.0, 1.0, 1, &f->factor);
        if (!rc && f->factor >= 1.0) {
            path_key(p, path, "factor");
            rc = fail_at(L, line_of(config_setting_get_member(g, "factor")), p,
                         "bimodal fraction must be in (0, 1)");
        }
    }
    return rc;
}

static int load_faults(const loader *L, const config_setting_t *s, gc_sim_spec *sim)
{
    if (config_setting_type(s) != CONFIG_TYPE_LIST)
        return fail_at(L, line_of(s), "sim.faults",
                       "expected a list of groups ( { kind = ...; }, ... ), got %s", type_name(s));
    int n = config_setting_length(s);
    if (n > GC_MAX_FAULTS)
        return fail_at(L, line_of(s), "sim.faults", "more than %d faults", GC_MAX_FAULTS);
    if (n == 0)
        return 0;
    sim->faults = calloc((size_t)n, sizeof *sim->faults);
    if (!sim->faults)
        return gc_fail(L->err, GC_ENOMEM, "%s: out of memory", L->file);
    sim->nfaults = (size_t)n;
    for (int i = 0; i < n; i++) {
        int rc = load_fault(L, config_setting_get_elem(s, (unsigned)i), (unsigned)i,
                            &sim->faults[i]);
        if (rc)
            return rc;
    }
    return 0;
}

static int load_sim(const loader *L, const config_setting_t *g, gc_sim_spec *sim)
{
    const char *profile;
    /* nodes = 0 (absent): the run's real node names are kept. */
    int64_t seed = 1, nodes = 0, gpn = 1;
    int rc;
    if (config_setting_type(g) != CONFIG_TYPE_GROUP)
        return fail_at(L, line_of(g), "sim", "expected a group { profile = ...; }, got %s",
                       type_name(g));
    if ((rc = check_keys(L, g, "sim", sim_keys)))
        return rc;
    const config_setting_t *s = config_setting_get_member(g, "profile");
    if (!s)
        return fail_missing(L, g, "sim.profile");
    if ((rc = get_str(L, s, "sim.profile", sizeof sim->profile, &profile)))
        return rc;
    if (!profile[0])
        return fail_at(L, line_of(s), "sim.profile", "empty path");
    snprintf(sim->profile, sizeof sim->profile, "%s", profile);
    if ((rc = opt_int(L, g, "sim", "seed", 0, INT64_MAX, &seed)) ||
        (rc = opt_int(L, g, "sim", "nodes", 1, 4096, &nodes)) ||
        (rc = opt_int(L, g, "sim", "gpus_per_node", 1, 16, &gpn)))
        return rc;
    sim->present = 1;
    sim->seed = (uint64_t)seed;
    sim->nodes = (int)nodes;
    sim->gpus_per_node = (int)gpn;
    s = config_setting_get_member(g, "faults");
    return s ? load_faults(L, s, sim) : 0;
}

/* ---- top level ---------------------------------------------------------- */

/* Only %t (UTC timestamp), %j (Slurm job id) and %% may appear. */
static int check_output(const loader *L, const config_setting_t *s, const char *out)
{
    if (!out[0])
        return fail_at(L, line_of(s), "output", "empty path");
    for (const char *c = out; *c; c++) {
        if (*c != '%')
            continue;
        c++;
        if (*c != 't' && *c != 'j' && *c != '%')
            return fail_at(L, line_of(s), "output",
                           "unknown escape '%%%c' (use %%t timestamp, %%j job id, %%%% percent)",
                           *c ? *c : ' ');
    }
    return 0;
}

static int load_top(const loader *L, const config_setting_t *root, gc_plan *plan)
{
    const char *v;
    int rc;
    if ((rc = check_keys(L, root, "", top_keys)))
        return rc;
    const config_setting_t *s = config_setting_get_member(root, "name");
    if (!s)
        return fail_missing(L, root, "name");
    if ((rc = get_name(L, s, "name", sizeof plan->name, &v)))
        return rc;
    snprintf(plan->name, sizeof plan->name, "%s", v);
    snprintf(plan->output, sizeof plan->output, "results/%%t");
    if ((s = config_setting_get_member(root, "output"))) {
        if ((rc = get_str(L, s, "output", sizeof plan->output, &v)) ||
            (rc = check_output(L, s, v)))
            return rc;
        snprintf(plan->output, sizeof plan->output, "%s", v);
    }
    plan->precision = 0.01;
    plan->budget_s = 0.0;
    plan->shard_interval_s = 1.0;
    if ((rc = opt_num(L, root, "", "precision", 0.0001, 0.1, 0, &plan->precision)) ||
        (rc = opt_num(L, root, "", "budget_s", 0.0, 1e7, 0, &plan->budget_s)) ||
        (rc = opt_num(L, root, "", "shard_interval_s", 0.0, 3600.0, 0, &plan->shard_interval_s)) ||
        (rc = load_benchmarks(L, root, plan)))
        return rc;
    if ((s = config_setting_get_member(root, "sim")))
        return load_sim(L, s, &plan->sim);
    return 0;
}

/* ---- file --------------------------------------------------------------- */

static int read_all(const char *path, char **buf, size_t *len, gc_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return gc_fail(err, GC_EIO, "%s: cannot open plan: %s", path, strerror(errno));
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

/* Refuse bytes libconfig would not parse as we hashed them: a NUL ends the
 * string early, an @include pulls in a file the hash does not cover (and
 * could name any path). */
static int check_bytes(const loader *L, const char *buf, size_t len)
{
    int line = 1;
    int bol = 1;     /* only blanks so far on this line */
    for (size_t i = 0; i < len; i++) {
        char c = buf[i];
        if (c == '\0')
            return fail_at(L, line, "plan", "NUL byte in the file");
        if (bol && c == '@' && strncmp(buf + i, "@include", 8) == 0)
            return fail_at(L, line, "@include", "not supported in plans (the plan's hash covers one file)");
        if (c == '\n') {
            line++;
            bol = 1;
        } else if (c != ' ' && c != '\t' && c != '\r') {
            bol = 0;
        }
    }
    return 0;
}

/* libconfig 1.5 silently truncates an integer literal that does not fit 32
 * bits unless it ends in L (4294967296 reads as 0, 4294967296+65536 as a
 * plausible 65536). Find such literals in the bytes before parsing: skip
 * comments, strings and names the way libconfig's scanner does, and check
 * each integer literal. */
static size_t skip_comment_or_string(const char *b, size_t i, size_t len, int *line)
{
    if (b[i] == '#' || (b[i] == '/' && i + 1 < len && b[i + 1] == '/')) {
        while (i < len && b[i] != '\n')
            i++;
        return i;
    }
    if (b[i] == '/' && i + 1 < len && b[i + 1] == '*') {
        for (i += 2; i < len && !(b[i] == '*' && i + 1 < len && b[i + 1] == '/'); i++)
            *line += b[i] == '\n';
        return i + 2 < len ? i + 2 : len;
    }
    /* b[i] == '"' */
    for (i++; i < len && b[i] != '"'; i++) {
        if (b[i] == '\\' && i + 1 < len)
            i++;
        *line += b[i] == '\n';
    }
    return i + 1 < len ? i + 1 : len;
}

static int is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_hex(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* The number token at b[i]; sets *end past it. Returns 1 when it is an
 * integer libconfig would truncate. */
static int int_literal_truncated(const char *b, size_t i, size_t len, int negative, size_t *end)
{
    int hex = b[i] == '0' && i + 1 < len && (b[i + 1] == 'x' || b[i + 1] == 'X');
    unsigned long long v = 0;
    int overflow = 0;
    size_t j = hex ? i + 2 : i;
    for (; j < len && (hex ? is_hex(b[j]) : is_digit(b[j])); j++) {
        unsigned d = is_digit(b[j]) ? (unsigned)(b[j] - '0') : (unsigned)((b[j] | 0x20) - 'a' + 10);
        if (v > (ULLONG_MAX - d) / (hex ? 16 : 10))
            overflow = 1;
        else
            v = v * (hex ? 16 : 10) + d;
    }
    if (!hex && j < len && (b[j] == '.' || b[j] == 'e' || b[j] == 'E')) {
        while (j < len && (is_digit(b[j]) || b[j] == '.' || b[j] == 'e' || b[j] == 'E' ||
                           ((b[j] == '-' || b[j] == '+') && (b[j - 1] == 'e' || b[j - 1] == 'E'))))
            j++;
        *end = j;
        return 0;   /* a float */
    }
    int is64 = j < len && b[j] == 'L';
    while (j < len && b[j] == 'L')
        j++;
    *end = j;
    if (is64)
        return overflow || (hex ? 0 : v > (negative ? 1ull << 63 : (1ull << 63) - 1));
    if (hex)
        return overflow || v > 0xffffffffull;
    return overflow || v > (negative ? 1ull << 31 : (1ull << 31) - 1);
}

static int check_int_literals(const loader *L, const char *b, size_t len)
{
    int line = 1;
    for (size_t i = 0; i < len;) {
        char c = b[i];
        size_t end;
        if (c == '\n') {
            line++;
            i++;
        } else if (c == '#' || c == '"' || (c == '/' && i + 1 < len && (b[i + 1] == '/' || b[i + 1] == '*'))) {
            i = skip_comment_or_string(b, i, len, &line);
        } else if (is_alpha(c) || c == '*') {
            while (i < len && (is_alpha(b[i]) || is_digit(b[i]) || b[i] == '_' || b[i] == '-' || b[i] == '*'))
                i++;
        } else if (is_digit(c)) {
            int neg = i > 0 && b[i - 1] == '-';
            if (int_literal_truncated(b, i, len, neg, &end))
                return fail_at(L, line, "number", "integer literal '%.*s%s' does not fit; "
                               "write integers beyond 32 bits with an L suffix (e.g. 4294967296L)",
                               (int)(end - i < 40 ? end - i : 40), b + i,
                               end - i < 40 ? "" : "...");
            i = end;
        } else {
            i++;
        }
    }
    return 0;
}

static int parse_plan(const loader *L, const char *text, gc_plan *plan)
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
    loader L = { name, err };
    snprintf(plan->file, sizeof plan->file, "%s", name);
    gc_sha256_hex(buf, len, plan->sha256);
    int rc = check_bytes(&L, buf, len);
    if (!rc)
        rc = check_int_literals(&L, buf, len);
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
