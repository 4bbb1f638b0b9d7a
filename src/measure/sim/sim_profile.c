/* Loading a sim profile (libconfig). The keys are listed once, in a table
 * with their ranges, so that the loader, its error messages and the format
 * documented in configs/sim/h100-sxm.cfg stay one list. A profile must give
 * every key: a silently defaulted number would make the sim look right for
 * the wrong reason. */
#include "measure/sim/sim_profile.h"
#include "util/fsutil.h"
#include "util/input.h"

#include <unistd.h>

#include <errno.h>
#include <libconfig.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "census/registry.h"

typedef enum { K_DBL, K_INT, K_BOOL } key_kind;

typedef struct key_def {
    const char *path;     /* libconfig path, e.g. "memory.l1_latency_cycles" */
    key_kind kind;
    size_t off;           /* offset into gc_sim_profile */
    double min, max;
} key_def;

#define D(path, field, lo, hi) { path, K_DBL, offsetof(gc_sim_profile, field), lo, hi }
#define I(path, field, lo, hi) { path, K_INT, offsetof(gc_sim_profile, field), lo, hi }
#define B(path, field) { path, K_BOOL, offsetof(gc_sim_profile, field), 0, 1 }

static const key_def keys[] = {
    I("device.cc_major", cc_major, 1, 20),
    I("device.cc_minor", cc_minor, 0, 9),
    I("device.sm_count", sm_count, 1, 1024),
    I("device.cores_per_sm", cores_per_sm, 1, 1024),
    I("device.warp_size", warp_size, 1, 128),
    I("device.max_threads_per_sm", max_threads_per_sm, 32, 8192),
    I("device.regs_per_sm", regs_per_sm, 1024, 1 << 20),
    D("device.smem_per_sm_kib", smem_per_sm_kib, 1, 4096),
    D("device.l2_mib", l2_mib, 0.0625, 4096),
    D("device.mem_mib", mem_mib, 64, 1 << 24),
    D("device.sm_clock_mhz", sm_clock_mhz, 100, 10000),
    D("device.mem_clock_mhz", mem_clock_mhz, 100, 20000),
    I("device.bus_width_bits", bus_width_bits, 32, 65536),
    B("device.ecc_enabled", ecc_enabled),
    I("device.numa_nodes", numa_nodes, 1, 64),
    D("memory.l1_kib", l1_kib, 1, 4096),
    D("memory.line_bytes", line_bytes, 4, 4096),
    D("memory.l1_latency_cycles", l1_latency_cycles, 1, 1e4),
    D("memory.l2_near_latency_cycles", l2_near_latency_cycles, 1, 1e4),
    D("memory.l2_far_latency_cycles", l2_far_latency_cycles, 1, 1e4),
    D("memory.dram_latency_cycles", dram_latency_cycles, 1, 1e5),
    D("memory.tlb_reach_mib", tlb_reach_mib, 0.001, 1 << 20),
    D("memory.tlb_miss_cycles", tlb_miss_cycles, 0, 1e5),
    D("memory.timer_cost_cycles", timer_cost_cycles, 0, 1e4),
    D("memory.transition_sharpness", transition_sharpness, 1, 50),
    D("memory.accesses_per_sample", accesses_per_sample, 1, 1e9),
    D("memory.loaded.dram_knee_warps_per_sm", dram_knee_warps_per_sm, 0, 64),
    D("memory.loaded.dram_slope_cycles_per_warp", dram_slope_cycles_per_warp, 0, 1e4),
    D("memory.loaded.l2_slope_cycles_per_warp", l2_slope_cycles_per_warp, 0, 1e4),
    D("memory.departure.coalesced_cycles", departure_coalesced_cycles, 0, 1e4),
    D("memory.departure.uncoalesced_cycles", departure_uncoalesced_cycles, 0, 1e5),
    D("bandwidth.hbm_theoretical_tb_per_s", hbm_theoretical_tb_per_s, 0.001, 1000),
    D("bandwidth.hbm_achieved_tb_per_s", hbm_achieved_tb_per_s, 0.001, 1000),
    D("bandwidth.hbm_kernel_factor.read", hbm_read_factor, 0.1, 2),
    D("bandwidth.hbm_kernel_factor.write", hbm_write_factor, 0.1, 2),
    D("bandwidth.hbm_kernel_factor.copy", hbm_copy_factor, 0.1, 2),
    D("bandwidth.hbm_kernel_factor.triad", hbm_triad_factor, 0.1, 2),
    D("bandwidth.dram_fetch_bytes", dram_fetch_bytes, 32, 128),
    D("bandwidth.hbm_blocks_per_sm_scale", hbm_blocks_per_sm_scale, 0.01, 32),
    D("bandwidth.l2_tb_per_s", l2_tb_per_s, 0.001, 1000),
    D("bandwidth.smem_bytes_per_cycle_per_sm", smem_bytes_per_cycle_per_sm, 1, 4096),
    D("bandwidth.smem_efficiency", smem_efficiency, 0.01, 1),
    D("bandwidth.kernel_overhead_us", kernel_overhead_us, 0, 1000),
    D("launch.back_to_back_us", launch_back_to_back_us, 0.01, 1e4),
    D("launch.launch_sync_us", launch_sync_us, 0.01, 1e4),
    D("launch.block_interval_ns", block_interval_ns, 0.1, 1e5),
    D("launch.block_replacement_ns", block_replacement_ns, 0.1, 1e5),
    I("pcie.gen", pcie_gen, 1, 8),
    I("pcie.width", pcie_width, 1, 32),
    I("pcie.switches", pcie_switches, 0, 64),
    D("pcie.gt_per_s_per_lane", pcie_gt_per_s_per_lane, 1, 256),
    D("pcie.h2d_pinned_gb_per_s", h2d_pinned_gb_per_s, 0.01, 10000),
    D("pcie.d2h_pinned_gb_per_s", d2h_pinned_gb_per_s, 0.01, 10000),
    D("pcie.pageable_factor", pageable_factor, 0.01, 1),
    D("pcie.pageable_extra_latency_us", pageable_extra_latency_us, 0, 1e4),
    D("pcie.sm_engine_factor", sm_engine_factor, 0.01, 2),
    D("pcie.latency_us", pcie_latency_us, 0.01, 1e4),
    D("pcie.bidir_loss", pcie_bidir_loss, 0, 0.9),
    I("nvlink.links", nvlink_links, 0, 64),
    D("nvlink.gb_per_s_per_link", nvlink_gb_per_s_per_link, 0, 1000),
    D("nvlink.p2p_achieved_gb_per_s", p2p_achieved_gb_per_s, 0.01, 100000),
    D("nvlink.latency_us", p2p_latency_us, 0.01, 1e4),
    D("nvlink.staged_gb_per_s", p2p_staged_gb_per_s, 0.01, 10000),
    D("nvlink.staged_latency_us", p2p_staged_latency_us, 0.01, 1e4),
    D("nvlink.bidir_loss", p2p_bidir_loss, 0, 0.9),
    D("net.gb_per_s", net_gb_per_s, 0.001, 10000),
    D("net.latency_us", net_latency_us, 0.01, 1e5),
    D("noise.bw_sigma", bw_sigma, 0, 0.5),
    D("noise.latency_sd_cycles", latency_sd_cycles, 0, 1e3),
    D("noise.latency_rel_sigma", latency_rel_sigma, 0, 0.5),
    D("noise.time_sigma", time_sigma, 0, 0.5),
    D("noise.outlier_prob", outlier_prob, 0, 0.5),
    D("noise.outlier_max", outlier_max, 1, 100),
    D("noise.launch_to_launch_sigma", launch_to_launch_sigma, 0, 0.5),
    D("spread.gpu_bw_rel_sigma", spread_gpu_bw, 0, 0.5),
    D("spread.gpu_latency_rel_sigma", spread_gpu_latency, 0, 0.5),
    D("spread.host_link_rel_sigma", spread_host_link, 0, 0.5),
    D("conditions.idle_temperature_c", idle_temperature_c, 0, 120),
    D("conditions.power_w", power_w, 0, 5000),
    D("sustain.hbm_sm_clock_mhz", sus_hbm_sm_clock_mhz, 1, 1e5),
    D("sustain.fma_sm_clock_mhz", sus_fma_sm_clock_mhz, 1, 1e5),
    D("sustain.hbm_power_w", sus_hbm_power_w, 0, 5000),
    D("sustain.fma_power_w", sus_fma_power_w, 0, 5000),
    D("sustain.temperature_rise_c", sus_temperature_rise_c, 0, 100),
    D("sustain.temperature_tau_s", sus_temperature_tau_s, 0.1, 1e4),
    D("sustain.clock_jitter_rel", sus_clock_jitter_rel, 0, 0.5),
    D("sustain.throttle_clock_ratio", sus_throttle_clock_ratio, 0.05, 1),
};

