/* Kernel description files. See kdesc.h and docs/kernel-description.md.
 *
 * Errors follow the plan loader's style, "FILE:LINE: kernel.key: what is
 * wrong", so a typo in a hand-written description points at its line. */
#include "census/kdesc.h"
#include "util/fsutil.h"

#include "util/cfgread.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KD_MAX_FILE (1u << 20)

const char *const gc_kd_class_names[GC_KD_NCLASS] = {
    "fp32", "fp64", "int", "sfu", "conv", "smem", "control", "other" };
const char *const gc_cp_class_names[GC_CP_NCLASS] = {
    "fp32", "fp64", "int", "sfu", "smem", "gmem" };

static const char *const kernel_keys[] = {
    "name", "origin", "arch", "source_sha256", "tool", "grid_blocks", "block_threads",
    "registers_per_thread", "smem_static_bytes", "smem_dynamic_bytes", "insts", "mem",
    "syncs", "smem_wavefronts", "critical_path", NULL };
static const char *const mem_keys[] = { "op", "count", "bytes_per_thread", "sectors_per_inst",
                                        "lines_per_inst", "dram_ratio", "l1_hit_ratio", NULL };

/* Errors through cfgread (the plan loader's "FILE:LINE: key.path: message"). */
#define fail_at(c, s, path, ...) gc_cfg_fail_at((c), gc_cfg_line_of(s), (path), __VA_ARGS__)

/* An error at member key of group g (at path): "FILE:LINE: path.key: message". */
__attribute__((format(printf, 5, 6)))
static int fail_key(const gc_cfg *c, const config_setting_t *g, const char *path, const char *key,
                    const char *fmt, ...)
{
    char q[GC_CFG_PATH], msg[256];
    gc_cfg_path_key(q, path, key);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return fail_at(c, config_setting_get_member(g, key), q, "%s", msg);
}

/* A number in [lo, hi]; integral when asked. Missing: required -> error,
 * otherwise *out keeps its default. */
static int get_num(const gc_cfg *c, const config_setting_t *g, const char *path, const char *key,
                   int required, int integral, double lo, double hi, double *out)
{
    char p[GC_CFG_PATH];
    gc_cfg_path_key(p, path, key);
    const config_setting_t *s = config_setting_get_member(g, key);
    if (!s)
        return required ? gc_cfg_fail_missing(c, g, p) : 0;
    int rc = gc_cfg_get_num(c, s, p, lo, hi, 0, out);
    if (!rc && integral && *out != floor(*out))
        return fail_at(c, s, p, "%g: expected a whole number", *out);
    return rc;
}

static int get_str(const gc_cfg *c, const config_setting_t *g, const char *path, const char *key,
                   int required, char *out, size_t cap)
{
    char p[GC_CFG_PATH];
    gc_cfg_path_key(p, path, key);
    const config_setting_t *s = config_setting_get_member(g, key);
    if (!s)
        return required ? gc_cfg_fail_missing(c, g, p) : 0;
    const char *v;
    int rc = gc_cfg_get_str(c, s, p, cap, &v);
    if (!rc)
        snprintf(out, cap, "%s", v);
    return rc;
}

/* A group of per-class counts; classes not given are 0. */
static int get_classes(const gc_cfg *c, const config_setting_t *k, const char *key,
                       const char *const *names, int n, double *out)
{
    char p[GC_CFG_PATH];
    gc_cfg_path_key(p, "kernel", key);
    const config_setting_t *g = config_setting_get_member(k, key);
    if (!g)
        return gc_cfg_fail_missing(c, k, p);
    if (config_setting_type(g) != CONFIG_TYPE_GROUP)
        return fail_at(c, g, p, "expected a group { class = count; ... }, got %s", gc_cfg_type_name(g));
    const char *allowed[GC_KD_NCLASS + 1];
    for (int i = 0; i < n; i++)
        allowed[i] = names[i];
    allowed[n] = NULL;
    int rc = gc_cfg_check_keys(c, g, p, allowed);
    for (int i = 0; i < n && !rc; i++)
        rc = get_num(c, g, p, names[i], 0, 0, 0, 1e12, &out[i]);
    return rc;
}

