/* The common end above the GPUs (part of detect; see detect_int.h): a host
 * NUMA node or a PCIe switch whose every GPU's host copies are slow, or the
 * host itself when most of a node's GPUs' host links are slow against the
 * fleet (host_group).
 *
 * The host copies of the GPUs of a group (near one NUMA node, or behind
 * one switch) are compared with those of the node's other GPUs, which
 * share the host (its CPUs, memory and firmware: the host's noise
 * cancels): per direction (h2d, d2h) the fastest one-way pinned
 * copy-engine bandwidth in the group over the others' median, and the
 * mean of the directions' ratios; below 1 - peers rel_suspect the group
 * is named suspect, below 1 - rel_degraded degraded. The fastest: every
 * GPU of the group must be slow, not one with its own fault (a PCIe link
 * at x8). A switch is compared with the GPUs near the same NUMA node
 * behind other switches, so that a slow NUMA node does not name each of
 * its switches and a slow switch does not name its NUMA node. The GPUs of
 * a named group are not themselves named the common end of their host
 * links (det_common_end): the group is.
 *
 * Layer 1 of detect (detect_int.h): it calls only the verdicts of layer 0;
 * the rules, the links' rules and the order of judging call it. */
#include "judge/detect.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/detect_int.h"
#include "util/stats.h"
#include "util/grow.h"

enum { DIR_H2D, DIR_D2H, NDIR };

int det_link_host_dir(const gc_det_link *l)
{
    int dir = !strcmp(l->direction, "h2d") ? DIR_H2D : !strcmp(l->direction, "d2h") ? DIR_D2H : -1;
    if (strcmp(l->benchmark, "xfer") || l->concurrent || strcmp(l->memory, "pinned") ||
        (l->engine[0] && strcmp(l->engine, "ce")))
        return -1;
    return dir;
}

/* A GPU's best one-way pinned copy-engine host copy per direction (NAN:
 * none); a link's record read only when it is one (det_lside). */
static void host_bw(const gc_detect *d, const long *lsrc, const long *ldst, double *bw)
{
    for (size_t i = 0; i < d->ng * NDIR; i++)
        bw[i] = NAN;
    for (size_t i = 0; i < d->nl; i++) {
        int dir = d->ls[i].host_dir;
        if (dir < 0)
            continue;
        const lrec *l = &d->l[i];
        long gi = l->l.src.is_gpu ? lsrc[i] : ldst[i];
        if (gi < 0 || !isfinite(l->l.beta_bps))
            continue;
        double *o = &bw[(size_t)gi * NDIR + (size_t)dir];
        if (!isfinite(*o) || l->l.beta_bps > *o)
            *o = l->l.beta_bps;
    }
}

/* The group's ratio (fastest in it over the others' median, mean over the
 * directions that have >= 2 in the group and >= 1 other); NAN: none. */
static double group_ratio(const double *bw, const size_t *in, size_t nin, const size_t *oth,
                          size_t noth, double *tmp)
{
    double sum = 0;
    int ndir = 0;
    for (int dir = 0; dir < NDIR; dir++) {
        double mx = NAN;
        size_t k = 0, m = 0;
        for (size_t i = 0; i < nin; i++) {
            double v = bw[in[i] * NDIR + (size_t)dir];
            if (isfinite(v)) {
                mx = k++ ? fmax(mx, v) : v;
            }
        }
        for (size_t i = 0; i < noth; i++) {
            double v = bw[oth[i] * NDIR + (size_t)dir];
            if (isfinite(v))
                tmp[m++] = v;
        }
        if (k < 2 || m < 1)
            continue;
        double mo = gc_median(tmp, m);
        if (mo > 0) {
            sum += mx / mo;
            ndir++;
        }
    }
    return ndir ? sum / ndir : NAN;
}

static int by_node(const void *a, const void *b, void *ctx)
{
    const gc_detect *d = ctx;
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    int c = strcmp(d->g[x].node, d->g[y].node);
    return c ? c : (x > y) - (x < y);
}

static int add_group(det_hostgroups *hg, const gc_detect *d, size_t gi, int is_switch, int numa,
                     const char *sw, int cnt, double ratio, int sev)
{
    if (gc_grow((void **)&hg->v, &hg->cap, hg->n + 1, sizeof *hg->v))
        return GC_ENOMEM;
    det_hostgroup *g = &hg->v[hg->n++];
    memset(g, 0, sizeof *g);
    CPY(g->node, d->g[gi].node);
    g->is_switch = is_switch;
    g->numa = numa;
    CPY(g->sw, sw);
    g->gpus = cnt;
    g->ratio = ratio;
    g->severity = sev;
    return 0;
}

/* Per GPU its host links (det_link_family), the slow ones (judged suspect
 * or worse, not failed) and the level every slow one has at least. */