/* The nearest enclosing setting that exists, for a line number. */
static int line_near(const config_t *cfg, const char *path)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", path);
    for (;;) {
        const config_setting_t *s = config_lookup(cfg, buf);
        if (s)
            return config_setting_source_line(s);
        char *dot = strrchr(buf, '.');
        if (!dot)
            return 0;
        *dot = '\0';
    }
}

static int read_key(const config_t *cfg, const key_def *k, gc_sim_profile *p,
                    const char *file, gc_err *err)
{
    const config_setting_t *s = config_lookup(cfg, k->path);
    if (!s)
        return gc_fail(err, GC_EINVAL, "%s:%d: %s: missing", file,
                       line_near(cfg, k->path), k->path);
    int line = config_setting_source_line(s);
    int type = config_setting_type(s);
    double v;
    if (k->kind == K_BOOL) {
        if (type != CONFIG_TYPE_BOOL)
            return gc_fail(err, GC_EINVAL, "%s:%d: %s: expected true or false",
                           file, line, k->path);
        *(int *)((char *)p + k->off) = config_setting_get_bool(s);
        return 0;
    }
    if (type == CONFIG_TYPE_INT || type == CONFIG_TYPE_INT64)
        v = (double)config_setting_get_int64(s);
    else if (type == CONFIG_TYPE_FLOAT && k->kind == K_DBL)
        v = config_setting_get_float(s);
    else
        return gc_fail(err, GC_EINVAL, "%s:%d: %s: expected %s", file, line,
                       k->path, k->kind == K_INT ? "an integer" : "a number");
    if (!(v >= k->min && v <= k->max))
        return gc_fail(err, GC_EINVAL, "%s:%d: %s: %g outside [%g, %g]", file,
                       line, k->path, v, k->min, k->max);
    if (k->kind == K_INT)
        *(int *)((char *)p + k->off) = (int)v;
    else
        *(double *)((char *)p + k->off) = v;
    return 0;
}

