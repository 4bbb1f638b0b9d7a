/* The rules of detect: a GPU's baseline and physical limits, and the nodes
 * (a GPU's peers and distributions: detect_peers.c; links: detect_links.c).
 * See detect.h for the rules.
 *
 * Layer 2 of detect (detect_int.h): it calls the topology (layer 1: a host
 * group's reason on its node) and the keys, baseline and verdicts (layer
 * 0); the order of judging calls it. */
#include "judge/detect.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/detect_int.h"
#include "census/registry.h"

/* ---- GPUs: baseline, physical limits (peers: detect_peers.c) ---------- */

/* Against the baseline: only what the same plan measured (the key names
 * the kernel, footprint and size), beyond the range the baseline's own
 * healthy sources showed and the value's own spread (half its p5..p95
 * width): a value inside what healthy GPUs read, or inside its own noise,
 * is no deviation. Values the host sets are judged only against this
 * GPU's own earlier run. What the baseline cannot judge, the note says. */
int det_judge_baseline(gc_detect *d, const grec *g, gc_verdict *v)
{
    const gc_rules *R = d->r;
    int rc = 0;
    size_t judged = 0, unknown = 0, host = 0;
    /* per benchmark: values whose baseline is of another method (not compared) */
    int base_m[GC_DET_NBENCH] = { 0 };
    size_t other_n[GC_DET_NBENCH] = { 0 };
    for (size_t i = 0; i < g->nv && !rc; i++) {
        const val *x = &g->v[i];
        const char *key = d->keys.s[x->key];
        int own, other, bi = gc_det_key_bench(key);
        double lo, hi;
        double ref = det_baseline_ref_method(d->base, g->name, g->uuid, d->plan, key,
                                             det_gpu_method(g, bi), &other, &own, &lo, &hi);
        if (!own && gc_det_host_set(key)) {
            host++;
            continue;
        }
        if ((!isfinite(ref) || ref == 0) && other && bi >= 0 && bi < GC_DET_NBENCH) {
            base_m[bi] = other;
            other_n[bi]++;
            continue;
        }
        if (!isfinite(ref) || ref == 0) {
            unknown++;
            continue;
        }
        judged++;
        double rel = (x->better == GC_BETTER_HIGHER ? ref - x->v : x->v - ref) / fabs(ref);
        double spread = (x->better == GC_BETTER_HIGHER ? ref - lo : hi - ref) / fabs(ref);
        double noise = x->has_q && x->q[2] != 0 ? 0.5 * (x->q[3] - x->q[1]) / fabs(x->q[2]) : 0;
        double tol = fmax(isfinite(spread) ? spread : 0, isfinite(noise) ? noise : 0);
        double excess = rel - tol;
        int sev = excess >= R->base_rel_degraded ? GC_V_DEGRADED
                : excess >= R->base_rel_suspect  ? GC_V_SUSPECT : GC_V_OK;
        if (sev) {
            char a[48], b[48];
            det_fmt_val(a, sizeof a, x->v, det_unit_of(d, x->key));
            det_fmt_val(b, sizeof b, ref, det_unit_of(d, x->key));
            rc = det_add_reason(v, "baseline", key, x->v, ref, (x->v - ref) / fabs(ref),
                                "relative", sev, "%s vs %s %s (%+.1f%%; its sources' range and the value's "
                                "own spread allow %.1f%%)", a,
                                own ? "this GPU's earlier" : "the SKU's baseline", b,
                                100 * (x->v - ref) / fabs(ref), 100 * tol);
        }
    }
    for (size_t i = 0; i < d->base->nfound && !rc; i++) {
        const gc_reason *r = &d->base->found[i].r;
        if (!strcmp(d->base->found[i].uuid, g->uuid))
            rc = det_add_reason(v, r->rule, r->metric, r->value, r->reference, r->deviation,
                                r->deviation_unit, r->severity, "%s", r->detail);
    }
    if (!rc && (unknown || host)) {
        rc = det_add_note(d, v,
                 "baseline: %zu values judged against plan %s's; %zu it has no value for (not judged "
                 "against it)%s%zu set by the host (not judged against another host's)",
                 judged, d->plan[0] ? d->plan : "?", unknown, ", ", host);
    }
    /* another method measures something else under the same keys: never
     * compared, never a deviation */
    size_t others = 0;
    for (int b = 0; b < GC_DET_NBENCH && b < (int)gc_bench_ndefs && !rc; b++) {
        if (!other_n[b])
            continue;
        others += other_n[b];
        rc = det_add_note(d, v, "%s: baseline of method %d, this run method %d: not compared (%zu values)",
                          gc_bench_defs[b].name, base_m[b], g->method[b], other_n[b]);
    }
    if (!rc && !judged && others && v->used_baseline) {
        /* nothing comparable: judged as a SKU without a baseline is */
        v->used_baseline = 0;
        static const char was[] = "the baseline and limits alone";
        const char *at = strstr(v->note, was);
        if (at)   /* the note is the detector's interned string: a new one */
            rc = det_set_note(d, v, "%.*slimits alone (no baseline value of this run's methods)%s",
                              (int)(at - v->note), v->note, at + strlen(was));
    }
    return rc;
}