static void host_levels(const gc_detect *d, const long *lsrc, const long *ldst, int *all, int *slow,
                        int *worst)
{
    for (size_t i = 0; i < d->nl; i++) {
        if (d->ls[i].fam != DET_FAM_HOST)
            continue;
        long gi = lsrc[i] >= 0 ? lsrc[i] : ldst[i];
        if (gi < 0)
            continue;
        int level = d->ls[i].level;
        all[gi]++;
        if (level >= GC_V_SUSPECT && level < GC_V_FAILED) {
            slow[gi]++;
            if (!worst[gi] || level < worst[gi])
                worst[gi] = level;
        }
    }
}

/* The host as the common end: on a node (its GPUs at[0..n)) where most
 * GPUs with host links, and at least 2, have every host link slow against
 * the fleet, whichever NUMA node or switch they are near, the one thing
 * they share is the host (its memory, CPUs, root complexes): it is named
 * on the node, at the level all of them have at least, and its GPUs are
 * not named the common end of their own host links (covered). The ratio:
 * the slow GPUs' median best host copy over the fleet's, per direction,
 * the directions' mean. */
static int host_group(const gc_detect *d, det_hostgroups *hg, const size_t *at, size_t n, const double *bw,
                      const double *fleet_bw, const int *all, const int *slow, const int *worst, double *tmp)
{
    size_t with = 0, nslow = 0;
    int sev = 0;
    for (size_t a = 0; a < n; a++) {
        size_t gi = at[a];
        if (!all[gi])
            continue;
        with++;
        if (slow[gi] == all[gi]) {
            nslow++;
            sev = !sev || worst[gi] < sev ? worst[gi] : sev;
        }
    }
    if (nslow < 2 || 2 * nslow <= with)
        return 0;
    double sum = 0;
    int ndir = 0;
    for (int dir = 0; dir < NDIR; dir++) {
        size_t m = 0;
        for (size_t a = 0; a < n; a++) {
            size_t gi = at[a];
            if (all[gi] && slow[gi] == all[gi] && isfinite(bw[gi * NDIR + (size_t)dir]))
                tmp[m++] = bw[gi * NDIR + (size_t)dir];
        }
        if (m && fleet_bw[dir] > 0) {
            sum += gc_median(tmp, m) / fleet_bw[dir];
            ndir++;
        }
    }
    if (add_group(hg, d, at[0], 0, -1, "", (int)nslow, ndir ? sum / ndir : NAN, sev))
        return GC_ENOMEM;
    hg->v[hg->n - 1].is_host = (int)with;
    for (size_t a = 0; a < n; a++) {
        size_t gi = at[a];
        if (all[gi] && slow[gi] == all[gi])
            hg->covered[gi] = 1;
    }
    return 0;
}

