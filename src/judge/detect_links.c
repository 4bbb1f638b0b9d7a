/* The links' names and rules (part of detect; see detect.h for the rules):
 * a link's physical limit (achieved / nominal), its baseline, and its peers
 * (links of the same class between the same SKUs), tempered by its second
 * measurement.
 *
 * Layer 2 of detect (detect_int.h): it calls the tempering and topology
 * (layer 1) and the keys, ids, baseline and verdicts (layer 0); the records
 * (detect.c: a link's names as it is added) and the order of judging call it.
 *
 * One pass over the links' records (~190 bytes each, 491,520 links at
 * 16,384 GPUs) makes each link's verdict, its side (det_lside) and what
 * its peers need (its group, its two bandwidths); the peers' statistics
 * are then made from those, and a second pass over the verdicts alone
 * adds what the peers say. A pass over either touches every cache line
 * of it: once the records and verdicts outgrow the last-level cache (at
 * 4096 GPUs they nearly fit, at 16,384 not), each pass costs a miss a
 * line, so their number is what keeps the time linear in the census. */
#include "judge/detect.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/detect_int.h"
#include "judge/net_checks.h"
#include "util/stats.h"

/* Text built as snprintf would (the same bytes, cut at cap - 1), without
 * its format parsing: three strings a link (class, ends, subject), 491,520
 * links at 16,384 GPUs. */
typedef struct sbuf {
    char *o;
    size_t n, cap;   /* n: the length snprintf would report */
} sbuf;

static void sb_put(sbuf *b, const char *s, size_t max)
{
    size_t l = strnlen(s, max);
    if (b->n + 1 < b->cap) {
        size_t room = b->cap - 1 - b->n;
        memcpy(b->o + b->n, s, l < room ? l : room);
    }
    b->n += l;
    b->o[b->n < b->cap ? b->n : b->cap - 1] = '\0';
}

static void sb_int(sbuf *b, int v)
{
    char t[16], *p = t + sizeof t;
    unsigned u = v < 0 ? 0u - (unsigned)v : (unsigned)v;
    *--p = '\0';
    do
        *--p = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0)
        *--p = '-';
    sb_put(b, p, sizeof t);
}

static void end_name(const gc_det_end *e, char *out, size_t cap)
{
    sbuf b = { out, 0, cap };
    sb_put(&b, e->node ? e->node : "?", SIZE_MAX);
    if (e->is_gpu) {
        sb_put(&b, "/gpu", 4);
        sb_int(&b, e->gpu_index);
    } else if (e->numa_node >= 0) {
        sb_put(&b, "/host(numa", 10);
        sb_int(&b, e->numa_node);
        sb_put(&b, ")", 1);
    } else {
        sb_put(&b, "/host", 5);
    }
}

/* "%.100s: %.70s -> %.70s" of the class and the ends' names */
static void link_subject_of(const gc_det_link *l, const char *cls, char *subject, size_t cap,
                            const char **node)
{
    char a[96], b[96];
    end_name(&l->src, a, sizeof a);
    end_name(&l->dst, b, sizeof b);
    sbuf o = { subject, 0, cap };
    sb_put(&o, cls, 100);
    sb_put(&o, ": ", 2);
    sb_put(&o, a, 70);
    sb_put(&o, " -> ", 4);
    sb_put(&o, b, 70);
    *node = l->src.is_gpu ? l->src.node : l->dst.node;
}

void gc_det_link_subject(const gc_det_link *l, char *subject, size_t cap, const char **node)
{
    char cls[160];
    gc_det_link_class(l, cls, sizeof cls);
    link_subject_of(l, cls, subject, cap, node);
}

void gc_det_link_class(const gc_det_link *l, char *out, size_t cap)
{
    const char *e = l->engine ? l->engine : "", *p = l->peer_access ? l->peer_access : "";
    sbuf b = { out, 0, cap };
    sb_put(&b, l->kind ? l->kind : "", SIZE_MAX);
    sb_put(&b, " ", 1);
    sb_put(&b, l->benchmark ? l->benchmark : "", SIZE_MAX);
    sb_put(&b, " ", 1);
    sb_put(&b, l->direction ? l->direction : "", SIZE_MAX);
    sb_put(&b, " ", 1);
    sb_put(&b, l->memory ? l->memory : "", SIZE_MAX);
    if (*e) {
        sb_put(&b, " ", 1);
        sb_put(&b, e, SIZE_MAX);
    }
    if (*p) {
        sb_put(&b, " peer_access=", SIZE_MAX);
        sb_put(&b, p, SIZE_MAX);
    }
    if (l->concurrent)
        sb_put(&b, " concurrent", SIZE_MAX);
}

