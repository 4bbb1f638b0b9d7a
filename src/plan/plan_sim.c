/* The sim section of a plan: the profile the sim backend draws from, its
 * seed and node layout, and the faults it injects. Only sim runs read it, so
 * it lives apart from the plan's benchmarks. */
#include "plan/plan_int.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/datadir.h"

static const char *const sim_keys[] = {
    "profile", "seed", "nodes", "gpus_per_node", "faults", NULL };
static const char *const fault_keys[] = {
    "node", "gpu", "metric", "kind", "factor", "at_item", NULL };
static const char *const fault_kinds[] = {
    "scale", "bimodal", "crash", "segv", "hang", "slow", "throttle", "unstable", "foreign_load",
    "flap", "transient", "slow_end", NULL };
static const char *const fault_metrics[] = {
    "hbm_bw", "l2_bw", "smem_bw", "l1_latency", "l2_latency", "dram_latency",
    "inst_latency", "launch", "h2d_bw", "d2h_bw", "pcie_width", "nvlink",
    "numa", "p2p_bw", "net_bw", "sm_clock", "sustain", "gpu", NULL };
/* Link and clock states: a fault scales them, it cannot make them bimodal. */
static const char *const state_metrics[] = {
    "sm_clock", "pcie_width", "nvlink", "numa", "sustain", NULL };


static int fault_kind(const gc_cfg *L, const config_setting_t *g, const char *path,
                      gc_fault *f)
{
    char p[GC_CFG_PATH], words[128];
    const char *v;
    const config_setting_t *s = config_setting_get_member(g, "kind");
    gc_cfg_path_key(p, path, "kind");
    if (!s)
        return gc_cfg_fail_missing(L, g, p);
    int rc = gc_cfg_get_str(L, s, p, sizeof f->kind, &v);
    if (rc)
        return rc;
    if (!gc_cfg_in_words(v, fault_kinds))
        return gc_cfg_fail_at(L, gc_cfg_line_of(s), p, "unknown fault kind '%s' (choices: %s)", v,
                          gc_cfg_join_words(words, sizeof words, fault_kinds));
    snprintf(f->kind, sizeof f->kind, "%s", v);
    return 0;
}

/* key must be present when needed, absent when it has no meaning. */
static int fault_needs(const gc_cfg *L, const config_setting_t *g, const char *path,
                       const char *key, int needed, const char *kind)
{
    const config_setting_t *s = config_setting_get_member(g, key);
    char p[GC_CFG_PATH];
    gc_cfg_path_key(p, path, key);
    if (needed && !s)
        return gc_cfg_fail_at(L, gc_cfg_line_of(g), p, "missing required setting for fault kind '%s'", kind);
    if (!needed && s)
        return gc_cfg_fail_at(L, gc_cfg_line_of(s), p, "has no meaning for fault kind '%s'", kind);
    return 0;
}

static int fault_metric(const gc_cfg *L, const config_setting_t *g, const char *path,
                        gc_fault *f)
{
    char p[GC_CFG_PATH], words[400];
    const char *v;
    const config_setting_t *s = config_setting_get_member(g, "metric");
    if (!s)
        return 0;
    gc_cfg_path_key(p, path, "metric");
    int rc = gc_cfg_get_str(L, s, p, sizeof f->metric, &v);
    if (rc)
        return rc;
    if (!gc_cfg_in_words(v, fault_metrics))
        return gc_cfg_fail_at(L, gc_cfg_line_of(s), p, "unknown metric '%s' (known: %s)", v,
                          gc_cfg_join_words(words, sizeof words, fault_metrics));
    if (strcmp(f->kind, "bimodal") == 0 && gc_cfg_in_words(v, state_metrics))
        return gc_cfg_fail_at(L, gc_cfg_line_of(s), p, "bimodal applies to measured metrics, not to '%s'", v);
    snprintf(f->metric, sizeof f->metric, "%s", v);
    return 0;
}

