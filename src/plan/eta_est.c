/* The ETA's per-phase ratios of time to budget. See eta_est.h. */
#include "plan/eta_est.h"

#include <math.h>
#include <string.h>

/* Seconds of budget a phase's prior weighs: past a few seconds of a
 * phase's items its own ratio rules. */
#define ETA_PRIOR_WEIGHT_S 2.0

double gc_eta_prior(gc_phase p)
{
    /* the default plan on one H100, its progress lines
     * (lab/fleet/h100-2026-12-07-afcf375b5117-eta.txt) laid over the
     * plan's per-item budgets: on-GPU items took about 0.27 s per second
     * of budget, the host copies about 1.04 (their largest sizes run a
     * sample past the budget); the pair and net phases are transfers too.
     * tools/eta-check.py prints each phase's figure of a run. */
    return p == GC_PHASE_GPU ? 0.3 : 1.0;
}

void gc_eta_est_tell(gc_eta_est *e, double now_s, const gc_eta_left *l)
{
    if (!e->known) {
        memset(e, 0, sizeof *e);
        e->known = 1;
        e->at_s = now_s;
        e->left = *l;
        return;
    }
    double dt = now_s - e->at_s, down[GC_NPHASES], all = 0;
    double fixed = fmax(0, e->left.fixed_s - l->fixed_s);
    double rest = dt > fixed ? dt - fixed : 0;
    for (int p = 0; p < GC_NPHASES; p++)
        all += down[p] = fmax(0, e->left.scalable_s[p] - l->scalable_s[p]);
    for (int p = 0; all > 0 && p < GC_NPHASES; p++) {
        e->budget_done_s[p] += down[p];
        e->took_s[p] += rest * down[p] / all;
    }
    e->at_s = now_s;
    e->left = *l;
}

double gc_eta_est_ratio(const gc_eta_est *e, gc_phase p)
{
    double r = (e->took_s[p] + gc_eta_prior(p) * ETA_PRIOR_WEIGHT_S) /
               (e->budget_done_s[p] + ETA_PRIOR_WEIGHT_S);
    return r < 0.02 ? 0.02 : r > 5.0 ? 5.0 : r;
}

double gc_eta_est_left(const gc_eta_est *e, double now_s)
{
    if (!e->known)
        return -1;
    double budget = e->left.fixed_s, eta = e->left.fixed_s;
    for (int p = 0; p < GC_NPHASES; p++) {
        budget += e->left.scalable_s[p];
        eta += e->left.scalable_s[p] * gc_eta_est_ratio(e, (gc_phase)p);
    }
    if (budget <= 0)
        return -1;
    eta -= now_s - e->at_s;
    return eta > 0 ? eta : 0;
}