static int get_mem(const gc_cfg *c, const config_setting_t *k, gc_kdesc *d)
{
    const config_setting_t *l = config_setting_get_member(k, "mem");
    if (!l)
        return fail_at(c, k, "kernel.mem", "missing required setting (an empty list () if none)");
    if (config_setting_type(l) != CONFIG_TYPE_LIST)
        return fail_at(c, l, "kernel.mem", "expected a list ( { op = ...; ... }, ... ), got %s",
                       gc_cfg_type_name(l));
    int n = config_setting_length(l);
    if (n > GC_KD_MAX_MEM)
        return fail_at(c, l, "kernel.mem", "%d entries, at most %d", n, GC_KD_MAX_MEM);
    for (int i = 0; i < n; i++) {
        const config_setting_t *e = config_setting_get_elem(l, (unsigned)i);
        char p[GC_CFG_PATH], op[16] = "";
        snprintf(p, sizeof p, "kernel.mem.[%d]", i);
        if (config_setting_type(e) != CONFIG_TYPE_GROUP)
            return fail_at(c, e, p, "expected a group { op = ...; ... }, got %s", gc_cfg_type_name(e));
        gc_kdesc_mem *m = &d->mem[i];
        int rc = gc_cfg_check_keys(c, e, p, mem_keys);
        if (!rc)
            rc = get_str(c, e, p, "op", 1, op, sizeof op);
        if (!rc && strcmp(op, "load") && strcmp(op, "store"))
            rc = fail_key(c, e, p, "op", "\"%s\": expected \"load\" or \"store\"", op);
        if (!rc)
            rc = get_num(c, e, p, "count", 1, 0, 0, 1e12, &m->count);
        if (!rc)
            rc = get_num(c, e, p, "bytes_per_thread", 1, 1, 1, 16, &m->bytes_per_thread);
        double b = m->bytes_per_thread;
        if (!rc && b != 1 && b != 2 && b != 4 && b != 8 && b != 16)
            rc = fail_key(c, e, p, "bytes_per_thread", "%g: expected 1, 2, 4, 8 or 16", b);
        if (!rc)
            rc = get_num(c, e, p, "sectors_per_inst", 1, 0, 1, 64, &m->sectors_per_inst);
        if (!rc && m->sectors_per_inst < gc_kdesc_min_sectors(m))
            rc = fail_key(c, e, p, "sectors_per_inst",
                          "%g: a warp moving %g bytes per thread touches at least %g sectors",
                          m->sectors_per_inst, b, gc_kdesc_min_sectors(m));
        m->lines_per_inst = ceil(m->sectors_per_inst / 4.0);
        if (!rc)
            rc = get_num(c, e, p, "lines_per_inst", 0, 0, 1, 64, &m->lines_per_inst);
        if (!rc && (m->lines_per_inst < ceil(m->sectors_per_inst / 4.0) ||
                    m->lines_per_inst > m->sectors_per_inst))
            rc = fail_key(c, e, p, "lines_per_inst", "%g: %g sectors lie in %g to %g lines of 128 bytes",
                          m->lines_per_inst, m->sectors_per_inst, ceil(m->sectors_per_inst / 4.0),
                          m->sectors_per_inst);
        m->dram_ratio = 1;
        if (!rc)
            rc = get_num(c, e, p, "dram_ratio", 0, 0, 1e-6, 1, &m->dram_ratio);
        m->l1_hit_ratio = 0;
        if (!rc)
            rc = get_num(c, e, p, "l1_hit_ratio", 0, 0, 0, 1, &m->l1_hit_ratio);
        if (rc)
            return rc;
        m->is_store = !strcmp(op, "store");
    }
    d->nmem = n;
    return 0;
}