int det_link_names(gc_detect *d, lrec *l)
{
    char cls[160], subject[256];
    const char *node;
    gc_det_link_class(&l->l, cls, sizeof cls);
    link_subject_of(&l->l, cls, subject, sizeof subject, &node);
    /* the subject (< 256 bytes: no cut) its own: one of 491,520 at 16,384
     * GPUs; the class interned (a few dozen) */
    l->cls = det_vstr(d, cls, sizeof cls);
    l->subject = det_vstr_own(d, subject);
    return l->cls && l->subject ? 0 : GC_ENOMEM;
}

/* robust statistics of the finite values of v (n): median and sigma */
static int robust(const double *v, size_t n, double floor_rel, double *med, double *sigma,
                  size_t *used)
{
    double *t = malloc((n ? n : 1) * sizeof *t);
    if (!t)
        return GC_ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i]))
            t[k++] = v[i];
    *med = gc_median(t, k);
    for (size_t i = 0; i < k; i++)
        t[i] = fabs(t[i] - *med);
    *sigma = fmax(1.4826 * gc_median(t, k), floor_rel * fabs(*med));
    *used = k;
    free(t);
    return 0;
}

/* A peer group of links: per bandwidth (model, top) the peers' median
 * and sigma over the finite values; judged: enough of them. */
typedef struct lgstat {
    double med[2], sigma[2];
    size_t used[2];
    int judged[2];
    size_t hosts;     /* links with a host end: the hosts (nodes) they span, 0: judged link by link */
    double zs, zd;    /* the z thresholds */
} lgstat;

/* The links of a group with a host end, by host: the links of one node
 * share its host (CPUs, memory, root complexes: a draw of its own), so
 * they are not independent peers; 8 links of each of 4 hosts are 4 units,
 * not 32, and their spread is the hosts' spread. Per host its best link
 * (a slow NUMA node or switch of it leaves that as it is: several such
 * nodes in a fleet neither move the hosts' median nor widen their spread
 * and hide a slow host); the group's median is the hosts' median; sigma
 * the hosts' spread (1.4826 MAD of their best links, at least
 * host_sigma_floor_rel, the spread of healthy hosts: a MAD of a few hosts
 * can be near zero) with the links' own spread about their host's median
 * added. The threshold: z_host, or the
 * one-sided z that the run's false-positive rate allows over k hosts,
 * whichever is higher (few units: few comparisons); degraded at z_degraded
 * / z_suspect times that. A link is also judged against its own host's
 * other links (the host's draw cancels) at the links' thresholds: a slow
 * slot on one node of one. xs: the group's values, hs: their hosts (ids),
 * n of them; hmed, hsig: per value its host's median and its links' sigma
 * about it (out; NAN: a host of fewer than min_peers links); t: scratch of n. */
typedef struct hval {
    uint32_t host, j;
    double x;
} hval;

static int by_host_value(const void *a, const void *b)
{
    const hval *x = a, *y = b;
    if (x->host != y->host)
        return x->host < y->host ? -1 : 1;
    return (x->x > y->x) - (x->x < y->x);
}

static int host_stats(const gc_rules *R, const double *xs, const uint32_t *hs, size_t n, double *hmed,
                      double *hsig, double *t, lgstat *st, int w)
{
    hval *hv = malloc((n ? n : 1) * sizeof *hv);
    double *dv = malloc((n ? n : 1) * sizeof *dv);
    if (!hv || !dv) {
        free(hv), free(dv);
        return GC_ENOMEM;
    }
    size_t m = 0, k = 0;
    for (size_t j = 0; j < n; j++) {
        hmed[j] = hsig[j] = NAN;
        if (isfinite(xs[j]))
            hv[m++] = (hval){ hs[j], (uint32_t)j, xs[j] };
    }
    qsort(hv, m, sizeof *hv, by_host_value);
    for (size_t a = 0; a < m;) {   /* a host's run, sorted by value: its median */
        size_t e = a;
        while (e < m && hv[e].host == hv[a].host)
            e++;
        size_t c = e - a;
        double med = c % 2 ? hv[a + c / 2].x : 0.5 * (hv[a + c / 2 - 1].x + hv[a + c / 2].x);
        for (size_t i = a; i < e; i++)
            dv[i - a] = fabs(hv[i].x - med);
        /* its links' own spread (a host of fewer than min_peers links: none) */
        double sg = c >= (size_t)R->min_peers ? fmax(1.4826 * gc_median(dv, c), R->sigma_floor_rel * fabs(med)) : NAN;
        for (size_t i = a; i < e; i++)
            hmed[hv[i].j] = med, hsig[hv[i].j] = sg;
        t[k++] = hv[e - 1].x;   /* the host's unit: its best link (a slow NUMA node or switch of it is not the host) */
        a = e;
    }
    double med = gc_median(t, k);
    for (size_t i = 0; i < k; i++)
        t[i] = fabs(t[i] - med);
    double between = 1.4826 * gc_median(t, k);
    for (size_t i = 0; i < m; i++)
        t[i] = fabs(hv[i].x - hmed[hv[i].j]);
    double within = fmax(1.4826 * gc_median(t, m), R->sigma_floor_rel * fabs(med));
    free(hv), free(dv);
    st->med[w] = med;
    st->sigma[w] = hypot(fmax(between, R->host_sigma_floor_rel * fabs(med)), within);
    st->used[w] = m;
    st->hosts = k;
    st->judged[w] = k >= (size_t)R->min_peers && med > 0;
    return 0;
}