static void throttle_names(long long bits, char *out, size_t cap)
{
    static const char *const names[] = { "gpu_idle", "applications_clocks", "sw_power_cap",
                                         "hw_slowdown", "sync_boost", "sw_thermal",
                                         "hw_thermal", "hw_power_brake", "display_clocks" };
    size_t n = 0;
    out[0] = '\0';
    for (int i = 0; i < 9; i++)
        if (bits & (1ll << i))
            n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, "%s%s", n ? "," : "", names[i]);
    if (!n)
        snprintf(out, cap, "0x%llx", bits);
}

/* Sustained load: throttled by a fault slowdown (degraded when the clock
 * it held fell below clock_floor), an unstable clock, XID events. */
static int judge_sustain(const gc_rules *R, const gc_det_sustain *s, gc_verdict *v)
{
    int rc = 0;
    long long bad = s->reasons & R->throttle_bad_mask;
    if (isfinite(s->onset_s) && bad) {
        char names[160];
        throttle_names(bad, names, sizeof names);
        int low = isfinite(s->clock_ratio) && s->clock_ratio < R->clock_floor;
        rc = det_add_reason(v, "limit_sustain", "time_to_first_throttle_s", s->onset_s, NAN,
                            s->clock_ratio, "ratio", low ? GC_V_DEGRADED : GC_V_SUSPECT,
                            "throttled by %s after %.1f s of sustained load; it held %.0f%% of its "
                            "maximum SM clock", names, s->onset_s, 100 * s->clock_ratio);
    }
    if (!rc && isfinite(s->p5_ratio) && s->p5_ratio < R->sustain_p5_floor)
        rc = det_add_reason(v, "limit_sustain", "sm_clock_p5_ratio", s->p5_ratio, R->sustain_p5_floor,
                            s->p5_ratio, "ratio", GC_V_SUSPECT,
                            "SM clock unstable under sustained load: its p5 is %.0f%% of its median "
                            "(floor %.0f%%)", 100 * s->p5_ratio, 100 * R->sustain_p5_floor);
    if (!rc && s->xid_events > 0)
        rc = det_add_reason(v, "limit_sustain", "sustain_xid_events", s->xid_events, 0, s->xid_events,
                            "count", GC_V_DEGRADED, "%.0f XID events under sustained load",
                            s->xid_events);
    return rc;
}