static int load_kernel(const gc_cfg *c, const config_t *cfg, gc_kdesc *d)
{
    const config_setting_t *root = config_root_setting(cfg);
    static const char *const top[] = { "kernel", NULL };
    int rc;
    for (int i = 0; i < config_setting_length(root); i++) {
        const config_setting_t *m = config_setting_get_elem(root, (unsigned)i);
        if (strcmp(config_setting_name(m), top[0]))
            return fail_at(c, m, config_setting_name(m), "unknown setting (a description holds "
                                                         "one group: kernel = { ... })");
    }
    const config_setting_t *k = config_setting_get_member(root, "kernel");
    if (!k)
        return gc_fail(c->err, GC_EINVAL, "%s:1: kernel: missing (a description is one group "
                                          "kernel = { ... }, docs/kernel-description.md)", c->file);
    if (config_setting_type(k) != CONFIG_TYPE_GROUP)
        return fail_at(c, k, "kernel", "expected a group, got %s", gc_cfg_type_name(k));
    if ((rc = gc_cfg_check_keys(c, k, "kernel", kernel_keys)))
        return rc;
    if ((rc = get_str(c, k, "kernel", "name", 1, d->name, sizeof d->name)))
        return rc;
    if (!gc_cfg_valid_name(d->name))
        return fail_key(c, k, "kernel", "name", "\"%s\": letters, digits, '_', '-' and '.' only",
                        d->name);
    if ((rc = get_str(c, k, "kernel", "origin", 1, d->origin, sizeof d->origin)))
        return rc;
    if (strcmp(d->origin, "sass") && strcmp(d->origin, "hand") && strcmp(d->origin, "profile"))
        return fail_key(c, k, "kernel", "origin", "\"%s\": expected \"sass\", \"profile\" or \"hand\"",
                        d->origin);
    if ((rc = get_str(c, k, "kernel", "arch", 0, d->arch, sizeof d->arch)) ||
        (rc = get_str(c, k, "kernel", "source_sha256", 0, d->source_sha256,
                      sizeof d->source_sha256)) ||
        (rc = get_str(c, k, "kernel", "tool", 0, d->tool, sizeof d->tool)))
        return rc;
    double grid = 0, block = 0, regs = 0, ss = 0, sd = 0;
    if ((rc = get_num(c, k, "kernel", "grid_blocks", 1, 1, 1, 2147483647.0, &grid)) ||
        (rc = get_num(c, k, "kernel", "block_threads", 1, 1, 1, 1024, &block)) ||
        (rc = get_num(c, k, "kernel", "registers_per_thread", 1, 1, 1, 255, &regs)) ||
        (rc = get_num(c, k, "kernel", "smem_static_bytes", 0, 1, 0, 1 << 20, &ss)) ||
        (rc = get_num(c, k, "kernel", "smem_dynamic_bytes", 0, 1, 0, 1 << 20, &sd)) ||
        (rc = get_num(c, k, "kernel", "syncs", 0, 0, 0, 1e12, &d->syncs)) ||
        (rc = get_num(c, k, "kernel", "smem_wavefronts", 0, 0, 0, 1e12, &d->smem_wavefronts)) ||
        (rc = get_classes(c, k, "insts", gc_kd_class_names, GC_KD_NCLASS, d->insts)) ||
        (rc = get_mem(c, k, d)) ||
        (rc = get_classes(c, k, "critical_path", gc_cp_class_names, GC_CP_NCLASS,
                          d->critical_path)))
        return rc;
    d->grid_blocks = (long long)grid;
    d->block_threads = (int)block;
    d->registers_per_thread = (int)regs;
    d->smem_static_bytes = (long long)ss;
    d->smem_dynamic_bytes = (long long)sd;
    if (!config_setting_get_member(k, "smem_wavefronts"))
        d->smem_wavefronts = d->insts[GC_KD_SMEM];   /* no bank conflicts */
    if (gc_kdesc_total_insts(d) <= 0)
        return fail_at(c, k, "kernel.insts", "the kernel executes no instruction at all");
    return 0;
}

