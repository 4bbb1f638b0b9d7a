/* Prometheus textfile metrics of a judged catalogue. See prom.h. */
#include "cmd/prom.h"
#include "util/quote.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "util/fsutil.h"
#include "util/jsonw.h"
#include "util/timeutil.h"

/* GPU parameters exported: name in the catalogue, metric suffix, factor to
 * the base unit. */
static const struct {
    const char *param, *metric, *help;
    double scale;
} GPU_PARAMS[] = {
    { "hbm_bw_bps", "hbm_bandwidth_bytes_per_second", "best HBM kernel bandwidth (read + write bytes)", 1 },
    { "hbm_achieved_ratio", "hbm_achieved_ratio", "best HBM bandwidth / theoretical", 1 },
    { "l2_bw_bps", "l2_bandwidth_bytes_per_second", "L2 bandwidth", 1 },
    { "smem_bw_bps", "smem_bandwidth_bytes_per_second", "shared-memory bandwidth", 1 },
    { "l1_latency_cycles", "l1_latency_cycles", "L1 hit latency (pointer chase)", 1 },
    { "l2_latency_cycles", "l2_latency_cycles", "L2 hit latency (pointer chase)", 1 },
    { "dram_latency_cycles", "dram_latency_cycles", "DRAM latency (pointer chase)", 1 },
    { "launch_ns", "launch_seconds", "kernel launch time, back to back", 1e-9 },
    { "launch_sync_ns", "launch_sync_seconds", "kernel launch and synchronise", 1e-9 },
    { "sm_clock_measured_mhz", "sm_clock_hertz", "SM clock measured during the census", 1e6 },
};
#define NGP (sizeof GPU_PARAMS / sizeof *GPU_PARAMS)

/* A label value: the one terminal escape (C0, C1, invalid UTF-8 as \\xNN;
 * no control character reaches a scrape or a dashboard), then the format's
 * \\ and \" escapes. */
static void label(FILE *f, const char *k, const char *v, int first)
{
    fprintf(f, "%s%s=\"", first ? "" : ",", k);
    /* line by line: a newline is the format's \n, the rest escaped */
    for (const char *line = v ? v : ""; *line;) {
        size_t n = strcspn(line, "\n");
        char raw[512], t[2048];
        n = n < sizeof raw - 1 ? n : sizeof raw - 1;
        memcpy(raw, line, n);
        raw[n] = '\0';
        gc_term_esc(raw, t, sizeof t);
        for (const char *p = t; *p; p++) {
            if (*p == '\\' || *p == '"')
                fputc('\\', f);
            fputc(*p, f);
        }
        line += n;
        if (*line == '\n') {
            fputs("\\n", f);
            line++;
        }
    }
    fputc('"', f);
}

static void family(FILE *f, const char *name, const char *help)
{
    fprintf(f, "# HELP gpucensus_%s %s\n# TYPE gpucensus_%s gauge\n", name, help, name);
}

static void value(FILE *f, double v)
{
    fprintf(f, "} %.10g\n", v);
}

static void gpu_labels(FILE *f, const char *metric, const gc_hc_gpu *g)
{
    char idx[16];
    snprintf(idx, sizeof idx, "%d", g->index);
    fprintf(f, "gpucensus_%s{", metric);
    label(f, "node", g->node, 1);
    label(f, "gpu", idx, 0);
    label(f, "uuid", g->uuid, 0);
    label(f, "sku", g->name, 0);
}

/* A link's class (gc_det_link_class: "kind bench direction memory
 * [engine] [peer_access=X] [concurrent]") as one label per dimension, so
 * that a query selects on each (direction="h2d"), not on a packed string.
 * kind, bench, direction, memory and engine are always there (engine ""
 * where it has none), peer_access and concurrent where the class has them. */
static void class_labels(FILE *f, const char *cls)
{
    static const char *const pos[4] = { "kind", "bench", "direction", "memory" };
    char w[8][64], engine[64] = "", peer[64] = "";
    int n = 0, concurrent = 0;
    for (const char *p = cls; *p && n < 8;) {
        size_t len = strcspn(p, " ");
        snprintf(w[n++], sizeof w[0], "%.*s", (int)(len < 63 ? len : 63), p);
        p += len;
        p += strspn(p, " ");
    }
    for (int i = 0; i < 4; i++)
        label(f, pos[i], i < n ? w[i] : "", 0);
    for (int i = 4; i < n; i++) {
        if (!strncmp(w[i], "peer_access=", 12))
            snprintf(peer, sizeof peer, "%s", w[i] + 12);
        else if (!strcmp(w[i], "concurrent"))
            concurrent = 1;
        else
            snprintf(engine, sizeof engine, "%s", w[i]);
    }
    label(f, "engine", engine, 0);
    if (peer[0])
        label(f, "peer_access", peer, 0);
    if (concurrent)
        label(f, "concurrent", "1", 0);
}

/* "CLASS: SRC -> DST" (a link verdict's subject) -> its ends. */
static void link_labels(FILE *f, const char *metric, const gc_hc_link *l, const char *subject)
{
    char src[128] = "", dst[128] = "";
    const char *c = strstr(subject, ": "), *a = c ? strstr(c, " -> ") : NULL;
    if (c && a) {
        snprintf(src, sizeof src, "%.*s", (int)(a - c - 2 < 127 ? a - c - 2 : 127), c + 2);
        snprintf(dst, sizeof dst, "%s", a + 4);
    }
    fprintf(f, "gpucensus_%s{", metric);
    label(f, "node", l->node, 1);
    class_labels(f, l->cls);
    label(f, "src", src, 0);
    label(f, "dst", dst, 0);
}