static int load_fault(const gc_cfg *L, const config_setting_t *g, unsigned idx, gc_fault *f)
{
    char path[GC_CFG_PATH], p[GC_CFG_PATH];
    const char *node = "";
    int64_t gpu = -1, at = -1;
    int rc;
    gc_cfg_path_index(path, "sim.faults", idx);
    if (config_setting_type(g) != CONFIG_TYPE_GROUP)
        return gc_cfg_fail_at(L, gc_cfg_line_of(g), path, "expected a group { kind = ...; }, got %s",
                          gc_cfg_type_name(g));
    f->line = gc_cfg_line_of(g);
    if ((rc = gc_cfg_check_keys(L, g, path, fault_keys)) || (rc = fault_kind(L, g, path, f)))
        return rc;
    int slow = strcmp(f->kind, "slow") == 0;
    int end = strcmp(f->kind, "slow_end") == 0;   /* the rank's end, not an item */
    int timed = strcmp(f->kind, "crash") == 0 || strcmp(f->kind, "segv") == 0 ||
                strcmp(f->kind, "hang") == 0 || slow;
    if ((rc = fault_needs(L, g, path, "metric", !timed && !end, f->kind)) ||
        (rc = fault_needs(L, g, path, "factor", !timed || slow, f->kind)) ||
        (rc = fault_needs(L, g, path, "at_item", timed, f->kind)) ||
        (rc = fault_metric(L, g, path, f)))
        return rc;
    const config_setting_t *s = config_setting_get_member(g, "node");
    gc_cfg_path_key(p, path, "node");
    if (s && (rc = gc_cfg_get_str(L, s, p, GC_NODE_MAX, &node)))
        return rc;
    if (s && node[0] && !gc_cfg_valid_name(node))
        return gc_cfg_fail_at(L, gc_cfg_line_of(s), p, "'%s' is not a node name ([A-Za-z0-9_.-]+)", node);
    snprintf(f->node, sizeof f->node, "%s", s ? node : "");
    if ((rc = gc_cfg_opt_int(L, g, path, "gpu", -1, 15, &gpu)) ||
        (rc = gc_cfg_opt_int(L, g, path, "at_item", 0, GC_MAX_ITEMS, &at)))
        return rc;
    f->gpu = (int)gpu;
    f->at_item = (int)at;
    f->factor = 0.0;
    if (strcmp(f->kind, "scale") == 0 || strcmp(f->kind, "transient") == 0)
        rc = gc_cfg_opt_num(L, g, path, "factor", 0.0, 10.0, 1, &f->factor);
    else if (slow || end || strcmp(f->kind, "throttle") == 0)   /* seconds: the item's (a step
                                                                   of the end's) extra time,
                                                                   the load's time to throttle */
        rc = gc_cfg_opt_num(L, g, path, "factor", 0.0, 3600.0, 1, &f->factor);
    else if (strcmp(f->kind, "unstable") == 0 || strcmp(f->kind, "foreign_load") == 0 ||
             strcmp(f->kind, "flap") == 0)   /* the clock's dips, a fraction of it; the items
                                                 NVML sees another process in; a flapping
                                                 link's slow rate, a fraction of its own */
        rc = gc_cfg_opt_num(L, g, path, "factor", 0.0, 1.0, 1, &f->factor);
    else if (strcmp(f->kind, "bimodal") == 0) {
        rc = gc_cfg_opt_num(L, g, path, "factor", 0.0, 1.0, 1, &f->factor);
        if (!rc && f->factor >= 1.0) {
            gc_cfg_path_key(p, path, "factor");
            rc = gc_cfg_fail_at(L, gc_cfg_line_of(config_setting_get_member(g, "factor")), p,
                            "bimodal fraction must be in (0, 1)");
        }
    }
    return rc;
}

