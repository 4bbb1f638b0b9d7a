/* Verdicts on crafted catalogues: each rule fires on the GPU or link it
 * should and on nothing else (peers' robust z, distribution distance,
 * baseline from a reference file and from an earlier catalogue, PCIe
 * width/generation, NVLinks, clocks with a slowdown reason, ECC, HBM
 * achieved ratio, failed/partial GPUs, link lambda and peers, a slow NUMA
 * node), fewer than 3 peers are judged without them and say so, the rules
 * file is parsed with defaults and FILE:LINE errors, malformed and
 * schema-invalid catalogues are refused with a clear message, and the
 * census path (gc_detect_add_census_gpu) reads what the catalogue path
 * reads. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/catread.h"
#include "check.h"
#include "cmd/check_cmd.h"
#include "judge/detect.h"
#include "judge/detect_int.h"
#include "judge/rules.h"
#include "measure/sim/sim_rng.h"

/* ---- a crafted catalogue ---------------------------------------------- */

typedef struct gspec {
    const char *name;        /* SKU */
    const char *status;
    double hbm, l2lat;       /* hbm_bw_bps, l2_latency_cycles */
    double l2_p95;           /* chase point's p95 (bimodal when far above p50) */
    int pcie_width, pcie_gen, nvlinks, numa;
    double clock;            /* SM clock in conditions */
    long long throttle, ecc_unc, ecc_corr;
    double ratio;            /* hbm_achieved_ratio */
    double h2d_beta;         /* its host link */
    int throttled_flag;
    int shared_flag;         /* the chase point was measured while another process used the GPU */
    int count;               /* samples of the chase point */
} gspec;

static gspec healthy(void)
{
    return (gspec){ .name = "Test GPU", .status = "ok", .hbm = 3.0e12, .l2lat = 270, .l2_p95 = 274,
                    .pcie_width = 16, .pcie_gen = 5, .nvlinks = 18, .numa = 0, .clock = 1980,
                    .ratio = 0.9, .h2d_beta = 53e9, .count = 1000 };
}

typedef struct sb {
    char *s;
    size_t n, cap;
} sb;

static void put(sb *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (b->n + (size_t)k + 1 > b->cap) {
        b->cap = (b->n + (size_t)k + 1) * 2;
        b->s = realloc(b->s, b->cap);
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->n, (size_t)k + 1, fmt, ap);
    va_end(ap);
    b->n += (size_t)k;
}

/* with_d2h: each GPU's host link both ways (h2d and d2h), not h2d alone */
static int with_d2h;

