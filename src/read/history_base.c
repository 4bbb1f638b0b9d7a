/* `check --baseline DB`: each GPU against its own past. See history.h.
 *
 * Steps are judged by detect.c as for any baseline: the history hands it,
 * per GPU UUID, the values of the GPU's last good runs of the same plan
 * (like with like: another plan measures other kernels and sizes), and
 * gc_baseline takes their median. Drift is judged here, because only the
 * history knows the times: the Theil-Sen slope of those runs and this one,
 * robust to a few bad runs, becomes a `drift` reason of the GPU's verdict.
 * Like with like also means the same method (registry.c): a value is
 * compared only with past values its benchmark measured the same way. */
#include "read/history.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "census/registry.h"
#include "util/fit.h"
#include "util/timeutil.h"
#include "util/stats.h"

#define MONTH_S (30.0 * 86400.0)
#define DAY_S 86400.0

typedef struct drift_in {
    const gc_rules *r;
    const char *uuid, *metric, *unit;
    int better;
    long long now_s;
    double now;
} drift_in;

/* A drift reason when past + now trend in the bad direction. 1: found. */
static int drift_of(const drift_in *in, const gc_hpoint *p, size_t n, gc_reason *out)
{
    const gc_rules *R = in->r;
    size_t m = n + 1;
    if (m < (size_t)R->hist_drift_min_runs || !isfinite(in->now))
        return 0;
    double *x = malloc(m * sizeof *x), *y = malloc(m * sizeof *y), *res = malloc(m * sizeof *res);
    int found = 0;
    gc_line line;
    if (!x || !y || !res)
        goto out;
    for (size_t i = 0; i < n; i++) {
        x[i] = (double)p[i].t_s - (double)in->now_s;   /* seconds before now */
        y[i] = p[i].value;
    }
    x[n] = 0;
    y[n] = in->now;
    double span_s = -x[0];
    if (span_s < R->hist_drift_min_days * DAY_S || gc_fit_theil_sen(x, y, m, &line))
        goto out;
    memcpy(res, y, m * sizeof *res);
    double med = gc_median(res, m);
    for (size_t i = 0; i < m; i++)
        res[i] = fabs(y[i] - (line.intercept + line.slope * x[i]));
    double sigma = fmax(1.4826 * gc_median(res, m), R->sigma_floor_rel * fabs(med));
    double rel_month = med != 0 ? line.slope * MONTH_S / fabs(med) : 0;
    double bad = in->better == GC_BETTER_HIGHER ? -rel_month : rel_month;
    double change = fabs(line.slope) * span_s;
    if (bad < R->hist_drift_rel_per_month || change < R->hist_drift_z * sigma)
        goto out;
    memset(out, 0, sizeof *out);
    snprintf(out->rule, sizeof out->rule, "drift");
    snprintf(out->metric, sizeof out->metric, "%s", in->metric);
    out->value = in->now;
    out->reference = med;
    out->deviation = rel_month;
    snprintf(out->deviation_unit, sizeof out->deviation_unit, "rel_per_month");
    out->severity = GC_V_SUSPECT;
    snprintf(out->detail, sizeof out->detail,
             "%+.1f%% a month over %zu runs in %.0f days (Theil-Sen; limit %.1f%%): %.4g %s now, "
             "median %.4g", 100 * rel_month, m, span_s / DAY_S, 100 * R->hist_drift_rel_per_month,
             in->now, in->unit, med);
    found = 1;
out:
    free(x), free(y), free(res);
    return found;
}

/* Per benchmark (registry index), the values of the run judged that had
 * past runs but none of their own method: not compared. */
typedef struct skipped {
    size_t values[GC_HC_NBENCH];
    int want[GC_HC_NBENCH];          /* the run's method */
    uint64_t past[GC_HC_NBENCH];     /* bit m: their past holds method m; bit 0: unknown */
} skipped;

/* The series of one value of method `want` (0: its benchmark unknown, any
 * method): into the baseline, and its drift. With no past value of its
 * method, the past of other methods goes in under theirs (the detector
 * then notes it, compares nothing) and into sk. */
static int one(gc_history *h, gc_baseline *b, const char *key, const char *sku, gc_hquery *q,
               const drift_in *in, size_t *ndrift, skipped *sk, gc_err *err)
{
    gc_hpoint *p;
    size_t n;
    int rc = gc_history_series(h, q, &p, &n, err);
    for (size_t i = 0; !rc && i < n; i++)
        if (gc_baseline_add_method(b, sku, q->uuid, NULL, key, q->method, p[i].value, p[i].value,
                                   p[i].value))
            rc = gc_fail(err, GC_ENOMEM, "out of memory");
    gc_reason r;
    if (!rc && drift_of(in, p, n, &r)) {
        if (gc_baseline_add_reason(b, q->uuid, &r))
            rc = gc_fail(err, GC_ENOMEM, "out of memory");
        (*ndrift)++;
    }
    free(p);
    int bi = gc_det_key_bench(key), want = q->method;
    if (rc || n || want <= 0 || bi < 0 || bi >= GC_HC_NBENCH)
        return rc;
    q->method = 0;   /* the past of any method: what is there instead */
    rc = gc_history_series(h, q, &p, &n, err);
    q->method = want;
    uint64_t past = 0;
    for (size_t i = 0; !rc && i < n; i++) {
        int m = p[i].method;
        past |= 1ull << (m > 0 && m < 64 ? m : 0);
        if (m > 0 && gc_baseline_add_method(b, sku, q->uuid, NULL, key, m, p[i].value, p[i].value,
                                            p[i].value))
            rc = gc_fail(err, GC_ENOMEM, "out of memory");
    }
    if (!rc && n) {
        sk->values[bi]++;
        sk->want[bi] = want;
        sk->past[bi] |= past;
    }
    free(p);
    return rc;
}