int det_host_groups(gc_detect *d, const long *lsrc, const long *ldst, det_hostgroups *hg)
{
    const gc_rules *R = d->r;
    size_t ng = d->ng;
    memset(hg, 0, sizeof *hg);
    hg->covered = calloc(ng ? ng : 1, 1);
    double *bw = malloc((ng ? ng : 1) * NDIR * sizeof *bw);
    double *tmp = malloc((ng ? ng : 1) * sizeof *tmp);
    size_t *order = malloc((ng ? ng : 1) * sizeof *order);
    size_t *in = malloc((ng ? ng : 1) * sizeof *in), *oth = malloc((ng ? ng : 1) * sizeof *oth);
    int *hall = calloc(ng ? ng : 1, sizeof *hall), *hslow = calloc(ng ? ng : 1, sizeof *hslow);
    int *hworst = calloc(ng ? ng : 1, sizeof *hworst);
    double fleet_bw[NDIR] = { NAN, NAN };
    int rc = hg->covered && bw && tmp && order && in && oth && hall && hslow && hworst ? 0 : GC_ENOMEM;
    if (!rc) {
        host_bw(d, lsrc, ldst, bw);
        host_levels(d, lsrc, ldst, hall, hslow, hworst);
        for (int dir = 0; dir < NDIR; dir++) {
            size_t m = 0;
            for (size_t i = 0; i < ng; i++)
                if (isfinite(bw[i * NDIR + (size_t)dir]))
                    tmp[m++] = bw[i * NDIR + (size_t)dir];
            fleet_bw[dir] = m ? gc_median(tmp, m) : NAN;
        }
        for (size_t i = 0; i < ng; i++)
            order[i] = i;
        qsort_r(order, ng, sizeof *order, by_node, d);
    }
    for (size_t s = 0; s < ng && !rc;) {
        size_t e = s;
        while (e < ng && !strcmp(d->g[order[e]].node, d->g[order[s]].node))
            e++;
        /* the host first: most of its GPUs slow is the host, whichever NUMA node they are near */
        size_t named = hg->n;
        rc = host_group(d, hg, order + s, e - s, bw, fleet_bw, hall, hslow, hworst, tmp);
        if (rc || hg->n > named) {
            s = e;
            continue;
        }
        /* NUMA nodes of this node: against the node's GPUs near other NUMA nodes */
        for (size_t a = s; a < e && !rc; a++) {
            int k = d->g[order[a]].numa_node;
            size_t nin = 0, noth = 0, dup = 0;
            for (size_t b = s; b < e; b++) {
                const grec *g = &d->g[order[b]];
                dup += b < a && g->numa_node == k;
                if (g->numa_node == k)
                    in[nin++] = order[b];
                else if (g->numa_node >= 0)
                    oth[noth++] = order[b];
            }
            if (k < 0 || dup || nin < 2 || !noth)
                continue;
            double ratio = group_ratio(bw, in, nin, oth, noth, tmp);
            int sev = !(ratio <= 1 - R->rel_suspect) ? GC_V_OK
                    : ratio <= 1 - R->rel_degraded   ? GC_V_DEGRADED : GC_V_SUSPECT;
            if (sev) {
                rc = add_group(hg, d, order[a], 0, k, "", (int)nin, ratio, sev);
                for (size_t i = 0; i < nin; i++)
                    hg->covered[in[i]] = 1;
            }
        }
        /* PCIe switches: against the GPUs near the same NUMA node (all of
         * the node's when it is not known) behind other switches or none */
        for (size_t a = s; a < e && !rc; a++) {
            const grec *ga = &d->g[order[a]];
            if (!ga->pcie_switch[0])
                continue;
            size_t nin = 0, noth = 0, dup = 0;
            int numa = ga->numa_node;
            for (size_t b = s; b < e; b++) {
                const grec *g = &d->g[order[b]];
                if (!strcmp(g->pcie_switch, ga->pcie_switch)) {
                    dup += b < a;
                    in[nin++] = order[b];
                    if (g->numa_node != numa)
                        numa = -1;
                }
            }
            if (dup || nin < 2)
                continue;
            for (size_t b = s; b < e; b++) {
                const grec *g = &d->g[order[b]];
                if (strcmp(g->pcie_switch, ga->pcie_switch) && (numa < 0 || g->numa_node == numa))
                    oth[noth++] = order[b];
            }
            if (!noth)
                continue;
            double ratio = group_ratio(bw, in, nin, oth, noth, tmp);
            int sev = !(ratio <= 1 - R->rel_suspect) ? GC_V_OK
                    : ratio <= 1 - R->rel_degraded   ? GC_V_DEGRADED : GC_V_SUSPECT;
            if (sev) {
                rc = add_group(hg, d, order[a], 1, numa, ga->pcie_switch, (int)nin, ratio, sev);
                for (size_t i = 0; i < nin; i++)
                    hg->covered[in[i]] = 1;
            }
        }
        s = e;
    }
    free(bw), free(tmp), free(order), free(in), free(oth), free(hall), free(hslow), free(hworst);
    if (rc)
        det_host_groups_free(hg);
    return rc;
}

int det_host_group_reason(const det_hostgroup *g, gc_verdict *v)
{
    if (g->is_host)
        return det_add_reason(v, "host", "host_links", g->gpus, g->is_host, g->ratio, "ratio", g->severity,
                              "every host link of %d of the node's %d GPUs is slow (their host copies at "
                              "%.0f%% of the fleet's median): the host (its memory, CPUs or PCIe root "
                              "complex) is their common end, not the GPUs", g->gpus, g->is_host,
                              100 * g->ratio);
    if (!g->is_switch)
        return det_add_reason(v, "numa", "host_numa_node", g->numa, 1.0, g->ratio, "ratio", g->severity,
                              "host copies of the %d GPUs near host NUMA node %d run at %.0f%% of the "
                              "node's other GPUs': look at that NUMA node's memory or root complex",
                              g->gpus, g->numa, 100 * g->ratio);
    char others[64] = "the node's other GPUs'";
    if (g->numa >= 0)
        snprintf(others, sizeof others, "the other GPUs' near NUMA node %d", g->numa);
    return det_add_reason(v, "pcie_switch", "pcie_switch", NAN, 1.0, g->ratio, "ratio", g->severity,
                          "host copies of the %d GPUs behind PCIe switch %s run at %.0f%% of %s: "
                          "look at that switch (its uplink, slot, firmware)", g->gpus, g->sw,
                          100 * g->ratio, others);
}

void det_host_groups_free(det_hostgroups *hg)
{
    free(hg->v);
    free(hg->covered);
    memset(hg, 0, sizeof *hg);
}
