/* Sweep axes of a benchmark entry: the values one parameter takes, checked
 * against the registry (choices, range, integer parameters). Kept apart from
 * plan.c because the value syntax is the most intricate part of a plan.
 *
 * Sweep values for one parameter (an axis) may be written as
 *   a scalar                      order = "random";
 *   an array or list of scalars   kernel = ["read", "copy"];
 *   a range group                 size_bytes = { from = 4; to = 1024; factor = 2.0; };
 *                                 (or per_octave = N, or step = S for linear)
 *   a list mixing both            size_bytes = ( { from = 4; to = 64; factor = 2.0; }, 3000 );
 * Ranges include 'to' when a point hits it (relative tolerance 1e-9) and are
 * rounded to integers for integer parameters (is_int in the registry);
 * rounding duplicates inside a range are dropped, duplicates written by
 * hand are an error. */
#include "plan/plan_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RANGE_TOL 1e-9

static const char *const range_keys[] = {
    "from", "to", "factor", "per_octave", "step", NULL };

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

static int push_failed(const gc_cfg *L, int rc, int line, const char *path)
{
    if (rc == -2)
        return gc_fail(L->err, GC_ENOMEM, "%s:%d: %s: out of memory", L->file, line, path);
    return gc_cfg_fail_at(L, line, path, "sweep has more than %d points", GC_MAX_SWEEP);
}

static int str_axis_has(const gc_axis *a, const char *s)
{
    for (size_t i = 0; i < a->n; i++)
        if (strcmp(a->strs[i], s) == 0)
            return 1;
    return 0;
}

/* One written value (not a range) of an axis. */
static int add_scalar(const gc_cfg *L, const config_setting_t *e,
                      const gc_param_def *d, const char *path, gc_axis *a)
{
    char words[400], x[40], lo[40], hi[40];
    int rc;
    if (d->is_str) {
        if (config_setting_type(e) != CONFIG_TYPE_STRING)
            return gc_cfg_fail_at(L, gc_cfg_line_of(e), path, "expected a string (one of: %s), got %s",
                              gc_cfg_join_words(words, sizeof words, d->choices), gc_cfg_type_name(e));
        const char *s = config_setting_get_string(e);
        if (!gc_cfg_in_words(s, d->choices))
            return gc_cfg_fail_at(L, gc_cfg_line_of(e), path, "unknown value '%.60s' (choices: %s)", s,
                              gc_cfg_join_words(words, sizeof words, d->choices));
        if (str_axis_has(a, s))
            return gc_cfg_fail_at(L, gc_cfg_line_of(e), path, "duplicate value '%s'", s);
        rc = axis_push_str(a, s);
        return rc ? push_failed(L, rc, gc_cfg_line_of(e), path) : 0;
    }
    if (!gc_cfg_is_number(e))
        return gc_cfg_fail_at(L, gc_cfg_line_of(e), path, "expected a number, got %s", gc_cfg_type_name(e));
    double v = gc_cfg_num_value(e);
    if (!isfinite(v) || v < d->min || v > d->max)
        return gc_cfg_fail_at(L, gc_cfg_line_of(e), path, "value %s out of range [%s, %s]",
                          isfinite(v) ? gc_cfg_fmt_num(x, v) : "(non-finite)",
                          gc_cfg_fmt_num(lo, d->min), gc_cfg_fmt_num(hi, d->max));
    if (d->is_int && v != floor(v))
        return gc_cfg_fail_at(L, gc_cfg_line_of(e), path, "value %s is not an integer", gc_cfg_fmt_num(x, v));
    rc = axis_push_num(a, v);
    return rc ? push_failed(L, rc, gc_cfg_line_of(e), path) : 0;
}