int gc_kdesc_parse(const char *file, const char *text, gc_kdesc *d, gc_err *err)
{
    memset(d, 0, sizeof *d);
    snprintf(d->file, sizeof d->file, "%s", file);
    gc_cfg c = { file, err };
    config_t cfg;
    config_init(&cfg);
    int rc = 0;
    if (config_read_string(&cfg, text) != CONFIG_TRUE)
        rc = gc_fail(err, GC_EINVAL, "%s:%d: syntax error: %s", file, config_error_line(&cfg),
                     config_error_text(&cfg));
    else
        rc = load_kernel(&c, &cfg, d);
    config_destroy(&cfg);
    return rc;
}

int gc_kdesc_load(const char *path, gc_kdesc *d, gc_err *err)
{
    FILE *f = gc_fopen_input(path, (size_t)KD_MAX_FILE + 1, err);
    if (!f)
        return err ? err->code : GC_EIO;
    char *buf = malloc(KD_MAX_FILE + 1);
    size_t n = buf ? fread(buf, 1, KD_MAX_FILE + 1, f) : 0;
    int bad = ferror(f);
    fclose(f);
    if (!buf)
        return gc_fail(err, GC_ENOMEM, "%s: out of memory", path);
    if (bad || n > KD_MAX_FILE) {
        free(buf);
        return gc_fail(err, GC_EINVAL, "%s: %s", path,
                       bad ? "read error" : "larger than 1 MiB: not a kernel description");
    }
    if (memchr(buf, '\0', n)) {
        free(buf);
        return gc_fail(err, GC_EINVAL, "%s: contains a NUL byte: not a kernel description", path);
    }
    buf[n] = '\0';
    int rc = gc_kdesc_parse(path, buf, d, err);
    free(buf);
    return rc;
}

double gc_kdesc_min_sectors(const gc_kdesc_mem *m)
{
    return ceil(32.0 * m->bytes_per_thread / GC_KD_SECTOR_BYTES);
}

int gc_kdesc_mem_coalesced(const gc_kdesc_mem *m)
{
    return m->sectors_per_inst <= gc_kdesc_min_sectors(m);
}

double gc_kdesc_mem_insts(const gc_kdesc *d)
{
    double n = 0;
    for (int i = 0; i < d->nmem; i++)
        n += d->mem[i].count;
    return n;
}

double gc_kdesc_total_insts(const gc_kdesc *d)
{
    double n = gc_kdesc_mem_insts(d);
    for (int i = 0; i < GC_KD_NCLASS; i++)
        n += d->insts[i];
    return n;
}

double gc_kdesc_dram_traffic(const gc_kdesc *d, double fetch_bytes, double *load_bytes,
                             double *store_bytes)
{
    double l = 0, s = 0;
    for (int i = 0; i < d->nmem; i++) {
        const gc_kdesc_mem *m = &d->mem[i];
        double lines = m->lines_per_inst > 0 ? m->lines_per_inst : ceil(m->sectors_per_inst / 4.0);
        double per_line = m->sectors_per_inst / lines * GC_KD_SECTOR_BYTES;
        /* a line's contiguous sectors cost their bytes; a lone sector costs
         * at least one DRAM fetch (the measured cost of an isolated sector;
         * none given: 0 or NaN, fmax keeps per_line) */
        /* dram_ratio 0: a description built in code without one (all DRAM) */
        double b = m->count * lines * fmax(per_line, fetch_bytes) *
                   (m->dram_ratio > 0 ? m->dram_ratio : 1.0);
        if (m->is_store)
            s += b;
        else
            l += b;
    }
    if (load_bytes)
        *load_bytes = l;
    if (store_bytes)
        *store_bytes = s;
    return l + s;
}

double gc_kdesc_dram_bytes(const gc_kdesc *d, double *load_bytes, double *store_bytes)
{
    return gc_kdesc_dram_traffic(d, 0, load_bytes, store_bytes);
}
