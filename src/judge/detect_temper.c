/* What a verdict may claim, after the rules have spoken (part of detect;
 * see detect.h and detect_int.h):
 *   - a run's comparisons: every value of every GPU is compared with its
 *     peers; over a fleet of 1024 GPUs of the default plan that is about
 *     two million comparisons, so a threshold that "rarely" fires fires.
 *     gc_det_z_for gives the z that keeps the whole run's false-positive rate
 *     at rules fleet.false_positive_rate (normal tail, Bonferroni);
 *   - values measured while another process used the GPU (gpu_shared,
 *     NVML): a deviation drawn from them is "inconclusive: GPU shared",
 *     suspect at most, and the verdict says the GPU was shared;
 *   - values the host or driver sets more than the GPU (launch and block
 *     scheduling times, pageable copies): suspect at most, unless a
 *     re-measurement confirmed them and they are off by at least
 *     fleet.host_set_rel_degraded;
 *   - the common end: a GPU whose every P2P link, or every host link, is
 *     slow while the other ends are good elsewhere is itself named, with
 *     its links.
 *
 * Layer 1 of detect (detect_int.h): it calls only the keys and verdicts of
 * layer 0; the links' rules and the order of judging call it. */
#include "judge/detect.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/detect_int.h"

double gc_det_z_for(double rate, double n)
{
    if (!(n >= 1) || !(rate > 0))
        return 0;
    double p = rate / n, lo = 0, hi = 40;
    for (int i = 0; i < 100; i++) {   /* 0.5 erfc(z / sqrt 2) = p, decreasing in z */
        double mid = 0.5 * (lo + hi);
        if (0.5 * erfc(mid / sqrt(2.0)) > p)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

static void relevel(gc_verdict *v)
{
    v->level = GC_V_OK;
    for (size_t k = 0; k < v->nreasons; k++)
        if (v->reasons[k].severity > v->level)
            v->level = v->reasons[k].severity;
}

static void prefix(gc_reason *r, const char *what)
{
    size_t w = strlen(what), cap = sizeof r->detail - 1;
    if (w >= cap)
        return;
    memmove(r->detail + w, r->detail, cap - w);
    memcpy(r->detail, what, w);
    r->detail[cap] = '\0';
}

static const val *remeasured(const gc_detect *d, const grec *g, const char *key)
{
    if (!g->nrv)   /* nothing measured again: no lookup (a faulted GPU has ~650 point reasons) */
        return NULL;
    long id = gc_strtab_id((strtab *)&d->keys, key, 0);
    for (size_t i = 0; id >= 0 && i < g->nrv; i++)
        if (g->rv[i].key == (uint32_t)id)
            return &g->rv[i];
    return NULL;
}

static const val *value_of(const gc_detect *d, const grec *g, const char *key)
{
    long id = gc_strtab_id((strtab *)&d->keys, key, 0);
    if (id >= 0 && g->keys_rising) {   /* keys strictly rising: found by halves */
        size_t i = det_first_key_at(g->v, g->nv, (size_t)id);
        return i < g->nv && g->v[i].key == (uint32_t)id ? &g->v[i] : NULL;
    }
    for (size_t i = 0; id >= 0 && i < g->nv; i++)
        if (g->v[i].key == (uint32_t)id)
            return &g->v[i];
    return NULL;
}

static void suffix(gc_reason *r, const char *what)
{
    size_t n = strlen(r->detail);
    if (n + strlen(what) < sizeof r->detail)
        memcpy(r->detail + n, what, strlen(what) + 1);
}

/* A degraded value reason against the GPU's re-measurement of the same
 * point: 1 held, 0 did not, -1 not measured again. Each rule as it fired:
 * peers and baseline, the new median is still off by the degraded floor
 * from the same reference; distribution, the new quantile function is
 * still as far from the peers' (again_distribution, detect_peers.c). */
static int held(const gc_detect *d, const grec *g, const gc_reason *r)
{
    const val *y = remeasured(d, g, r->metric), *x = y ? value_of(d, g, r->metric) : NULL;
    if (!x || !y)
        return -1;
    const gc_rules *R = d->r;
    if (!strcmp(r->rule, "distribution"))   /* the rule applied to y by the peers (again_distribution) */
        return r->again_held == 1 ? 1 : r->again_held == 2 ? 0 : -1;
    if (!isfinite(r->reference) || r->reference == 0)
        return -1;
    double bad = (y->better == GC_BETTER_HIGHER ? r->reference - y->v : y->v - r->reference) / fabs(r->reference);
    return bad >= (!strcmp(r->rule, "baseline") ? R->base_rel_degraded : R->rel_degraded);
}

void det_temper_incomplete(gc_verdict *v)
{
    v->level = GC_V_OK;
    for (size_t k = 0; k < v->nreasons; k++) {
        gc_reason *r = &v->reasons[k];
        if (r->severity > GC_V_SUSPECT) {
            r->severity = GC_V_SUSPECT;
            prefix(r, "incomplete run: ");
        }
        if (r->severity > v->level)
            v->level = r->severity;
    }
}

int det_temper_gpu(gc_detect *d, const grec *g, gc_verdict *v)
{
    const gc_rules *R = d->r;
    int shared_blamed = 0, confirmed = 0, not_held = 0, unconfirmed = 0, params = 0;
    for (size_t k = 0; k < v->nreasons; k++) {
        gc_reason *r = &v->reasons[k];
        if (strcmp(r->rule, "peers") && strcmp(r->rule, "distribution") && strcmp(r->rule, "baseline"))
            continue;
        /* NVML looks before and after each item: another process may have
         * run during an item it did not catch, so while the GPU was shared
         * at all no value of it is blamed on the GPU (limits still are) */
        if (g->shared_points > 0 && r->severity >= GC_V_SUSPECT) {
            r->severity = GC_V_SUSPECT;
            prefix(r, "inconclusive: GPU shared: ");
            shared_blamed++;
            continue;
        }
        if (r->severity >= GC_V_DEGRADED && !strchr(r->metric, '.')) {
            params++;   /* a parameter: derived from points, judged after them */
        } else if (r->severity >= GC_V_DEGRADED) {
            int h = held(d, g, r);
            if (h == 1) {
                confirmed++;
                suffix(r, " [confirmed: measured again]");
            } else if (h == 0) {
                const val *y = remeasured(d, g, r->metric);
                char t[96];
                if (!strcmp(r->rule, "distribution"))
                    snprintf(t, sizeof t, "not confirmed (measured again: %.6g, Wasserstein-1 %.1f%%): ",
                             y ? y->v : NAN, 100 * r->again);
                else
                    snprintf(t, sizeof t, "not confirmed (measured again: %.6g): ", y ? y->v : NAN);
                r->severity = GC_V_SUSPECT;
                prefix(r, t);
                not_held++;
                continue;
            } else
                unconfirmed++;
        }
        if (gc_det_host_set(r->metric) && r->severity > GC_V_SUSPECT) {
            double rel = isfinite(r->reference) && r->reference != 0
                       ? fabs(r->value - r->reference) / fabs(r->reference) : 0;
            if (!(strstr(r->detail, "[confirmed") && rel >= R->host_set_rel_degraded)) {
                r->severity = GC_V_SUSPECT;
                prefix(r, "host-set, suspect at most: ");
            }
        }
    }
    /* a derived parameter's finding holds when its GPU's re-measured points
     * held (all of them), not when none did */
    for (size_t k = 0; params && k < v->nreasons; k++) {
        gc_reason *r = &v->reasons[k];
        if (strcmp(r->rule, "peers") && strcmp(r->rule, "distribution") && strcmp(r->rule, "baseline"))
            continue;
        if (r->severity < GC_V_DEGRADED || strchr(r->metric, '.'))
            continue;
        if (confirmed && !not_held) {
            confirmed++;
            suffix(r, " [confirmed: its points measured again]");
        } else if (not_held && !confirmed) {
            not_held++;
            r->severity = GC_V_SUSPECT;
            prefix(r, "not confirmed (its points measured again): ");
        } else
            unconfirmed++;
    }
    int rc = 0;
    if (g->shared_points > 0)
        rc = det_add_reason(v, "shared", "gpu_shared", g->shared_points, g->points, g->shared_points, "count",
                            GC_V_SUSPECT,
                            "inconclusive: GPU shared: %d of %d points were measured while another process "
                            "used the GPU (NVML)%s; measure again with the GPU to itself",
                            g->shared_points, g->points,
                            shared_blamed ? ", and deviations drawn from them are not blamed on the GPU" : "");
    if (!rc && (confirmed || not_held || unconfirmed))
        rc = det_add_note(d, v,
                 "measured again before blaming: %d degraded finding(s) confirmed, %d not (suspect), "
                 "%d not measured again (unconfirmed)", confirmed, not_held, unconfirmed);
    relevel(v);
    return rc;
}

/* ---- the common end of slow links ------------------------------------- */

int det_link_family(const gc_det_link *l)
{
    if (!strcmp(l->benchmark, "p2p"))
        return DET_FAM_P2P;
    if (!strcmp(l->benchmark, "xfer") && !l->concurrent && strcmp(l->memory, "pageable"))
        return DET_FAM_HOST;
    return -1;
}

int det_common_end(gc_detect *d, const long *lsrc, const long *ldst, const unsigned char *covered)
{
    static const char *const fam_name[DET_FAM_N] = { "P2P", "host" };
    size_t ng = d->ng, nl = d->nl;
    if (!ng || !nl)
        return 0;
    /* per GPU and family: its links, the slow ones; per GPU: any ok link of the family */
    int *all = calloc(ng * DET_FAM_N, sizeof *all), *slow = calloc(ng * DET_FAM_N, sizeof *slow);
    int *worst = calloc(ng * DET_FAM_N, sizeof *worst);
    /* per GPU its links of either family, in link order (a GPU's links
     * found without a scan of every link: that made this quadratic) */
    size_t *first = calloc(ng + 1, sizeof *first), *at = NULL;
    const det_lside *ls = d->ls;
    if (!all || !slow || !worst || !first) {
        free(all), free(slow), free(worst), free(first);
        return GC_ENOMEM;
    }
    for (size_t i = 0; i < nl; i++) {
        int f = ls[i].fam, level = ls[i].level;
        if (f < 0)
            continue;
        long ends[2] = { lsrc[i], ldst[i] };
        for (int e = 0; e < 2; e++) {
            if (ends[e] < 0 || (e == 1 && ends[1] == ends[0]))
                continue;
            size_t k = (size_t)ends[e] * DET_FAM_N + (size_t)f;
            first[ends[e] + 1]++;
            all[k]++;
            if (level >= GC_V_SUSPECT && level < GC_V_FAILED) {
                slow[k]++;
                if (!worst[k] || level < worst[k])
                    worst[k] = level;   /* the level every one of them has at least */
            }
        }
    }
    for (size_t gi = 0; gi < ng; gi++)
        first[gi + 1] += first[gi];
    size_t *adj = malloc((first[ng] ? first[ng] : 1) * sizeof *adj);
    if (!adj || !(at = malloc((ng ? ng : 1) * sizeof *at))) {
        free(all), free(slow), free(worst), free(first), free(adj);
        return GC_ENOMEM;
    }
    memcpy(at, first, ng * sizeof *at);
    for (size_t i = 0; i < nl; i++)
        for (int e = 0; ls[i].fam >= 0 && e < 2; e++) {
            long g = e ? ldst[i] : lsrc[i];
            if (g >= 0 && !(e == 1 && ldst[i] == lsrc[i]))
                adj[at[g]++] = i;
        }
    int rc = 0;
    for (size_t gi = 0; gi < ng && !rc; gi++)
        for (int f = 0; f < DET_FAM_N && !rc; f++) {
            size_t k = gi * DET_FAM_N + (size_t)f;
            if (all[k] < 2 || slow[k] != all[k] || (f == DET_FAM_HOST && covered && covered[gi]))
                continue;   /* covered: its NUMA node or switch is the common end (detect_topo.c) */
            /* P2P: most other ends (at least 2) must be good with someone
             * else, or nothing tells this GPU from its partners; a partner
             * with its own fault (an NVLink down: all its links a little
             * slow) does not hide this one */
            char names[220];
            size_t n = 0, other_bad = 0, other_good = 0, shown = 0;
            names[0] = '\0';
            for (size_t a = first[gi]; a < first[gi + 1]; a++) {
                size_t i = adj[a];
                if (ls[i].fam != f)
                    continue;
                long o = lsrc[i] == (long)gi ? ldst[i] : lsrc[i];
                if (f == DET_FAM_P2P && o >= 0 && o != (long)gi) {
                    size_t ko = (size_t)o * DET_FAM_N + DET_FAM_P2P;
                    other_bad += slow[ko] == all[ko];
                    other_good += slow[ko] < all[ko];
                }
                const char *tail = strstr(d->v[ng + i].subject, ": ");
                if (shown < 3 && n < sizeof names - 1) {
                    n += (size_t)snprintf(names + n, sizeof names - n, "%s%.60s", shown ? "; " : "",
                                          tail ? tail + 2 : d->v[ng + i].subject);
                    shown++;
                }
            }
            if (f == DET_FAM_P2P && (other_good < 2 || other_good <= other_bad))
                continue;
            rc = det_add_reason(&d->v[gi], "common_end", f == DET_FAM_P2P ? "p2p_links" : "host_links", slow[k],
                                all[k], 1.0, "count", worst[k],
                                "all %d %s links of this GPU are slow while %s other ends are good "
                                "elsewhere: the GPU (or its slot) is the common end: %.150s%s",
                                all[k], fam_name[f], f == DET_FAM_P2P && other_bad ? "most of their" : "their",
                                names, all[k] > 3 ? "; ..." : "");
            relevel(&d->v[gi]);
        }
    free(all), free(slow), free(worst), free(first), free(adj), free(at);
    return rc;
}

/* ---- links measured again before blaming ------------------------------ */

/* A link's degraded bandwidth findings against its second measurement
 * (confirm.c: the pair measured again, remeasured_bandwidth_bps): held
 * when the new median is still off by the degraded floor from the same
 * reference, else suspect "not confirmed"; the note counts them, and the
 * degraded findings of links not measured again (unconfirmed). */
int det_temper_link(gc_detect *d, const lrec *l, gc_verdict *v)
{
    const gc_rules *R = d->r;
    if (v->level < GC_V_DEGRADED || v->level >= GC_V_FAILED)
        return 0;
    double again = l->l.again_bps;
    int confirmed = 0, not_held = 0, unconfirmed = 0;
    for (size_t k = 0; k < v->nreasons; k++) {
        gc_reason *r = &v->reasons[k];
        if (r->severity < GC_V_DEGRADED || (strcmp(r->rule, "peers") && strcmp(r->rule, "baseline")) ||
            (strcmp(r->metric, "beta_bps") && strcmp(r->metric, "top_bandwidth_bps")))
            continue;
        if (!isfinite(again) || !isfinite(r->reference) || r->reference <= 0) {
            unconfirmed++;
            continue;
        }
        double bad = (r->reference - again) / r->reference;
        char t[96];
        if (bad >= (!strcmp(r->rule, "baseline") ? R->base_rel_degraded : R->rel_degraded)) {
            snprintf(t, sizeof t, " [confirmed: measured again: %.4g GB/s]", again / 1e9);
            suffix(r, t);
            confirmed++;
        } else {
            snprintf(t, sizeof t, "not confirmed (measured again: %.4g GB/s): ", again / 1e9);
            r->severity = GC_V_SUSPECT;
            prefix(r, t);
            not_held++;
        }
    }
    if ((confirmed || not_held || unconfirmed) &&
        det_add_note(d, v,
                 "measured again before blaming: %d degraded finding(s) confirmed, %d not "
                 "(suspect), %d not measured again (unconfirmed)", confirmed,
                 not_held, unconfirmed))
        return GC_ENOMEM;
    relevel(v);
    return 0;
}
