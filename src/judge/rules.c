/* Detection rules from a libconfig file. See rules.h and configs/rules.cfg,
 * which documents every setting; the defaults below are the same values. */
#include "judge/rules.h"
#include "util/fsutil.h"

#include "util/cfgread.h"

#include <libconfig.h>
#include <stddef.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#define GC_RULES_MAX_BYTES ((size_t)1 << 20)   /* a rules file is a few KiB */

static const gc_rule_param default_params[] = {
    { "hbm_bw_bps", GC_BETTER_HIGHER },         { "hbm_read_bps", GC_BETTER_HIGHER },
    { "hbm_write_bps", GC_BETTER_HIGHER },      { "hbm_copy_bps", GC_BETTER_HIGHER },
    { "hbm_triad_bps", GC_BETTER_HIGHER },      { "l2_bw_bps", GC_BETTER_HIGHER },
    { "smem_bw_bps", GC_BETTER_HIGHER },        { "l1_latency_cycles", GC_BETTER_LOWER },
    { "l2_latency_cycles", GC_BETTER_LOWER },   { "l2_far_latency_cycles", GC_BETTER_LOWER },
    { "dram_latency_cycles", GC_BETTER_LOWER }, { "page_chase_latency_cycles", GC_BETTER_LOWER },
    { "launch_ns", GC_BETTER_LOWER },           { "launch_sync_ns", GC_BETTER_LOWER },
    { "sustained_sm_clock_mhz", GC_BETTER_HIGHER },
};

void gc_rules_default(gc_rules *r)
{
    memset(r, 0, sizeof *r);
    snprintf(r->file, sizeof r->file, "(defaults)");
    r->min_peers = 3;
    r->z_suspect = 5.0;
    r->z_degraded = 8.0;
    r->rel_suspect = 0.03;
    r->rel_degraded = 0.08;
    r->sigma_floor_rel = 0.005;
    r->host_sigma_floor_rel = 0.0275;
    r->z_host = 3.0;
    r->judge_points = 1;
    r->nskip = 3;
    snprintf(r->skip_bench[0], sizeof r->skip_bench[0], "xfer");
    snprintf(r->skip_bench[1], sizeof r->skip_bench[1], "p2p");
    snprintf(r->skip_bench[2], sizeof r->skip_bench[2], "net");
    r->nparams = sizeof default_params / sizeof default_params[0];
    memcpy(r->params, default_params, sizeof default_params);
    r->dist_enabled = 1;
    r->dist_rel_suspect = 0.03;
    r->dist_rel_degraded = 0.10;
    r->dist_z = 5.0;
    r->dist_sigma_floor = 0.005;
    r->dist_min_samples_rel = 0.5;
    r->dist_min_samples = 100;
    r->base_rel_suspect = 0.05;
    r->base_rel_degraded = 0.10;
    r->hbm_ratio_floor = 0.70;
    r->clock_floor = 0.90;
    r->throttle_bad_mask = 0xE8;   /* HW slowdown, SW/HW thermal, power brake */
    r->ecc_corrected_suspect = 100;
    r->pcie_lambda_floor = 0.60;
    r->nvlink_lambda_floor = 0.50;
    r->hist_runs = 10;
    r->hist_drift_min_runs = 5;
    r->hist_drift_min_days = 7;
    r->hist_drift_rel_per_month = 0.01;
    r->hist_drift_z = 3.0;
    r->fleet_fp_rate = 0.01;
    r->host_set_rel_degraded = 1.0;
    r->sustain_p5_floor = 0.95;
}

int gc_rules_param(const gc_rules *r, const char *name)
{
    for (size_t i = 0; i < r->nparams; i++)
        if (strcmp(r->params[i].name, name) == 0)
            return r->params[i].better;
    return 0;
}

int gc_rules_skips(const gc_rules *r, const char *bench)
{
    for (size_t i = 0; i < r->nskip; i++)
        if (strcmp(r->skip_bench[i], bench) == 0)
            return 1;
    return 0;
}