/* What link_first found for links before this one, reused where a link
 * has the same inputs: a link's strings are interned (det_vstr: the same
 * text, the same pointer), and a GPU's links come one after another with
 * the same ends, class and kinds. At 16,384 GPUs each of 491,520 links
 * hashed five keys (its ends' GPUs and nodes, its group); a memo's hit
 * compares pointers. What it gives is what the lookups give (ids are
 * made in the same order: a miss looks up as before). */
enum { END_MEMO = 1024, GROUP_MEMO = 64 };   /* powers of two */
typedef struct end_memo {
    const char *node;   /* NULL: empty */
    int index, is_gpu;
    long gpu;           /* det_gpu_of */
    uint32_t node_id;   /* det_node_id */
} end_memo;
typedef struct group_memo {
    const char *cls, *ss, *ds;   /* NULL: empty */
    uint32_t id;
} group_memo;
typedef struct link_memo {
    end_memo end[END_MEMO];
    group_memo group[GROUP_MEMO];
    const char **gvstr;   /* per group id: its interned name */
    size_t ngvstr;
    /* the last link's kinds and what they make */
    const char *kind, *bench, *dir, *mem, *eng;
    int conc, valid;
    int8_t fam, host_dir, network, one_way;
    double floor;
} link_memo;

static int link_end(gc_detect *d, strtab *ids, link_memo *m, const gc_det_end *e, long *gpu,
                    uint32_t *node_id)
{
    uintptr_t h = ((uintptr_t)e->node >> 3) ^ ((uintptr_t)(unsigned)e->gpu_index * 0x9E3779B1u) ^
                  (uintptr_t)(e->is_gpu != 0);
    end_memo *x = &m->end[(h ^ (h >> 10)) & (END_MEMO - 1)];
    if (x->node && x->node == e->node && x->index == e->gpu_index && x->is_gpu == (e->is_gpu != 0)) {
        *gpu = x->gpu, *node_id = x->node_id;
        return 0;
    }
    *gpu = det_gpu_of(ids, e);
    if (det_node_id(d, e->node, node_id))
        return GC_ENOMEM;
    if (e->node)
        *x = (end_memo){ e->node, e->gpu_index, e->is_gpu != 0, *gpu, *node_id };
    return 0;
}

static int same_name(const char *a, const char *b)
{
    return a == b || !strcmp(a, b);
}

/* The link's group "CLASS | SRC -> DST" (its ends' GPU names or "host"):
 * its id in d->groups, its interned text in *name. */