static int read_string(const config_t *cfg, const char *path, char *out,
                       size_t cap, const char *file, gc_err *err)
{
    const config_setting_t *s = config_lookup(cfg, path);
    if (!s)
        return gc_fail(err, GC_EINVAL, "%s:%d: %s: missing", file,
                       line_near(cfg, path), path);
    const char *v = config_setting_get_string(s);
    if (!v || !*v || strlen(v) >= cap)
        return gc_fail(err, GC_EINVAL, "%s:%d: %s: expected a string of 1..%zu characters",
                       file, config_setting_source_line(s), path, cap - 1);
    snprintf(out, cap, "%s", v);
    return 0;
}

/* device.pci_bus_ids (optional): bus ids by local GPU index. */
static int read_bus_ids(const config_t *cfg, gc_sim_profile *p, const char *file,
                        gc_err *err)
{
    const config_setting_t *s = config_lookup(cfg, "device.pci_bus_ids");
    p->nbus_ids = 0;
    if (!s)
        return 0;
    int n = config_setting_length(s);
    if (!config_setting_is_array(s) || n > GC_SIM_MAX_BUS_IDS)
        return gc_fail(err, GC_EINVAL, "%s:%d: device.pci_bus_ids: expected an array of at most %d strings",
                       file, config_setting_source_line(s), GC_SIM_MAX_BUS_IDS);
    for (int i = 0; i < n; i++) {
        const char *v = config_setting_get_string_elem(s, i);
        if (!v || strlen(v) >= sizeof p->bus_ids[0])
            return gc_fail(err, GC_EINVAL, "%s:%d: device.pci_bus_ids[%d]: expected a bus id string",
                           file, config_setting_source_line(s), i);
        snprintf(p->bus_ids[i], sizeof p->bus_ids[i], "%s", v);
    }
    p->nbus_ids = n;
    return 0;
}