/* ---- loading ---------------------------------------------------------- */

typedef gc_cfg ld;

/* A rules setting's path: parent.name (rules files are two levels deep). */
static void path_of(const config_setting_t *s, char out[GC_CFG_PATH])
{
    const config_setting_t *p = config_setting_parent(s);
    const char *pn = p ? config_setting_name(p) : NULL, *n = config_setting_name(s);
    gc_cfg_path_key(out, pn ? pn : "", n ? n : "(element)");
}

static int bad(ld *l, const config_setting_t *s, const char *what)
{
    char path[GC_CFG_PATH];
    path_of(s, path);
    return gc_cfg_fail_at(l, gc_cfg_line_of(s), path, "%s", what);
}

static int num(ld *l, const config_setting_t *s, double lo, double hi, double *out)
{
    char path[GC_CFG_PATH];
    path_of(s, path);
    return gc_cfg_get_num(l, s, path, lo, hi, 0, out);
}

static int boolean(ld *l, const config_setting_t *s, int *out)
{
    if (config_setting_type(s) != CONFIG_TYPE_BOOL)
        return bad(l, s, "expected true or false");
    *out = config_setting_get_bool(s);
    return 0;
}

typedef struct field {
    const char *name;
    int kind;          /* 0 double, 1 int, 2 bool, 3 long long */
    double lo, hi;
    size_t off;
} field;

#define F(n, k, lo, hi, m) { n, k, lo, hi, offsetof(gc_rules, m) }
static const field f_peers[] = {
    F("min_peers", 1, 2, 1000000, min_peers), F("z_suspect", 0, 0.5, 1e6, z_suspect),
    F("z_degraded", 0, 0.5, 1e6, z_degraded), F("rel_suspect", 0, 0, 10, rel_suspect),
    F("rel_degraded", 0, 0, 10, rel_degraded), F("sigma_floor_rel", 0, 0, 1, sigma_floor_rel),
    F("judge_points", 2, 0, 0, judge_points), { "skip_benchmarks", 9, 0, 0, 0 },
    F("host_sigma_floor_rel", 0, 0, 1, host_sigma_floor_rel), F("z_host", 0, 0.5, 1e6, z_host), { 0 } };
static const field f_dist[] = {
    F("enabled", 2, 0, 0, dist_enabled), F("rel_suspect", 0, 0, 10, dist_rel_suspect),
    F("rel_degraded", 0, 0, 10, dist_rel_degraded), F("z", 0, 0.5, 1e6, dist_z),
    F("sigma_floor", 0, 0, 10, dist_sigma_floor),
    F("min_samples_rel", 0, 0, 1, dist_min_samples_rel),
    F("min_samples", 0, 0, 1e12, dist_min_samples), { 0 } };
static const field f_base[] = {
    F("rel_suspect", 0, 0, 10, base_rel_suspect), F("rel_degraded", 0, 0, 10, base_rel_degraded),
    { 0 } };
static const field f_limits[] = {
    F("hbm_ratio_floor", 0, 0, 1, hbm_ratio_floor), F("clock_floor", 0, 0, 1, clock_floor),
    F("throttle_bad_mask", 3, 0, 4294967295.0, throttle_bad_mask),
    F("ecc_corrected_suspect", 3, 0, 1e15, ecc_corrected_suspect),
    F("pcie_lambda_floor", 0, 0, 2, pcie_lambda_floor),
    F("nvlink_lambda_floor", 0, 0, 2, nvlink_lambda_floor),
    F("sustain_p5_floor", 0, 0, 1, sustain_p5_floor), { 0 } };
static const field f_hist[] = {
    F("runs", 1, 1, 100000, hist_runs), F("drift_min_runs", 1, 3, 100000, hist_drift_min_runs),
    F("drift_min_days", 0, 0, 36500, hist_drift_min_days),
    F("drift_rel_per_month", 0, 0, 10, hist_drift_rel_per_month),
    F("drift_z", 0, 0, 1e6, hist_drift_z), { 0 } };