/* A range's endpoints, both within the parameter's range. */
static int range_ends(const gc_cfg *L, const config_setting_t *g, const gc_param_def *d,
                      const char *path, double *from, double *to)
{
    const char *keys[2] = { "from", "to" };
    double *outs[2] = { from, to };
    for (int i = 0; i < 2; i++) {
        const config_setting_t *s = config_setting_get_member(g, keys[i]);
        char p[GC_CFG_PATH];
        gc_cfg_path_key(p, path, keys[i]);
        if (!s)
            return gc_cfg_fail_missing(L, g, p);
        int rc = gc_cfg_get_num(L, s, p, d->min, d->max, 0, outs[i]);
        if (rc)
            return rc;
    }
    return 0;
}

typedef enum { STEP_FACTOR, STEP_PER_OCTAVE, STEP_LINEAR } step_kind;

/* Which of factor / per_octave / step the range uses, and its value. */
static int range_step(const gc_cfg *L, const config_setting_t *g, const char *path,
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
            return gc_cfg_fail_at(L, gc_cfg_line_of(s), path, "give only one of factor, per_octave, step");
        found = s;
        which = i;
    }
    if (!found)
        return gc_cfg_fail_at(L, gc_cfg_line_of(g), path, "a range needs one of factor, per_octave, step");
    char p[GC_CFG_PATH], x[40];
    gc_cfg_path_key(p, path, keys[which]);
    *kind = (step_kind)which;
    if (which == STEP_PER_OCTAVE) {
        int64_t n;
        int rc = gc_cfg_get_int(L, found, p, 1, 1024, &n);
        *step = (double)n;
        return rc;
    }
    if (!gc_cfg_is_number(found))
        return gc_cfg_fail_at(L, gc_cfg_line_of(found), p, "expected a number, got %s", gc_cfg_type_name(found));
    *step = gc_cfg_num_value(found);
    if (which == STEP_FACTOR && !(*step > 1.0 && isfinite(*step)))
        return gc_cfg_fail_at(L, gc_cfg_line_of(found), p, "factor must be > 1 (got %s): the range yields nothing",
                          gc_cfg_fmt_num(x, *step));
    if (which == STEP_LINEAR && !(*step > 0.0 && isfinite(*step)))
        return gc_cfg_fail_at(L, gc_cfg_line_of(found), p, "step must be > 0 (got %s): the range yields nothing",
                          gc_cfg_fmt_num(x, *step));
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

static int add_range(const gc_cfg *L, const config_setting_t *g, const gc_param_def *d,
                     const char *path, gc_axis *a)
{
    char x[40], y[40];
    double from = 0, to = 0, step = 0;
    step_kind kind = STEP_FACTOR;
    int rc;
    if (d->is_str)
        return gc_cfg_fail_at(L, gc_cfg_line_of(g), path, "a range needs a numeric parameter; '%s' takes strings",
                          d->name);
    if ((rc = gc_cfg_check_keys(L, g, path, range_keys)) || (rc = range_ends(L, g, d, path, &from, &to)) ||
        (rc = range_step(L, g, path, &kind, &step)))
        return rc;
    if (from > to)
        return gc_cfg_fail_at(L, gc_cfg_line_of(g), path, "empty range: from (%s) > to (%s)",
                          gc_cfg_fmt_num(x, from), gc_cfg_fmt_num(y, to));
    if (kind != STEP_LINEAR && from <= 0)
        return gc_cfg_fail_at(L, gc_cfg_line_of(g), path, "a geometric range needs from > 0");
    double count = range_count(kind, step, from, to);
    if (count + (double)a->n > GC_MAX_SWEEP)
        return gc_cfg_fail_at(L, gc_cfg_line_of(g), path, "range gives %s points%s, more than %d",
                          gc_cfg_fmt_num(x, count), a->n ? " (with the values before it)" : "",
                          GC_MAX_SWEEP);
    int integer = d->is_int;
    size_t first = a->n;
    for (size_t k = 0; k < (size_t)count; k++) {
        double v = range_point(kind, step, from, to, k);
        if (integer)
            v = round(v);   /* nearest, halves away from zero */
        if (a->n > first && a->nums[a->n - 1] == v)
            continue;   /* rounding made two points equal */
        if ((rc = axis_push_num(a, v)))
            return push_failed(L, rc, gc_cfg_line_of(g), path);
    }
    return 0;
}

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