/* A number member of a group, given as an integer or a float. */
static int lookup_num(const config_setting_t *g, const char *name, double *v)
{
    const config_setting_t *s = config_setting_get_member(g, name);
    if (!s)
        return 0;
    int t = config_setting_type(s);
    if (t == CONFIG_TYPE_FLOAT)
        *v = config_setting_get_float(s);
    else if (t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64)
        *v = (double)config_setting_get_int64(s);
    else
        return 0;
    return 1;
}

static int read_op(const config_setting_t *e, gc_sim_op *op, const char *file,
                   int idx, gc_err *err)
{
    const char *name;
    double lat, thr;
    int line = config_setting_source_line(e);
    if (!config_setting_lookup_string(e, "op", &name) || strlen(name) >= sizeof op->name)
        return gc_fail(err, GC_EINVAL, "%s:%d: inst.[%d].op: missing or not a string",
                       file, line, idx);
    if (!lookup_num(e, "latency_cycles", &lat) || lat <= 0)
        return gc_fail(err, GC_EINVAL, "%s:%d: inst.[%d].latency_cycles: missing or not a positive number",
                       file, line, idx);
    if (!lookup_num(e, "ops_per_cycle_per_sm", &thr) || thr <= 0)
        return gc_fail(err, GC_EINVAL, "%s:%d: inst.[%d].ops_per_cycle_per_sm: missing or not a positive number",
                       file, line, idx);
    snprintf(op->name, sizeof op->name, "%s", name);
    op->latency_cycles = lat;
    op->ops_per_cycle_per_sm = thr;
    return 0;
}

/* inst: a list of groups; every op the registry knows must be present. */
static int read_ops(const config_t *cfg, gc_sim_profile *p, const char *file,
                    gc_err *err)
{
    const config_setting_t *s = config_lookup(cfg, "inst");
    if (!s || !config_setting_is_list(s))
        return gc_fail(err, GC_EINVAL, "%s:%d: inst: missing or not a list ( {...}, ... )",
                       file, s ? config_setting_source_line(s) : 0);
    int n = config_setting_length(s);
    if (n > GC_SIM_MAX_OPS)
        return gc_fail(err, GC_EINVAL, "%s:%d: inst: more than %d entries", file,
                       config_setting_source_line(s), GC_SIM_MAX_OPS);
    for (int i = 0; i < n; i++) {
        int rc = read_op(config_setting_get_elem(s, i), &p->ops[i], file, i, err);
        if (rc)
            return rc;
    }
    p->nops = n;
    const gc_param_def *opdef = gc_bench_param(gc_bench_find("inst"), "op");
    for (const char *const *c = opdef->choices; *c; c++)
        if (!gc_sim_profile_op(p, *c))
            return gc_fail(err, GC_EINVAL, "%s:%d: inst: no entry for op \"%s\"",
                           file, config_setting_source_line(s), *c);
    return 0;
}