static const field f_fleet[] = {
    F("false_positive_rate", 0, 1e-12, 0.5, fleet_fp_rate),
    F("host_set_rel_degraded", 0, 0, 1e6, host_set_rel_degraded), { 0 } };
#undef F

static int skip_list(ld *l, const config_setting_t *s, gc_rules *r)
{
    if (!config_setting_is_array(s) && !config_setting_is_list(s))
        return bad(l, s, "a list of benchmark names, e.g. [\"xfer\", \"p2p\"]");
    int n = config_setting_length(s);
    if (n > GC_RULES_MAX_SKIP)
        return bad(l, s, "too many names (at most 16)");
    r->nskip = 0;
    for (int i = 0; i < n; i++) {
        const char *v = config_setting_get_string_elem(s, i);
        if (!v || !*v || strlen(v) >= sizeof r->skip_bench[0])
            return bad(l, s, "benchmark names: non-empty strings of at most 31 characters");
        snprintf(r->skip_bench[r->nskip++], sizeof r->skip_bench[0], "%s", v);
    }
    return 0;
}

static int group(ld *l, const config_setting_t *g, const field *fs, gc_rules *r)
{
    if (!config_setting_is_group(g))
        return bad(l, g, "expected a group { ... }");
    int n = config_setting_length(g);
    for (int i = 0; i < n; i++) {
        const config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
        const char *name = config_setting_name(s);
        const field *f = fs;
        while (f->name && strcmp(f->name, name) != 0)
            f++;
        if (!f->name)
            return bad(l, s, "unknown setting");
        char *base = (char *)r + f->off;
        double v;
        int rc = 0;
        switch (f->kind) {
        case 0: rc = num(l, s, f->lo, f->hi, (double *)base); break;
        case 1:
            if (config_setting_type(s) != CONFIG_TYPE_INT)
                return bad(l, s, "expected an integer");
            if (!(rc = num(l, s, f->lo, f->hi, &v)))
                *(int *)base = (int)v;
            break;
        case 2: rc = boolean(l, s, (int *)base); break;
        case 3:
            if (config_setting_type(s) != CONFIG_TYPE_INT && config_setting_type(s) != CONFIG_TYPE_INT64)
                return bad(l, s, "expected an integer");
            if (!(rc = num(l, s, f->lo, f->hi, &v)))
                *(long long *)base = (long long)v;
            break;
        case 9: rc = skip_list(l, s, r); break;
        }
        if (rc)
            return rc;
    }
    return 0;
}

static int params(ld *l, const config_setting_t *s, gc_rules *r)
{
    if (!config_setting_is_list(s))
        return bad(l, s, "a list ( { name = \"hbm_bw_bps\"; better = \"higher\"; }, ... )");
    int n = config_setting_length(s);
    if (n > GC_RULES_MAX_PARAMS)
        return bad(l, s, "too many parameters (at most 64)");
    r->nparams = 0;
    for (int i = 0; i < n; i++) {
        const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
        const char *name = NULL, *better = NULL;
        if (!config_setting_is_group(e) || config_setting_length(e) != 2 ||
            !config_setting_lookup_string(e, "name", &name) ||
            !config_setting_lookup_string(e, "better", &better))
            return bad(l, e, "each entry is { name = \"...\"; better = \"higher\" or \"lower\"; }");
        if (!*name || strlen(name) >= sizeof r->params[0].name)
            return bad(l, e, "name: 1 to 47 characters");
        int b = strcmp(better, "higher") == 0 ? GC_BETTER_HIGHER
              : strcmp(better, "lower") == 0  ? GC_BETTER_LOWER : 0;
        if (!b)
            return bad(l, e, "better: \"higher\" or \"lower\"");
        snprintf(r->params[r->nparams].name, sizeof r->params[0].name, "%s", name);
        r->params[r->nparams++].better = b;
    }
    return 0;
}