static int link_group(gc_detect *d, link_memo *m, const char *cls, const char *ss, const char *ds,
                      uint32_t *id, const char **name)
{
    uintptr_t h = (uintptr_t)cls >> 3;
    group_memo *x = &m->group[(h ^ (h >> 7)) & (GROUP_MEMO - 1)];
    if (x->cls == cls && x->cls && same_name(x->ss, ss) && same_name(x->ds, ds)) {
        *id = x->id;
        *name = m->gvstr[x->id];
        return 0;
    }
    char key[600];
    sbuf kb = { key, 0, sizeof key };
    sb_put(&kb, cls, SIZE_MAX);
    sb_put(&kb, " | ", 3);
    sb_put(&kb, ss, SIZE_MAX);
    sb_put(&kb, " -> ", 4);
    sb_put(&kb, ds, SIZE_MAX);
    long gid = gc_strtab_id(&d->groups, key, 1);
    if (gid < 0)
        return GC_ENOMEM;
    if ((size_t)gid >= m->ngvstr) {
        size_t nc = m->ngvstr ? 2 * m->ngvstr : 64;
        while (nc <= (size_t)gid)
            nc *= 2;
        const char **ng = realloc(m->gvstr, nc * sizeof *ng);
        if (!ng)
            return GC_ENOMEM;
        memset(ng + m->ngvstr, 0, (nc - m->ngvstr) * sizeof *ng);
        m->gvstr = ng, m->ngvstr = nc;
    }
    /* interned as det_set_group would, each group once */
    if (!m->gvstr[gid] && !(m->gvstr[gid] = det_vstr(d, key, 256)))
        return GC_ENOMEM;
    *id = (uint32_t)gid;
    *name = m->gvstr[gid];
    *x = (group_memo){ cls, ss, ds, (uint32_t)gid };
    return 0;
}

/* The link's family, host direction, kind "network", whether it is a
 * one-way copy and its kind's lambda floor: of its kinds alone. */
static void link_kinds(const gc_rules *R, link_memo *m, const gc_det_link *l)
{
    if (m->valid && m->kind == l->kind && m->bench == l->benchmark && m->dir == l->direction &&
        m->mem == l->memory && m->eng == l->engine && m->conc == l->concurrent)
        return;
    m->kind = l->kind, m->bench = l->benchmark, m->dir = l->direction, m->mem = l->memory;
    m->eng = l->engine, m->conc = l->concurrent, m->valid = 1;
    m->fam = (int8_t)det_link_family(l);
    m->host_dir = (int8_t)det_link_host_dir(l);
    m->network = !strcmp(l->kind, "network");
    /* physical limit: achieved / nominal of a one-way copy */
    m->one_way = strcmp(l->direction, "bidir") != 0 && strcmp(l->memory, "pageable") != 0 &&
                 (!l->engine[0] || !strcmp(l->engine, "ce")) && !l->concurrent;
    m->floor = !strcmp(l->kind, "pcie") ? R->pcie_lambda_floor
             : !strcmp(l->kind, "nvlink") ? R->nvlink_lambda_floor : 0;
}

/* A host link's samples at its largest size: the measuring GPU's host
 * copy of the link's direction, memory and engine (gc_det_xtop); 0: none. */
static int host_top_point(const grec *g, const gc_det_link *l, double *p5, double *p50, double *p95,
                          double *size)
{
    const char *e = l->engine && l->engine[0] ? l->engine : "ce";
    for (int i = 0; i < g->nxt; i++) {
        const gc_det_xtop *x = &g->xt[i];
        if (l->concurrent || strcmp(x->dir, l->direction ? l->direction : "") ||
            strcmp(x->mem, l->memory ? l->memory : "") || strcmp(x->eng, e))
            continue;
        *p5 = x->p5, *p50 = x->p50, *p95 = x->p95, *size = x->size;
        return 1;
    }
    return 0;
}

/* Link i's verdict (made here, the next one), side and group; bw: its two
 * bandwidths. Everything but its peers. */