static int check_num_duplicates(const gc_cfg *L, const config_setting_t *s,
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
            rc = gc_cfg_fail_at(L, gc_cfg_line_of(s), path, "duplicate value %s", gc_cfg_fmt_num(x, copy[i]));
        }
    free(copy);
    return rc;
}

/* One element of an array or list: a range group or a scalar. */
static int add_element(const gc_cfg *L, const config_setting_t *e,
                       const gc_param_def *d, const char *path, gc_axis *a)
{
    int t = config_setting_type(e);
    if (t == CONFIG_TYPE_GROUP)
        return add_range(L, e, d, path, a);
    if (t == CONFIG_TYPE_LIST || t == CONFIG_TYPE_ARRAY)
        return gc_cfg_fail_at(L, gc_cfg_line_of(e), path, "lists may not nest (got %s inside a list)",
                          gc_cfg_type_name(e));
    return add_scalar(L, e, d, path, a);
}

static int load_axis(const gc_cfg *L, const config_setting_t *s,
                     const gc_param_def *d, const char *path, gc_axis *a)
{
    int t = config_setting_type(s), rc = 0;
    snprintf(a->name, sizeof a->name, "%s", d->name);
    a->is_str = d->is_str;
    if (t == CONFIG_TYPE_ARRAY || t == CONFIG_TYPE_LIST) {
        int n = config_setting_length(s);
        if (n == 0)
            return gc_cfg_fail_at(L, gc_cfg_line_of(s), path, "empty sweep list");
        for (int i = 0; i < n && !rc; i++)
            rc = add_element(L, config_setting_get_elem(s, (unsigned)i), d, path, a);
    } else {
        rc = add_element(L, s, d, path, a);
    }
    if (!rc && !a->is_str)
        rc = check_num_duplicates(L, s, path, a);
    return rc;
}

int pl_load_sweep(const gc_cfg *L, const config_setting_t *g, const char *path,
                  gc_bench_spec *b, size_t *points)
{
    char p[GC_CFG_PATH], words[256];
    *points = 1;
    if (config_setting_type(g) != CONFIG_TYPE_GROUP)
        return gc_cfg_fail_at(L, gc_cfg_line_of(g), path, "expected a group { param = values; ... }, got %s",
                          gc_cfg_type_name(g));
    int n = config_setting_length(g);
    for (int i = 0; i < n; i++) {
        const config_setting_t *m = config_setting_get_elem(g, (unsigned)i);
        const char *pname = config_setting_name(m);
        gc_cfg_path_key(p, path, pname ? pname : "?");
        const gc_param_def *d = pname ? gc_bench_param(b->def, pname) : NULL;
        if (!d) {
            const char *names[GC_MAX_CTX + 1];
            size_t k;
            for (k = 0; k < b->def->nparams && k < GC_MAX_CTX; k++)
                names[k] = b->def->params[k].name;
            names[k] = NULL;
            return gc_cfg_fail_at(L, gc_cfg_line_of(m), p, "unknown parameter for benchmark '%s' (parameters: %s)",
                              b->def->name, gc_cfg_join_words(words, sizeof words, names));
        }
        if (b->naxes >= GC_MAX_AXES)
            return gc_cfg_fail_at(L, gc_cfg_line_of(m), p, "more than %d swept parameters", GC_MAX_AXES);
        gc_axis *a = &b->axes[b->naxes++];
        int rc = load_axis(L, m, d, p, a);
        if (rc)
            return rc;
        *points *= a->n;
        if (*points > GC_MAX_SWEEP)
            return gc_cfg_fail_at(L, gc_cfg_line_of(m), p, "sweep has more than %d points (product of all axes)",
                              GC_MAX_SWEEP);
    }
    return 0;
}