/* per_node GPUs a node, nodes n1, n2, ...; gpu i gets spec g[i] */
static char *catalogue(const gspec *g, int n, int per_node)
{
    sb b = { 0 };
    put(&b, "{\n \"schema_version\": \"1.0\",\n \"kind\": \"catalogue\",\n"
            " \"run\": {\"backend\": \"sim\", \"plan_name\": \"t\", \"start_time\": \"2026-01-01T00:00:00Z\"},\n"
            " \"gpus\": [");
    for (int i = 0; i < n; i++) {
        const gspec *x = &g[i];
        int node = i / per_node + 1, idx = i % per_node;
        put(&b, "%s\n  {\"node\": \"n%d\", \"index\": %d, \"rank\": %d, \"status\": \"%s\", "
                "\"status_reason\": \"%s\", \"items_total\": 10, \"items_done\": 10,\n"
                "   \"identity\": {\"uuid\": \"GPU-%04d\", \"pci_bus_id\": \"0\", \"name\": \"%s\", "
                "\"compute_capability\": \"9.0\", \"driver_version\": \"1\"},\n"
                "   \"properties\": {\"sm_count\": 132, \"l2_bytes\": 52428800, \"memory_bytes\": 85017493504, "
                "\"sm_clock_max_mhz\": 1980.0, \"numa_node\": %d, "
                "\"pcie\": {\"gen\": %d, \"width\": %d, \"max_gen\": 5, \"max_width\": 16}, "
                "\"nvlink\": {\"links\": %d, \"bps_per_link\": 25000000000.0}},\n"
                "   \"conditions\": {\"start\": {\"sm_clock_mhz\": %g, \"mem_clock_mhz\": 2619.0, "
                "\"temperature_c\": 40.0, \"power_w\": 100.0, \"throttle_reasons\": %lld, "
                "\"ecc_corrected_errors\": %lld, \"ecc_uncorrected_errors\": %lld}, \"end\": null},\n"
                "   \"parameters\": [{\"name\": \"hbm_bw_bps\", \"value\": %.10g, \"unit\": \"bytes_per_s\", \"source\": \"x\"},"
                " {\"name\": \"l2_latency_cycles\", \"value\": %.10g, \"unit\": \"cycles\", \"source\": \"x\"},"
                " {\"name\": \"hbm_achieved_ratio\", \"value\": %.10g, \"unit\": \"ratio\", \"source\": \"x\"}],\n"
                "   \"results\": [{\"item\": 0, \"benchmark\": \"chase\", \"metric\": \"latency\", \"unit\": \"cycles\", "
                "\"context\": {\"footprint_bytes\": 1048576.0, \"order\": \"random\"}, \"status\": \"ok\", "
                "\"flags\": [%s], \"summary\": {\"count\": %d, \"min\": %g, \"p1\": %g, \"p5\": %g, \"p50\": %g, "
                "\"p95\": %g, \"p99\": %g, \"max\": %g, \"mean\": %g, \"stddev\": 1.0}},\n"
                "    {\"item\": 1, \"benchmark\": \"xfer\", \"metric\": \"bandwidth\", \"unit\": \"bytes_per_s\", "
                "\"context\": {\"size_bytes\": 1048576.0}, \"status\": \"ok\", \"flags\": [], "
                "\"summary\": {\"count\": 10, \"p1\": 1.0, \"p5\": 1.0, \"p50\": %g, \"p95\": 1.0, \"p99\": 1.0}}]}",
            i ? "," : "", node, idx, i, x->status, strcmp(x->status, "ok") ? "crafted" : "", i, x->name,
            x->numa, x->pcie_gen, x->pcie_width, x->nvlinks, x->clock, x->throttle, x->ecc_corr,
            x->ecc_unc, x->hbm, x->l2lat, x->ratio, x->throttled_flag ? "\"throttled\"" : x->shared_flag ? "\"gpu_shared\"" : "", x->count,
            x->l2lat * 0.97, x->l2lat * 0.98, x->l2lat * 0.99, x->l2lat, x->l2_p95, x->l2_p95 * 1.01,
            x->l2_p95 * 1.05, x->l2lat, x->h2d_beta * (1 + 0.001 * (i % 7)));
    }
    put(&b, "\n ],\n \"nodes\": [],\n \"links\": [");
    for (int i = 0; i < n; i++) {
        int node = i / per_node + 1, idx = i % per_node;
        double beta = g[i].h2d_beta * (1 + 0.001 * (i % 5));
        put(&b, "%s\n  {\"kind\": \"pcie\", \"benchmark\": \"xfer\", \"direction\": \"h2d\", \"memory\": \"pinned\", "
                "\"engine\": \"ce\", \"peer_access\": null, \"concurrent\": false, "
                "\"src\": {\"type\": \"host\", \"node\": \"n%d\", \"gpu_index\": null, \"uuid\": null, \"numa_node\": %d}, "
                "\"dst\": {\"type\": \"gpu\", \"node\": \"n%d\", \"gpu_index\": %d, \"uuid\": \"GPU-%04d\", \"numa_node\": %d}, "
                "\"measured_on\": {\"node\": \"n%d\", \"gpu_index\": %d, \"rank\": %d}, "
                "\"sizes\": [{\"size_bytes\": 4096.0, \"bandwidth_p50_bps\": 1e9}, {\"size_bytes\": 268435456.0, "
                "\"bandwidth_p50_bps\": %.10g}], "
                "\"model\": {\"alpha_s\": 2e-6, \"beta_bps\": %.10g}, \"nominal_bps\": 63015384620.0, "
                "\"nominal_basis\": \"x\", \"lambda\": %.10g, \"share\": null}",
            i ? "," : "", node, g[i].numa, node, idx, i, g[i].numa, node, idx, i, beta, beta,
            beta / 63015384620.0);
        if (with_d2h)
            put(&b, ",\n  {\"kind\": \"pcie\", \"benchmark\": \"xfer\", \"direction\": \"d2h\", \"memory\": \"pinned\", "
                    "\"engine\": \"ce\", \"peer_access\": null, \"concurrent\": false, "
                    "\"src\": {\"type\": \"gpu\", \"node\": \"n%d\", \"gpu_index\": %d, \"uuid\": \"GPU-%04d\", \"numa_node\": %d}, "
                    "\"dst\": {\"type\": \"host\", \"node\": \"n%d\", \"gpu_index\": null, \"uuid\": null, \"numa_node\": %d}, "
                    "\"measured_on\": {\"node\": \"n%d\", \"gpu_index\": %d, \"rank\": %d}, "
                    "\"sizes\": [{\"size_bytes\": 268435456.0, \"bandwidth_p50_bps\": %.10g}], "
                    "\"model\": {\"alpha_s\": 2e-6, \"beta_bps\": %.10g}, \"nominal_bps\": 63015384620.0, "
                    "\"nominal_basis\": \"x\", \"lambda\": %.10g, \"share\": null}",
                node, idx, i, g[i].numa, node, g[i].numa, node, idx, i, beta, beta, beta / 63015384620.0);
    }
    put(&b, "\n ],\n \"models\": {},\n \"verdicts\": []\n}\n");
    return b.s;
}

/* ---- judging helpers -------------------------------------------------- */

typedef struct judged {
    gc_detect *d;
    int rc;
    char msg[512];
} judged;

static judged judge(const char *json, const gc_rules *r, const gc_baseline *base)
{
    judged j = { 0 };
    gc_err e = { 0 };
    j.d = gc_detect_new(r, base);
    gc_catread_info info = { 0 };   /* info.table is read: NULL, no table wanted */
    j.rc = gc_catread_catalogue_mem("crafted.json", json, strlen(json), j.d, r, &info, &e);
    if (!j.rc)
        j.rc = gc_detect_finish(j.d, &e);
    snprintf(j.msg, sizeof j.msg, "%s", e.msg);
    return j;
}

static const gc_verdict *find(const gc_detect *d, const char *subject)
{
    for (size_t i = 0; i < gc_detect_count(d); i++)
        if (!strcmp(gc_detect_verdict(d, i)->subject, subject))
            return gc_detect_verdict(d, i);
    return NULL;
}

static int has_rule(const gc_verdict *v, const char *rule, const char *metric)
{
    for (size_t i = 0; v && i < v->nreasons; i++)
        if (!strcmp(v->reasons[i].rule, rule) && (!metric || !strncmp(v->reasons[i].metric, metric, strlen(metric))))
            return v->reasons[i].severity;
    return 0;
}

/* every subject ok except those listed (NULL-terminated) */
static int only_bad(const gc_detect *d, const char *const *bad)
{
    for (size_t i = 0; i < gc_detect_count(d); i++) {
        const gc_verdict *v = gc_detect_verdict(d, i);
        int listed = 0;
        for (const char *const *b = bad; *b; b++)
            listed |= !strcmp(*b, v->subject);
        if ((v->level != GC_V_OK) != listed) {
            fprintf(stderr, "  unexpected: %s is %s\n", v->subject, gc_verdict_name(v->level));
            return 0;
        }
    }
    return 1;
}

#define N 16

static void fleet(gspec *g) { for (int i = 0; i < N; i++) g[i] = healthy(); }