static int link_first(gc_detect *d, strtab *ids, size_t i, long *lsrc, long *ldst, uint32_t *lgroup,
                      double *bw, link_memo *m)
{
    const gc_rules *R = d->r;
    lrec *l = &d->l[i];
    det_lside *x = &d->ls[i];
    const char *cls = l->cls;
    link_kinds(R, m, &l->l);
    x->fam = m->fam;
    x->host_dir = m->host_dir;
    x->network = (uint8_t)m->network;
    bw[2 * i] = l->l.beta_bps;
    bw[2 * i + 1] = l->l.top_bps;
    gc_verdict *v = det_new_verdict(d, GC_SUBJ_LINK);
    if (!v || link_end(d, ids, m, &l->l.src, &lsrc[i], &x->src_node) ||
        link_end(d, ids, m, &l->l.dst, &ldst[i], &x->dst_node))
        return GC_ENOMEM;
    const char *ss = lsrc[i] >= 0 ? d->g[lsrc[i]].name : "host";
    const char *ds = ldst[i] >= 0 ? d->g[ldst[i]].name : "host";
    if (link_group(d, m, cls, ss, ds, &lgroup[i], &v->group))
        return GC_ENOMEM;
    /* the subject made as the link came */
    v->subject = l->subject;
    v->node = l->l.src.is_gpu ? l->l.src.node : l->l.dst.node;   /* the link's end's, kept (det_vstr) */
    v->link_index = (long)l->l.index;
    v->used_baseline = d->base && det_baseline_knows_plan(d->base, lsrc[i] >= 0 ? ss : ds,
                                                          l->l.src.is_gpu ? l->l.src.uuid : l->l.dst.uuid,
                                                          d->plan);
    int one_way = m->one_way;
    double floor = m->floor;
    int rc = 0;
    if (one_way && floor > 0 && isfinite(l->l.lambda) && l->l.lambda < floor)
        rc = det_add_reason(v, "limit_lambda", "lambda", l->l.lambda, floor, l->l.lambda, "ratio",
                            GC_V_SUSPECT, "achieves %.0f%% of its nominal %.4g GB/s (floor %.0f%%)",
                            100 * l->l.lambda, l->l.nominal_bps / 1e9, 100 * floor);
    if (!rc && d->base) {
        const char *sku = lsrc[i] >= 0 ? ss : ds;
        const char *uuid = l->l.src.is_gpu ? l->l.src.uuid : l->l.dst.uuid;
        char bk[200];
        snprintf(bk, sizeof bk, "link:%s:beta_bps", cls);
        int own;
        double lo;
        long ge = lsrc[i] >= 0 ? lsrc[i] : ldst[i];
        int meth = ge >= 0 ? det_gpu_method(&d->g[ge], gc_det_key_bench(bk)) : 0;
        double ref = det_baseline_ref_method(d->base, sku, uuid, d->plan, bk, meth, NULL, &own, &lo, NULL);
        double xb = l->l.beta_bps;
        /* a link the host sets (pageable, both ways at once) only against its own past;
         * a deviation counts beyond the range the baseline's sources showed */
        if (isfinite(ref) && ref > 0 && isfinite(xb) && (own || !gc_det_host_set(cls))) {
            double range = isfinite(lo) ? (ref - lo) / ref : 0;
            double rel = (ref - xb) / ref, excess = rel - range;
            int sev = excess >= R->base_rel_degraded ? GC_V_DEGRADED
                    : excess >= R->base_rel_suspect  ? GC_V_SUSPECT : GC_V_OK;
            /* a host link: the host sets its figure as much as the GPU, and
             * one noisy point (a host busy for part of its samples) moves
             * the fit; as a GPU's point against a baseline, its deviation
             * counts beyond its own samples' spread (half their p5..p95
             * width at the largest size). Within it: ok, with a note that
             * says so; beyond: the reason prints the spread (steady and
             * slow is a finding). */
            double p5 = NAN, p50 = NAN, p95 = NAN, sz = NAN;
            int pt = sev && ge >= 0 && (!l->l.src.is_gpu || !l->l.dst.is_gpu) &&
                     host_top_point(&d->g[ge], &l->l, &p5, &p50, &p95, &sz);
            char spread[160] = "";
            if (pt) {
                double noise = 0.5 * (p95 - p5) / p50;
                excess = rel - fmax(range, isfinite(noise) ? noise : 0);
                int sev2 = excess >= R->base_rel_degraded ? GC_V_DEGRADED
                         : excess >= R->base_rel_suspect  ? GC_V_SUSPECT : GC_V_OK;
                snprintf(spread, sizeof spread, "its samples at %.0f MiB: p5/p50/p95 %.4g/%.4g/%.4g GB/s, "
                         "spread %.1f%%", sz / 1048576, p5 / 1e9, p50 / 1e9, p95 / 1e9, 100 * noise);
                if (!sev2)
                    rc = det_add_note(d, v, "%s bandwidth %.4g GB/s vs %s %.4g GB/s (%+.1f%%) within %s: "
                                      "a noisy host, not blamed; measure it again",
                                      GC_NOTE_NOISY, xb / 1e9, own ? "this GPU's earlier" : "the SKU's baseline",
                                      ref / 1e9, -100 * rel, spread);
                if (!sev2)
                    v->noted = GC_NOTED_NOISY_HOST;
                sev = sev2;
            }
            if (sev && !rc)
                rc = det_add_reason(v, "baseline", "beta_bps", xb, ref, -rel, "relative", sev,
                                    "bandwidth %.4g GB/s vs %s %.4g GB/s (%+.1f%%%s%s)", xb / 1e9,
                                    own ? "this GPU's earlier" : "the SKU's baseline", ref / 1e9,
                                    -100 * rel, pt ? "; beyond " : "", spread);
        }
    }
    return rc;
}

/* Each group's peers' statistics from the links' bandwidths (bw), the
 * links of a group in link order; size: each group's number of links. */