static int is_verdict_of(const gc_verdict *v, int type, const char *node, int index, long link)
{
    return v && v->type == type &&
           (type == GC_SUBJ_LINK ? v->link_index == link
                                 : !strcmp(v->node, node) && (type == GC_SUBJ_NODE || v->gpu_index == index));
}

/* The verdicts come GPUs first, then links, in the catalogue's order: the
 * one at the expected place (hint) is tried first; a search of all of them
 * (quadratic over a census) only when it is not there. */
static const gc_verdict *verdict_of(const gc_detect *d, int type, const char *node, int index,
                                    long link, size_t hint)
{
    const gc_verdict *h = gc_detect_verdict(d, hint);
    if (is_verdict_of(h, type, node, index, link))
        return h;
    for (size_t i = 0, n = gc_detect_count(d); i < n; i++) {
        const gc_verdict *v = gc_detect_verdict(d, i);
        if (is_verdict_of(v, type, node, index, link))
            return v;
    }
    return NULL;
}

static void write_all(FILE *f, const gc_hcat *c, const gc_detect *d)
{
    family(f, "census_start_timestamp_seconds", "when the judged census started (Unix time)");
    fprintf(f, "gpucensus_census_start_timestamp_seconds{");
    label(f, "plan", c->plan_name, 1);
    label(f, "backend", c->backend, 0);
    value(f, (double)gc_iso_parse_s(c->start_time));
    family(f, "census_info", "the judged census: plan, its sha256, gpucensus commit, backend (sim: simulated GPUs)");
    fprintf(f, "gpucensus_census_info{");
    label(f, "plan", c->plan_name, 1);
    label(f, "plan_sha256", c->plan_sha256, 0);
    label(f, "commit", c->git_commit, 0);
    label(f, "backend", c->backend, 0);
    value(f, 1);

    static const char *const lv = "0 ok, 1 suspect, 2 degraded, 3 failed";
    char help[160];
    snprintf(help, sizeof help, "gpucensus check's verdict of the GPU: %s", lv);
    family(f, "gpu_verdict", help);
    for (size_t i = 0; i < c->ngpus; i++) {
        const gc_verdict *v = verdict_of(d, GC_SUBJ_GPU, c->gpus[i].node, c->gpus[i].index, -1, i);
        if (v) {
            gpu_labels(f, "gpu_verdict", &c->gpus[i]);
            value(f, v->level);
        }
    }
    for (size_t k = 0; k < NGP; k++) {
        int started = 0;
        for (size_t i = 0; i < c->ngpus; i++) {
            const gc_hc_gpu *g = &c->gpus[i];
            for (size_t j = 0; j < g->nparams; j++) {
                const gc_hc_param *p = &c->params[g->first + j];
                if (strcmp(p->name, GPU_PARAMS[k].param) || !isfinite(p->value))
                    continue;
                char name[96];
                snprintf(name, sizeof name, "gpu_%s", GPU_PARAMS[k].metric);
                if (!started++)
                    family(f, name, GPU_PARAMS[k].help);
                gpu_labels(f, name, g);
                value(f, p->value * GPU_PARAMS[k].scale);
            }
        }
    }

    snprintf(help, sizeof help, "gpucensus check's verdict of the link: %s", lv);
    family(f, "link_verdict", help);
    for (size_t i = 0; i < c->nlinks; i++) {
        const gc_verdict *v = verdict_of(d, GC_SUBJ_LINK, NULL, -1, (long)i, c->ngpus + i);
        if (v) {
            link_labels(f, "link_verdict", &c->links[i], v->subject);
            value(f, v->level);
        }
    }
    static const struct {
        const char *metric, *help;
        size_t off;
    } LINK[] = {
        { "link_bandwidth_bytes_per_second", "fitted bandwidth beta of t = alpha + n / beta",
          offsetof(gc_hc_link, beta_bps) },
        { "link_latency_seconds", "fitted latency alpha of t = alpha + n / beta", offsetof(gc_hc_link, alpha_s) },
        { "link_nominal_bytes_per_second", "nominal bandwidth (lanes x rate)", offsetof(gc_hc_link, nominal_bps) },
        { "link_efficiency_ratio", "lambda = beta / nominal", offsetof(gc_hc_link, lambda) },
    };
    for (size_t k = 0; k < sizeof LINK / sizeof *LINK; k++) {
        int started = 0;
        for (size_t i = 0; i < c->nlinks; i++) {
            double x = *(const double *)((const char *)&c->links[i] + LINK[k].off);
            const gc_verdict *v = verdict_of(d, GC_SUBJ_LINK, NULL, -1, (long)i, c->ngpus + i);
            if (!isfinite(x) || !v)
                continue;
            if (!started++)
                family(f, LINK[k].metric, LINK[k].help);
            link_labels(f, LINK[k].metric, &c->links[i], v->subject);
            value(f, x);
        }
    }

    snprintf(help, sizeof help, "gpucensus check's verdict of the node (its worst GPU or link): %s", lv);
    family(f, "node_verdict", help);
    for (size_t i = 0, n = gc_detect_count(d); i < n; i++) {
        const gc_verdict *v = gc_detect_verdict(d, i);
        if (v->type != GC_SUBJ_NODE)
            continue;
        fprintf(f, "gpucensus_node_verdict{");
        label(f, "node", v->node, 1);
        value(f, v->level);
    }
}

int gc_prom_write(const char *path, const gc_hcat *c, const gc_detect *d, gc_err *err)
{
    gc_afile a;
    int rc = gc_afile_open(&a, path, err);
    if (rc)
        return rc;
    /* the exporter runs as another user */
    if (fchmod(fileno(a.f), 0644)) {
        gc_afile_abort(&a);
        return gc_fail(err, GC_EIO, "%s: cannot make it readable", path);
    }
    write_all(a.f, c, d);
    return gc_afile_commit(&a, err);
}