int det_judge_limits(gc_detect *d, const grec *g, int group_links, gc_verdict *v)
{
    const gc_rules *R = d->r;
    int rc = 0;
    if (!strcmp(g->status, "failed"))
        rc = det_add_reason(v, "status", "status", NAN, NAN, NAN, "", GC_V_FAILED, "measurement failed: %s",
                            g->reason[0] ? g->reason : "no reason given");
    else if (!strcmp(g->status, "incomplete"))   /* stopped early: not the GPU's fault */
        rc = det_add_reason(v, "incomplete", "incomplete", NAN, NAN, NAN, "", GC_V_SUSPECT,
                            "not judged in full (could not judge): %s; `gpucensus run PLAN --resume OUT` "
                            "measures the rest", g->reason[0] ? g->reason : "the run stopped early");
    else if (!strcmp(g->status, "partial"))
        rc = det_add_reason(v, "status", "status", NAN, NAN, NAN, "", GC_V_SUSPECT, "%s",
                            g->reason[0] ? g->reason : "some work items failed");
    if (!rc && g->pcie_width > 0 && g->pcie_max_width > 0 && g->pcie_width < g->pcie_max_width)
        rc = det_add_reason(v, "limit_pcie", "pcie_width", g->pcie_width, g->pcie_max_width,
                            (double)g->pcie_width / g->pcie_max_width, "ratio", GC_V_DEGRADED,
                            "PCIe link trained at x%d of x%d under traffic", g->pcie_width, g->pcie_max_width);
    if (!rc && g->pcie_gen > 0 && g->pcie_max_gen > 0 && g->pcie_gen < g->pcie_max_gen)
        rc = det_add_reason(v, "limit_pcie", "pcie_gen", g->pcie_gen, g->pcie_max_gen,
                            (double)g->pcie_gen / g->pcie_max_gen, "ratio", GC_V_SUSPECT,
                            "PCIe link at generation %d of %d under traffic", g->pcie_gen, g->pcie_max_gen);
    /* NVLinks: as many as the peers' most, or the baseline's where this
     * GPU has NVLink at all: a GPU with no active link has no NVLink peer
     * in its topology (a lone PCIe H200), which is not a fault; one whose
     * every link is down shows against its peers of the node. */
    int want = group_links;
    if (d->base && g->nvlink_links > 0) {
        int own;
        double b = det_baseline_ref(d->base, g->name, g->uuid, d->plan, "nvlink_links", &own, NULL, NULL);
        if (isfinite(b) && b > want)
            want = (int)b;
    }
    if (!rc && g->nvlink_links >= 0 && want > 0 && g->nvlink_links < want)
        rc = det_add_reason(v, "limit_nvlink", "nvlink_links", g->nvlink_links, want,
                            (double)g->nvlink_links / want, "ratio", GC_V_DEGRADED,
                            "%d of %d NVLinks active (peers/baseline have %d)", g->nvlink_links, want, want);
    const gc_det_cond *cs[2] = { &g->start, &g->end };
    const char *when[2] = { "start", "end" };
    int clock_done = 0;
    for (int i = 0; i < 2 && !rc; i++) {
        const gc_det_cond *c = cs[i];
        if (!c->valid)
            continue;
        long long bad = c->throttle_reasons & R->throttle_bad_mask;
        char names[160];
        throttle_names(c->throttle_reasons, names, sizeof names);
        double ratio = g->sm_clock_max_mhz > 0 ? c->sm_clock_mhz / g->sm_clock_max_mhz : 1;
        if (bad && !clock_done) {
            int low = ratio < R->clock_floor;
            rc = det_add_reason(v, "limit_clock", "sm_clock_mhz", c->sm_clock_mhz, g->sm_clock_max_mhz,
                                ratio, "ratio", low ? GC_V_DEGRADED : GC_V_SUSPECT,
                                "SM clock %.0f of %.0f MHz at the %s of the run, held by %s", c->sm_clock_mhz,
                                g->sm_clock_max_mhz, when[i], names);
            clock_done = 1;
        }
    }
    /* ECC counters only grow: the larger of the start's and the end's */
    long long unc = -1, cor = -1;
    for (int i = 0; i < 2; i++)
        if (cs[i]->valid) {
            unc = cs[i]->ecc_uncorrected > unc ? cs[i]->ecc_uncorrected : unc;
            cor = cs[i]->ecc_corrected > cor ? cs[i]->ecc_corrected : cor;
        }
    if (!rc && unc > 0)
        rc = det_add_reason(v, "limit_ecc", "ecc_uncorrected_errors", (double)unc, 0, (double)unc, "count",
                            GC_V_DEGRADED, "%lld uncorrected ECC errors", unc);
    if (!rc && cor > R->ecc_corrected_suspect)
        rc = det_add_reason(v, "limit_ecc", "ecc_corrected_errors", (double)cor,
                            (double)R->ecc_corrected_suspect, (double)cor, "count", GC_V_SUSPECT,
                            "%lld corrected ECC errors (more than %lld)", cor, R->ecc_corrected_suspect);
    if (!rc && g->throttled_points > 0 && !clock_done)
        rc = det_add_reason(v, "limit_clock", "throttled_points", g->throttled_points, 0,
                            g->throttled_points, "count", GC_V_SUSPECT,
                            "%d points measured while the GPU was throttled", g->throttled_points);
    if (!rc)
        rc = judge_sustain(R, &g->sustain, v);
    if (!rc && isfinite(g->hbm_ratio) && g->hbm_ratio > 0 && g->hbm_ratio < R->hbm_ratio_floor)
        rc = det_add_reason(v, "limit_ratio", "hbm_achieved_ratio", g->hbm_ratio, R->hbm_ratio_floor,
                            g->hbm_ratio, "ratio", GC_V_DEGRADED,
                            "HBM achieves %.0f%% of its theoretical bandwidth (floor %.0f%%)",
                            100 * g->hbm_ratio, 100 * R->hbm_ratio_floor);
    return rc;
}


/* ---- nodes ------------------------------------------------------------ */

/* A slow network link between two nodes names the side to blame: the end
 * with no ok network link to anyone, or the slow side of its links as a
 * whole (gc_net_slow_ends; its NIC, port or cable), or the pair
 * (the path between them) when both ends are good with other nodes; both
 * ends when neither is good with anyone (nothing tells them apart). */