static int group_stats(gc_detect *d, const uint32_t *lgroup, const uint32_t *lhost, const double *bw,
                       size_t ngroups, size_t *size, lgstat *st, double *hmed, double *hsig)
{
    const gc_rules *R = d->r;
    size_t nl = d->nl;
    size_t *end = calloc(ngroups + 1, sizeof *end);
    uint32_t *byg = malloc(nl * sizeof *byg), *hs = malloc(nl * sizeof *hs);
    double *xs = malloc(nl * sizeof *xs), *t = malloc(nl * sizeof *t), *hm = malloc(nl * sizeof *hm);
    double *hg = malloc(nl * sizeof *hg);
    int rc = end && byg && xs && hs && t && hm && hg ? 0 : GC_ENOMEM;
    for (size_t i = 0; !rc && i < 2 * nl; i++)
        hmed[i] = hsig[i] = NAN;
    for (size_t i = 0; !rc && i < nl; i++)
        end[lgroup[i] + 1]++;
    for (size_t k = 0; !rc && k < ngroups; k++) {
        size[k] = end[k + 1];
        end[k + 1] += end[k];
    }
    for (size_t i = 0; !rc && i < nl; i++)
        byg[end[lgroup[i]]++] = (uint32_t)i;   /* end[k] is now the end of group k */
    size_t start = 0;
    for (size_t k = 0; !rc && k < ngroups; k++) {
        size_t n = end[k] - start;
        const uint32_t *m = byg + start;
        start = end[k];
        int by_host = n > 0 && lhost[m[0]] != DET_NO_NODE;
        st[k].zs = R->z_suspect, st[k].zd = R->z_degraded;
        for (int w = 0; w < 2 && !rc && n >= (size_t)R->min_peers; w++) {
            for (size_t j = 0; j < n; j++) {
                xs[j] = bw[2 * m[j] + (size_t)w];
                hs[j] = lhost[m[j]];
                by_host &= hs[j] != DET_NO_NODE;
            }
            if (by_host) {
                if ((rc = host_stats(R, xs, hs, n, hm, hg, t, &st[k], w)))
                    break;
                for (size_t j = 0; j < n; j++)
                    hmed[2 * m[j] + (size_t)w] = hm[j], hsig[2 * m[j] + (size_t)w] = hg[j];
                st[k].zs = fmax(R->z_host, gc_det_z_for(R->fleet_fp_rate, (double)st[k].hosts));
                st[k].zd = st[k].zs * R->z_degraded / R->z_suspect;
                continue;
            }
            rc = robust(xs, n, R->sigma_floor_rel, &st[k].med[w], &st[k].sigma[w], &st[k].used[w]);
            st[k].judged[w] = st[k].used[w] >= (size_t)R->min_peers && st[k].med[w] > 0;
        }
    }
    free(end), free(byg), free(xs), free(hs), free(t), free(hm), free(hg);
    return rc;
}

/* A group of network links judged against the links of its good nodes:
 * one slow NIC slows every link of its node, and where each node is in
 * a large share of the links (4 nodes: half) the median over all of them
 * hides it (gc_net_slow_ends). idx: the group's links (n). */
static int net_group(gc_detect *d, const uint32_t *idx, size_t n, const double *bw, lgstat *st)
{
    const gc_rules *R = d->r;
    size_t nids = d->nodes.n;
    double *v = malloc((n ? n : 1) * sizeof *v);
    uint32_t *ends = malloc((n ? n : 1) * 2 * sizeof *ends);
    uint8_t *slow = calloc(nids ? nids : 1, 1);
    int rc = v && ends && slow ? 0 : GC_ENOMEM;
    for (size_t j = 0; !rc && j < n; j++) {
        ends[2 * j] = d->ls[idx[j]].src_node;
        ends[2 * j + 1] = d->ls[idx[j]].dst_node;
    }
    /* the slow ends from the bandwidth at the largest size (measured, not
     * fitted), else the model's */
    for (int w = 1; !rc && w >= 0; w--) {
        if (!st->judged[w])
            continue;
        for (size_t j = 0; j < n; j++)
            v[j] = bw[2 * idx[j] + (size_t)w];
        if (gc_net_slow_ends(v, ends, n, nids, R, slow) < 0)
            rc = GC_ENOMEM;
        break;
    }
    if (!rc && d->nnet_slow < nids) {
        uint8_t *ns = realloc(d->net_slow, nids);
        if (ns) {
            memset(ns + d->nnet_slow, 0, nids - d->nnet_slow);
            d->net_slow = ns, d->nnet_slow = nids;
        } else {
            rc = GC_ENOMEM;
        }
    }
    for (size_t k = 0; !rc && k < nids; k++)
        d->net_slow[k] |= slow[k];
    /* the model bandwidth only where no measured top is: a fit through a
     * latency-bound small size and one large one over TCP moved 4% between
     * alike pairs of a healthy test bed (one came out degraded while its
     * top was above the median); the top is what the NIC delivers */
    if (st->judged[1])
        st->judged[0] = 0;
    for (int w = 0; w < 2 && !rc; w++) {
        if (!st->judged[w])
            continue;
        for (size_t j = 0; j < n; j++)
            v[j] = bw[2 * idx[j] + (size_t)w];
        if (gc_net_reference(v, ends, n, slow, R, &st->med[w], &st->sigma[w], &st->used[w]))
            rc = GC_ENOMEM;
        st->judged[w] = st->used[w] >= (size_t)R->min_peers && st->med[w] > 0;
    }
    free(v), free(ends), free(slow);
    return rc;
}