static int load_faults(const gc_cfg *L, const config_setting_t *s, gc_sim_spec *sim)
{
    if (config_setting_type(s) != CONFIG_TYPE_LIST)
        return gc_cfg_fail_at(L, gc_cfg_line_of(s), "sim.faults",
                          "expected a list of groups ( { kind = ...; }, ... ), got %s", gc_cfg_type_name(s));
    int n = config_setting_length(s);
    if (n > GC_MAX_FAULTS)
        return gc_cfg_fail_at(L, gc_cfg_line_of(s), "sim.faults", "more than %d faults", GC_MAX_FAULTS);
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

int pl_load_sim(const gc_cfg *L, const config_setting_t *g, gc_sim_spec *sim)
{
    const char *profile;
    /* nodes = 0 (absent): the run's real node names are kept. */
    int64_t seed = 1, nodes = 0, gpn = 1;
    int rc;
    if (config_setting_type(g) != CONFIG_TYPE_GROUP)
        return gc_cfg_fail_at(L, gc_cfg_line_of(g), "sim", "expected a group { profile = ...; }, got %s",
                          gc_cfg_type_name(g));
    if ((rc = gc_cfg_check_keys(L, g, "sim", sim_keys)))
        return rc;
    const config_setting_t *s = config_setting_get_member(g, "profile");
    if (!s)
        return gc_cfg_fail_missing(L, g, "sim.profile");
    if ((rc = gc_cfg_get_str(L, s, "sim.profile", sizeof sim->profile, &profile)))
        return rc;
    if (!profile[0])
        return gc_cfg_fail_at(L, gc_cfg_line_of(s), "sim.profile", "empty path");
    snprintf(sim->profile, sizeof sim->profile, "%s", profile);
    sim->profile_line = gc_cfg_line_of(s);
    if ((rc = gc_cfg_opt_int(L, g, "sim", "seed", 0, INT64_MAX, &seed)) ||
        (rc = gc_cfg_opt_int(L, g, "sim", "nodes", 1, 4096, &nodes)) ||
        (rc = gc_cfg_opt_int(L, g, "sim", "gpus_per_node", 1, 16, &gpn)))
        return rc;
    sim->present = 1;
    sim->seed = (uint64_t)seed;
    sim->nodes = (int)nodes;
    sim->gpus_per_node = (int)gpn;
    s = config_setting_get_member(g, "faults");
    return s ? load_faults(L, s, sim) : 0;
}

int gc_plan_sim_profile(const gc_plan *plan, char *out, size_t cap, gc_err *err)
{
    const gc_sim_spec *sim = &plan->sim;
    if (!sim->present || !sim->profile[0])
        return gc_fail(err, GC_EINVAL, "%s: the sim backend needs a sim section with a profile",
                       plan->file);
    if (sim->profile[0] == '/') {
        snprintf(out, cap, "%s", sim->profile);
        return access(out, R_OK) == 0 ? 0 : gc_fail(err, GC_EINVAL, "%s:%d: sim.profile: %s: cannot read it",
                                                     plan->file, sim->profile_line, sim->profile);
    }
    char tried[3][4400], cfg[4096];
    int n = 0;
    const char *slash = strrchr(plan->file, '/');
    snprintf(tried[n++], sizeof tried[0], "%.*s%s%s", slash ? (int)(slash - plan->file) : 0, plan->file,
             slash ? "/" : "", sim->profile);
    if (!gc_configs_dir(cfg, sizeof cfg))
        snprintf(tried[n++], sizeof tried[0], "%s/%s", cfg, sim->profile);
    snprintf(tried[n++], sizeof tried[0], "%s", sim->profile);
    for (int i = 0; i < n; i++)
        if (access(tried[i], R_OK) == 0 && strlen(tried[i]) < cap) {
            memcpy(out, tried[i], strlen(tried[i]) + 1);
            return 0;
        }
    return gc_fail(err, GC_EINVAL, "%s:%d: sim.profile: '%s' not found (looked for %s%s%s%s%s)",
                   plan->file, sim->profile_line, sim->profile, tried[0], n > 1 ? ", " : "",
                   n > 1 ? tried[1] : "", n > 2 ? ", " : "", n > 2 ? tried[2] : "");
}