static int load(config_t *c, int read_rc, const char *name, gc_rules *r, gc_err *err)
{
    ld l = { name, err };
    if (read_rc != CONFIG_TRUE)
        return gc_fail(err, GC_EINVAL, "%s:%d: %s", name, config_error_line(c),
                       config_error_text(c) ? config_error_text(c) : "syntax error");
    const config_setting_t *root = config_root_setting(c);
    int n = config_setting_length(root);
    for (int i = 0; i < n; i++) {
        const config_setting_t *s = config_setting_get_elem(root, (unsigned)i);
        const char *k = config_setting_name(s);
        int rc;
        if (strcmp(k, "peers") == 0)
            rc = group(&l, s, f_peers, r);
        else if (strcmp(k, "distribution") == 0)
            rc = group(&l, s, f_dist, r);
        else if (strcmp(k, "baseline") == 0)
            rc = group(&l, s, f_base, r);
        else if (strcmp(k, "limits") == 0)
            rc = group(&l, s, f_limits, r);
        else if (strcmp(k, "history") == 0)
            rc = group(&l, s, f_hist, r);
        else if (strcmp(k, "fleet") == 0)
            rc = group(&l, s, f_fleet, r);
        else if (strcmp(k, "parameters") == 0)
            rc = params(&l, s, r);
        else
            rc = bad(&l, s, "unknown setting (peers, parameters, distribution, baseline, limits, history, fleet)");
        if (rc)
            return rc;
    }
    if (r->z_degraded < r->z_suspect || r->rel_degraded < r->rel_suspect)
        return gc_fail(err, GC_EINVAL, "%s: peers: degraded thresholds must not be below the suspect ones", name);
    if (r->dist_rel_degraded < r->dist_rel_suspect || r->base_rel_degraded < r->base_rel_suspect)
        return gc_fail(err, GC_EINVAL, "%s: distribution/baseline: rel_degraded must not be below rel_suspect", name);
    return 0;
}

int gc_rules_load_mem(const char *name, const char *text, size_t len, gc_rules *r, gc_err *err)
{
    gc_rules_default(r);
    snprintf(r->file, sizeof r->file, "%s", name);
    /* libconfig reads a NUL-terminated string: stop at an embedded NUL */
    char *copy = malloc(len + 1);
    if (!copy)
        return gc_fail(err, GC_ENOMEM, "out of memory");
    memcpy(copy, text, len);
    copy[len] = '\0';
    /* libconfig would open an @include'd file itself, blocking on a FIFO
     * and reading any device: refused, as in plans */
    for (size_t i = 0, line = 1, bol = 1; i < len; i++) {
        if (bol && !strncmp(copy + i, "@include", 8)) {
            free(copy);
            return gc_fail(err, GC_EINVAL, "%s:%zu: @include: not supported in rules files", name, line);
        }
        if (copy[i] == '\n')
            line++, bol = 1;
        else if (copy[i] != ' ' && copy[i] != '\t' && copy[i] != '\r')
            bol = 0;
    }
    config_t c;
    config_init(&c);
    int rc = load(&c, config_read_string(&c, copy), name, r, err);
    config_destroy(&c);
    free(copy);
    return rc;
}

int gc_rules_load(const char *path, gc_rules *r, gc_err *err)
{
    /* not a directory, FIFO or device; 1 MiB exactly (the byte after it refused) */
    uint8_t *b = NULL;
    size_t len = 0;
    if (gc_read_file(path, GC_RULES_MAX_BYTES, &b, &len, err))
        return err ? err->code : GC_EIO;
    char *buf = (char *)b;
    int rc = gc_rules_load_mem(path, buf ? buf : "", len, r, err);
    free(buf);
    return rc;
}