/* Every group of network links through net_group. */
static int net_groups(gc_detect *d, const uint32_t *lgroup, const double *bw, size_t ngroups,
                      lgstat *st)
{
    size_t nl = d->nl, nn = 0;
    for (size_t i = 0; i < nl; i++)
        nn += d->ls[i].network;
    if (!nn)
        return 0;
    uint32_t *net = malloc(nn * sizeof *net), *idx = malloc(nn * sizeof *idx);
    uint8_t *done = calloc(ngroups ? ngroups : 1, 1);
    int rc = net && idx && done ? 0 : GC_ENOMEM;
    for (size_t i = 0, k = 0; !rc && i < nl; i++)
        if (d->ls[i].network)
            net[k++] = (uint32_t)i;
    for (size_t a = 0; !rc && a < nn; a++) {
        uint32_t g = lgroup[net[a]];
        if (done[g])
            continue;
        done[g] = 1;
        size_t n = 0;
        for (size_t b = a; b < nn; b++)
            if (lgroup[net[b]] == g)
                idx[n++] = net[b];
        if (n >= (size_t)d->r->min_peers)
            rc = net_group(d, idx, n, bw, &st[g]);
    }
    free(net), free(idx), free(done);
    return rc;
}

/* Link i's peers (its group's size, note and findings), then its second
 * measurement; its level noted in its side. */
static int link_peers(gc_detect *d, size_t i, size_t n, const lgstat *st, const double *bw, const double *hmed,
                      const double *hsig)
{
    const gc_rules *R = d->r;
    static const char *const what[2] = { "beta_bps", "top_bandwidth_bps" };
    gc_verdict *v = &d->v[d->ng + i];
    int rc = 0;
    v->peers = (int)n;
    v->used_peers = n >= (size_t)R->min_peers;
    if (n < (size_t)R->min_peers)
        rc = det_add_note(d, v, "%zu link(s) of this class (< %d): judged from %s", n, R->min_peers,
                          v->used_baseline ? "the baseline and limits alone"
                          : d->base ? "limits alone (the baseline has nothing for this SKU)"
                                    : "limits alone (no baseline given)");
    for (int w = 0; w < 2 && !rc && n >= (size_t)R->min_peers; w++) {
        double x = bw[2 * i + (size_t)w], med = st->med[w], sigma = st->sigma[w];
        double hm = hmed[2 * i + (size_t)w], hs = hsig[2 * i + (size_t)w];
        if (st->hosts && isfinite(x) && hm > 0 && hs > 0) {
            /* against its own host's other links (at least min_peers - 1 of them) */
            double zo = (hm - x) / hs, ro = (hm - x) / hm;
            int so = zo >= R->z_degraded && ro >= R->rel_degraded ? GC_V_DEGRADED
                   : zo >= R->z_suspect && ro >= R->rel_suspect   ? GC_V_SUSPECT : GC_V_OK;
            if (so && (rc = det_add_reason(v, "peers", what[w], x, hm, (x - hm) / hs, "robust_z", so,
                                           "%s %.4g GB/s vs its host's other links' median %.4g GB/s "
                                           "(%+.1f%%, robust z %+.1f)",
                                           w ? "bandwidth at the largest size" : "model bandwidth",
                                           x / 1e9, hm / 1e9, -100 * ro, (x - hm) / hs)))
                break;
            if (so)
                continue;
        }
        if (!st->judged[w] || !isfinite(x))
            continue;
        double z = (med - x) / sigma, rel = (med - x) / med;
        int sev = z >= st->zd && rel >= R->rel_degraded ? GC_V_DEGRADED
                : z >= st->zs && rel >= R->rel_suspect   ? GC_V_SUSPECT : GC_V_OK;
        if (sev && st->hosts)
            rc = det_add_reason(v, "peers", what[w], x, med, (x - med) / sigma, "robust_z", sev,
                                "%s %.4g GB/s vs the hosts' median %.4g GB/s (%+.1f%%, z %+.1f over "
                                "%zu hosts' spread, threshold %.2g)",
                                w ? "bandwidth at the largest size" : "model bandwidth", x / 1e9,
                                med / 1e9, -100 * rel, (x - med) / sigma, st->hosts, st->zs);
        else if (sev)
            rc = det_add_reason(v, "peers", what[w], x, med, (x - med) / sigma, "robust_z", sev,
                                "%s %.4g GB/s vs peers' median %.4g GB/s (%+.1f%%, robust z %+.1f over %zu links)",
                                w ? "bandwidth at the largest size" : "model bandwidth", x / 1e9,
                                med / 1e9, -100 * rel, (x - med) / sigma, st->used[w]);
    }
    if (!rc)
        rc = det_temper_link(d, &d->l[i], v);
    d->ls[i].level = (uint8_t)v->level;
    return rc;
}