int main(void)
{
    gc_rules R;
    gc_rules_default(&R);
    gspec g[N];
    judged j;
    char *js;

    /* gc_blocks (the detector's values and strings): 8-aligned takes in
     * order, a take larger than a block gets its own, keep gives the tail
     * of the last take to the next one and nothing of an earlier one */
    {
        gc_blocks a = { 0 };
        char *p = gc_blocks_take(&a, 5, 64), *q = gc_blocks_take(&a, 16, 64);
        CHECK(p && q && q == p + 8 && a.n == 1 && a.used == 24, "blocks: %p %p used %zu", (void *)p, (void *)q, a.used);
        gc_blocks_keep(&a, p, 5, 1);   /* not the last take: no change */
        CHECK(a.used == 24, "blocks: keep of an earlier take left used at %zu", a.used);
        gc_blocks_keep(&a, q, 16, 4);
        char *r = gc_blocks_take(&a, 40, 64);
        CHECK(a.used == 56 && r == q + 8 && a.n == 1, "blocks: after keep, used %zu, r at +%td", a.used, r - q);
        char *big = gc_blocks_take(&a, 200, 64), *next = gc_blocks_take(&a, 8, 64);
        CHECK(big && a.n == 3 && next != big + 200 && a.used == 8, "blocks: %zu blocks, used %zu", a.n, a.used);
        memset(big, 1, 200);
        gc_blocks_free(&a);
        CHECK(!a.b && !a.n && !a.used, "blocks: freed");
    }

    /* healthy: all ok, exit 0 */
    fleet(g);
    for (int i = 0; i < N; i++)
        g[i].hbm *= 1 + 0.002 * ((i * 7) % 5 - 2);   /* +-0.4% spread */
    js = catalogue(g, N, 8);
    j = judge(js, &R, NULL);
    CHECK(j.rc == 0, "healthy: %s", j.msg);
    CHECK(gc_detect_count(j.d) == N + N + 2, "%zu verdicts (16 GPUs, 16 links, 2 nodes)", gc_detect_count(j.d));
    CHECK(gc_detect_worst(j.d) == GC_V_OK, "healthy fleet: worst %d", gc_detect_worst(j.d));
    CHECK(gc_check_exit_code(j.d) == GC_CHECK_OK, "exit code");
    {
        const gc_verdict *v = find(j.d, "n1/gpu0");
        CHECK(v && v->peers == N && v->used_peers && !v->note[0], "peers used");
        char *t = gc_detect_json(j.d, 1);
        CHECK(t && strstr(t, "\"verdict\": \"ok\"") && strstr(t, "\"basis\""), "json");
        free(t);
    }
    gc_detect_free(j.d);
    free(js);

    /* peers: -5% HBM suspect, -10% degraded (robust z and relative), +10% is fine */
    fleet(g);
    g[3].hbm *= 0.95;
    g[9].hbm *= 0.90;
    g[12].hbm *= 1.10;
    js = catalogue(g, N, 8);
    j = judge(js, &R, NULL);
    CHECK(has_rule(find(j.d, "n1/gpu3"), "peers", "hbm_bw_bps") == GC_V_SUSPECT, "-5%% suspect");
    CHECK(has_rule(find(j.d, "n2/gpu1"), "peers", "hbm_bw_bps") == GC_V_DEGRADED, "-10%% degraded");
    CHECK(find(j.d, "n2/gpu4")->level == GC_V_OK, "faster is not a fault");
    CHECK(find(j.d, "n1")->level == GC_V_SUSPECT && find(j.d, "n2")->level == GC_V_DEGRADED, "nodes");
    CHECK(only_bad(j.d, (const char *const[]){ "n1/gpu3", "n2/gpu1", "n1", "n2", NULL }), "only them");
    CHECK(gc_check_exit_code(j.d) == GC_CHECK_DEGRADED, "exit 2");
    {
        const gc_verdict *v = find(j.d, "n2/gpu1");
        const gc_reason *r = &v->reasons[0];
        CHECK(fabs(r->reference - 3.0e12) < 1e6 && fabs(r->value - 2.7e12) < 1e6 && r->deviation < -8,
              "reason numbers %g %g %g", r->value, r->reference, r->deviation);
    }
    {   /* judged without threads (an MPI below MPI_THREAD_FUNNELED): the same verdicts */
        gc_detect_allow_threads(0);
        judged j1 = judge(js, &R, NULL);
        gc_detect_allow_threads(1);
        char *a = gc_detect_json(j.d, 1), *b = j1.rc ? NULL : gc_detect_json(j1.d, 1);
        CHECK(a && b && !strcmp(a, b), "one thread: verdicts differ from the threaded judgement's");
        free(a), free(b);
        gc_detect_free(j1.d);
    }
    gc_detect_free(j.d);
    free(js);

    /* distribution: a bimodal L2 latency (p95 1.6x) with its median unchanged */
    fleet(g);
    g[5].l2_p95 = 270 * 1.6;
    js = catalogue(g, N, 8);
    j = judge(js, &R, NULL);
    CHECK(has_rule(find(j.d, "n1/gpu5"), "distribution", "chase.latency footprint_bytes=1048576 order=random")
              >= GC_V_SUSPECT, "bimodal seen");
    CHECK(!has_rule(find(j.d, "n1/gpu5"), "peers", NULL), "its median did not move");
    CHECK(only_bad(j.d, (const char *const[]){ "n1/gpu5", "n1", NULL }), "only it");
    gc_detect_free(j.d);
    free(js);
    /* ... unless its time budget cut its samples: tails of a few samples are not compared */
    g[5].count = 100;
    js = catalogue(g, N, 8);
    j = judge(js, &R, NULL);
    CHECK(gc_detect_worst(j.d) == GC_V_OK, "few samples: not judged by distribution");
    gc_detect_free(j.d);
    free(js);
    /* ... nor when every GPU has few: the p95 of 20 samples is one sample */
    for (int i = 0; i < N; i++)
        g[i].count = 20;
    js = catalogue(g, N, 8);
    j = judge(js, &R, NULL);
    CHECK(gc_detect_worst(j.d) == GC_V_OK, "20 samples each: tails not compared");
    for (int i = 0; i < N; i++)
        g[i].count = 1000;
    gc_detect_free(j.d);
    free(js);
    /* disabled: nothing */
    js = catalogue(g, N, 8);
    gc_rules R2 = R;
    R2.dist_enabled = 0;
    j = judge(js, &R2, NULL);
    CHECK(gc_detect_worst(j.d) == GC_V_OK, "distribution rule off");
    gc_detect_free(j.d);
    free(js);

    /* limits: PCIe x8 and gen4, 17 NVLinks, clock held by HW slowdown, power
     * cap alone (not counted), ECC, HBM ratio, failed and partial GPUs,
     * throttled points */
    fleet(g);
    g[1].pcie_width = 8;
    g[2].pcie_gen = 4;
    g[3].nvlinks = 17;
    g[4].clock = 1500, g[4].throttle = 0x8;
    g[5].clock = 1500, g[5].throttle = 0x4;
    g[6].ecc_unc = 2;
    g[7].ecc_corr = 1000;
    g[8].ratio = 0.6;
    g[9].status = "failed";
    g[10].status = "partial";
    g[11].throttled_flag = 1;
    g[12].throttle = 0x40;
    js = catalogue(g, N, 8);
    j = judge(js, &R, NULL);
    CHECK(has_rule(find(j.d, "n1/gpu1"), "limit_pcie", "pcie_width") == GC_V_DEGRADED, "x8");
    CHECK(has_rule(find(j.d, "n1/gpu2"), "limit_pcie", "pcie_gen") == GC_V_SUSPECT, "gen4");
    CHECK(has_rule(find(j.d, "n1/gpu3"), "limit_nvlink", NULL) == GC_V_DEGRADED, "nvlink");
    CHECK(has_rule(find(j.d, "n1/gpu4"), "limit_clock", NULL) == GC_V_DEGRADED, "clock");
    CHECK(find(j.d, "n1/gpu5")->level == GC_V_OK, "power cap is not a fault");
    CHECK(has_rule(find(j.d, "n1/gpu6"), "limit_ecc", "ecc_uncorrected") == GC_V_DEGRADED, "ecc");
    CHECK(has_rule(find(j.d, "n1/gpu7"), "limit_ecc", "ecc_corrected") == GC_V_SUSPECT, "ecc corrected");
    CHECK(has_rule(find(j.d, "n2/gpu0"), "limit_ratio", NULL) == GC_V_DEGRADED, "ratio");
    CHECK(find(j.d, "n2/gpu1")->level == GC_V_FAILED && has_rule(find(j.d, "n2/gpu1"), "status", NULL),
          "failed");
    CHECK(find(j.d, "n2/gpu2")->level == GC_V_SUSPECT, "partial");
    CHECK(has_rule(find(j.d, "n2/gpu3"), "limit_clock", "throttled_points") == GC_V_SUSPECT, "flags");
    CHECK(has_rule(find(j.d, "n2/gpu4"), "limit_clock", NULL) == GC_V_SUSPECT, "hw thermal, clock ok");
    CHECK(find(j.d, "n2")->level == GC_V_FAILED, "node takes the worst");
    CHECK(only_bad(j.d, (const char *const[]){ "n1/gpu1", "n1/gpu2", "n1/gpu3", "n1/gpu4", "n1/gpu6",
                                                "n1/gpu7", "n2/gpu0", "n2/gpu1", "n2/gpu2", "n2/gpu3",
                                                "n2/gpu4", "n1", "n2", NULL }),
          "only them");
    gc_detect_free(j.d);
    free(js);

    /* links: a slow host link (peers), below its lambda floor; a slow NUMA
     * node: both GPUs near NUMA 1 of n2 slow, those near NUMA 0 fine */
    fleet(g);
    for (int i = 0; i < N; i++)
        g[i].numa = (i % 8) / 4;
    g[2].h2d_beta = 30e9;
    g[12].h2d_beta = g[13].h2d_beta = g[14].h2d_beta = g[15].h2d_beta = 42e9;
    js = catalogue(g, N, 8);
    j = judge(js, &R, NULL);
    const char *l2 = "pcie xfer h2d pinned ce: n1/host(numa0) -> n1/gpu2";
    CHECK(has_rule(find(j.d, l2), "peers", "beta_bps") == GC_V_DEGRADED, "slow link");
    CHECK(has_rule(find(j.d, l2), "limit_lambda", NULL) == GC_V_SUSPECT, "lambda floor");
    CHECK(find(j.d, "n1/gpu2")->level == GC_V_OK, "the GPU itself is fine");
    CHECK(has_rule(find(j.d, "n2"), "numa", NULL) == GC_V_DEGRADED, "numa node");
    CHECK(!has_rule(find(j.d, "n1"), "numa", NULL), "one slow link is not a NUMA node");
    gc_detect_free(j.d);
    free(js);

    /* a slow host: every GPU of n2 (4 nodes of 4 GPUs, two NUMA nodes each) copies to and from the
     * host at 80%; then all but one of them. The host is the common end
     * (the node's "host" reason), not each GPU, nor a NUMA node */
    for (int all_but = 0; all_but < 2; all_but++) {
        fleet(g);
        for (int i = 0; i < N; i++)
            g[i].numa = (i % 4) / 2;
        for (int i = 4 + all_but; i < 8; i++)
            g[i].h2d_beta = 0.8 * 53e9;
        with_d2h = 1;
        js = catalogue(g, N, 4);
        with_d2h = 0;
        j = judge(js, &R, NULL);
        CHECK(j.rc == 0, "judged: %s", j.msg);
        CHECK(has_rule(find(j.d, "n2"), "host", "host_links") == GC_V_DEGRADED, "host named (all but %d)", all_but);
        CHECK(!has_rule(find(j.d, "n2"), "numa", NULL), "no NUMA node named (all but %d)", all_but);
        for (int i = 0; i < 4; i++) {
            char s[16];
            snprintf(s, sizeof s, "n2/gpu%d", i);
            CHECK(find(j.d, s)->level == GC_V_OK, "%s not named (all but %d)", s, all_but);
        }
        CHECK(!has_rule(find(j.d, "n1"), "host", NULL), "n1's host is fine");
        {
            const gc_verdict *v = find(j.d, "n2");
            for (size_t k = 0; k < v->nreasons; k++)
                if (!strcmp(v->reasons[k].rule, "host"))
                    CHECK(strstr(v->reasons[k].detail, all_but ? "of 3 of the node's 4 GPUs" : "of 4 of the node's 4 GPUs"),
                          "detail: %s", v->reasons[k].detail);
        }
        gc_detect_free(j.d);
        free(js);
    }
    /* one GPU's host links slow (both ways): the GPU is their common end, no host named */
    fleet(g);
    g[10].h2d_beta = 0.8 * 53e9;
    with_d2h = 1;
    js = catalogue(g, N, 8);
    with_d2h = 0;
    j = judge(js, &R, NULL);
    CHECK(has_rule(find(j.d, "n2/gpu2"), "common_end", "host_links") >= GC_V_SUSPECT, "one GPU: its own end");
    CHECK(!has_rule(find(j.d, "n2"), "host", NULL), "one GPU is not the host");
    gc_detect_free(j.d);
    free(js);

    /* host links are judged by host: 4 nodes of 8 GPUs whose hosts are
     * drawn as the sim draws them (spread.host_link_rel_sigma 3.06%, by node
     * index), every window of 4 consecutive nodes of 40: no healthy host is
     * named (a node drawn 5.2% or 7% below the others is the hosts' spread, not a
     * fault); a host at 90% of its draw is caught where it lies beyond that
     * spread (59 of 148 placements: of 3% host noise a 10% fault is ~3 sigma;
     * no threshold without a false positive here catches more than 84) */
    {
        enum { W = 4, PER = 8, NODES = 40 };
        double hf[NODES];
        for (int k = 0; k < NODES; k++) {
            sim_rng r;
            uint64_t keys[] = { (uint64_t)k, 0x484f5354ull };
            sim_rng_seed(&r, keys, 2);
            hf[k] = 1 + 0.0306 * sim_rng_normal(&r);
        }
        gspec h[W * PER];
        int false_pos = 0, caught = 0, tried = 0;
        for (int w0 = 0; w0 + W <= NODES; w0++)
            for (int fault = -1; fault < W; fault++) {
                for (int i = 0; i < W * PER; i++) {
                    h[i] = healthy();
                    h[i].h2d_beta = 53e9 * hf[w0 + i / PER] * (i / PER == fault ? 0.9 : 1);
                }
                with_d2h = 1;
                js = catalogue(h, W * PER, PER);
                with_d2h = 0;
                j = judge(js, &R, NULL);
                int bad = 0, named = 0;
                for (size_t k = 0; k < gc_detect_count(j.d); k++) {
                    const gc_verdict *v = gc_detect_verdict(j.d, k);
                    int on = fault >= 0 && !strcmp(v->node, (char[8]){ 'n', (char)('1' + fault), 0 });
                    if (v->level != GC_V_OK && !on)
                        bad++;
                    if (on && v->type == GC_SUBJ_NODE && has_rule(v, "host", NULL))
                        named = 1;
                }
                if (fault < 0)
                    false_pos += bad > 0;
                else {
                    tried++;
                    caught += named && !bad;
                }
                gc_detect_free(j.d);
                free(js);
            }
        printf("hosts by window: %d false positive windows of %d healthy; 10%% host fault caught %d of %d\n",
               false_pos, NODES - W + 1, caught, tried);
        CHECK(false_pos == 0, "healthy windows with a suspect: %d", false_pos);
        CHECK(caught >= tried / 3, "10%% host faults caught: %d of %d", caught, tried);
    }

    /* fewer than 3 peers: a SKU of 2 is judged from limits alone, says so */
    fleet(g);
    g[0].name = g[1].name = "Lonely GPU";
    g[0].hbm = 1e12;   /* far below the others: not compared with them */
    g[1].pcie_width = 8;
    js = catalogue(g, N, 8);
    j = judge(js, &R, NULL);
    {
        const gc_verdict *v = find(j.d, "n1/gpu0");
        CHECK(v->level == GC_V_OK && !v->used_peers && v->peers == 2, "no peers: %d", v->peers);
        CHECK(strstr(v->note, "limits alone") != NULL, "note: %s", v->note);
        CHECK(has_rule(find(j.d, "n1/gpu1"), "limit_pcie", NULL), "limits still apply");
    }
    gc_detect_free(j.d);
    /* ... and with a baseline for that SKU */
    const char *ref = "{\"schema_version\": \"1.0\", \"kind\": \"baseline\", \"sku\": \"Lonely GPU\", "
                      "\"source\": \"test\", \"parameters\": {\"hbm_bw_bps\": 3.0e12, \"l2_latency_cycles\": 270}, "
                      "\"nvlink_links\": 18, \"links\": {\"pcie xfer h2d pinned ce\": 53e9}}";
    gc_baseline *base = NULL;
    gc_err e = { 0 };
    CHECK(gc_catread_baseline_mem("ref.json", ref, strlen(ref), &base, &e) == 0, "baseline: %s", e.msg);
    j = judge(js, &R, base);
    {
        const gc_verdict *v = find(j.d, "n1/gpu0");
        CHECK(has_rule(v, "baseline", "hbm_bw_bps") == GC_V_DEGRADED, "baseline rule");
        CHECK(strstr(v->note, "baseline and limits") != NULL, "note: %s", v->note);
        CHECK(find(j.d, "n1/gpu3")->level == GC_V_OK, "other SKU: no baseline, peers ok");
    }
    gc_detect_free(j.d);
    gc_baseline_free(base);
    free(js);

    /* an earlier catalogue as baseline: the same GPU by UUID */
    fleet(g);
    char *before = catalogue(g, N, 8);
    g[4].l2lat = 300;   /* +11% vs its own history; peers see it too */
    js = catalogue(g, N, 8);
    CHECK(gc_catread_baseline_mem("before.json", before, strlen(before), &base, &e) == 0, "%s", e.msg);
    R2 = R;
    R2.min_peers = 1000;   /* baseline only */
    j = judge(js, &R2, base);
    CHECK(has_rule(find(j.d, "n1/gpu4"), "baseline", "l2_latency_cycles") == GC_V_DEGRADED, "history");
    CHECK(strstr(find(j.d, "n1/gpu4")->reasons[0].detail, "earlier") != NULL, "by uuid: %s",
          find(j.d, "n1/gpu4")->reasons[0].detail);
    CHECK(only_bad(j.d, (const char *const[]){ "n1/gpu4", "n1", NULL }), "only it");
    gc_detect_free(j.d);
    gc_baseline_free(base);
    free(before);
    free(js);

    /* like with like: a baseline judges only what the same plan measured
     * (the crafted catalogues are of plan "t"), beyond its sources' range */
    fleet(g);
    js = catalogue(g, N, 8);
    {
        const char *other = "{\"schema_version\": \"1.0\", \"kind\": \"baseline\", \"sku\": \"Test GPU\", "
                            "\"source\": \"t\", \"plans\": {\"quick\": {\"parameters\": "
                            "{\"hbm_bw_bps\": {\"median\": 4e12, \"lo\": 3.9e12, \"hi\": 4.1e12, \"n\": 3}}}}}";
        CHECK(gc_catread_baseline_mem("other.json", other, strlen(other), &base, &e) == 0, "%s", e.msg);
        R2 = R;
        R2.min_peers = 1000;
        j = judge(js, &R2, base);
        const gc_verdict *v = find(j.d, "n1/gpu0");
        CHECK(v->level == GC_V_OK && !v->used_baseline, "another plan's baseline does not judge");
        CHECK(strstr(v->note, "no values of this plan") != NULL, "note: %s", v->note);
        gc_detect_free(j.d);
        gc_baseline_free(base);
        const char *same = "{\"schema_version\": \"1.0\", \"kind\": \"baseline\", \"sku\": \"Test GPU\", "
                           "\"source\": \"t\", \"plans\": {\"t\": {\"parameters\": "
                           "{\"hbm_bw_bps\": {\"median\": 3.5e12, \"lo\": 3.4e12, \"hi\": 3.6e12, \"n\": 3}, "
                           "\"l2_latency_cycles\": {\"median\": 250, \"lo\": 240, \"hi\": 280, \"n\": 3}}}}}";
        CHECK(gc_catread_baseline_mem("same.json", same, strlen(same), &base, &e) == 0, "%s", e.msg);
        j = judge(js, &R2, base);
        v = find(j.d, "n1/gpu0");
        /* 3.0 vs 3.5: -14.3%, 2.9% of it inside the sources' range: degraded */
        CHECK(has_rule(v, "baseline", "hbm_bw_bps") == GC_V_DEGRADED, "same plan judges");
        /* 270 vs 250: +8%, inside the sources' 240..280: not a deviation */
        CHECK(!has_rule(v, "baseline", "l2_latency_cycles"), "inside the sources' range");
        CHECK(strstr(v->note, "values judged against plan t's") != NULL, "note: %s", v->note);
        gc_detect_free(j.d);
        gc_baseline_free(base);
    }
    free(js);

    /* a GPU shared with another process: inconclusive, suspect at most, never ok */
    fleet(g);
    g[5].l2lat = 650;
    g[5].l2_p95 = 660;
    g[5].shared_flag = 1;
    js = catalogue(g, N, 8);
    j = judge(js, &R, NULL);
    {
        const gc_verdict *v = find(j.d, "n1/gpu5");
        CHECK(v->level == GC_V_SUSPECT, "shared: %s", gc_verdict_name(v->level));
        CHECK(has_rule(v, "shared", "gpu_shared") == GC_V_SUSPECT, "shared reason");
        CHECK(has_rule(v, "peers", "l2_latency_cycles") == GC_V_SUSPECT &&
              strstr(v->reasons[0].detail, "inconclusive: GPU shared") != NULL, "%s", v->reasons[0].detail);
        CHECK(gc_check_exit_code(j.d) == GC_CHECK_SUSPECT, "check exits 1");
    }
    gc_detect_free(j.d);
    free(js);

    /* the run's comparisons: the z a per-run rate allows grows with them */
    CHECK(fabs(gc_det_z_for(0.01, 1) - 2.326) < 0.01, "z for 1%% of one: %g", gc_det_z_for(0.01, 1));
    CHECK(gc_det_z_for(0.01, 2e6) > 5.6 && gc_det_z_for(0.01, 2e6) < 5.9, "z for 2e6: %g", gc_det_z_for(0.01, 2e6));
    CHECK(gc_det_host_set("launch.time mode=back_to_back") && gc_det_host_set("launch_ns") &&
          gc_det_host_set("pcie xfer h2d pageable ce") && !gc_det_host_set("hbm_bw_bps") &&
          !gc_det_host_set("pcie xfer h2d pinned ce"), "host-set values");

    /* malformed and schema-invalid catalogues: clear errors, nothing judged */
    fleet(g);
    js = catalogue(g, 4, 4);
    struct { const char *what, *from, *to, *msg; } bad[] = {
        { "truncated", NULL, NULL, "not valid JSON" },
        { "no identity", "\"identity\"", "\"identitx\"", "gpus[0]: 'identity' is missing" },
        { "wrong type", "\"sm_count\": 132", "\"sm_count\": \"x\"", "'properties.sm_count' must be an integer" },
        { "bad status", "\"status\": \"ok\"", "\"status\": \"meh\"", "must be ok, partial or failed" },
        { "kind", "\"kind\": \"catalogue\"", "\"kind\": \"node\"", "kind must be \"catalogue\"" },
        { "version", "\"1.0\"", "\"9.9\"", "schema_version" },
        { "summary", "\"p50\": 270", "\"p50\": \"a\"", "summary.p50" },
        { "link end", "\"type\": \"host\"", "\"type\": \"moon\"", "src.type" },
        { "gpus not an array", "\"gpus\": [", "\"gpus\": 3, \"x\": [", "'gpus' must be an array" },
        { "a later GPU (read in parallel)", "\"uuid\": \"GPU-0002\"", "\"uuid\": 7",
          "gpus[2]: 'identity.uuid' must be a string" },
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char *t = strdup(js);
        if (!bad[k].from)
            t[strlen(t) / 2] = '\0';
        else {
            char *p = strstr(t, bad[k].from);
            CHECK(p != NULL, "%s: pattern", bad[k].what);
            if (!p)
                continue;
            size_t a = strlen(bad[k].from), b = strlen(bad[k].to);
            char *u = malloc(strlen(t) + b + 1);
            memcpy(u, t, (size_t)(p - t));
            memcpy(u + (p - t), bad[k].to, b);
            strcpy(u + (p - t) + b, p + a);
            free(t);
            t = u;
        }
        j = judge(t, &R, NULL);
        CHECK(j.rc == GC_ECORRUPT, "%s: rc %d", bad[k].what, j.rc);
        CHECK(strstr(j.msg, bad[k].msg) != NULL && !strncmp(j.msg, "crafted.json:", 13),
              "%s: message '%s'", bad[k].what, j.msg);
        gc_detect_free(j.d);
        free(t);
    }
    free(js);

    /* rules file */
    gc_rules r;
    const char *ok = "peers = { min_peers = 5; z_suspect = 4; };\n"
                     "parameters = ( { name = \"hbm_bw_bps\"; better = \"higher\"; } );\n"
                     "limits = { throttle_bad_mask = 0x8; };\n";
    CHECK(gc_rules_load_mem("r.cfg", ok, strlen(ok), &r, &e) == 0, "%s", e.msg);
    CHECK(r.min_peers == 5 && r.z_suspect == 4 && r.z_degraded == 8 && r.nparams == 1 &&
              r.throttle_bad_mask == 8 && gc_rules_param(&r, "hbm_bw_bps") == GC_BETTER_HIGHER &&
              !gc_rules_param(&r, "l2_latency_cycles"), "rules read");
    struct { const char *text, *msg; } rb[] = {
        { "peers = { min_peers = 1; };", "r.cfg:1: peers.min_peers: 1 out of range [2, 1000000]" },
        { "peers = { nope = 1; };", "r.cfg:1: peers.nope: unknown setting" },
        { "x = 1;", "r.cfg:1: x: unknown setting" },
        { "\n\npeers = { z_suspect = ; };", "r.cfg:3:" },
        { "parameters = ( { name = \"a\"; better = \"up\"; } );", "better" },
        { "peers = { z_suspect = 9.0; z_degraded = 6.0; };", "must not be below" },
    };
    for (size_t k = 0; k < sizeof rb / sizeof rb[0]; k++) {
        e.msg[0] = '\0';
        CHECK(gc_rules_load_mem("r.cfg", rb[k].text, strlen(rb[k].text), &r, &e) == GC_EINVAL &&
                  strstr(e.msg, rb[k].msg), "rules '%s': '%s'", rb[k].text, e.msg);
    }
    CHECK(gc_rules_load("configs/rules.cfg", &r, &e) == 0, "configs/rules.cfg: %s", e.msg);
    gc_rules_default(&R2);
    CHECK(!memcmp(&r.min_peers, &R2.min_peers, sizeof r - offsetof(gc_rules, min_peers)),
          "configs/rules.cfg says the defaults");

    /* the census path reads what the catalogue path reads */
    {
        gc_gpu gg;
        gc_gpu_init(&gg);
        snprintf(gg.info.node, sizeof gg.info.node, "n1");
        snprintf(gg.info.name, sizeof gg.info.name, "Test GPU");
        gg.info.pcie_width = 8, gg.info.pcie_max_width = 16, gg.info.nvlink_links = -1;
        gg.info.numa_node = -1, gg.info.local_index = 0;
        gc_gpu_add_param(&gg, "hbm_bw_bps", 3.0e12 / 3.0, "bytes_per_s", "x");
        gc_ctx c = { 0 };
        gc_ctx_set_num(&c, "footprint_bytes", 1048576);
        gc_ctx_set_str(&c, "order", "random");
        gc_point *p = gc_gpu_add_point(&gg, 0, "chase", &c, "latency", "cycles", 100, 7);
        CHECK(p != NULL, "point");
        for (int k = 0; p && k < 100; k++)
            gc_hist_record(&p->hist, 27000 + 10 * k);
        gc_detect *d = gc_detect_new(&R, NULL);
        CHECK(gc_detect_add_census_gpu(d, &gg, NULL, "ok", &e) == 0 && gc_detect_finish(d, &e) == 0, "%s", e.msg);
        const gc_verdict *v = find(d, "n1/gpu0");
        CHECK(v && has_rule(v, "limit_pcie", NULL), "census gpu judged");
        char key[200];
        gc_det_point_key(key, sizeof key, "chase", "latency", &c);
        CHECK(!strcmp(key, "chase.latency footprint_bytes=1048576 order=random"), "key %s", key);
        gc_detect_free(d);
        gc_gpu_free(&gg);
    }
    /* a GPU's point reasons grouped per rule and benchmark metric (3.1):
     * one reason per group at its first place, the worst point's (severity,
     * then |deviation|), how many moved and their range; parameters,
     * limits and other rules as they were */
    {
        gc_verdict v = { .subject = "n1/gpu0", .node = "n1", .uuid = "", .group = "g", .note = "",
                         .gpu_index = 0, .link_index = -1 };
        int rc = 0;
        rc |= det_add_reason(&v, "limit_pcie", "pcie_width", 8, 16, 0.5, "ratio", GC_V_DEGRADED, "x8");
        double z[5] = { 12, -30, 25, 9, 40 };
        int sev[5] = { GC_V_DEGRADED, GC_V_DEGRADED, GC_V_DEGRADED, GC_V_SUSPECT, GC_V_SUSPECT };
        for (int i = 0; i < 5; i++) {
            char m[64];
            snprintf(m, sizeof m, "chase.latency footprint_bytes=%d", 4096 << i);
            rc |= det_add_reason(&v, "peers", m, 40 + i, 34, z[i], "robust_z", sev[i], "point %d", i);
            rc |= det_add_reason(&v, "distribution", m, 0.2, 0.01, z[i] / 2, "wasserstein_rel", GC_V_SUSPECT,
                                 "dist %d", i);
        }
        rc |= det_add_reason(&v, "peers", "hbm_bw_bps", 2e12, 3e12, -9, "robust_z", GC_V_DEGRADED, "param");
        rc |= det_add_reason(&v, "peers", "chase.latency_ns footprint_bytes=4096", 20, 17, 20, "robust_z",
                             GC_V_DEGRADED, "ns");
        int level = v.level;
        rc |= gc_verdict_group_reasons(&v);
        CHECK(!rc && v.nreasons == 5 && v.level == level, "grouped: %zu reasons (5), level %d", v.nreasons,
              v.level);
        const gc_reason *gr = &v.reasons[1];
        CHECK(!strcmp(v.reasons[0].rule, "limit_pcie") && v.reasons[0].points == 0, "a limit stays first");
        CHECK(!strcmp(gr->rule, "peers") && gr->points == 5 && gr->severity == GC_V_DEGRADED &&
                  !strcmp(gr->metric, "chase.latency footprint_bytes=8192") && gr->deviation == -30 &&
                  gr->value == 41 && gr->dev_lo == -30 && gr->dev_hi == 40,
              "peers group: %s %d points, worst %g in %g..%g", gr->metric, gr->points, gr->deviation, gr->dev_lo,
              gr->dev_hi);
        CHECK(!strcmp(gr->detail, "5 points moved (3 degraded), robust z -30.0..+40.0; worst: point 1"),
              "detail: %s", gr->detail);
        gr = &v.reasons[2];
        CHECK(!strcmp(gr->rule, "distribution") && gr->points == 5 && gr->deviation == 20 &&
                  !strcmp(gr->metric, "chase.latency footprint_bytes=65536"),
              "distribution group: %s %d %g", gr->metric, gr->points, gr->deviation);
        CHECK(!strcmp(v.reasons[3].metric, "hbm_bw_bps") && v.reasons[3].points == 0 &&
                  !strcmp(v.reasons[4].metric, "chase.latency_ns footprint_bytes=4096") &&
                  v.reasons[4].points == 0 && !strcmp(v.reasons[4].detail, "ns"),
              "a parameter and a lone point stay as they were");
        char *t = gc_verdict_json_compact(&v);
        CHECK(t && strstr(t, "\"points\":5,\"deviation_range\":[-30.0,40.0]") &&
                  !strstr(t, "\"points\":0"),
              "json: %.300s", t ? t : "(null)");
        free(t);
        free(v.reasons);
    }
    /* peers judged per key the same whether each GPU's values come in one
     * key order (read a chunk of keys at a time) or not (through an index) */
    for (int pass = 0; pass < 2; pass++) {
        static char *lv[2];
        gc_detect *d = gc_detect_new(&R, NULL);
        gc_err de = { 0 };
        int rc = 0;
        for (int gi = 0; gi < 40 && !rc; gi++) {
            gc_det_value vals[40];
            char names[40][48];
            for (int k = 0; k < 40; k++) {
                int kk = pass && gi == 7 ? 39 - k : k;   /* GPU 7's values backwards: not one order */
                snprintf(names[k], sizeof names[k], "chase.latency footprint_bytes=%d", 1024 * (kk + 1));
                double off = gi == 11 && kk % 3 == 0 ? 1.25 : 1.0;
                vals[k] = (gc_det_value){ .name = names[k], .unit = "cycles", .better = GC_BETTER_LOWER,
                                          .value = (100 + kk) * off * (1 + 0.001 * (gi % 5)), .has_q = 1,
                                          .count = 1000 };
                for (int q = 0; q < GC_DET_NQ; q++)
                    vals[k].q[q] = vals[k].value * (0.98 + 0.01 * q);
            }
            char node[16], uuid[32];
            snprintf(node, sizeof node, "n%d", gi / 8 + 1);
            snprintf(uuid, sizeof uuid, "GPU-%d", gi);
            gc_det_gpu dg = { .node = node, .index = gi % 8, .rank = gi, .uuid = uuid, .name = "Test GPU",
                              .status = "ok", .status_reason = "", .numa_node = -1, .nvlink_links = -1,
                              .hbm_ratio = NAN, .nvalues = 40, .values = vals };
            gc_det_sustain_init(&dg.sustain);
            rc = gc_detect_add_gpu(d, &dg, &de);
        }
        rc = rc ? rc : gc_detect_finish(d, &de);
        char *t = rc ? NULL : gc_detect_json(d, 0);
        CHECK(t != NULL, "pass %d: %s", pass, de.msg);
        const gc_verdict *v = find(d, "n2/gpu3");
        CHECK(v && v->level == GC_V_DEGRADED && v->nreasons >= 1 && v->reasons[0].points == 14,
              "pass %d: GPU 11 degraded on 14 points: %s %zu reasons, %d points", pass,
              v ? gc_verdict_name(v->level) : "-", v ? v->nreasons : 0, v && v->nreasons ? v->reasons[0].points : 0);
        lv[pass] = t;
        if (pass)
            CHECK(lv[0] && lv[1] && !strcmp(lv[0], lv[1]), "the same verdicts either way");
        if (pass)
            free(lv[0]), free(lv[1]);
        gc_detect_free(d);
    }
    CHECK_DONE();
}