/* The profile's text through the one input opener (regular, at most 1 MiB,
 * never blocking on a FIFO), NUL-terminated for libconfig: opened once, so
 * what is checked is what is parsed. */
#define SIM_PROFILE_MAX_BYTES (1u << 20)
static int read_text(const char *path, char **text, gc_err *err)
{
    gc_err e = { 0 };
    uint8_t *data = NULL;
    size_t len = 0;
    *text = NULL;
    if (gc_read_file(path, SIM_PROFILE_MAX_BYTES, &data, &len, &e))
        return gc_fail(err, e.code, "sim profile %s", e.msg);
    if (memchr(data, 0, len)) {
        free(data);
        return gc_fail(err, GC_EINVAL, "sim profile %s: a NUL byte (not a text file)", path);
    }
    char *t = realloc(data, len + 1);
    if (!t) {
        free(data);
        return gc_fail(err, GC_ENOMEM, "sim profile %s: out of memory", path);
    }
    t[len] = '\0';
    *text = t;
    return 0;
}

static int load_cfg(const config_t *cfg, const char *path, gc_sim_profile *p,
                    gc_err *err)
{
    int rc = read_string(cfg, "device.name", p->name, sizeof p->name, path, err);
    for (size_t i = 0; !rc && i < sizeof keys / sizeof keys[0]; i++)
        rc = read_key(cfg, &keys[i], p, path, err);
    if (!rc)
        rc = read_bus_ids(cfg, p, path, err);
    if (!rc)
        rc = read_ops(cfg, p, path, err);
    return rc;
}

/* The last profile loaded, by path, size and modification time: every rank
 * of a run opens it once, but a benchmark that simulates a thousand GPUs in
 * one process (bench_verdicts) opened it a thousand times, 6% of its time. */
static struct {
    pthread_mutex_t mu;
    int valid;
    struct stat st;
    gc_sim_profile p;
} cache = { .mu = PTHREAD_MUTEX_INITIALIZER };

int gc_sim_profile_load(const char *path, gc_sim_profile *p, gc_err *err)
{
    memset(p, 0, sizeof *p);
    snprintf(p->file, sizeof p->file, "%s", path);
    /* the same file as last time (device, inode, size, mtime): what was
     * read of it then (a FIFO or another file there is another inode) */
    struct stat st;
    int have_st = stat(path, &st) == 0;
    pthread_mutex_lock(&cache.mu);
    if (have_st && cache.valid && !strcmp(cache.p.file, p->file) && cache.st.st_ino == st.st_ino &&
        cache.st.st_dev == st.st_dev && cache.st.st_size == st.st_size &&
        cache.st.st_mtim.tv_sec == st.st_mtim.tv_sec &&
        cache.st.st_mtim.tv_nsec == st.st_mtim.tv_nsec) {
        *p = cache.p;
        pthread_mutex_unlock(&cache.mu);
        return 0;
    }
    pthread_mutex_unlock(&cache.mu);
    char *text = NULL;
    int rc = read_text(path, &text, err);
    if (rc)
        return rc;
    config_t cfg;
    config_init(&cfg);
    if (config_read_string(&cfg, text) != CONFIG_TRUE) {
        rc = gc_fail(err, GC_EINVAL, "%s:%d: %s", path, config_error_line(&cfg),
                     config_error_text(&cfg));
    } else {
        rc = load_cfg(&cfg, path, p, err);
    }
    config_destroy(&cfg);
    free(text);
    if (!rc && have_st) {
        pthread_mutex_lock(&cache.mu);
        cache.p = *p;
        cache.st = st;
        cache.valid = 1;
        pthread_mutex_unlock(&cache.mu);
    }
    return rc;
}

const gc_sim_op *gc_sim_profile_op(const gc_sim_profile *p, const char *name)
{
    for (int i = 0; i < p->nops; i++)
        if (strcmp(p->ops[i].name, name) == 0)
            return &p->ops[i];
    return NULL;
}