static int blame_net(gc_detect *d, size_t first, const uint8_t *net_ok, const gc_verdict *s,
                     const uint32_t id[2], const char *names[2])
{
    int good[2] = { id[0] != DET_NO_NODE && net_ok[id[0]], id[1] != DET_NO_NODE && net_ok[id[1]] };
    const gc_reason *w = gc_verdict_worst_reason(s);
    int rc = 0;
    for (int k = 0; k < 2 && !rc; k++) {
        if (id[k] == DET_NO_NODE)
            continue;
        gc_verdict *v = &d->v[first + id[k]];
        if (good[0] && good[1])
            rc = det_add_reason(v, "net_pair", s->subject, NAN, NAN, NAN, "", s->level,
                                "slow between %.60s and %.60s while both are good with other "
                                "nodes: the path between them (cables, switch ports)", names[0], names[1]);
        else if (!good[k] && good[1 - k])
            rc = det_add_reason(v, "net_side", s->subject, NAN, NAN, NAN, "", s->level,
                                "%.60s is the slow side: slow with %.60s, which is good with other "
                                "nodes, and good with none (its NIC, port or cable)", names[k], names[1 - k]);
        else if (!good[k])
            rc = det_add_reason(v, "link", s->subject, NAN, NAN, NAN, "", s->level,
                                "%.60s: %.130s (neither end is good with another node: the side is "
                                "not known)", w ? w->metric : "", w ? w->detail : "");
    }
    return rc;
}

int det_judge_nodes(gc_detect *d, const det_hostgroups *hg)
{
    /* node verdicts in order of first appearance (d->nodes: the GPUs',
     * then the links' ends) */
    const strtab *nodes = &d->nodes;
    const det_lside *ls = d->ls;
    size_t first = d->nv;
    int rc = 0;
    for (size_t k = 0; k < nodes->n && !rc; k++) {
        gc_verdict *v = det_new_verdict(d, GC_SUBJ_NODE);
        if (!v || det_set_subject(d, v, "%s", nodes->s[k]) || det_set_group(d, v, "node")) {
            rc = GC_ENOMEM;
            break;
        }
        if (!(v->node = det_vstr(d, nodes->s[k], GC_NODE_MAX)))
            rc = GC_ENOMEM;
    }
    /* network links: a node is good with others when one of its network
     * links is ok (the net phase re-measures both sides of a slow pair
     * against a good node, run.c) */
    size_t nn = d->nv - first;
    uint8_t *net_ok = calloc(nn ? nn : 1, 1);
    if (!net_ok)
        rc = GC_ENOMEM;
    for (size_t i = 0; !rc && i < d->nl; i++) {
        if (!ls[i].network || ls[i].level != GC_V_OK)
            continue;
        if (ls[i].src_node != DET_NO_NODE)
            net_ok[ls[i].src_node] = 1;
        if (ls[i].dst_node != DET_NO_NODE)
            net_ok[ls[i].dst_node] = 1;
    }
    /* nor is the slow side of its links (one escaped the rule: not good) */
    for (size_t k = 0; !rc && k < nn && k < d->nnet_slow; k++)
        net_ok[k] &= (uint8_t)!d->net_slow[k];
    for (size_t i = 0; i < d->ng && !rc; i++) {
        if (d->gnode[i] == DET_NO_NODE)
            continue;
        d->v[first + d->gnode[i]].peers++;
        const gc_verdict *s = &d->v[i];
        if (s->level == GC_V_OK)
            continue;
        const gc_reason *w = gc_verdict_worst_reason(s);
        rc = det_add_reason(&d->v[first + d->gnode[i]], "gpu", s->subject, NAN, NAN, NAN, "", s->level,
                            "%.60s: %.130s", w ? w->metric : "", w ? w->detail : "");
    }
    for (size_t i = 0; i < d->nl && !rc; i++) {
        if (ls[i].level == GC_V_OK)
            continue;
        const gc_verdict *s = &d->v[d->ng + i];
        /* interned: equal names, equal ids ("" none) */
        uint32_t id[2] = { ls[i].src_node, ls[i].dst_node };
        if (id[1] != id[0] && ls[i].network) {
            const char *names[2] = { id[0] != DET_NO_NODE ? nodes->s[id[0]] : "",
                                     id[1] != DET_NO_NODE ? nodes->s[id[1]] : "" };
            rc = blame_net(d, first, net_ok, s, id, names);
            continue;
        }
        if (id[1] == id[0])
            id[1] = DET_NO_NODE;
        for (int k = 0; k < 2 && !rc; k++) {
            if (id[k] == DET_NO_NODE)
                continue;
            const gc_reason *w = gc_verdict_worst_reason(s);
            rc = det_add_reason(&d->v[first + id[k]], "link", s->subject, NAN, NAN, NAN, "", s->level,
                                "%.60s: %.130s", w ? w->metric : "", w ? w->detail : "");
        }
    }
    /* a slow host NUMA node or PCIe switch (detect_topo.c) */
    for (size_t i = 0; hg && i < hg->n && !rc; i++) {
        long k = gc_strtab_id(&d->nodes, hg->v[i].node, 0);
        if (k >= 0)
            rc = det_host_group_reason(&hg->v[i], &d->v[first + (size_t)k]);
    }
    free(net_ok);
    return rc;
}