/* "not compared ...: l2_bw, method 6: 4 values, whose past runs are of
 * method 5; ..." (a clause per benchmark, ~200 bytes at most) */
static char *skipped_note(const skipped *sk)
{
    size_t cap = 256 * GC_HC_NBENCH, len = 0;
    char *t = malloc(cap);
    for (size_t b = 0; t && b < gc_bench_ndefs && b < GC_HC_NBENCH; b++) {
        if (!sk->values[b])
            continue;
        uint64_t known = sk->past[b] & ~1ull;
        len += (size_t)snprintf(t + len, cap - len, "%s%s, method %d: %zu value%s, whose past runs are of ",
                                len ? "; " : "not compared with the history (no past run of this run's "
                                "method): ", gc_bench_defs[b].name, sk->want[b], sk->values[b],
                                sk->values[b] == 1 ? "" : "s");
        if (known)
            len += (size_t)snprintf(t + len, cap - len, "method%s", known & (known - 1) ? "s" : "");
        for (int m = 1, k = 0; m < 64; m++)
            if (known >> m & 1)
                len += (size_t)snprintf(t + len, cap - len, "%s%d", k++ ? ", " : " ", m);
        if (sk->past[b] & 1)
            len += (size_t)snprintf(t + len, cap - len, "%sunknown method (stored before the history "
                                    "kept method versions)", known ? " and of " : "");
    }
    if (t && !len) {
        free(t);
        t = NULL;
    }
    return t;
}

int gc_history_baseline(gc_history *h, const gc_hcat *c, const gc_rules *r, gc_baseline **out,
                        size_t *ndrift, char **note, gc_err *err)
{
    char src[512], run_key[65];
    snprintf(src, sizeof src, "%.300s (each GPU's last %d good runs of plan %.60s)",
             gc_history_path(h), r->hist_runs, c->plan_name);
    gc_history_run_key(c, run_key);
    *ndrift = 0;
    *note = NULL;
    *out = gc_baseline_new(src);
    skipped *sk = calloc(1, sizeof *sk);
    if (!*out || !sk) {
        gc_baseline_free(*out);
        *out = NULL;
        free(sk);
        return gc_fail(err, GC_ENOMEM, "out of memory");
    }
    long long now_s = gc_iso_parse_s(c->start_time);
    int rc = 0;
    for (size_t i = 0; i < c->ngpus && !rc; i++) {
        const gc_hc_gpu *g = &c->gpus[i];
        for (size_t k = 0; g->uuid[0] && k < g->nparams && !rc; k++) {
            const gc_hc_param *p = &c->params[g->first + k];
            int better = gc_rules_param(r, p->name);
            if (!better)
                continue;
            gc_hquery q = { .uuid = g->uuid, .param = p->name, .plan = c->plan_name,
                            .skip_key = run_key, .good = 1, .method = p->method,
                            .max = (size_t)r->hist_runs };
            drift_in in = { r, g->uuid, p->name, p->unit, better, now_s, p->value };
            rc = one(h, *out, p->name, g->name, &q, &in, ndrift, sk, err);
        }
    }
    for (size_t i = 0; i < c->nlinks && !rc; i++) {
        const gc_hc_link *l = &c->links[i];
        int seen = 0;   /* one series per GPU and class (a GPU has a P2P link per peer) */
        for (size_t j = 0; j < i && !seen; j++)
            seen = !strcmp(c->links[j].uuid, l->uuid) && !strcmp(c->links[j].cls, l->cls);
        if (seen || !l->uuid[0] || !l->sku[0] || !isfinite(l->beta_bps))
            continue;
        char key[200];
        snprintf(key, sizeof key, "link:%s:beta_bps", l->cls);
        gc_hquery q = { .uuid = l->uuid, .link_class = l->cls, .plan = c->plan_name,
                        .skip_key = run_key, .good = 1, .method = l->method,
                        .max = (size_t)r->hist_runs };
        drift_in in = { r, l->uuid, key, "bytes_per_s", GC_BETTER_HIGHER, now_s, l->beta_bps };
        rc = one(h, *out, key, l->sku, &q, &in, ndrift, sk, err);
    }
    if (!rc)
        *note = skipped_note(sk);
    free(sk);
    if (rc) {
        gc_baseline_free(*out);
        *out = NULL;
    }
    return rc;
}

int gc_history_baseline_path(const char *db, const gc_hcat *c, const gc_rules *r, gc_baseline **out,
                             char **note, gc_err *err)
{
    gc_history *h;
    size_t ndrift;
    *note = NULL;
    int rc = gc_history_open(db, 0, GC_HISTORY_TIMEOUT_S, &h, err);
    if (!rc)
        rc = gc_history_baseline(h, c, r, out, &ndrift, note, err);
    gc_history_close(h);
    return rc;
}