int det_note_noisy_links(gc_detect *d, const long *lsrc, const long *ldst)
{
    int rc = 0;
    for (size_t i = 0; i < d->nl && !rc; i++) {
        const gc_verdict *lv = &d->v[d->ng + i];
        long ge = lsrc[i] >= 0 ? lsrc[i] : ldst[i];
        if (lv->noted != GC_NOTED_NOISY_HOST || lv->level != GC_V_OK || ge < 0 ||
            (lsrc[i] >= 0 && ldst[i] >= 0))
            continue;
        gc_verdict *gv = &d->v[ge];
        if (gv->level != GC_V_OK || gv->noted == GC_NOTED_NOISY_HOST_LINK)
            continue;   /* one mention a GPU, whatever its links */
        gv->noted = GC_NOTED_NOISY_HOST_LINK;
        rc = det_add_note(d, gv, GC_NOTE_HOST_LINK " %s ok with a note: a noisy host, not this GPU",
                          lv->subject);
    }
    return rc;
}

int det_judge_links(gc_detect *d, strtab *ids, long *lsrc, long *ldst)
{
    size_t nl = d->nl;
    if (!nl)
        return 0;
    double *bw = malloc(2 * nl * sizeof *bw);
    uint32_t *lgroup = malloc(nl * sizeof *lgroup), *lhost = malloc(nl * sizeof *lhost);
    link_memo *memo = calloc(1, sizeof *memo);
    size_t *size = NULL;
    lgstat *st = NULL;
    double *hmed = malloc(2 * nl * sizeof *hmed);   /* per link and bandwidth: its host's median */
    double *hsig = malloc(2 * nl * sizeof *hsig);   /* and its links' sigma about it */
    int rc = bw && lgroup && lhost && memo && hmed && hsig ? 0 : GC_ENOMEM;
    for (size_t i = 0; i < nl && !rc; i++) {
        rc = link_first(d, ids, i, lsrc, ldst, lgroup, bw, memo);
        /* a link with a host end (not a network one): its host's node */
        const gc_det_link *l = &d->l[i].l;
        lhost[i] = d->ls[i].network ? DET_NO_NODE : !l->src.is_gpu ? d->ls[i].src_node
                 : !l->dst.is_gpu ? d->ls[i].dst_node : DET_NO_NODE;
    }
    size_t ngroups = d->groups.n;
    if (!rc && (!(size = calloc(ngroups + 1, sizeof *size)) || !(st = calloc(ngroups + 1, sizeof *st))))
        rc = GC_ENOMEM;
    if (!rc)
        rc = group_stats(d, lgroup, lhost, bw, ngroups, size, st, hmed, hsig);
    if (!rc)
        rc = net_groups(d, lgroup, bw, ngroups, st);
    for (size_t i = 0; i < nl && !rc; i++)
        rc = link_peers(d, i, size[lgroup[i]], &st[lgroup[i]], bw, hmed, hsig);
    if (memo)
        free(memo->gvstr);
    free(bw), free(lgroup), free(lhost), free(memo), free(size), free(st), free(hmed), free(hsig);
    return rc;
}
